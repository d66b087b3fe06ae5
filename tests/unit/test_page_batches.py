"""Ingestion page batch by page batch: the chunks and marks of the whole document, exactly,
however the batches cut it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pymupdf
import pytest

from app.chunking.chunker import chunk_pages
from app.chunking.flags import flag_chunks
from app.chunking.furniture import find_furniture
from app.chunking.references import REFERENCES, reference_sections
from app.core.chunks import ChunkDraft
from app.core.errors import EmbeddingUnavailable
from app.core.records import ExtractedDocument, PageBatch, PageLines
from app.embedding import Embedder
from app.flows.ingest_stages import (
    ChunkingParams,
    embed_drafts,
    embedded_header,
    embedding_text,
    page_batches,
    read_pdf,
)
from app.pdf.annotations import locate_marks
from app.pdf.limits import Deadline, IngestLimits
from app.pdf.reader import extract_document, open_pdf
from app.pdf.spill import box_spill
from tests.helpers.chunks import count_words
from tests.helpers.pdfs import text_pdf

MAX_TOKENS = 12
"""Words a chunk may hold: a long sentence must be cut, and a cut may fall past a page break."""

PAGES = [
    "Tracing starts at loop headers. The recorder follows the hot path and",
    # Ends the sentence above; its own last sentence runs over the next break.
    "writes a trace tree. Side exits grow new branches",
    # Wholly the ending of the sentence above: its open end must not reach the next page.
    "that join the tree",
    "once the exit is hot. Guards check types at every step of the trace",
    "and the monitor leaves the trace when one fails.",
    # A sentence too long for a chunk, cut in two past the break: its second part opens
    # the next page's chunks.
    "Long sentences are cut. This one begins late on the page and",
    "reaches the next page where it goes on with many more words before it stops at last.",
    "References\n[1] A. Gal, B. Eich. Trace trees. In Proc. of the Conference, pages 1-9, 2009.\n"
    "[2] C. Author, D. Writer. Loops. In Proc. of the Workshop, pages 10-19, 2010.\n"
    "[3] E. Name, F. Other. Types. Journal of Compilers, vol. 3, pages 20-29, 2011.",
]
OUTLINE = [[1, "Tracing", 1], [2, "Side exits", 2], [1, "Long sentences", 6]]


class ZeroEmbedder:
    name = "zero"
    dim = 4
    batch_size = 8
    parallel_batches = 1

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        return np.zeros((len(texts), self.dim), dtype=np.float32)

    embed_queries = embed_batch


@pytest.fixture(scope="module")
def pdf_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Returns the PDF of PAGES with the outline and a highlight on page 4, over its break."""
    document = pymupdf.open(stream=text_pdf(PAGES, toc=OUTLINE))
    page = document[3]
    page.add_highlight_annot(page.search_for("every step of the trace"))
    path = tmp_path_factory.mktemp("batches") / "crossing.pdf"
    document.save(path)
    return path


def read_in_batches(
    pdf_path: Path, embedder: Embedder, batch_pages: int
) -> tuple[ExtractedDocument[PageLines], list[PageBatch]]:
    """Returns the PDF as ingestion reads it and its page batches, embedded by `embedder`."""
    with box_spill(pdf_path.parent) as spill, open_pdf(pdf_path) as pdf:
        extracted = read_pdf(pdf, limits=IngestLimits(100, 60), deadline=Deadline(60), spill=spill)
        batches = list(
            page_batches(
                extracted,
                spill,
                chunking=ChunkingParams(MAX_TOKENS, 4, count_words),
                embedder=embedder,
                batch_pages=batch_pages,
            )
        )
    return extracted, batches


