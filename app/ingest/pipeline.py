"""Ingestion: a PDF file in, a document with pages and embedded chunks stored in one transaction."""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.db.annotations import store_marks
from app.db.models import Chunk, Document, DocumentFile, Page
from app.ingest.annotations import locate_marks
from app.ingest.chunking import chunk_pages
from app.ingest.flags import flag_chunks
from app.ingest.furniture import find_furniture
from app.ingest.geometry import line_rects, page_lines, union_rect
from app.ingest.limits import Deadline, IngestLimits
from app.ingest.pdf import check_text_layer, extract_document, open_pdf
from app.ingest.records import ChunkDraft, ExtractedDocument, PageText
from app.ingest.references import reference_sections
from app.retrieval.embedder import Embedder, embed_texts

READ_BLOCK = 1 << 20
EMBED_GROUP = 512
"""Chunks embedded between two deadline checks: a few seconds of work on one core."""


@dataclass(frozen=True)
class DocumentMeta:
    """What the uploader says about the file, beside its bytes."""

    filename: str
    collection: str = "default"
    title: str | None = None
    language: str = "en"
    version: str = "1.0"
    is_my_copy: bool = False
    password: str | None = None


@dataclass(frozen=True)
class ChunkingParams:
    max_tokens: int
    overlap_tokens: int
    count_tokens: Callable[[list[str]], list[int]]


