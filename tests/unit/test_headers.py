"""Context headers: real titles kept, file names and accession numbers refused."""

from __future__ import annotations

import pytest

from app.chunking.headers import (
    HEADER_MAX_CHARS,
    context_header,
    first_page_heading,
    is_real_title,
)
from tests.helpers.pages import lines_page


@pytest.mark.parametrize(
    ("title", "real"),
    [
        ("Art in Machine Learning", True),
        ("ADBE 10K FY15", True),
        ("Microsoft Word - report.doc", False),
        ("0001410636-21-000101", False),
        ("Document", False),
        ("untitled", False),
        ("thesis_final.pdf", False),
        ("---", False),
    ],
)
def test_is_real_title(title: str, real: bool) -> None:
    assert is_real_title(title) is real


def test_context_header_joins_the_label_and_the_outline_path() -> None:
    assert context_header("Libtasn1", "4 Function reference", "4.1 ASN.1 field functions") == (
        "Libtasn1 > 4 Function reference > 4.1 ASN.1 field functions"
    )
    assert context_header("Libtasn1", "Index", "Index") == "Libtasn1 > Index"
    assert context_header("", None, "Intro") == "Intro"
    assert len(context_header("T" * 300, "c", "s")) == HEADER_MAX_CHARS


def test_a_footnotes_mark_makes_no_line_a_heading() -> None:
    # The box of a line with a raised footnote mark ("UNIX1") is the tallest on the page; the
    # title is set in the largest type.
    lines = ["CVS II: Parallelizing Software Development", "Brian Berliner"]
    lines += ["The program described in this paper fills a need."] * 6
    lines += ["Specifically, UNIX1 kernel development is an excellent example."]
    heights = [12.6, 10.7, *[10.0] * 6, 14.5]
    sizes = [12.0, 10.0, *[10.0] * 6, 10.0]
    page = lines_page(lines, heights=heights, sizes=sizes)
    assert first_page_heading(page) == "CVS II: Parallelizing Software Development"