@pytest.mark.parametrize("batch_pages", [1, 2, 3, len(PAGES)])
def test_batches_store_the_chunks_and_marks_of_the_whole_document(
    pdf_path: Path, batch_pages: int
) -> None:
    with open_pdf(pdf_path) as pdf:
        whole = extract_document(pdf)
    extracted, batches = read_in_batches(pdf_path, ZeroEmbedder(), batch_pages)
    references = reference_sections(extracted.pages, extracted.toc)
    expected = flag_chunks(
        chunk_pages(
            whole.pages,
            whole.toc,
            max_tokens=MAX_TOKENS,
            overlap_tokens=4,
            count_tokens=count_words,
            furniture=find_furniture(extracted.pages),
            regions=references,
        ),
        references=references,
    )
    chunks = [(chunk.page_start, chunk.page_end, chunk.content) for chunk in expected]
    assert (2, 3, "Side exits grow new branches\n\nthat join the tree") in chunks
    assert (4, 4, "once the exit is hot.") in chunks
    assert any(start == 7 and text.startswith("where it goes on") for start, _, text in chunks)
    assert {chunk.chapter for chunk in expected} == {"Tracing", "Long sentences"}
    assert any(REFERENCES in chunk.flags for chunk in expected)
    assert [chunk.draft for batch in batches for chunk in batch.chunks] == expected
    assert [mark for batch in batches for mark in batch.marks] == locate_marks(
        whole.annotations, whole.pages
    )
    assert [batch.first for batch in batches] == list(range(1, len(PAGES) + 1, batch_pages))
    assert [page.number for batch in batches for page in batch.pages] == list(
        range(1, len(PAGES) + 1)
    )


class TextEmbedder:
    """Gives each text a vector of its own and notes every text it is given."""

    name = "text"
    dim = 4
    batch_size = 3
    parallel_batches = 2

    def __init__(self) -> None:
        self.seen: list[str] = []

    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        self.seen += texts
        return np.array([self.vector(text) for text in texts], dtype=np.float32)

    @staticmethod
    def vector(text: str) -> list[float]:
        return [len(text), text.count(" "), sum(map(ord, text)) % 97, 1.0]


def test_every_chunk_gets_its_own_texts_vector_and_a_repeated_text_is_embedded_once(
    pdf_path: Path,
) -> None:
    repeated = ChunkDraft(
        page_start=1, page_end=1, page_span_start=0, page_span_end=7, content="Tracing",
        context_header="Tracing", ordinal=0, document_span_start=0, document_span_end=7,
        token_count=1,
    )  # fmt: skip
    other = replace(repeated, content="Tracing starts", ordinal=1, token_count=2)
    drafts = [repeated, other, replace(repeated, ordinal=2)]
    embedder = TextEmbedder()
    vectors = embed_drafts(embedder, drafts, deadline=None)
    assert sorted(embedder.seen) == sorted(
        {embedding_text(embedded_header(d.context_header, d.flags), d.content) for d in drafts}
    )
    assert vectors.tolist() == [
        TextEmbedder.vector(embedding_text(embedded_header(d.context_header, d.flags), d.content))
        for d in drafts
    ]

    _, batches = read_in_batches(pdf_path, TextEmbedder(), batch_pages=2)
    for batch in batches:
        assert batch.vectors.tolist() == [
            TextEmbedder.vector(
                embedding_text(
                    embedded_header(chunk.draft.context_header, chunk.draft.flags),
                    chunk.draft.content,
                )
            )
            for chunk in batch.chunks
        ]


class FailingEmbedder(ZeroEmbedder):
    def embed_batch(self, texts: Sequence[str]) -> np.ndarray:
        raise EmbeddingUnavailable("the model is gone")


def test_a_failure_of_the_model_in_its_thread_reaches_the_ingestion(pdf_path: Path) -> None:
    with box_spill(pdf_path.parent) as spill, open_pdf(pdf_path) as pdf:
        extracted = read_pdf(pdf, limits=IngestLimits(100, 60), deadline=Deadline(60), spill=spill)
        batches = page_batches(
            extracted,
            spill,
            chunking=ChunkingParams(MAX_TOKENS, 4, count_words),
            embedder=FailingEmbedder(),
            batch_pages=2,
        )
        with pytest.raises(EmbeddingUnavailable, match="the model is gone"):
            list(batches)


def test_furniture_is_embedded_without_its_context_header() -> None:
    # Results leave a page's furniture out unless asked; its running head repeats under every
    # section's header, and alone it is embedded once.
    assert embedded_header("Acme 10-K > Part II", ("furniture",)) == ""
    assert embedded_header("Acme 10-K > Part II", ("table",)) == "Acme 10-K > Part II"
