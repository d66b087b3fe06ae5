"""Flags on the shared corpus: reference sections, page furniture and OCR noise, measured on
real papers, manuals, a register and a noisy OCR layer (extraction and chunking only)."""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np
import pytest

from app.chunking.chunker import chunk_pages
from app.chunking.flags import OCR_NOISE, flag_chunks
from app.chunking.furniture import FURNITURE, find_furniture
from app.chunking.references import REFERENCES, reference_sections
from app.core.chunks import ChunkDraft
from app.core.geometry import page_lines
from app.core.records import NO_LINE, PAGE_BREAK, ExtractedDocument, PageLines, PageText
from app.pdf.reader import extract_document, open_pdf
from tests.helpers.chunks import count_words
from tests.helpers.corpus import corpus_path

pytestmark = pytest.mark.corpus

PAPERS = ["tracemonkey.pdf", "test_4751_Qwen2_tech_report.pdf", "test_3842_NIST_SP800-223.pdf"]
CLEAN = [
    "R-intro.pdf",
    "creativity-in-ml_thoma.pdf",
    "federal-register-2020-17221.pdf",
    "libtasn1.pdf",
    "multicolumn.pdf",
]
NOISY = "ocrnoisy_zh_pr-136-example.pdf"
MAX_TOKENS, OVERLAP_TOKENS = 200, 32

Flagged = tuple[ExtractedDocument[PageText], list[ChunkDraft]]


def lines_of(doc: ExtractedDocument[PageText]) -> list[PageLines]:
    return [page_lines(page) for page in doc.pages]


@pytest.fixture(scope="module")
def flagged() -> dict[str, Flagged]:
    """Returns every document extracted, chunked and flagged as ingestion does, once."""
    found = {}
    for name in [*PAPERS, *CLEAN, NOISY]:
        with open_pdf(corpus_path("docs", name)) as pdf:
            doc = extract_document(pdf)
        references = reference_sections(lines_of(doc), doc.toc)
        chunks = chunk_pages(
            doc.pages, doc.toc, max_tokens=MAX_TOKENS, overlap_tokens=OVERLAP_TOKENS,
            count_tokens=count_words, furniture=find_furniture(lines_of(doc)), regions=references,
        )  # fmt: skip
        found[name] = (doc, flag_chunks(chunks, references=references))
    return found


def body(chunks: list[ChunkDraft]) -> list[ChunkDraft]:
    return [chunk for chunk in chunks if FURNITURE not in chunk.flags]


@pytest.mark.parametrize(
    ("name", "first", "last", "after"),
    [
        ("tracemonkey.pdf", "[1] LuaJIT roadmap 2008",
         "Conference on Virtual Execution Environments, pages 83", None),
        ("test_4751_Qwen2_tech_report.pdf", "Marah Abdin, Jyoti Aneja",
         "Instruction-following evaluation for large language models", None),
        ("test_3842_NIST_SP800-223.pdf", "[1] INTEL (2024) What Is a GPU?",
         "NIST SP 800-190. https://doi.org/10.6028/NIST.SP.800-190.",
         "Appendix A. HPC Architecture Variants"),
        ("creativity-in-ml_thoma.pdf", "[Cop87] D. Cope",
         "Visualizing and understanding convolutional networks", "APPENDIX A"),
    ],
)  # fmt: skip
def test_reference_sections_and_only_they_are_flagged(
    flagged: dict[str, Flagged], name: str, first: str, last: str, after: str | None
) -> None:
    chunks = body(flagged[name][1])
    start = next(i for i, c in enumerate(chunks) if first in c.content)
    end = next(i for i, c in enumerate(chunks) if last in c.content)
    assert re.match(r"(?i)references\b", chunks[start].content)  # the heading opens the section
    marked = [i for i, chunk in enumerate(chunks) if REFERENCES in chunk.flags]
    assert marked == list(range(start, end + 1))
    if after is not None:
        assert chunks[end + 1].content.startswith(after)


@pytest.mark.parametrize("name", CLEAN)
def test_body_text_is_almost_never_flagged_references(
    flagged: dict[str, Flagged], name: str
) -> None:
    doc, chunks = flagged[name]
    document = PAGE_BREAK.join(page.text for page in doc.pages)
    sections = reference_sections(lines_of(doc), doc.toc)
    outside = [
        chunk for chunk in body(chunks)
        if REFERENCES in chunk.flags
        and not any(a <= chunk.document_span_start < b for a, b in sections)
    ]  # fmt: skip
    assert outside == []
    # R-intro's "Appendix F References" is a real bibliography; the others have none here.
    named = {"R-intro.pdf": "Appendix F References", "creativity-in-ml_thoma.pdf": "REFERENCES"}
    assert [document[a : a + 30].split("\n")[0] for a, _ in sections] == (
        [named[name]] if name in named else []
    )


