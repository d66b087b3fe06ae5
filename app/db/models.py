"""ORM models. The schema itself is created and changed only by the alembic migrations."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from pgvector.sqlalchemy import VECTOR
from sqlalchemy import (
    ARRAY,
    BigInteger,
    Boolean,
    Computed,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Integer,
    LargeBinary,
    String,
    Text,
    func,
)
from sqlalchemy.dialects.postgresql import JSONB, TSVECTOR, UUID
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column, relationship

EMBEDDING_DIM = 384
"""The dimension the ORM declares; the live column's dimension is checked at start-up."""


class Base(DeclarativeBase):
    pass


class Document(Base):
    __tablename__ = "documents"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    sha256: Mapped[str] = mapped_column(String(64))
    filename: Mapped[str] = mapped_column(Text)
    title: Mapped[str] = mapped_column(Text)
    collection: Mapped[str] = mapped_column(Text)
    language: Mapped[str] = mapped_column(Text)
    version: Mapped[str] = mapped_column(Text)
    is_my_copy: Mapped[bool] = mapped_column(Boolean)
    page_count: Mapped[int] = mapped_column(Integer)
    chunk_count: Mapped[int] = mapped_column(Integer)
    annotation_count: Mapped[int] = mapped_column(Integer, default=0)
    byte_size: Mapped[int] = mapped_column(BigInteger)
    toc: Mapped[list[dict[str, Any]]] = mapped_column(JSONB)
    status: Mapped[str] = mapped_column(Text, default="ready")
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())

    file: Mapped[DocumentFile] = relationship(
        back_populates="document", cascade="all, delete-orphan", passive_deletes=True
    )


class DocumentFile(Base):
    """The PDF's bytes (decrypted, when it needed a password), kept apart so listing
    documents never loads them."""

    __tablename__ = "document_files"

    document_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True
    )
    content: Mapped[bytes] = mapped_column(LargeBinary)

    document: Mapped[Document] = relationship(back_populates="file")


class Page(Base):
    __tablename__ = "pages"

    document_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True
    )
    page_number: Mapped[int] = mapped_column(Integer, primary_key=True)
    text: Mapped[str] = mapped_column(Text)
    width: Mapped[float] = mapped_column(Float)
    height: Mapped[float] = mapped_column(Float)
    char_boxes: Mapped[bytes] = mapped_column(LargeBinary)
    """float32 (len(text), 4), row-major: the box of each character of `text`."""
    line_ids: Mapped[bytes] = mapped_column(LargeBinary)
    """int32 (len(text),): the visual line of each character, -1 for inserted separators."""
    from_ocr: Mapped[bool] = mapped_column(Boolean, default=False, server_default="false")
    """Whether `text` is what OCR read on the page, not its text layer."""
    ocr_confidence: Mapped[float | None] = mapped_column(Float)
    """The mean recognition confidence of the page's characters, when OCR read it."""


class Chunk(Base):
    __tablename__ = "chunks"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    ordinal: Mapped[int] = mapped_column(Integer)
    page_start: Mapped[int] = mapped_column(Integer)
    page_end: Mapped[int] = mapped_column(Integer)
    page_span_start: Mapped[int] = mapped_column(Integer)
    page_span_end: Mapped[int] = mapped_column(Integer)
    document_span_start: Mapped[int] = mapped_column(Integer)
    document_span_end: Mapped[int] = mapped_column(Integer)
    bbox: Mapped[list[float]] = mapped_column(ARRAY(Float))
    """Union of the chunk's line rectangles on its first page."""
    line_rects: Mapped[list[dict[str, Any]]] = mapped_column(JSONB)
    """[{"page": n, "rect": [x0, y0, x1, y1]}], one per line, in reading order."""
    chapter: Mapped[str | None] = mapped_column(Text)
    section: Mapped[str | None] = mapped_column(Text)
    content: Mapped[str] = mapped_column(Text)
    context_header: Mapped[str] = mapped_column(Text, default="", server_default="")
    """Whose the chunk is and where it stands (app.chunking.headers), beside its text."""
    table_header_start: Mapped[int | None] = mapped_column(Integer)
    table_header_end: Mapped[int | None] = mapped_column(Integer)
    """For a chunk of a table's rows, its table's header lines in page `page_start`'s text."""
    content_sha256: Mapped[str] = mapped_column(String(64))
    token_count: Mapped[int] = mapped_column(Integer)
    flags: Mapped[list[str]] = mapped_column(ARRAY(Text), default=list)
    embedding: Mapped[Any] = mapped_column(VECTOR(EMBEDDING_DIM))
    embedding_model: Mapped[str] = mapped_column(Text, index=True)
    """The model `embedding` comes from (an Embedder's name): vectors of two models do not
    compare, so the service refuses a database holding another model's, and `citelock reembed`
    finds the chunks left to embed by it."""
    content_tsv: Mapped[Any] = mapped_column(
        TSVECTOR,
        Computed("to_tsvector('english', context_header || ' ' || content)", persisted=True),
        deferred=True,
    )
    """Generated from the header and `content` for keyword search; deferred, since only search
    reads it."""


