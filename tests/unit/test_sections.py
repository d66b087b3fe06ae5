"""Section headings read off how lines are set, on small PDFs made here with PyMuPDF."""

# PyMuPDF leaves its constructors and drawing methods unannotated; these tests call many.
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

import pymupdf

from app.chunking.chunker import chunk_pages
from app.chunking.furniture import find_furniture
from app.chunking.sections import detected_headings
from app.core.geometry import page_lines
from app.core.records import PageText, TocEntry
from app.pdf.reader import extract_document
from tests.helpers.chunks import count_words

BODY = 10.0
PROSE = (
    "Net revenue increased 12%, primarily driven by effective net pricing and higher volume",
    "in the quarter, partially offset by unfavourable mix in the smaller markets it serves.",
)
REASON = (
    "Operating profit increased 26%, primarily reflecting the net revenue growth and the",
    "lower charges of the prior year, partially offset by higher transportation costs.",
)
BOLD_PARAGRAPH = (
    "THE COMPANY MAKES NO REPRESENTATION THAT THE FIGURES IN THIS REPORT WILL BE",
    "ACHIEVED IN ANY LATER PERIOD, AND READERS SHOULD NOT RELY ON THEM AS A FORECAST",
    "OF THE RESULTS OF ANY LATER PERIOD OR OF THE COMPANY AS A WHOLE IN THE FUTURE.",
)


class Sheet:
    """Writes lines down a page, one a line's height below the other."""

    def __init__(self, page: pymupdf.Page) -> None:
        self.page = page
        self.y = 72.0

    def line(self, text: str, *, bold: bool = False, size: float = BODY, x: float = 72) -> None:
        self.page.insert_text((x, self.y), text, fontsize=size, fontname="hebo" if bold else "helv")
        self.y += size * 1.4

    def row(self, *cells: str, bold: bool = False) -> None:
        for index, cell in enumerate(cells):
            font = "hebo" if bold else "helv"
            self.page.insert_text((72 + 160 * index, self.y), cell, fontsize=BODY, fontname=font)
        self.y += BODY * 1.4

    def gap(self) -> None:
        self.y += BODY


def read(doc: pymupdf.Document) -> list[PageText]:
    return extract_document(pymupdf.open("pdf", doc.tobytes())).pages


def headings_of(pages: list[PageText]) -> list[TocEntry]:
    lines = [page_lines(page) for page in pages]
    return detected_headings(lines, find_furniture(lines))


def division_review() -> list[PageText]:
    doc = pymupdf.open()
    sheet = Sheet(doc.new_page())
    sheet.line("Division Review", bold=True, size=14)
    sheet.gap()
    sheet.row("Division", "Net revenue", "Operating profit", bold=True)
    sheet.row("FLNA", "24,755", "6,130")
    sheet.row("PBNA", "25,276", "2,442")
    sheet.gap()
    sheet.line("FLNA", bold=True)
    for text in PROSE:
        sheet.line(text)
    sheet.gap()
    sheet.line("PBNA", bold=True)
    for text in PROSE:
        sheet.line(text)
    sheet.gap()
    for text in REASON:
        sheet.line(text)
    sheet.gap()
    for text in BOLD_PARAGRAPH:
        sheet.line(text, bold=True)
    return read(doc)


def test_reader_says_which_lines_are_bold_and_their_size() -> None:
    page = division_review()[0]
    styles = {
        line: page.line_styles[index] for index, line in enumerate(page_lines(page).line_texts())
    }
    assert styles["Division Review"].bold and styles["Division Review"].size == 14
    assert styles["FLNA"].bold and styles["FLNA"].size == BODY
    assert not styles[PROSE[0]].bold


def test_bold_lines_alone_on_their_row_are_headings() -> None:
    titles = [entry.title for entry in headings_of(division_review())]
    # The table's bold column heads share a row and the bold paragraph runs on: neither is
    # a heading.
    assert titles == ["Division Review", "FLNA", "PBNA"]


def test_detected_headings_know_where_their_text_starts() -> None:
    page = division_review()[0]
    for entry in headings_of([page]):
        assert entry.offset is not None
        assert page.text[entry.offset :].startswith(entry.title)


