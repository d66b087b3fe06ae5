"""Structure pages and document titles on the shared corpus: contents, indexes and lists of
figures are found, and nothing else is; every chunk says whose it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.chunking.headers import COVER_PAGES, document_label, document_title
from app.chunking.structure import structure_pages
from app.core.chunks import INDEX, TOC
from app.core.geometry import page_lines
from app.core.records import PageLines
from app.pdf.reader import extract_document, open_pdf
from tests.helpers.corpus import corpus_path

pytestmark = pytest.mark.corpus


def lines_of(path: Path, first: int | None = None) -> tuple[list[PageLines], str | None]:
    """Returns the lines of the document's pages (only its `first` pages, when given) and its
    metadata title."""
    with open_pdf(path) as pdf:
        if first is not None:
            pdf.select(range(min(first, pdf.page_count)))
        extracted = extract_document(pdf)
    return [page_lines(page) for page in extracted.pages], extracted.title


@pytest.mark.parametrize(
    ("parts", "expected"),
    [
        (("docs", "libtasn1.pdf"), {3: TOC, 35: INDEX, 36: INDEX}),
        # Its contents go on over page 8 without their heading (the appendices, then the
        # list of figures), their entries ending in a page number alone or a dot leader.
        (("docs", "test_3842_NIST_SP800-223.pdf"), {7: TOC, 8: TOC}),
        # Contents lines that open with a section's number ("5.4.1 Mixed vector and array
        # arithmetic . . . 22") are locators, not amounts.
        (
            ("docs", "R-intro.pdf"),
            {**dict.fromkeys(range(3, 7), TOC), **dict.fromkeys(range(108, 113), INDEX)},
        ),
        (("docs", "test_4751_Qwen2_tech_report.pdf"), {2: TOC}),
        (("docs", "tracemonkey.pdf"), {}),
        (("docs", "federal-register-2020-17221.pdf"), {}),
        # A filing's statements run to dot leaders too, but end in amounts.
        (("eval", "docugami_sec10q", "docs", "2022_Q3_AAPL.pdf"), {3: TOC}),
        # "Table of Contents" atop every page is a running link, not a heading.
        (("eval", "docugami_sec10q", "docs", "2023_Q2_INTC.pdf"), {}),
    ],
)
def test_structure_pages(parts: tuple[str, ...], expected: dict[int, str]) -> None:
    pages, _ = lines_of(corpus_path(*parts))
    assert structure_pages(pages) == expected


@pytest.mark.parametrize(
    ("parts", "label"),
    [
        (("docs", "R-intro.pdf"), "An Introduction to R"),
        (
            ("docs", "tracemonkey.pdf"),
            "Trace-based Just-in-Time Type Specialization for Dynamic Languages",
        ),
        (
            ("eval", "docugami_sec10q", "docs", "2022_Q3_AAPL.pdf"),
            "Apple Inc.; Form 10-Q, quarterly period ended June 25, 2022; 2022 Q3 AAPL",
        ),
        (
            ("eval", "financebench_dev", "pdfs", "LOCKHEEDMARTIN_2022_10K.pdf"),
            "LOCKHEED MARTIN CORPORATION; Form 10-K, fiscal year ended December 31, 2022; "
            "LOCKHEEDMARTIN 2022 10K",
        ),
        # The name in small capitals, drawn as "MGM R ESORTS I NTERNATIONAL".
        (
            ("eval", "financebench_dev", "pdfs", "MGMRESORTS_2018_10K.pdf"),
            "MGM RESORTS INTERNATIONAL; Form 10-K, fiscal year ended December 31, 2018; "
            "MGMRESORTS 2018 10K",
        ),
        # The metadata title is the SEC's heading; the cover names the company.
        (
            ("eval", "financebench_dev", "pdfs", "VERIZON_2021_10K.pdf"),
            "Verizon Communications Inc.; Form 10-K, fiscal year ended December 31, 2021; "
            "VERIZON 2021 10K",
        ),
        # The company's name is a logo: the file names it.
        (
            ("eval", "financebench_dev", "pdfs", "COCACOLA_2017_10K.pdf"),
            "COCACOLA_2017_10K; Form 10-K, fiscal year ended December 31, 2017",
        ),
    ],
)
def test_document_label(parts: tuple[str, ...], label: str) -> None:
    path = corpus_path(*parts)
    # A title and a label are read off the first page and a filing's cover only.
    pages, metadata_title = lines_of(path, COVER_PAGES)
    title = document_title(metadata_title, pages, path.stem)
    assert document_label(title, pages, path.name) == label
