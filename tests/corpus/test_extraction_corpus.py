"""Extraction and chunking on the shared corpus: real papers, manuals, scans and broken files."""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections.abc import Iterator

import numpy as np
import pytest

from app.chunking.chunker import chunk_pages
from app.core.chunks import ChunkDraft
from app.core.errors import CitelockError, CorruptPdf, EmptyFile, EncryptedPdf, NoPages, NoTextLayer
from app.core.geometry import line_rects, page_lines
from app.core.records import NO_LINE, ExtractedDocument, PageText
from app.pdf.reader import check_text_layer, extract_document, extract_document_as, open_pdf
from tests.helpers.chunks import assert_chunk_invariants, count_words
from tests.helpers.corpus import corpus_path

pytestmark = pytest.mark.corpus

TEXT_DOCS = [
    "R-intro.pdf",
    "creativity-in-ml_thoma.pdf",
    "federal-register-2020-17221.pdf",
    "libtasn1.pdf",
    "multicolumn.pdf",
    "ocrnoisy_zh_pr-136-example.pdf",
    "test_3842_NIST_SP800-223.pdf",
    "test_4751_Qwen2_tech_report.pdf",
    "tracemonkey.pdf",
]
MAX_TOKENS, OVERLAP_TOKENS = 200, 32


def flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


@pytest.fixture(scope="module")
def documents() -> dict[str, ExtractedDocument]:
    """Returns every text PDF of docs/ extracted once for the whole module."""
    extracted = {}
    for name in TEXT_DOCS:
        with open_pdf(corpus_path("docs", name)) as doc:
            extracted[name] = extract_document(doc)
    return extracted


@pytest.fixture(scope="module")
def chunks(documents: dict[str, ExtractedDocument]) -> dict[str, list[ChunkDraft]]:
    return {
        name: chunk_pages(
            doc.pages, doc.toc, max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP_TOKENS,
            count_tokens=count_words,
        )
        for name, doc in documents.items()
    }  # fmt: skip


def chunk_parts(chunk: ChunkDraft, doc: ExtractedDocument) -> Iterator[tuple[PageText, int, int]]:
    """Yields (page, start, end) for each page the chunk covers."""
    for number in range(chunk.page_start, chunk.page_end + 1):
        page = doc.pages[number - 1]
        start = chunk.page_span_start if number == chunk.page_start else 0
        end = chunk.page_span_end if number == chunk.page_end else len(page.text)
        yield page, start, end


@pytest.mark.parametrize("name", TEXT_DOCS)
def test_pages_are_tidy_and_aligned(documents: dict[str, ExtractedDocument], name: str) -> None:
    doc = documents[name]
    check_text_layer([page_lines(page) for page in doc.pages])
    assert [page.number for page in doc.pages] == list(range(1, len(doc.pages) + 1))
    assert doc.pages
    for page in doc.pages:
        assert page.text == page.text.strip() and "\n\n\n" not in page.text
        assert page.char_boxes.shape == (len(page.text), 4) and len(page.line_ids) == len(page.text)
        inserted = page.line_ids == NO_LINE
        assert np.isnan(page.char_boxes[inserted]).all()
        assert not np.isnan(page.char_boxes[~inserted]).any()


@pytest.mark.parametrize("name", TEXT_DOCS)
def test_every_chunk_keeps_the_offset_invariant(
    documents: dict[str, ExtractedDocument], chunks: dict[str, list[ChunkDraft]], name: str
) -> None:
    assert chunks[name]
    assert_chunk_invariants(chunks[name], documents[name].pages, MAX_TOKENS)


@pytest.mark.parametrize("name", TEXT_DOCS)
def test_chunk_rects_lie_on_the_page_and_cover_its_characters(
    documents: dict[str, ExtractedDocument], chunks: dict[str, list[ChunkDraft]], name: str
) -> None:
    doc = documents[name]
    assert chunks[name]
    for chunk in chunks[name]:
        for page, start, end in chunk_parts(chunk, doc):
            rects = np.array(line_rects(page, start, end)).reshape(-1, 4)
            assert (rects[:, :2] >= 0).all() and (rects[:, :2] <= rects[:, 2:]).all()
            assert (rects[:, 2] <= page.width).all() and (rects[:, 3] <= page.height).all()
            ids = page.line_ids[start:end]
            drawn = ids != NO_LINE
            lines = np.unique(ids[drawn])
            assert len(lines) == len(rects)
            boxes = page.char_boxes[start:end][drawn]
            rect_of = rects[np.searchsorted(lines, ids[drawn])]
            assert (boxes[:, :2] >= rect_of[:, :2] - 1e-3).all()
            assert (boxes[:, 2:] <= rect_of[:, 2:] + 1e-3).all()


