"""An upload in: ingested at once, or, above the page threshold, queued for a worker."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from app.core.errors import JobNotFound
from app.db.models import IngestJob
from app.flows.ingest import DocumentMeta, IngestResult, file_sha256, find_document, new_document
from app.flows.ingest_service import ingest_file
from app.flows.runtime import Runtime
from app.jobs.queue import defer_ingestion
from app.pdf.limits import check_page_count
from app.pdf.reader import count_pages
from app.pdf.uploads import spooled_upload


@dataclass(frozen=True)
class Queued:
    document_id: uuid.UUID
    job_id: uuid.UUID


def accept_upload(
    stream: BinaryIO, meta: DocumentMeta, *, runtime: Runtime
) -> IngestResult | Queued:
    """Returns the stored document, or the queued job of a PDF longer than the threshold.

    A PDF with a password is always ingested at once: queuing it would store the password.
    """
    settings = runtime.settings
    with spooled_upload(
        stream,
        directory=settings.uploads_dir,
        max_bytes=settings.max_upload_bytes,
    ) as path:
        pages = count_pages(path, meta.password)
        check_page_count(pages, settings.max_pages)
        if meta.password is not None or pages <= settings.background_page_threshold:
            return ingest_file(path, meta, runtime=runtime)
        try:
            return queue_ingestion(path, meta, page_count=pages, runtime=runtime)
        except IntegrityError:
            # The same bytes were queued concurrently in this collection: theirs stands.
            return queue_ingestion(path, meta, page_count=pages, runtime=runtime)


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