@dataclass
class StageTimings:
    """Seconds spent in each stage of one ingestion."""

    extract: float = 0.0
    chunk: float = 0.0
    embed: float = 0.0
    store: float = 0.0

    @contextmanager
    def measure(self, stage: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            setattr(self, stage, getattr(self, stage) + time.perf_counter() - started)


@dataclass(frozen=True)
class IngestResult:
    document: Document
    created: bool
    timings: StageTimings = field(default_factory=StageTimings)


def file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while block := stream.read(READ_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def find_document(session: Session, *, collection: str, sha256: str) -> Document | None:
    return session.scalars(
        select(Document).where(Document.collection == collection, Document.sha256 == sha256)
    ).one_or_none()


def read_pdf(
    path: Path, password: str | None, *, limits: IngestLimits, deadline: Deadline
) -> ExtractedDocument:
    """Returns the document's pages and outline; raises the upload errors for unusable files.

    A PDF without a text layer is refused unless it carries the reader's annotations: those
    are the reader's own work, kept and listed, though no passage of it can be retrieved.
    """
    with open_pdf(path, password) as pdf:
        extracted = extract_document(pdf, max_pages=limits.max_pages, deadline=deadline)
    if not extracted.annotations:
        check_text_layer([page_lines(page) for page in extracted.pages])
    return extracted


def draft_chunks(extracted: ExtractedDocument, chunking: ChunkingParams) -> list[ChunkDraft]:
    """Returns the document's flagged chunks, in document order."""
    # Reference sections bound chunks like furniture does, so that leaving them out at
    # query time never drops the body text a chunk would otherwise have shared with them.
    lines = [page_lines(page) for page in extracted.pages]
    references = reference_sections(lines, extracted.toc)
    drafts = chunk_pages(
        extracted.pages,
        extracted.toc,
        max_tokens=chunking.max_tokens,
        overlap_tokens=chunking.overlap_tokens,
        count_tokens=chunking.count_tokens,
        furniture=find_furniture(lines),
        regions=references,
    )
    return flag_chunks(drafts, references=references)


def ingest_pdf(
    path: Path,
    meta: DocumentMeta,
    *,
    sessions: sessionmaker[Session],
    embedder: Embedder,
    chunking: ChunkingParams,
    limits: IngestLimits,
) -> IngestResult:
    """Returns the stored document, new or (same bytes in the same collection) the existing one.

    The reader's annotations in the PDF are stored with it, each linked to the chunks it
    lies on. Nothing is written until every stage has succeeded, and then everything is
    written in one transaction: a failure at any point leaves no row behind. A PDF over
    `limits.max_pages`, or still unprocessed after `limits.timeout_seconds`, is refused.
    """
    deadline = Deadline(limits.timeout_seconds)
    sha256 = file_sha256(path)
    with sessions() as session:
        existing = find_document(session, collection=meta.collection, sha256=sha256)
    if existing is not None:
        return IngestResult(existing, created=False)

    timings = StageTimings()
    with timings.measure("extract"):
        extracted = read_pdf(path, meta.password, limits=limits, deadline=deadline)
    with timings.measure("chunk"):
        drafts = draft_chunks(extracted, chunking)
    with timings.measure("embed"):
        vectors = embed_drafts(embedder, drafts, deadline)
    deadline.check("storing")
    with timings.measure("store"):
        try:
            document = store_document(
                sessions,
                path,
                meta,
                sha256=sha256,
                extracted=extracted,
                drafts=drafts,
                vectors=vectors,
            )
        except IntegrityError:
            # The same bytes were stored concurrently in this collection: theirs stands.
            with sessions() as session:
                winner = find_document(session, collection=meta.collection, sha256=sha256)
            if winner is None:
                raise
            return IngestResult(winner, created=False, timings=timings)
    return IngestResult(document, created=True, timings=timings)


def embed_drafts(
    embedder: Embedder, drafts: list[ChunkDraft], deadline: Deadline
) -> npt.NDArray[np.float32]:
    """Returns the drafts' vectors, embedded EMBED_GROUP at a time with the deadline checked
    before each group."""
    texts = [draft.content for draft in drafts]
    groups = []
    for start in range(0, len(texts), EMBED_GROUP):
        deadline.check(f"embedding chunk {start + 1} of {len(texts)}")
        groups.append(embed_texts(embedder, texts[start : start + EMBED_GROUP]))
    if not groups:
        return np.empty((0, embedder.dim), dtype=np.float32)
    return np.concatenate(groups)


def store_document(
    sessions: sessionmaker[Session],
    path: Path,
    meta: DocumentMeta,
    *,
    sha256: str,
    extracted: ExtractedDocument,
    drafts: list[ChunkDraft],
    vectors: npt.NDArray[np.float32],
) -> Document:
    """Returns the document after writing it, its file, pages, chunks and annotations in one
    transaction."""
    pages = {page.number: page for page in extracted.pages}
    marks = locate_marks(extracted.annotations, extracted.pages)
    with sessions.begin() as session:
        document = new_document(
            path, meta, sha256=sha256, page_count=len(extracted.pages), status="ready"
        )
        describe_contents(document, extracted, given_title=meta.title, chunk_count=len(drafts))
        document.annotation_count = len(marks)
        session.add(document)
        session.flush()
        session.execute(insert(Page), [page_row(document.id, page) for page in extracted.pages])
        if drafts:
            session.execute(
                insert(Chunk),
                [
                    chunk_row(document.id, draft, vector, pages)
                    for draft, vector in zip(drafts, vectors, strict=True)
                ],
            )
        store_marks(session=session, document_id=document.id, marks=marks, source="pdf")
    return document


def new_document(
    path: Path, meta: DocumentMeta, *, sha256: str, page_count: int, status: str
) -> Document:
    """Returns the document row for the file at `path`, its bytes attached, not yet added."""
    document = Document(
        sha256=sha256,
        filename=meta.filename,
        title=meta.title or Path(meta.filename).stem,
        collection=meta.collection,
        language=meta.language,
        version=meta.version,
        is_my_copy=meta.is_my_copy,
        page_count=page_count,
        chunk_count=0,
        annotation_count=0,
        byte_size=path.stat().st_size,
        toc=[],
        status=status,
    )
    document.file = DocumentFile(content=path.read_bytes())
    return document


def describe_contents(
    document: Document,
    extracted: ExtractedDocument,
    *,
    given_title: str | None,
    chunk_count: int,
) -> None:
    """Sets what only reading the PDF tells: the outline, the title (the uploader's, else the
    PDF's metadata title, else the file name), the chunk count."""
    document.chunk_count = chunk_count
    document.toc = [
        {"level": entry.level, "title": entry.title, "page": entry.page} for entry in extracted.toc
    ]
    document.title = given_title or extracted.title or Path(document.filename).stem


def page_row(document_id: Any, page: PageText) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "page_number": page.number,
        "text": page.text,
        "width": page.width,
        "height": page.height,
        "char_boxes": page.char_boxes.astype(np.float32).tobytes(),
        "line_ids": page.line_ids.astype(np.int32).tobytes(),
    }


def chunk_rects(draft: ChunkDraft, pages: dict[int, PageText]) -> list[dict[str, Any]]:
    """Returns one rectangle per line of the chunk, on each page it covers."""
    rects: list[dict[str, Any]] = []
    for number in range(draft.page_start, draft.page_end + 1):
        page = pages[number]
        start = draft.page_span_start if number == draft.page_start else 0
        end = draft.page_span_end if number == draft.page_end else len(page.text)
        rects.extend({"page": number, "rect": list(rect)} for rect in line_rects(page, start, end))
    return rects


def chunk_row(
    document_id: Any,
    draft: ChunkDraft,
    vector: npt.NDArray[np.float32],
    pages: dict[int, PageText],
) -> dict[str, Any]:
    rects = chunk_rects(draft, pages)
    first_page = [tuple(r["rect"]) for r in rects if r["page"] == draft.page_start]
    bbox = union_rect(first_page)
    return {
        "document_id": document_id,
        "ordinal": draft.ordinal,
        "page_start": draft.page_start,
        "page_end": draft.page_end,
        "page_span_start": draft.page_span_start,
        "page_span_end": draft.page_span_end,
        "document_span_start": draft.document_span_start,
        "document_span_end": draft.document_span_end,
        "bbox": list(bbox) if bbox else [0.0, 0.0, 0.0, 0.0],
        "line_rects": rects,
        "chapter": draft.chapter,
        "section": draft.section,
        "content": draft.content,
        "content_sha256": hashlib.sha256(draft.content.encode()).hexdigest(),
        "token_count": draft.token_count,
        "flags": list(draft.flags),
        "embedding": vector,
    }