def test_a_chunk_under_a_heading_names_it_though_its_text_does_not() -> None:
    pages = division_review()
    chunks = chunk_pages(
        pages, headings_of(pages), max_tokens=60, overlap_tokens=0, count_tokens=count_words
    )
    reason = next(chunk for chunk in chunks if "Operating profit increased 26%" in chunk.content)
    assert reason.section == "PBNA"
    assert "PBNA" in reason.context_header
    # A chunk ends where a heading begins: FLNA's reasons are no part of PBNA's chunk.
    assert all(
        not ("FLNA" in chunk.content and "Operating profit increased" in chunk.content)
        for chunk in chunks
    )


def test_a_heading_written_on_most_pages_is_a_running_one() -> None:
    doc = pymupdf.open()
    for _ in range(5):
        sheet = Sheet(doc.new_page())
        sheet.line("Quarterly Review", bold=True, x=300)
        for text in (*PROSE, *REASON):
            sheet.line(text)
    assert headings_of(read(doc)) == []


def test_a_heading_wrapped_over_two_lines_is_one() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc.new_page())
    sheet.line("Management's Discussion and Analysis of Financial Condition and", bold=True)
    sheet.line("Results of Operations", bold=True)
    for text in (*PROSE, *REASON):
        sheet.line(text)
    assert [entry.title for entry in headings_of(read(doc))] == [
        "Management's Discussion and Analysis of Financial Condition and Results of Operations"
    ]


def test_pages_of_a_scan_read_by_ocr_have_no_styles_and_no_headings() -> None:
    page = division_review()[0]
    unstyled = PageText(
        number=page.number + 1,
        text=page.text,
        width=page.width,
        height=page.height,
        char_boxes=page.char_boxes,
        line_ids=page.line_ids,
        ocr_confidence=0.9,
    )
    assert headings_of([unstyled]) == []
    assert {entry.page for entry in headings_of([page, unstyled])} == {page.number}


def two_column_paper() -> list[PageText]:
    """A page of a paper set in two columns: each column's heading shares its row with the
    other column's prose, and a figure's caption is set bold."""
    doc = pymupdf.open()
    page = doc.new_page()
    left, right = Sheet(page), Sheet(page)
    right.y += BODY * 1.4 * 3
    column_prose = (
        "Because traces are in SSA form and have no join",
        "points, certain optimizations are easy to make",
        "and run in just two loop passes over the trace",
        "one forward and one backward as it is recorded",
    )
    left.line("5.1 Optimizations", bold=True)
    for _ in range(3):
        for text in column_prose:
            left.line(text)
        left.gap()
    left.line("Figure 9. Tagged values in the interpreter", bold=True)
    for text in column_prose:
        right.line(text, x=310)
    right.line("5.2 Register Allocation", bold=True, x=310)
    for _ in range(2):
        for text in column_prose:
            right.line(text, x=310)
        right.gap()
    return read(doc)


def test_a_heading_beside_the_other_columns_prose_is_one() -> None:
    titles = [entry.title for entry in headings_of(two_column_paper())]
    # The caption is no heading, set bold as it is.
    assert titles == ["5.1 Optimizations", "5.2 Register Allocation"]


def test_a_page_set_all_in_bold_has_no_bold_headings() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc.new_page())
    sheet.line("Performance Measures", size=14)
    # Items apart from each other, so that none runs on into the next.
    for letter in "abcdefghijklmnopqrst":
        item = f"({letter}) earnings before or after interest, taxes and other items"
        sheet.line(item, bold=True)
        sheet.gap()
        sheet.gap()
    assert [entry.title for entry in headings_of(read(doc))] == ["Performance Measures"]


def test_a_title_in_capitals_a_point_over_the_body_is_a_heading() -> None:
    doc = pymupdf.open()
    sheet = Sheet(doc.new_page())
    sheet.line("ESTIMATED COSTS", size=BODY + 1)
    for text in PROSE:
        sheet.line(text)
    sheet.gap()
    sheet.line("Estimated costs", size=BODY + 1)
    for text in REASON:
        sheet.line(text)
    assert [entry.title for entry in headings_of(read(doc))] == ["ESTIMATED COSTS"]


def test_a_heading_beside_a_line_set_upright_in_the_margin_is_one() -> None:
    # A register prints a stamp upright in its margin, spanning many rows of the page.
    doc = pymupdf.open()
    page = doc.new_page()
    sheet = Sheet(page)
    sheet.y = 300.0
    sheet.line("Background", bold=True)
    for text in (*PROSE, *REASON):
        sheet.line(text)
    page.insert_text((30, 360), "printed on the stamping machine", fontsize=6, rotate=90)
    titles = [entry.title for entry in headings_of(read(doc))]
    assert titles == ["Background"]
