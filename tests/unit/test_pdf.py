"""PDF reading on small PDFs made here with PyMuPDF: errors, reading order, layout, outline."""

# PyMuPDF leaves its constructors and drawing methods unannotated; these tests call many.
# mypy: disable-error-code="no-untyped-call"

from __future__ import annotations

from pathlib import Path

import numpy as np
import pymupdf
import pytest

from app.core.errors import (
    CitelockError,
    CorruptPdf,
    EmptyFile,
    EncryptedPdf,
    InvalidRequest,
    NoPages,
    NotAPdf,
    NoTextLayer,
    PageNotFound,
)
from app.core.geometry import page_lines
from app.core.records import NO_LINE, PageText
from app.pdf.annotations import locate_marks
from app.pdf.layout import Fragment, reading_order
from app.pdf.reader import (
    check_text_layer,
    extract_document,
    extract_page,
    open_pdf,
    page_needs_ocr,
    render_page_png,
)
from tests.helpers.pdfs import type3_pdf

ZERO_PAGES = (
    b"%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R>>endobj\n"
    b"2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
)
LEFT = [
    "The left column begins here and it runs",
    "on with an exam-",
    "ple of hyphenation in it.",
]
RIGHT = ["The right column follows the left one", "and it is read after it."]


def save(doc: pymupdf.Document, path: Path, **options: object) -> Path:
    doc.save(path, **options)
    return path


def text_pdf(path: Path, lines: list[str]) -> Path:
    doc = pymupdf.open()
    page = doc.new_page()
    for index, line in enumerate(lines):
        page.insert_text((72, 100 + 14 * index), line, fontsize=11)
    return save(doc, path)


def two_column_page() -> pymupdf.Page:
    """Returns a page with a centred title over two columns whose lines share baselines."""
    page = pymupdf.open().new_page(width=612, height=792)
    page.insert_text((200, 60), "A Study of Two Columns", fontsize=16)
    for index, line in enumerate(LEFT):
        # Lines of one column start at slightly different x: PDFs are rarely exact.
        page.insert_text((72 + 0.8 * (index % 2), 120 + 14 * index), line, fontsize=11)
    for index, line in enumerate(RIGHT):
        page.insert_text((320, 120 + 14 * index), line, fontsize=11)
    return page


@pytest.fixture(scope="module")
def two_columns() -> PageText:
    return extract_page(two_column_page())


def test_two_columns_read_column_by_column(two_columns: PageText) -> None:
    text = two_columns.text
    assert text.startswith("A Study of Two Columns\n\n")
    assert text.index("left column begins") < text.index("example of hyphenation")
    assert text.index("hyphenation in it.") < text.index("The right column follows")
    assert text.index("right column follows") < text.index("read after it.")


def test_hyphenated_line_end_is_joined_without_its_hyphen(two_columns: PageText) -> None:
    start = two_columns.text.index("example")
    assert "exam-" not in two_columns.text
    ids = two_columns.line_ids[start : start + len("example")]
    assert ids[0] == ids[3] != ids[4] == ids[6]
    assert not np.isnan(two_columns.char_boxes[start : start + 7]).any()


def test_arrays_follow_the_text(two_columns: PageText) -> None:
    page = two_columns
    assert page.char_boxes.shape == (len(page.text), 4)
    assert page.char_boxes.dtype == np.float32 and page.line_ids.dtype == np.int32
    inserted = page.line_ids == NO_LINE
    assert np.isnan(page.char_boxes[inserted]).all()
    assert not np.isnan(page.char_boxes[~inserted]).any()
    assert all(page.text[i] in " \n" for i in np.flatnonzero(inserted))
    drawn = page.line_ids[~inserted]
    assert (np.diff(drawn) >= 0).all()


def test_real_spaces_keep_their_box_and_line(two_columns: PageText) -> None:
    space = two_columns.text.index("left column") + len("left")
    assert two_columns.text[space] == " "
    assert two_columns.line_ids[space] == two_columns.line_ids[space - 1]
    assert not np.isnan(two_columns.char_boxes[space]).any()


def test_whitespace_is_tidy(two_columns: PageText) -> None:
    text = two_columns.text
    assert text == text.strip()
    assert "  " not in text and "\n\n\n" not in text and " \n" not in text


def test_ligature_expands_into_letters_with_their_own_boxes() -> None:
    page = pymupdf.open().new_page()
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 72), "the \ufb01rst o\ufb03ce", font=pymupdf.Font("tiro"), fontsize=12)
    writer.write_text(page)
    extracted = extract_page(page)
    assert extracted.text == "the first office"
    f, i = extracted.char_boxes[4], extracted.char_boxes[5]
    assert f[2] == pytest.approx(i[0]) and f[2] - f[0] > 1 and i[2] - i[0] > 1


