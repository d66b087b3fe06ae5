"""Request and response shapes, with the field names of ../shared/API.md."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Annotated, Any, Literal, Self

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictInt,
    model_validator,
)
from pydantic.json_schema import WithJsonSchema

from app.core.names import FORBIDDEN_IN_NAMES, NAME_PATTERN
from app.db.annotations import StoredAnnotation
from app.db.models import Chunk, Document


def refuse_nul(value: str) -> str:
    # PostgreSQL text cannot hold NUL: refuse it here rather than fail in the database.
    if "\x00" in value:
        raise ValueError("must not contain NUL characters")
    return value


UserText = Annotated[str, AfterValidator(refuse_nul)]
"""A string from the caller, as it may be stored or sent to SQL."""

DEFAULT_COLLECTION = "default"


def collection_name(value: str) -> str:
    """Returns the name trimmed, the default collection for a blank one (so `collection=""`
    means the same on an upload and in a listing); refuses control and text-direction
    characters inside it."""
    name = value.strip()
    if not FORBIDDEN_IN_NAMES.isdisjoint(name):
        raise ValueError("must not contain control or text-direction characters")
    return name or DEFAULT_COLLECTION


CollectionName = Annotated[
    str,
    AfterValidator(collection_name),
    WithJsonSchema({"type": "string", "maxLength": 200, "pattern": NAME_PATTERN}),
]
"""A collection name: no control or text-direction characters, trimmed, blank the default."""

# JSON bodies take numbers and booleans only as themselves (StrictInt, StrictBool): "5" or 0
# for a boolean would be a client's bug that the schema promises to refuse, not to guess at.

PAGE_NUMBER_MAX = 2**31 - 1
"""Page numbers are PostgreSQL integers: a larger one would fail in SQL, not as a 422."""

PageNumber = Annotated[StrictInt, Field(ge=1, le=PAGE_NUMBER_MAX)]


class DocumentForm(BaseModel):
    """The form fields beside the uploaded `file`."""

    collection: CollectionName = Field(default=DEFAULT_COLLECTION, max_length=200)
    title: UserText | None = Field(default=None, max_length=1000)
    language: UserText = Field(default="en", min_length=2, max_length=20)
    version: UserText = Field(default="1.0", min_length=1, max_length=50)
    is_my_copy: bool = False
    password: UserText | None = Field(default=None, max_length=1000)


class TocEntryOut(BaseModel):
    level: int
    title: str
    page: int


class DocumentOut(BaseModel):
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
    toc: list[TocEntryOut]

    @classmethod
    def of(cls, document: Document) -> DocumentOut:
        return cls.model_validate(document, from_attributes=True)


class DocumentList(BaseModel):
    data: list[DocumentOut]
    count: int


class PageRect(BaseModel):
    page: int
    rect: tuple[float, float, float, float]


class ChunkBase(BaseModel):
    """What every chunk the contract shows says of itself: its text and where it stands."""

    chunk_id: uuid.UUID
    content: str
    context_header: str
    """Whose the chunk is and where it stands (title, a filing's form and period, chapter and
    section): embedded and keyword-indexed with `content`, never part of it."""
    page_start: int
    page_end: int
    chapter: str | None
    section: str | None


class ChunkOut(ChunkBase):
    """A stored chunk with its provenance; never its embedding."""

    ordinal: int
    page_span_start: int
    page_span_end: int
    document_span_start: int
    document_span_end: int
    flags: list[str]
    bbox: tuple[float, float, float, float]
    rects: list[PageRect]

    @classmethod
    def of(cls, chunk: Chunk) -> ChunkOut:
        fields: dict[str, Any] = {
            name: getattr(chunk, name) for name in cls.model_fields if hasattr(chunk, name)
        }
        return cls(**fields, chunk_id=chunk.id, rects=chunk.line_rects)


class Health(BaseModel):
    status: str


class QueryFilters(BaseModel):
    model_config = ConfigDict(extra="forbid")

    collection: CollectionName | None = Field(default=None, max_length=200)
    document_ids: list[uuid.UUID] = Field(default_factory=list, max_length=1000)
    chapter: UserText | None = Field(default=None, max_length=1000)
    section: UserText | None = Field(default=None, max_length=1000)
    language: UserText | None = Field(default=None, max_length=20)
    version: UserText | None = Field(default=None, max_length=50)
    page_start: PageNumber | None = None
    page_end: PageNumber | None = None
    is_my_copy: StrictBool | None = None

    @model_validator(mode="after")
    def pages_in_order(self) -> Self:
        if (
            self.page_start is not None
            and self.page_end is not None
            and self.page_start > self.page_end
        ):
            raise ValueError(f"page_start ({self.page_start}) is after page_end ({self.page_end})")
        return self


class SelectedText(BaseModel):
    """Selection mode: the text a reader selected, and where the viewer says it stands.

    The text is kept as sent (no trimming): it is matched against the page text. An empty or
    blank one is accepted and answered in standard mode, status `scope_fallback`. Page
    ranges are checked against the document: a reversed or out-of-document one is refused
    with `invalid_selection`.
    """

    model_config = ConfigDict(extra="forbid")

    text: UserText = Field(max_length=5000)
    document_id: uuid.UUID | None = None
    start_page: Annotated[StrictInt, Field(le=PAGE_NUMBER_MAX)] | None = None
    end_page: Annotated[StrictInt, Field(le=PAGE_NUMBER_MAX)] | None = None
    chapter: UserText | None = Field(default=None, max_length=1000)


class QueryRequest(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)

    query: UserText = Field(min_length=1, max_length=1000)
    top_k: StrictInt = Field(default=5, ge=1, le=20)
    """5 in standard mode, 3 in selection mode, unless given."""
    selected_text: SelectedText | None = None
    filters: QueryFilters = Field(default_factory=QueryFilters)
    use_annotations: StrictBool | None = None
    search: Literal["hybrid", "vector"] | None = None


class ChunkHit(ChunkBase):
    """A retrieved chunk, with how it ranked."""

    document_id: uuid.UUID
    document_name: str
    distance: float
    relevance_score: float
    hl_count: int = 0
    boost: float = 0.0
    final_score: float


class BBox(BaseModel):
    x: float
    y: float
    width: float
    height: float


class HighlightedSource(BaseModel):
    """A cited sentence on one page: where it is in the text, and its lines on the page."""

    document_id: uuid.UUID
    document_name: str
    page_number: int
    text_snippet: str
    """The cited chunk's text on this page."""
    highlight_spans: list[tuple[int, int]]
    """Half-open offsets of the cited sentence in `text_snippet`."""
    page_spans: list[tuple[int, int]]
    """The same, as offsets into the page's text."""
    rects: list[tuple[float, float, float, float]]
    """One rectangle per line, x0, y0, x1, y1 in PDF points, origin top-left."""
    bbox: BBox | None
    """The union of `rects`; None when the text has no glyph boxes."""
    confidence: float
    citation: int
    """The marker `[n]` in `answer` of the claim this evidence supports."""


