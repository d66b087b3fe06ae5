"""Context headers: real titles kept, file names and accession numbers refused."""

from __future__ import annotations

import pytest

from app.chunking.headers import HEADER_MAX_CHARS, context_header, is_real_title


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
