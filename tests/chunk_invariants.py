"""The chunk invariant every test of chunking checks: content is exactly the text at its offsets."""

from __future__ import annotations

from app.core.chunks import ChunkDraft
from app.core.records import PAGE_BREAK, PageText


def assert_chunk_invariants(
    chunks: list[ChunkDraft], pages: list[PageText], max_tokens: int
) -> None:
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