def text_key(text: str) -> list[str]:
    """Returns the characters of `text` sorted, without whitespace, hyphens, ligatures or
    accents: citelock reads TeX's accent drawn over a dotless i ("na\u00a8\u0131ve") as the
    accented letter ("na\u00efve"), PyMuPDF as the two glyphs."""
    normal = unicodedata.normalize("NFKD", text).replace("\u0131", "i")
    return sorted(
        char
        for char in normal
        if not char.isspace() and char not in "-\u00ad" and not unicodedata.combining(char)
    )


@pytest.mark.parametrize(
    ("name", "phrase"),
    [
        ("tracemonkey.pdf", "Nested loops can be difficult to optimize"),
        ("tracemonkey.pdf", "We present a trace-based compilation technique"),
        ("federal-register-2020-17221.pdf", "Following the Lion Air Flight 610"),
        ("federal-register-2020-17221.pdf", "To address the unsafe condition"),
    ],
)
def test_line_rects_land_on_the_words_of_the_page(
    documents: dict[str, ExtractedDocument], name: str, phrase: str
) -> None:
    doc = documents[name]
    # Short chunks: PyMuPDF's get_textbox walks every character of the page in Python.
    short = chunk_pages(
        doc.pages, doc.toc, max_tokens=40, overlap_tokens=0, count_tokens=count_words
    )
    chunk = next(c for c in short if phrase in flat(c.content))
    with open_pdf(corpus_path("docs", name)) as pdf:
        for page, start, end in chunk_parts(chunk, doc):
            ids = page.line_ids[start:end]
            rects = line_rects(page, start, end)
            for line, (x0, y0, x1, y1) in zip(np.unique(ids[ids != NO_LINE]), rects, strict=True):
                middle = (y0 + y1) / 2
                # A thin band through the line's middle: neighbouring lines only touch it.
                band = (x0 + 0.2, middle - 0.5, x1 - 0.2, middle + 0.5)
                found = pdf[page.number - 1].get_textbox(band)
                mine = "".join(page.text[start + i] for i in np.flatnonzero(ids == line))
                assert text_key(found) == text_key(mine), (page.number, mine, found)


