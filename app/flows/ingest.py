"""Ingesting a PDF: the one flow that the route, the CLI and the worker run.

An upload is ingested at once, in one transaction, or, past the page threshold, stored as
`processing` with a job that a worker runs batch by batch (app.flows.ingest_job). A PDF with
a password is always ingested at once: queuing it would store the password. The PDF is
opened once: its page count decides, and ingesting at once reads the same open document.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import pymupdf
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.core.config import Settings
from app.core.errors import InvalidUpload, JobNotFound
from app.core.memory import release_free_memory
from app.core.metrics import record_ingestion
from app.core.records import ExtractedDocument, Mark, PageBatch, PageLines
from app.db.chunks import store_batch
from app.db.models import Document, IngestJob
from app.embedding.embedder import Embedder
from app.flows.ingest_job import run_ingest_job
from app.flows.ingest_stages import (
    ChunkingParams,
    DocumentMeta,
    StageTimings,
    chunking_params,
    document_name,
    file_sha256,
    find_document,
    finish_document,
    ingest_limits,
    new_document,
    ocr_policy,
    page_batches,
    read_pdf,
)
from app.flows.runtime import Runtime
from app.jobs.queue import defer_ingestion
from app.pdf.limits import Deadline, IngestLimits, check_page_count
from app.pdf.ocr import OcrMode, OcrPolicy
from app.pdf.reader import decrypted_copy, open_pdf, page_count, pages_without_text
from app.pdf.spill import box_spill
from app.pdf.uploads import spooled_upload

__all__ = [
    "DocumentMeta",
    "IngestResult",
    "PagesStored",
    "Queued",
    "StageTimings",
    "file_sha256",
    "get_job",
    "ingest_document",
    "ingest_file",
    "ingest_upload",
    "queue_ingestion",
]

PagesStored = Callable[[int, int], None]
"""Told (pages stored, page count) as an ingestion goes."""


@dataclass(frozen=True)
class IngestResult:
    document: Document
    created: bool
    timings: StageTimings = field(default_factory=StageTimings)


@dataclass(frozen=True)
class Queued:
    document_id: uuid.UUID
    job_id: uuid.UUID


def ingest_upload(
    stream: BinaryIO, meta: DocumentMeta, *, runtime: Runtime
) -> IngestResult | Queued:
    """Returns what became of an uploaded stream, spooled to the data folder first; a refusal
    names the uploader's file name."""
    settings = runtime.settings
    try:
        with spooled_upload(
            stream, directory=settings.uploads_dir, max_bytes=settings.max_upload_bytes
        ) as path:
            return ingest_document(path, meta, runtime=runtime)
    except InvalidUpload as refused:
        refused.name_file(meta.filename)
        raise


OCR_PAGE_COST = 10
"""Pages of a text layer that reading one page by OCR costs as much time as, roughly: a
6-page scan goes to a worker, as a 60-page book would."""


def runs_in_background(
    pdf: pymupdf.Document, pages: int, meta: DocumentMeta, settings: Settings
) -> bool:
    """Says whether the upload is queued: past the page threshold, each page that OCR will
    read weighing OCR_PAGE_COST pages. One with a password never is."""
    threshold = settings.background_page_threshold
    if meta.password is not None or pages <= threshold // OCR_PAGE_COST:
        return False
    if pages > threshold or settings.ocr == OcrMode.off:
        return pages > threshold
    scans = pages if settings.ocr == OcrMode.force else pages_without_text(pdf)
    return pages + (OCR_PAGE_COST - 1) * scans > threshold


def ingest_document(
    path: Path,
    meta: DocumentMeta,
    *,
    runtime: Runtime,
    run_job_here: bool = False,
    on_progress: PagesStored | None = None,
) -> IngestResult | Queued:
    """Returns the stored document, or the queued job of a PDF longer than the threshold.

    The PDF is opened only once this upload has its turn (runtime.ingest_slots), so uploads
    waiting for one hold their spooled file and nothing parsed. With `run_job_here` (the
    CLI) a queued job is run at once in this process, so progress follows its stored
    batches; were the process to stop, any worker would finish the job.
    """
    settings = runtime.settings
    with runtime.ingest_slots, open_pdf(path, meta.password) as pdf:
        pages = page_count(pdf)
        check_page_count(pages, settings.max_pages)
        if not runs_in_background(pdf, pages, meta, settings):
            result = ingest_in_turn(path, meta, runtime=runtime, pdf=pdf)
            if on_progress is not None:
                on_progress(result.document.page_count, result.document.page_count)
            return result
    try:
        queued = queue_ingestion(path, meta, page_count=pages, runtime=runtime)
    except IntegrityError:
        # The same bytes were queued concurrently in this collection: theirs stands.
        queued = queue_ingestion(path, meta, page_count=pages, runtime=runtime)
    if run_job_here and isinstance(queued, Queued):
        run_ingest_job(
            queued.job_id,
            runtime=runtime,
            on_progress=None if on_progress is None else lambda done: on_progress(done, pages),
        )
    return queued


def ingest_file(
    path: Path, meta: DocumentMeta, *, runtime: Runtime, pdf: pymupdf.Document | None = None
) -> IngestResult:
    """Returns the document stored at once, after waiting for a turn (runtime.ingest_slots):
    uploads past the core count would only share the cores and multiply the memory they hold."""
    with runtime.ingest_slots:
        return ingest_in_turn(path, meta, runtime=runtime, pdf=pdf)


