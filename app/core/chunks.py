"""The one chunk shape every layer shares, its provenance declared once.

Offsets are the truth: a chunk's text runs from `page_span_start` on page `page_start` to
`page_span_end` on page `page_end` (the pages between wholly), joined by PAGE_BREAK, and
everything else (spans in the page, rectangles, citations) is derived from them. Each stage
adds its own fields: chunking a draft's ordinal and token count, search a retrieved chunk's
distance and ranks.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

TOC = "toc"
INDEX = "index"
LIST_OF_FIGURES = "list_of_figures"
STRUCTURE_FLAGS = (TOC, INDEX, LIST_OF_FIGURES)
"""The flags of chunks on pages that only point elsewhere (app.chunking.structure)."""
OCR = "ocr"
"""The flag of a chunk whose text, on some page of it, was read by OCR."""
TABLE = "table"
"""The flag of a chunk of a table's rows (app.chunking.tables): whole rows, no sentences."""


@dataclass(frozen=True, kw_only=True)
class ChunkPlace:
    """Where a chunk stands in its document's pages."""

    page_start: int
    page_end: int
    page_span_start: int
    """An offset into page `page_start`'s text."""
    page_span_end: int
    """An offset into page `page_end`'s text."""


@dataclass(frozen=True, kw_only=True)
class ChunkText(ChunkPlace):
    """A chunk's text at its place, and where it stands in the document's outline."""

    content: str
    chapter: str | None = None
    section: str | None = None
    flags: tuple[str, ...] = ()
    context_header: str = ""
    """Whose the chunk is and where it stands (app.chunking.headers): embedded and keyword
    indexed with `content`, never part of it."""
    table_header: tuple[int, int] | None = None
    """For a chunk of a table's rows, where the lines that head the table (caption, unit,
    periods, column heads) are in page `page_start`'s text; None for any other chunk."""
    table_header_text: str = ""
    """Those lines' text, whitespace collapsed: what a row of the table is quoted with. Not
    embedded with the chunk: every chunk of a statement would share its periods and unit."""


@dataclass(frozen=True, kw_only=True)
class ChunkDraft(ChunkText):
    """A chunk before it is embedded and stored.

    `content == document_text[document_span_start:document_span_end]`, where the document
    text is the pages' texts joined with PAGE_BREAK, so for a one-page chunk
    `content == page.text[page_span_start:page_span_end]`.
    """

    ordinal: int
    document_span_start: int
    document_span_end: int
    token_count: int
    """The content's length in the embedding model's tokens, counted by chunking."""


@dataclass(frozen=True, kw_only=True)
class Candidate(ChunkText):
    """A stored chunk found by search, with how it ranked and what the caller shows of it."""

    chunk_id: uuid.UUID
    document_id: uuid.UUID
    document_filename: str
    document_title: str
    distance: float
    """Cosine distance to the query vector: 0 for the same direction, up to 2."""
    keyword_rank: int | None = None
    """1-based rank among the full-text matches; None when not among them, or in "vector" mode."""
    vector_rank: int | None = None
    """1-based rank by distance; None for a chunk found only by its words."""
    fused_score: float = 0.0
    """Sum of 1 / (RRF_K + rank) over the rankings the chunk is in."""
    hl_count: int = 0
    """The reader's marks on the chunk that count toward its rank; 0 unless they were asked for."""
    name_boost: float = 0.0
    """What its score lost because the query names its document or a date it holds
    (app.retrieval.names)."""
    term_coverage: float | None = None
    """The weighed share of the query's terms it holds, the rarer weighing more
    (app.retrieval.coverage); None when retrieval did not weigh them (a selection's passage)."""
