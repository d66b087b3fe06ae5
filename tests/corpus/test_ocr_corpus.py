"""Scans ingest by OCR and answer like any PDF: the scanned book of the shared corpus, its noisy
Chinese OCR sample read again with OCR=force and answered in Chinese (with e5), and
born-digital pages rendered to image-only pages, whose text layer says what OCR should read
and where each word stands.

Few pages, at modest resolution: OCR is the slowest stage of ingestion.
"""

from __future__ import annotations

import dataclasses
import re
import uuid
from collections.abc import Callable
from pathlib import Path

import pymupdf
import pytest
import sqlalchemy as sa
from rapidfuzz import fuzz

from app.answer.evidence import OCR_DOUBT
from app.chunking.flags import OCR
from app.contract.schemas import QueryRequest, QueryResponse
from app.core.config import EmbeddingBackend
from app.embedding import load_embedder, load_token_counter
from app.flows.ingest import DocumentMeta, IngestResult, ingest_file
from app.flows.query import answer_query
from app.flows.runtime import Runtime
from app.pdf.reader import extract_page
from tests.helpers.corpus import corpus_pages, corpus_path
from tests.helpers.scans import image_only_pdf, word_accuracy

pytestmark = pytest.mark.corpus

BOOK = ("scan_huckfinn_multipage.pdf", (1, 5))
"""The book's first page and one of its last, each holding a passage the test looks for."""
NOISY = ("ocrnoisy_zh_pr-136-example.pdf", (1, 2))
"""The sample's pages holding the dates the scanner's layer misreads and the answer."""
RENDERED = ("R-intro.pdf", (10,))
"""A page of running text, headings and commands among it, rendered at SCAN_DPI."""
SCAN_DPI = 150


def with_settings(runtime: Runtime, **update: object) -> Runtime:
    return dataclasses.replace(runtime, settings=runtime.settings.model_copy(update=update))


@pytest.fixture(scope="module")
def ocr_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    return open_test_runtime("citelock_ocr")


@pytest.fixture(scope="module")
def rendered(ocr_runtime: Runtime, tmp_path_factory: pytest.TempPathFactory) -> IngestResult:
    """The rendered pages, an image-only PDF, ingested as an upload would be."""
    name, pages = RENDERED
    path = tmp_path_factory.mktemp("scans") / f"scan-of-{name}"
    path.write_bytes(image_only_pdf(corpus_path("docs", name), pages, SCAN_DPI))
    return ingest_file(path, DocumentMeta(filename=path.name), runtime=ocr_runtime)


def stored_pages(runtime: Runtime, document_id: uuid.UUID) -> list[sa.Row[tuple[object, ...]]]:
    with runtime.engine.connect() as connection:
        return list(
            connection.execute(
                sa.text(
                    "SELECT page_number, text, from_ocr, ocr_confidence FROM pages "
                    "WHERE document_id = :id ORDER BY page_number"
                ),
                {"id": document_id},
            )
        )


def chunk_contents(runtime: Runtime, document_id: uuid.UUID) -> list[tuple[str, list[str]]]:
    with runtime.engine.connect() as connection:
        return [
            (row.content, row.flags)
            for row in connection.execute(
                sa.text(
                    "SELECT content, flags FROM chunks WHERE document_id = :id ORDER BY ordinal"
                ),
                {"id": document_id},
            )
        ]


def ask(runtime: Runtime, document_id: uuid.UUID, question: str) -> QueryResponse:
    request = QueryRequest.model_validate(
        {"query": question, "filters": {"document_ids": [str(document_id)]}}
    )
    with runtime.sessions.begin() as session:
        return answer_query(
            request, session=session, embedder=runtime.embedder, settings=runtime.settings
        )


def test_rendered_pages_read_by_ocr_as_their_text_layer(
    ocr_runtime: Runtime, rendered: IngestResult
) -> None:
    name, numbers = RENDERED
    pages = stored_pages(ocr_runtime, rendered.document.id)
    assert [page.page_number for page in pages] == list(range(1, len(numbers) + 1))
    assert all(page.from_ocr and page.ocr_confidence > 0.9 for page in pages)
    with pymupdf.open(corpus_path("docs", name)) as born:
        truth = "\n".join(extract_page(born[number - 1]).text for number in numbers)
    assert word_accuracy("\n".join(page.text for page in pages), truth) >= 0.95
    chunks = chunk_contents(ocr_runtime, rendered.document.id)
    assert chunks and all(OCR in flags for _, flags in chunks)