def ingest_in_turn(
    path: Path, meta: DocumentMeta, *, runtime: Runtime, pdf: pymupdf.Document | None
) -> IngestResult:
    """Returns the document stored at once, the caller holding one of the ingestion turns."""
    try:
        result = ingest_pdf(
            path,
            meta,
            sessions=runtime.sessions,
            embedder=runtime.embedder,
            chunking=chunking_params(runtime.settings, runtime.count_tokens),
            limits=ingest_limits(runtime.settings),
            batch_pages=runtime.settings.ingest_batch_pages,
            scratch=runtime.settings.uploads_dir,
            pdf=pdf,
            ocr=ocr_policy(runtime.settings),
        )
    finally:
        release_free_memory()
    if result.created:
        record_ingestion(pages=result.document.page_count)
    return result


def ingest_pdf(
    path: Path,
    meta: DocumentMeta,
    *,
    sessions: sessionmaker[Session],
    embedder: Embedder,
    chunking: ChunkingParams,
    limits: IngestLimits,
    batch_pages: int,
    scratch: Path,
    pdf: pymupdf.Document | None = None,
    ocr: OcrPolicy | None = None,
) -> IngestResult:
    """Returns the stored document, new or (same bytes in the same collection) the existing one.

    The reader's annotations in the PDF are stored with it, each linked to the chunks it
    lies on. Everything is written in one transaction, `batch_pages` pages at a time as
    they are chunked and embedded: a failure at any point leaves no row behind. A PDF over
    `limits.max_pages`, or still unprocessed after `limits.timeout_seconds`, is refused.
    The pages' character boxes wait in an unnamed file in `scratch` meanwhile. `pdf` is the
    file already opened, if the caller has it open; `ocr` says which pages OCR reads.
    """
    deadline = Deadline(limits.timeout_seconds)
    sha256 = file_sha256(path)
    with sessions() as session:
        existing = find_document(session, collection=meta.collection, sha256=sha256)
    if existing is not None:
        return IngestResult(existing, created=False)

    timings = StageTimings()
    with box_spill(scratch) as spill:
        with timings.measure("extract"), opened(pdf, path, meta.password) as opened_pdf:
            extracted = read_pdf(opened_pdf, limits=limits, deadline=deadline, spill=spill, ocr=ocr)
            decrypted = decrypted_copy(opened_pdf)
        name = document_name(extracted, meta.filename, meta.title)
        batches = page_batches(
            extracted,
            spill,
            chunking=chunking,
            embedder=embedder,
            batch_pages=batch_pages,
            label=name.label,
            deadline=deadline,
            timings=timings,
        )
        try:
            document = store_document(
                sessions,
                path,
                meta,
                sha256=sha256,
                extracted=extracted,
                batches=batches,
                title=name.title,
                timings=timings,
                decrypted=decrypted,
            )
        except IntegrityError:
            # The same bytes were stored concurrently in this collection: theirs stands.
            with sessions() as session:
                winner = find_document(session, collection=meta.collection, sha256=sha256)
            if winner is None:
                raise
            return IngestResult(winner, created=False, timings=timings)
    return IngestResult(document, created=True, timings=timings)


@contextmanager
def opened(
    pdf: pymupdf.Document | None, path: Path, password: str | None
) -> Iterator[pymupdf.Document]:
    """Yields `pdf`, left open for its owner, or the file at `path` opened and closed here."""
    if pdf is not None:
        yield pdf
        return
    with open_pdf(path, password) as document:
        yield document


def store_document(
    sessions: sessionmaker[Session],
    path: Path,
    meta: DocumentMeta,
    *,
    sha256: str,
    extracted: ExtractedDocument[PageLines],
    batches: Iterable[PageBatch],
    title: str,
    timings: StageTimings,
    decrypted: bytes | None = None,
) -> Document:
    """Returns the document after writing it, its file (`decrypted`, when the PDF needed a
    password), and then, batch by batch, its pages, chunks and annotations, all in one
    transaction."""
    with sessions.begin() as session:
        document = new_document(
            path,
            meta,
            sha256=sha256,
            page_count=len(extracted.pages),
            status="ready",
            content=decrypted,
        )
        session.add(document)
        session.flush()
        marks: list[Mark] = []
        chunk_count = 0
        for batch in batches:
            with timings.measure("store"):
                store_batch(session, document.id, batch)
            marks += batch.marks
            chunk_count += len(batch.chunks)
        finish_document(
            session,
            document,
            extracted,
            title=title,
            chunk_count=chunk_count,
            marks=marks,
        )
    return document


def queue_ingestion(
    path: Path, meta: DocumentMeta, *, page_count: int, runtime: Runtime
) -> IngestResult | Queued:
    """Stores the document as `processing` with its job and queues the job, in one transaction."""
    sha256 = file_sha256(path)
    with runtime.sessions.begin() as session:
        existing = find_document(session, collection=meta.collection, sha256=sha256)
        if existing is not None:
            return known_upload(
                session, existing.id, existing_result=IngestResult(existing, created=False)
            )
        document = new_document(
            path, meta, sha256=sha256, page_count=page_count, status="processing"
        )
        session.add(document)
        session.flush()
        job = IngestJob(document_id=document.id, page_count=page_count)
        session.add(job)
        session.flush()
        defer_ingestion(session, job.id)
        return Queued(document_id=document.id, job_id=job.id)


def known_upload(
    session: Session, document_id: uuid.UUID, *, existing_result: IngestResult
) -> IngestResult | Queued:
    """Returns the job of a document still processing, else the stored document."""
    job = session.scalars(
        select(IngestJob).where(
            IngestJob.document_id == document_id, IngestJob.status == "processing"
        )
    ).one_or_none()
    return Queued(document_id=document_id, job_id=job.id) if job is not None else existing_result


def get_job(session: Session, job_id: uuid.UUID) -> IngestJob:
    job = session.get(IngestJob, job_id)
    if job is None:
        raise JobNotFound(f"no ingestion job with id {job_id}")
    return job
