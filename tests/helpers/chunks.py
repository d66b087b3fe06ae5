"""Chunks for the tests: the token count chunking tests use (a word a token), the invariant
every test of chunking checks (content is exactly the text at its offsets), and cited chunks
made by hand for the synthesis tests."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from app.core.chunks import Candidate, ChunkDraft
from app.core.records import PAGE_BREAK, PageText


def count_words(texts: list[str]) -> list[int]:
    """Counts tokens as words: chunk sizes a test can read off its text."""
    return [len(text.split()) for text in texts]


def assert_chunk_invariants(
    chunks: list[ChunkDraft], pages: list[PageText], max_tokens: int
) -> None:
    assert chunks, "no chunks to check"
    document = PAGE_BREAK.join(page.text for page in pages)
    by_number = {page.number: page for page in pages}
    for ordinal, chunk in enumerate(chunks):
        assert chunk.ordinal == ordinal
        assert chunk.content and chunk.content == chunk.content.strip()
        assert chunk.content == document[chunk.document_span_start : chunk.document_span_end]
        assert chunk.token_count <= max_tokens
        first, last = by_number[chunk.page_start], by_number[chunk.page_end]
        if chunk.page_start == chunk.page_end:
            assert chunk.content == first.text[chunk.page_span_start : chunk.page_span_end]
        else:
            assert chunk.page_end == chunk.page_start + 1
            assert chunk.content == (
                first.text[chunk.page_span_start :] + PAGE_BREAK + last.text[: chunk.page_span_end]
            )


DOC_A = uuid.UUID(int=1)
DOC_B = uuid.UUID(int=2)


@dataclass(frozen=True)
class Chunk:
    chunk_id: uuid.UUID
    content: str
    page_start: int = 3
    page_end: int = 3
    page_span_start: int = 0
    page_span_end: int = 0
    document_id: uuid.UUID = DOC_A
    document_filename: str = "tracemonkey.pdf"
    distance: float = 0.3
    context_header: str = ""
    table_header: tuple[int, int] | None = None
    table_header_text: str = ""
    term_coverage: float | None = None


def chunk(n: int, content: str, **fields: object) -> Chunk:
    return Chunk(uuid.UUID(int=100 + n), content, **fields)  # type: ignore[arg-type]


TRACING = chunk(
    1,
    "Trace trees record hot loops in a dynamic language. A tracing compiler turns the\n"
    "recorded loops into fast native code. The weather was pleasant that year.",
    page_span_end=160,
)
SEARCH = chunk(
    2,
    "Vector search finds passages whose meaning is close to the question.\n\nResults",
    page_start=7,
    page_end=7,
    distance=0.5,
)


def statement_chunk(
    n: int, content: str, *, page: int, context: str = "", header: str = ""
) -> Candidate:
    """Returns a retrieved chunk of a filing's page: a statement's rows, as answers read them;
    `header` is the text of its table's header (a quarterly report's periods)."""
    return Candidate(
        chunk_id=uuid.UUID(int=n),
        document_id=uuid.UUID(int=1),
        document_filename="acme-10k.pdf",
        document_title="Acme Corp 10-K",
        distance=0.5,
        content=content,
        page_start=page,
        page_end=page,
        page_span_start=0,
        page_span_end=len(content),
        context_header=context,
        table_header_text=header,
    )