def normalised(text: str) -> str:
    return "".join(text.split()).replace("-", "")


def test_evidence_on_a_scan_sits_on_the_cited_words(
    ocr_runtime: Runtime, rendered: IngestResult
) -> None:
    response = ask(
        ocr_runtime, rendered.document.id, "How do I get help on a specific named function?"
    )
    items = response.highlighted_sources or []
    assert response.answer and items
    name, numbers = RENDERED
    with pymupdf.open(corpus_path("docs", name)) as born:
        for item in items:
            assert item.confidence <= 1.0 - OCR_DOUBT
            page = born[numbers[item.page_number - 1] - 1]
            [(start, end)] = item.highlight_spans
            cited = item.text_snippet[start:end]
            # The born-digital page has the scan's geometry: its words under each rectangle
            # are the words cited there.
            under = " ".join(page.get_textbox(pymupdf.Rect(rect)) for rect in item.rects)
            assert fuzz.partial_ratio(normalised(cited), normalised(under)) >= 90, (cited, under)
            words = page.get_text("words")
            inside = [
                word
                for word in words
                if any(
                    rect[0] - 2 <= (word[0] + word[2]) / 2 <= rect[2] + 2
                    and rect[1] - 2 <= (word[1] + word[3]) / 2 <= rect[3] + 2
                    for rect in item.rects
                )
            ]
            assert len(inside) <= 1.3 * len(cited.split()) + 2, (cited, inside)


def test_scanned_book_ingests_and_reads_as_the_book(ocr_runtime: Runtime, tmp_path: Path) -> None:
    book = corpus_pages(*BOOK, tmp_path)
    result = ingest_file(book, DocumentMeta(filename=book.name), runtime=ocr_runtime)
    assert result.created and result.document.page_count == len(BOOK[1])
    pages = stored_pages(ocr_runtime, result.document.id)
    assert all(page.from_ocr for page in pages)
    text = " ".join(content for content, _ in chunk_contents(ocr_runtime, result.document.id))
    for passage in (
        "WE went tip-toeing along a path amongst the trees back towards the end of the "
        "widow's garden, stooping down so as the branches wouldn't scrape our heads.",
        "It was the year of Our Lord one thousand seven hundred and seventy-five.",
    ):
        assert fuzz.partial_ratio(passage, text.replace("\u2019", "'")) >= 95, passage


@pytest.fixture(scope="module")
def multilingual_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    """A database of its own, embedded by e5 (multilingual), reading every page by OCR."""
    runtime = open_test_runtime("citelock_ocr_e5")
    settings = runtime.settings.model_copy(
        update={"embedding_backend": EmbeddingBackend.e5, "ocr": "force"}
    )
    return dataclasses.replace(
        runtime,
        settings=settings,
        embedder=load_embedder(settings),
        count_tokens=load_token_counter(settings),
    )


def test_noisy_ocr_layer_is_read_again_and_answers_with_ocr_forced(
    multilingual_runtime: Runtime, tmp_path: Path
) -> None:
    forced = multilingual_runtime
    noisy = corpus_pages(*NOISY, tmp_path)
    result = ingest_file(noisy, DocumentMeta(filename=noisy.name), runtime=forced)
    pages = stored_pages(forced, result.document.id)
    assert len(pages) == len(NOISY[1]) and all(page.from_ocr for page in pages)
    text = "\n".join(page.text for page in pages)
    # The scanner's layer reads "20I5", "20l6", "2016-lo-28" and "5月I6日".
    assert not re.search(r"20[0-9][IlOo]|20[IlOo][0-9]|-lo-|[0-9]月I", text)
    assert "2016-10-28" in text and "2015年12月31日" in text
    # A question in Chinese ("What is the appraised value of the 14 shops of the Langzhen
    # Xingfu Jiayuan estate in Zhuji?") is answered from the OCR text, its dates read right.
    response = ask(forced, result.document.id, "诸暨朗臻幸福家园小区14间商铺的评估价值是多少\uff1f")
    assert response.status == "ok"
    assert "7,013.685万元" in response.answer and "2015年12月7日" in response.answer