FURNITURE_BANDS: dict[str, tuple[Sequence[int], float, float]] = {
    "test_3842_NIST_SP800-223.pdf": (range(3, 35), 61.0, 740.0),
    "federal-register-2020-17221.pdf": (range(1, 16), 45.0, 765.0),
    "test_4751_Qwen2_tech_report.pdf": (range(1, 27), 0.0, 750.0),
    "R-intro.pdf": (range(3, 114), 61.0, 792.0),
    "libtasn1.pdf": (range(3, 37), 61.0, 792.0),
    "creativity-in-ml_thoma.pdf": (range(1, 9), 33.0, 842.0),
    "multicolumn.pdf": (range(1, 4), 0.0, 690.0),
    # OCR debris lies under the footer of page 6 and a misread one stands on page 3.
    "ocrnoisy_zh_pr-136-example.pdf": ((2, 4, 5), 0.0, 780.0),
}
"""Where each document's running heads (above the first height) and page numbers or print
slugs (below the second) stand, on the pages that have them, read off the PDFs."""


@pytest.mark.parametrize("name", sorted(FURNITURE_BANDS))
def test_running_heads_and_page_numbers_stay_out_of_answer_chunks(
    flagged: dict[str, Flagged], name: str
) -> None:
    doc, chunks = flagged[name]
    numbers, head, foot = FURNITURE_BANDS[name]
    covered = {page.number: np.zeros(len(page.text), dtype=bool) for page in doc.pages}
    for chunk in chunks:
        if FURNITURE in chunk.flags:
            covered[chunk.page_start][chunk.page_span_start : chunk.page_span_end] = True
    for number in numbers:
        page = doc.pages[number - 1]
        drawn = page.line_ids != NO_LINE
        edge = drawn & ((page.char_boxes[:, 3] <= head) | (page.char_boxes[:, 1] >= foot))
        assert covered[number][edge].all(), (number, page.text[np.flatnonzero(edge)[0] :][:60])
    furniture = find_furniture(lines_of(doc))
    assert body(chunks)
    for chunk in body(chunks):
        for number in range(chunk.page_start, chunk.page_end + 1):
            start = chunk.page_span_start if number == chunk.page_start else 0
            end = (
                chunk.page_span_end if number == chunk.page_end else len(doc.pages[number - 1].text)
            )
            assert not any(a < end and start < b for a, b in furniture.get(number, [])), chunk


@pytest.mark.parametrize(
    ("name", "pattern"),
    [
        ("federal-register-2020-17221.pdf", r"Federal Register / Vol\. 85"),
        ("federal-register-2020-17221.pdf", r"VerDate Sep<11>2014"),
        ("federal-register-2020-17221.pdf", r"jbell on DSKJLSW7X2PROD"),
        ("test_3842_NIST_SP800-223.pdf", r"NIST SP 800-223\s+February 2024"),
        ("R-intro.pdf", r"(?m)^Chapter \d+: [^\n]*[a-z] \d+$"),
    ],
)
def test_no_answer_chunk_quotes_a_running_head(
    flagged: dict[str, Flagged], name: str, pattern: str
) -> None:
    chunks = flagged[name][1]
    assert any(re.search(pattern, chunk.content) for chunk in chunks)
    assert not any(re.search(pattern, chunk.content) for chunk in body(chunks))


def test_tracemonkey_has_no_furniture_to_find(flagged: dict[str, Flagged]) -> None:
    # The pdf.js copy of the paper carries neither running heads nor page numbers.
    assert find_furniture(lines_of(flagged["tracemonkey.pdf"][0])) == {}


def test_noisy_ocr_layer_is_flagged_and_clean_text_is_not(flagged: dict[str, Flagged]) -> None:
    noisy = body(flagged[NOISY][1])
    assert sum(OCR_NOISE in chunk.flags for chunk in noisy) >= 0.75 * len(noisy)
    for name in [*PAPERS, *CLEAN]:
        assert not any(OCR_NOISE in chunk.flags for chunk in flagged[name][1]), name