def test_a_tex_ligature_a_font_gives_no_unicode_for_is_read_as_its_letters() -> None:
    # dvips's bitmap fonts in T1 encoding: MuPDF passes "fi" on as code 0x1C, "ff" as 0x1B.
    pdf = type3_pdf(b"The scienti\x1cc \x1crst o\x1b \x1cle")
    extracted = extract_page(pymupdf.open(stream=pdf)[0])
    assert extracted.text == "The scientific first off file"
    f, i = extracted.char_boxes[11], extracted.char_boxes[12]
    assert f[2] == pytest.approx(i[0]) and f[2] - f[0] > 1 and i[2] - i[0] > 1


def test_a_glyph_mapped_to_half_a_surrogate_pair_is_read_as_the_replacement_character() -> None:
    # LaTeX's font guide maps a textcomp glyph to D80C alone: text no tokenizer, JSON or
    # PostgreSQL takes; in its place, one character keeps every offset after it.
    pdf = type3_pdf(b"ab c", to_unicode={0x61: "0061", 0x62: "D80C", 0x63: "0063"})
    extracted = extract_page(pymupdf.open(stream=pdf)[0])
    assert extracted.text == "a\ufffd c"
    assert len(extracted.char_boxes) == len(extracted.text)


def test_a_tex_accent_drawn_over_its_letter_is_read_as_the_accented_letter() -> None:
    # TeX's OT1 fonts have no accented letters: it draws the accent over the letter (over a
    # dotless i for "ï"), and MuPDF reads "B\u00a8arenreiter". A grave beside a word quotes it.
    page = pymupdf.open().new_page()
    writer, font = pymupdf.TextWriter(page.rect), pymupdf.Font("tiro")
    writer.append((72, 72), "B", font=font, fontsize=12)
    at = writer.last_point.x
    writer.append((at + 1, 72), "\u00a8", font=font, fontsize=12)
    writer.append((at, 72), "arenreiter and `quoted' Lo", font=font, fontsize=12)
    at = writer.last_point.x
    writer.append((at + 0.5, 72), "\u00a8", font=font, fontsize=12)
    writer.append((at, 72), "\u0131c", font=font, fontsize=12)
    writer.write_text(page)
    extracted = extract_page(page)
    assert extracted.text == "B\u00e4renreiter and `quoted' Lo\u00efc"
    a, r = extracted.char_boxes[1], extracted.char_boxes[2]
    assert a[2] == pytest.approx(r[0], abs=0.5) and a[2] - a[0] > 1


def test_a_small_tilde_over_no_letter_is_read_as_a_tilde() -> None:
    # groff draws "~/.bashrc" with the accent's glyph, which MuPDF reads as "\u02dc".
    page = pymupdf.open().new_page()
    writer = pymupdf.TextWriter(page.rect)
    writer.append((72, 72), "reads \u02dc/.bashrc", font=pymupdf.Font("tiro"), fontsize=12)
    writer.write_text(page)
    assert extract_page(page).text == "reads ~/.bashrc"


def test_gap_without_a_space_gets_an_inserted_space() -> None:
    page = pymupdf.open().new_page()
    page.insert_text((72, 72), "Hello", fontsize=11)
    page.insert_text((140, 72), "World", fontsize=11)
    extracted = extract_page(page)
    assert extracted.text == "Hello World"
    assert extracted.line_ids[5] == NO_LINE and np.isnan(extracted.char_boxes[5]).all()
    assert extracted.line_ids[0] == extracted.line_ids[6]


def test_an_underscore_drawn_as_a_rule_is_read_as_one() -> None:
    # TeX's typewriter fonts lack "_": texinfo draws a short rule where PyMuPDF reads a space.
    page = pymupdf.open().new_page()
    page.insert_text((72, 72), "double tol int (default: 1e-5)", fontname="cour", fontsize=10)
    page.draw_line((132.5, 72.8), (137.5, 72.8), width=0.4)  # under the space after "tol"
    # A link underlined word by word: the rule under its space runs on into its words'.
    page.insert_text((72, 100), "See Table of Contents", fontname="cour", fontsize=10)
    for x0, x1 in ((96, 126), (126, 132), (132, 144)):
        page.draw_line((x0, 100.8), (x1, 100.8), width=0.4)
    assert extract_page(page).text == "double tol_int (default: 1e-5)\n\nSee Table of Contents"


def test_rotated_margin_text_is_read_last() -> None:
    page = pymupdf.open().new_page()
    page.insert_text((30, 700), "arXiv:0000.00000v1", fontsize=9, rotate=90)
    page.insert_text((72, 100), "Body text of the page.", fontsize=11)
    assert extract_page(page).text == "Body text of the page.\n\narXiv:0000.00000v1"


