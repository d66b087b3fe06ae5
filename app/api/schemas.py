"""Request and response shapes, with the field names of ../shared/API.md."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from app.db.models import Chunk, Document


class DocumentForm(BaseModel):
    """The form fields beside the uploaded `file`."""

    collection: str = Field(default="default", min_length=1, max_length=200)
    title: str | None = Field(default=None, max_length=1000)
    language: str = Field(default="en", min_length=2, max_length=20)
    version: str = Field(default="1.0", min_length=1, max_length=50)
    is_my_copy: bool = False
    password: str | None = Field(default=None, max_length=1000)


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


class ChunkOut(BaseModel):
    """A stored chunk with its provenance; never its embedding."""

    chunk_id: uuid.UUID
    ordinal: int
    page_start: int
    page_end: int
    page_span_start: int
    page_span_end: int
    document_span_start: int
    document_span_end: int
    content: str
    chapter: str | None
    section: str | None
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
