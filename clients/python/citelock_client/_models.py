"""The service's request and response shapes, generated from its OpenAPI document.

Do not edit: after the service's schemas change, run
`python clients/python/scripts/generate_models.py` (tests/client/test_models.py fails until
then). Responses keep fields and accept values this version does not know, so a newer service
does not break an older client.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Literal

from citelock_client._base import RequestModel, ResponseModel

__all__ = [
    "Annotation",
    "AnnotationCreate",
    "BBox",
    "Chunk",
    "ChunkHit",
    "Citation",
    "Document",
    "DocumentList",
    "DocumentQueued",
    "HighlightedSource",
    "Job",
    "PageRect",
    "QueryFilters",
    "QueryRequest",
    "QueryResponse",
    "SelectedText",
    "SelectionScope",
    "StoredResponse",
    "TocEntry",
]


class AnnotationCreate(RequestModel):
    """A highlight made in the frontend: the text as selected on the page."""

    page: int
    text: str
    comment: str = ""


class Annotation(ResponseModel):
    id: uuid.UUID
    page: int
    type: str
    """Known values: "highlight", "underline", "squiggly", "strikeout", "note", "freetext"; a
    newer service may send others."""
    text: str
    comment: str
    author: str
    colour: str | None
    rects: list[tuple[float, float, float, float]]
    page_span_start: int | None
    page_span_end: int | None
    chunk_ids: list[uuid.UUID]
    source: str
    """Known values: "pdf", "api"; a newer service may send others."""


class BBox(ResponseModel):
    x: float
    y: float
    width: float
    height: float


class ChunkHit(ResponseModel):
    """A retrieved chunk, with how it ranked."""

    chunk_id: uuid.UUID
    content: str
    context_header: str
    page_start: int
    page_end: int
    chapter: str | None
    section: str | None
    document_id: uuid.UUID
    document_name: str
    distance: float
    relevance_score: float
    hl_count: int = 0
    boost: float = 0.0
    final_score: float


class PageRect(ResponseModel):
    page: int
    rect: tuple[float, float, float, float]


class Chunk(ResponseModel):
    """A stored chunk with its provenance; never its embedding."""

    chunk_id: uuid.UUID
    content: str
    context_header: str
    page_start: int
    page_end: int
    chapter: str | None
    section: str | None
    ordinal: int
    page_span_start: int
    page_span_end: int
    document_span_start: int
    document_span_end: int
    flags: list[str]
    bbox: tuple[float, float, float, float]
    rects: list[PageRect]


class Citation(ResponseModel):
    """What the marker `[n]` in `answer` cites; `citations[n-1]`, beside `sources[n-1]`."""

    n: int
    document_id: uuid.UUID
    document_name: str
    page_start: int
    page_end: int
    chunk_id: uuid.UUID


class TocEntry(ResponseModel):
    level: int
    title: str
    page: int


class Document(ResponseModel):
    id: uuid.UUID
    sha256: str
    title: str
    filename: str
    collection: str
    language: str
    version: str
    is_my_copy: bool
    page_count: int
    chunk_count: int
    annotation_count: int
    byte_size: int
    status: str
    created_at: datetime
    toc: list[TocEntry]


class DocumentList(ResponseModel):
    data: list[Document]
    count: int


class DocumentQueued(ResponseModel):
    id: uuid.UUID
    status: str = "processing"
    job_url: str


class HighlightedSource(ResponseModel):
    """A cited sentence on one page: where it is in the text, and its lines on the page."""

    document_id: uuid.UUID
    document_name: str
    page_number: int
    text_snippet: str
    highlight_spans: list[tuple[int, int]]
    page_spans: list[tuple[int, int]]
    rects: list[tuple[float, float, float, float]]
    bbox: BBox | None
    confidence: float
    citation: int


class Job(ResponseModel):
    id: uuid.UUID
    document_id: uuid.UUID | None
    status: str
    """Known values: "processing", "ready", "failed"; a newer service may send others."""
    page_count: int
    pages_done: int
    chunks_done: int
    error: str | None


class QueryFilters(RequestModel):
    collection: str | None = None
    document_ids: list[uuid.UUID] | None = None
    chapter: str | None = None
    section: str | None = None
    language: str | None = None
    version: str | None = None
    page_start: int | None = None
    page_end: int | None = None
    is_my_copy: bool | None = None


class SelectedText(RequestModel):
    """Selection mode: the text a reader selected, and where the viewer says it stands.

    The text is kept as sent (no trimming): it is matched against the page text. An empty or
    blank one is accepted and answered in standard mode, status `scope_fallback`. Page
    ranges are checked against the document: a reversed or out-of-document one is refused
    with `invalid_selection`."""

    text: str
    document_id: uuid.UUID | None = None
    start_page: int | None = None
    end_page: int | None = None
    chapter: str | None = None


class QueryRequest(RequestModel):
    query: str
    top_k: int = 5
    selected_text: SelectedText | None = None
    filters: QueryFilters | None = None
    use_annotations: bool | None = None
    search: Literal["hybrid", "vector"] | None = None


class SelectionScope(ResponseModel):
    """Where selection mode found the selected text: the only pages the answer draws on."""

    document_id: uuid.UUID
    start_page: int
    end_page: int
    match: str
    """Known values: "exact", "fuzzy"; a newer service may send others."""
    score: float


class QueryResponse(ResponseModel):
    answer: str
    sources: list[str]
    citations: list[Citation]
    confidence: float
    query_type: str
    """Known values: "standard", "selected_text"; a newer service may send others."""
    status: str
    """Known values: "ok", "no_answer", "no_matches", "empty_database", "scope_fallback"; a newer
    service may send others."""
    synthesis: str
    """Known values: "extractive", "llm", "extractive_fallback"; a newer service may send others."""
    request_id: str
    response_id: str | None
    chunks: list[ChunkHit]
    highlighted_sources: list[HighlightedSource] | None
    viewer_url: str | None
    timings_ms: dict[str, float]
    selection: SelectionScope | None = None
    scope_note: str | None = None


class StoredResponse(ResponseModel):
    answer: str
    sources: list[str]
    citations: list[Citation] | None = None
    synthesis: str
    """Known values: "extractive", "llm", "extractive_fallback"; a newer service may send others."""
    chunk_ids: list[uuid.UUID]
    highlighted_sources: list[HighlightedSource] | None
    response_id: uuid.UUID
    created_at: datetime
    expires_at: datetime