def test_rotated_page_reads_as_shown_with_boxes_where_it_renders() -> None:
    doc = pymupdf.open()
    page = doc.new_page(width=595, height=842)
    page.set_rotation(90)
    # Turned against the page rotation, as landscape tables are, the lines show upright.
    page.insert_text((100, 770), "First line of a landscape page.", fontsize=11, rotate=90)
    page.insert_text((114, 770), "Second line of a landscape page.", fontsize=11, rotate=90)
    extracted = extract_page(page)
    assert extracted.text == "First line of a landscape page.\n\nSecond line of a landscape page."
    assert (extracted.width, extracted.height) == (842, 595)
    first = extracted.char_boxes[0]
    assert first[0] == pytest.approx(72, abs=0.5) and first[1] == pytest.approx(88, abs=1)


def fragment(x0: float, y0: float, x1: float, text: str, block: int = 0) -> Fragment:
    """Returns a fragment of 10-point text; layout only looks at boxes and blocks."""
    box = (x0, y0, x1, y0 + 10)
    return Fragment(block, text, [box] * len(text), 10.0, box)


def test_reading_order_three_columns_under_a_full_width_title() -> None:
    title = fragment(100, 10, 500, "T", block=0)
    columns = [
        [fragment(x + (row % 2) * 0.7, 40 + 12 * row, x + 150, f"{c}{row}", block=c + 1)
         for row in range(6)]
        for c, x in enumerate((40, 210, 380))
    ]  # fmt: skip
    shuffled = [title] + [f for row in zip(*columns, strict=True) for f in row]
    ordered = [f.text for f in reading_order(shuffled, page_width=600)]
    assert ordered == ["T"] + [f.text for column in columns for f in column]


def test_reading_order_reads_a_statement_by_rows_not_its_label_column_first() -> None:
    rows = [
        ("Products", "55,466 56,435"),
        ("Services", "10,518 10,609"),
        ("Total net sales", "65,984 67,044"),
        ("Cost of sales", "(49,577) (50,273)"),
    ]
    title = fragment(230, 10, 380, "Consolidated Statements of Earnings", block=0)
    fragments = [title]
    for row, (label, figures) in enumerate(rows):
        fragments.append(fragment(50, 40 + 14 * row, 170, label, block=1))
        fragments.append(fragment(420, 40 + 14 * row, 560, figures, block=2 + row))
    ordered = [f.text for f in reading_order(fragments[::-1], page_width=612)]
    assert ordered == [title.text, *(text for row in rows for text in row)]


def test_reading_order_reads_a_long_table_of_one_block_a_row_by_rows() -> None:
    fragments = []
    for row in range(40):
        y = 40 + 14 * row
        fragments.append(fragment(50, y, 170, f"label {row}", block=row))
        fragments.append(fragment(300, y, 350, f"{row},001", block=row))
        fragments.append(fragment(420, y, 470, f"{row},002", block=row))
    expected = [f.text for f in fragments]
    assert [f.text for f in reading_order(fragments[::-1], page_width=612)] == expected
    # A box with its edges out of order turns off the shortcut for such tables: same order.
    flipped = Fragment(99, "x", [(300, 700, 290, 710)], 10.0, (300, 700, 290, 710))
    ordered = reading_order([flipped, *fragments[::-1]], page_width=612)
    assert [f.text for f in ordered] == [*expected, "x"]


def test_reading_order_keeps_a_definition_list_in_one_column() -> None:
    rows = []
    for row in range(5):
        rows.append(fragment(90, 100 + 14 * row, 130, f"t{row}", block=row))
        rows.append(fragment(150, 100 + 14 * row, 520, f"d{row}", block=row + 10))
    ordered = [f.text for f in reading_order(rows, page_width=612)]
    assert ordered == [t for row in range(5) for t in (f"t{row}", f"d{row}")]


def test_reading_order_reads_a_superscript_in_its_line() -> None:
    word = fragment(40, 100, 90, "word")
    mark = Fragment(0, "3", [(91, 97, 94, 104)], 6.0, (91, 97, 94, 104))
    after = fragment(96, 100, 200, "after")
    ordered = reading_order([after, mark, word], page_width=600)
    assert [f.text for f in ordered] == ["word", "3", "after"]


@pytest.mark.parametrize(
    ("content", "error"),
    [
        (b"", EmptyFile),
        (b"hello, world", NotAPdf),
        (b"%PDF-1.4\nnothing else", CorruptPdf),
        (ZERO_PAGES, NoPages),
    ],
)
def test_open_pdf_refuses(tmp_path: Path, content: bytes, error: type[CitelockError]) -> None:
    path = tmp_path / "upload.pdf"
    path.write_bytes(content)
    with pytest.raises(error):
        open_pdf(path)