class Citation(BaseModel):
    """What the marker `[n]` in `answer` cites; `citations[n-1]`, beside `sources[n-1]`."""

    n: int
    document_id: uuid.UUID
    document_name: str
    page_start: int
    page_end: int
    chunk_id: uuid.UUID
    """The chunk the first claim with this marker quotes."""


class SelectionScope(BaseModel):
    """Where selection mode found the selected text: the only pages the answer draws on."""

    document_id: uuid.UUID
    start_page: int
    end_page: int
    match: Literal["exact", "fuzzy"]
    """exact: the text as sent, up to whitespace, case and line-end hyphenation."""
    score: float
    """100 for an exact match, else the fuzzy match's partial ratio (0-100)."""


SynthesisUsed = Literal["extractive", "llm", "extractive_fallback"]
"""How the answer was written: `extractive_fallback` when SYNTHESIS=llm but the model failed."""


AnswerStatus = Literal["ok", "no_answer", "no_matches", "empty_database", "scope_fallback"]
"""no_answer: chunks matched, but no passage answers well enough; `answer` is empty."""


class QueryResponse(BaseModel):
    answer: str
    sources: list[str]
    citations: list[Citation]
    confidence: float
    """How likely the answer is to state what was asked (0 without an answer)."""
    query_type: Literal["standard", "selected_text"]
    status: AnswerStatus
    synthesis: SynthesisUsed
    request_id: str
    response_id: str | None
    chunks: list[ChunkHit]
    highlighted_sources: list[HighlightedSource] | None
    viewer_url: str | None
    timings_ms: dict[str, float]
    selection: SelectionScope | None = None
    """In selection mode, where the selection was found; None in standard mode."""
    scope_note: str | None = None
    """Why selection mode fell back to standard retrieval (`scope_fallback`), or what it
    corrected (pages given that did not hold the selection)."""


class AnnotationCreate(BaseModel):
    """A highlight made in the frontend: the text as selected on the page."""

    model_config = ConfigDict(extra="forbid")

    page: PageNumber
    text: UserText = Field(min_length=1, max_length=5000)
    comment: UserText = Field(default="", max_length=10000)


class AnnotationOut(BaseModel):
    id: uuid.UUID
    page: int
    type: Literal["highlight", "underline", "squiggly", "strikeout", "note", "freetext"]
    text: str
    comment: str
    author: str
    colour: str | None
    rects: list[tuple[float, float, float, float]]
    """The marked lines (a note's own box), x0, y0, x1, y1 in PDF points, origin top-left."""
    page_span_start: int | None
    page_span_end: int | None
    """Where the text lies in the page's text; for a note, an empty span at the character
    under it; null when no text lies under it."""
    chunk_ids: list[uuid.UUID]
    source: Literal["pdf", "api"]

    @classmethod
    def of(cls, item: StoredAnnotation) -> AnnotationOut:
        fields: dict[str, Any] = {
            name: getattr(item.annotation, name)
            for name in cls.model_fields
            if hasattr(item.annotation, name)
        }
        return cls(**fields, chunk_ids=item.chunk_ids)


class ResponseEvidence(BaseModel):
    """What is stored of a response: the evidence behind its answer, never the query text."""

    answer: str
    sources: list[str]
    citations: list[Citation] = Field(default_factory=list)
    """Empty in responses stored before citations existed."""
    synthesis: SynthesisUsed
    chunk_ids: list[uuid.UUID]
    highlighted_sources: list[HighlightedSource] | None


class ResponseOut(ResponseEvidence):
    response_id: uuid.UUID
    created_at: datetime
    expires_at: datetime