def column_runs(page: PageText, columns: int) -> list[int]:
    """Returns the column of each column-wide line in reading order, repeats collapsed."""
    runs: list[int] = []
    for line in range(int(page.line_ids.max()) + 1):
        boxes = page.char_boxes[page.line_ids == line]
        x0, y0 = boxes[:, :2].min(axis=0)
        x1, y1 = boxes[:, 2:].max(axis=0)
        if x1 - x0 > page.width / columns or y1 - y0 > x1 - x0:
            continue  # a title, a running head or a rotated stamp belongs to no column
        column = int((x0 + x1) / 2 // (page.width / columns))
        if not runs or runs[-1] != column:
            runs.append(column)
    return runs


def test_tracemonkey_reads_column_by_column(documents: dict[str, ExtractedDocument]) -> None:
    pages = documents["tracemonkey.pdf"].pages
    first = pages[0].text
    assert (
        "Dynamic languages such as JavaScript are more difficult to compile than statically "
        "typed ones. Since no concrete type information\nis available" in first
    )
    assert first.index("standard for client-side web programming") < first.index(
        "and is used for the application logic of browser-based productivity"
    )
    assert flat("Nested loops can be difficult to optimize for tracing VMs. In a") in flat(
        pages[1].text
    )
    for number in (1, 2, 4, 5, 6, 7, 8, 9, 10, 13, 14):
        assert column_runs(pages[number - 1], columns=2) == [0, 1], number


def test_federal_register_reads_column_by_column(documents: dict[str, ExtractedDocument]) -> None:
    pages = documents["federal-register-2020-17221.pdf"].pages
    second = flat(pages[1].text)
    assert (
        "Investigation of the accident has been completed by the Indonesian authorities "
        "(Komite Nasional Keselamatan Transportasi (KNKT)) with assistance" in second
    )
    left = second.index("Following the Lion Air Flight 610 accident on October 29, 2018")
    middle = second.index("On November 7, 2018, the FAA issued Emergency AD 2018\u201323\u201351")
    right = second.index("To address the unsafe condition, the FAA proposes to require")
    assert left < middle < right
    for number in (2, 3, 4):
        assert column_runs(pages[number - 1], columns=3) == [0, 1, 2], number


def test_multicolumn_flows_from_the_left_column_into_the_right(
    documents: dict[str, ExtractedDocument],
) -> None:
    first = flat(documents["multicolumn.pdf"].pages[0].text)
    assert "Donec nonummy pellentesque ante. Phasellus adipiscing semper elit." in first
    assert first.index("Abstract") < first.index("This is a sample document")


@pytest.mark.parametrize(
    ("name", "numbers"), [("R-intro.pdf", range(8, 40)), ("libtasn1.pdf", range(5, 30))]
)
def test_one_column_manuals_read_top_to_bottom(
    documents: dict[str, ExtractedDocument], name: str, numbers: range
) -> None:
    for number in numbers:
        page = documents[name].pages[number - 1]
        tops = [
            float(page.char_boxes[page.line_ids == line, 1].min())
            for line in range(int(page.line_ids.max()) + 1)
        ]
        assert all(b >= a - 3 for a, b in itertools.pairwise(tops)), number


def test_one_column_sentence_reads_whole(documents: dict[str, ExtractedDocument]) -> None:
    assert (
        "There is a large collection of functions of the form as.something() for either "
        "coercion from one mode to another, or for investing an object with some other "
        "attribute it may not already possess." in flat(documents["R-intro.pdf"].pages[20].text)
    )


def test_outline_gives_positions_chapters_and_sections(
    documents: dict[str, ExtractedDocument], chunks: dict[str, list[ChunkDraft]]
) -> None:
    toc = {entry.title: entry for entry in documents["R-intro.pdf"].toc}
    # A named destination, given in PDF coordinates: /XYZ 90 654.037 on a 792-point page.
    assert toc["The R environment"].page == 8
    assert toc["The R environment"].y == pytest.approx(792 - 654.037, abs=0.01)
    environment, related = toc["The R environment"].y, toc["Related software and documentation"].y
    statistics = toc["R and statistics"]
    assert environment is not None and related is not None and statistics.page == 8
    assert statistics.y is not None and statistics.y > related
    pages = documents["R-intro.pdf"].pages
    found = set()
    for chunk in chunks["R-intro.pdf"]:
        top = float(pages[chunk.page_start - 1].char_boxes[chunk.page_span_start, 1])
        if chunk.page_start == 8 and top > environment:
            found.add((chunk.chapter, chunk.section, top > related, top > statistics.y))
    # A chunk ends where a section begins: each of the page's three sections opens one.
    assert found == {
        ("1 Introduction and preliminaries", "The R environment", False, False),
        ("1 Introduction and preliminaries", "Related software and documentation", True, False),
        ("1 Introduction and preliminaries", "R and statistics", True, True),
    }
    assert chunks["tracemonkey.pdf"]
    assert all(c.chapter is None for c in chunks["tracemonkey.pdf"])


@pytest.mark.parametrize(
    ("name", "password", "error"),
    [
        ("empty.pdf", None, EmptyFile),
        ("bug_325_a.pdf", None, CorruptPdf),
        ("fuzzed_poppler-742-0.pdf", None, CorruptPdf),
        ("header_plus_eof_invalid.pdf", None, CorruptPdf),
        ("zero_pages_poppler-395-0.pdf", None, NoPages),
        ("enc_password-example.pdf", None, EncryptedPdf),
        ("enc_password-example.pdf", "not it", EncryptedPdf),
    ],
)
def test_bad_files_raise(name: str, password: str | None, error: type[CitelockError]) -> None:
    with pytest.raises(error):
        open_pdf(corpus_path("bad", name), password)


@pytest.mark.parametrize(
    ("name", "password", "phrase"),
    [
        ("enc_password-example.pdf", "test", "Backup4all"),
        ("enc_owner-only_test-2333.pdf", None, "Verificación de Elegibilidad de Empleo"),
        ("rebuildxref_error_notrailer.pdf", None, "Hello, world!"),
    ],
)
def test_readable_bad_files_open(name: str, password: str | None, phrase: str) -> None:
    with open_pdf(corpus_path("bad", name), password) as doc:
        extracted = extract_document_as(doc, page_lines)
    check_text_layer(extracted.pages)
    assert phrase in extracted.pages[0].text


@pytest.mark.parametrize(
    ("folder", "name"),
    [("docs", "scan_huckfinn_multipage.pdf"), ("bad", "trunc_scan-bad.pdf")],
)
def test_scans_without_text_layer_raise(folder: str, name: str) -> None:
    with open_pdf(corpus_path(folder, name)) as doc:
        extracted = extract_document_as(doc, page_lines)
    with pytest.raises(NoTextLayer):
        check_text_layer(extracted.pages)