class DocumentTerm(Base):
    """How many of a document's chunks hold a term (a `content_tsv` lexeme), written with the
    document's chunks: summed over documents, the term's chunk frequency."""

    __tablename__ = "document_terms"

    term: Mapped[str] = mapped_column(Text, primary_key=True)
    document_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("documents.id", ondelete="CASCADE"), primary_key=True
    )
    chunk_count: Mapped[int] = mapped_column(Integer)


class ChunkTerm(Base):
    """A term (a `content_tsv` lexeme) of a chunk, with what it adds to the chunk's measures,
    and the chunk's document, flags and text's order: the keyword side's postings, written
    with the document's term counts (migrations 0013, 0014; app.db.terms.POSTINGS)."""

    __tablename__ = "chunk_terms"

    term: Mapped[str] = mapped_column(Text, primary_key=True)
    chunk_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    held: Mapped[float] = mapped_column(Float)
    """What the term adds to ts_rank's measure of the chunk (app.db.terms.HELD)."""
    impact: Mapped[float] = mapped_column(Float)
    """What the term adds to the chunk's BM25 score, for a weight of 1 (app.db.terms.IMPACT)."""
    flags: Mapped[list[str]] = mapped_column(ARRAY(Text))
    content_order: Mapped[int] = mapped_column(BigInteger)
    """The first 60 bits of the chunk's `content_sha256`: ordered as the hashes are."""


class Annotation(Base):
    """A reader's mark or note on a page: read from the PDF ("pdf") or made in the frontend
    ("api")."""

    __tablename__ = "annotations"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    document_id: Mapped[uuid.UUID] = mapped_column(ForeignKey("documents.id", ondelete="CASCADE"))
    seq: Mapped[int] = mapped_column(BigInteger, Identity(always=True))
    """The order annotations were stored in."""
    page: Mapped[int] = mapped_column(Integer)
    type: Mapped[str] = mapped_column(Text)
    text: Mapped[str] = mapped_column(Text)
    comment: Mapped[str] = mapped_column(Text)
    author: Mapped[str] = mapped_column(Text)
    colour: Mapped[str | None] = mapped_column(Text)
    rects: Mapped[list[list[float]]] = mapped_column(JSONB)
    """[[x0, y0, x1, y1]]: the marked lines (a note's own box), PDF points, origin top-left."""
    page_span_start: Mapped[int | None] = mapped_column(Integer)
    page_span_end: Mapped[int | None] = mapped_column(Integer)
    source: Mapped[str] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())


class AnnotationChunk(Base):
    """An annotation lies on this chunk: their spans on the annotation's page overlap."""

    __tablename__ = "annotation_chunks"

    annotation_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("annotations.id", ondelete="CASCADE"), primary_key=True
    )
    chunk_id: Mapped[uuid.UUID] = mapped_column(
        ForeignKey("chunks.id", ondelete="CASCADE"), primary_key=True
    )


class StoredResponse(Base):
    """A query response's evidence (never its query text), kept until `expires_at`."""

    __tablename__ = "responses"

    response_id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True))
    evidence: Mapped[dict[str, Any]] = mapped_column(JSONB)


class IngestJob(Base):
    __tablename__ = "ingest_jobs"

    id: Mapped[uuid.UUID] = mapped_column(UUID(as_uuid=True), primary_key=True, default=uuid.uuid4)
    document_id: Mapped[uuid.UUID | None] = mapped_column(
        ForeignKey("documents.id", ondelete="SET NULL")
    )
    """The document while it is processing and once ready; None after a failure removed it."""
    status: Mapped[str] = mapped_column(Text, default="processing")
    """processing, ready or failed."""
    page_count: Mapped[int] = mapped_column(Integer)
    pages_done: Mapped[int] = mapped_column(Integer, default=0)
    chunks_done: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    error: Mapped[str | None] = mapped_column(Text)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), server_default=func.now())
    updated_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), server_default=func.now(), onupdate=func.now()
    )