def test_open_pdf_maps_encryption(tmp_path: Path) -> None:
    doc = pymupdf.open(text_pdf(tmp_path / "plain.pdf", ["secret text"]))
    locked = save(
        doc, tmp_path / "locked.pdf", encryption=pymupdf.mupdf.PDF_ENCRYPT_AES_256,
        user_pw="right", owner_pw="owner",
    )  # fmt: skip
    with pytest.raises(EncryptedPdf, match="no password"):
        open_pdf(locked)
    with pytest.raises(EncryptedPdf, match="wrong"):
        open_pdf(locked, "wrong")
    with open_pdf(locked, "right") as opened:
        assert extract_page(opened[0]).text == "secret text"


def test_open_pdf_opens_owner_password_only(tmp_path: Path) -> None:
    doc = pymupdf.open(text_pdf(tmp_path / "plain.pdf", ["restricted text"]))
    restricted = save(
        doc, tmp_path / "restricted.pdf", encryption=pymupdf.mupdf.PDF_ENCRYPT_AES_256,
        owner_pw="owner", permissions=0,
    )  # fmt: skip
    with open_pdf(restricted) as opened:
        assert extract_page(opened[0]).text == "restricted text"


def test_extract_document_reads_outline_and_title(tmp_path: Path) -> None:
    doc = pymupdf.open()
    for number in (1, 2):
        doc.new_page(width=400, height=500).insert_text((72, 100), f"Page {number}")
    doc.set_metadata({"title": "  A Title  "})
    goto = {"kind": pymupdf.LINK_GOTO, "page": 0, "to": pymupdf.Point(72, 290)}
    doc.set_toc([[1, "One", 1], [2, "One.A", 1, goto], [1, "Two", 2]])
    with open_pdf(save(doc, tmp_path / "outlined.pdf")) as opened:
        extracted = extract_document(opened)
    assert extracted.title == "A Title"
    assert [p.number for p in extracted.pages] == [1, 2]
    assert [(e.level, e.title, e.page) for e in extracted.toc] == [
        (1, "One", 1), (2, "One.A", 1), (1, "Two", 2),
    ]  # fmt: skip
    assert extracted.toc[1].y == pytest.approx(290)


def scanned_page(text: str = "") -> PageText:
    page = pymupdf.open().new_page()
    pixmap = pymupdf.Pixmap(pymupdf.csRGB, pymupdf.IRect(0, 0, 40, 40), False)
    pixmap.clear_with(200)
    page.insert_image(page.rect, pixmap=pixmap, keep_proportion=False)
    if text:
        page.insert_text((72, 72), text)
    return extract_page(page)


def test_scanned_page_needs_ocr() -> None:
    scan = scanned_page()
    assert scan.text == "" and scan.image_coverage == pytest.approx(1.0)
    assert page_needs_ocr(page_lines(scan))
    assert not page_needs_ocr(page_lines(scanned_page("An OCR layer with enough characters.")))


def test_check_text_layer_counts_pages_without_text(tmp_path: Path) -> None:
    with open_pdf(text_pdf(tmp_path / "text.pdf", ["Hello, world! Goodbye, world!"])) as doc:
        text_page = extract_page(doc[0])
    text_lines, scan_lines = page_lines(text_page), page_lines(scanned_page())
    check_text_layer([text_lines, text_lines, scan_lines])
    with pytest.raises(NoTextLayer):
        check_text_layer([text_lines, scan_lines, scan_lines])


def test_render_page_png(tmp_path: Path) -> None:
    pdf = text_pdf(tmp_path / "render.pdf", ["render me"]).read_bytes()
    png = render_page_png(pdf, 1, 0.5)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    with pytest.raises(PageNotFound):
        render_page_png(pdf, 2, 1.0)
    with pytest.raises(InvalidRequest):
        render_page_png(pdf, 1, 0)


@pytest.mark.parametrize("rotation", [0, 90, 180, 270])
def test_annotations_land_on_the_text_they_mark_on_a_rotated_page(
    tmp_path: Path, rotation: int
) -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 100), "Alpha beta gamma delta", fontsize=12)
    page.insert_text((72, 140), "Second line of words here", fontsize=12)
    page.add_highlight_annot(page.search_for("beta gamma", quads=True))
    page.add_text_annot((300, 135), "beside the second line")
    page.set_rotation(rotation)
    with open_pdf(save(doc, tmp_path / "annotated.pdf")) as pdf:
        extracted = extract_document(pdf)
    marks = locate_marks(extracted.annotations, extracted.pages)
    text = extracted.pages[0].text
    assert [(mark.type, mark.text) for mark in marks] == [("highlight", "beta gamma"), ("note", "")]
    assert marks[1].page_span_start == text.index("here") + 3
