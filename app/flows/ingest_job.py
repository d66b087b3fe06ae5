"""One background ingestion, page batch by page batch, safe to run again after a crash.

A document in the background is `processing` from upload to its last batch: listings and
reads see only `ready` documents, so a worker killed half-way leaves nothing visible. A run
first removes what an earlier, interrupted run stored, so a retried job never duplicates
chunks; a per-document advisory lock keeps two workers off the same document.
"""

from __future__ import annotations

import io
import logging
import uuid
import zlib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import Engine, delete, func, select, text, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session, sessionmaker

from app.core import metrics
from app.core.errors import CitelockError
from app.core.memory import release_free_memory
from app.core.records import ExtractedDocument, Mark, PageBatch, PageLines
from app.db.chunks import store_batch
from app.db.models import Chunk, Document, DocumentFile, IngestJob, Page
from app.flows.ingest_stages import (
    chunking_params,
    document_name,
    finish_document,
    ingest_limits,
    ocr_policy,
    page_batches,
    read_pdf,
)
from app.flows.runtime import Runtime
from app.pdf.limits import Deadline, IngestLimits
from app.pdf.ocr import OcrPolicy
from app.pdf.reader import open_pdf
from app.pdf.spill import BoxSpill, box_spill
from app.pdf.uploads import spooled_upload, title_from_filename

logger = logging.getLogger(__name__)

LOCK_NAMESPACE = 7_294_002
"""First key of the two-key pg_advisory_lock that holds a document while it is ingested."""


@contextmanager
def document_lock(engine: Engine, document_id: uuid.UUID) -> Iterator[None]:
    """Holds the document's advisory lock on a connection of its own for the whole run.

    A killed worker's connection closes and PostgreSQL releases the lock with it, so a
    retry never waits on a dead worker; a live one that was only thought dead finishes
    first, and the retry then finds the job done.
    """
    key = zlib.crc32(document_id.bytes) - 2**31
    with engine.connect() as connection:
        connection.execute(
            text("SELECT pg_advisory_lock(:ns, :key)"), {"ns": LOCK_NAMESPACE, "key": key}
        )
        connection.commit()
        try:
            yield
        finally:
            connection.execute(
                text("SELECT pg_advisory_unlock(:ns, :key)"), {"ns": LOCK_NAMESPACE, "key": key}
            )
            connection.commit()


def run_ingest_job(
    job_id: uuid.UUID, *, runtime: Runtime, on_progress: Callable[[int], None] | None = None
) -> str:
    """Returns the job's final status after ingesting its document, or finding it done;
    `on_progress(pages_done)` follows each stored batch."""
    sessions = runtime.sessions
    with sessions() as session:
        job = session.get(IngestJob, job_id)
        if job is None or job.status != "processing":
            return job.status if job is not None else "missing"
        document_id = job.document_id
    if document_id is None:
        return fail_job_by_id(sessions, job_id, DELETED_MID_INGESTION)
    with document_lock(runtime.engine, document_id):
        with sessions.begin() as session:
            job = session.get(IngestJob, job_id, with_for_update=True)
            assert job is not None
            if job.status != "processing":
                return job.status
            job.attempts += 1
            if job.attempts > runtime.settings.ingest_max_attempts:
                last = f"; the last error: {job.error}" if job.error else ""
                fail_job(
                    session,
                    job,
                    f"the ingestion was interrupted {job.attempts - 1} times (a worker stopped "
                    f"mid-document: killed, or out of memory, or an error{last})",
                )
                return "failed"
            clear_partial_document(session, document_id, job)
        try:
            ingest_queued_document(job_id, document_id, runtime=runtime, on_progress=on_progress)
            release_free_memory()
        except CitelockError as error:
            return fail_job_by_id(sessions, job_id, f"{error.code}: {error.detail}")
        except IntegrityError:
            # The only row that can vanish under a batch is the document, deleted meanwhile.
            return fail_job_by_id(sessions, job_id, DELETED_MID_INGESTION)
        except Exception as error:
            # Perhaps passing (the database restarting): noted, and the queue runs it again.
            with sessions.begin() as session:
                session.execute(
                    update(IngestJob)
                    .where(IngestJob.id == job_id)
                    .values(error=f"{type(error).__name__} on attempt {job.attempts}")
                )
            raise
    return "ready"


DELETED_MID_INGESTION = "the document was deleted while it was being ingested"


def fail_job_by_id(sessions: sessionmaker[Session], job_id: uuid.UUID, reason: str) -> str:
    with sessions.begin() as session:
        job = session.get(IngestJob, job_id)
        assert job is not None
        fail_job(session, job, reason)
    return "failed"


def clear_partial_document(session: Session, document_id: uuid.UUID, job: IngestJob) -> None:
    """Removes the pages and chunks an interrupted run stored, and resets its progress."""
    session.execute(delete(Chunk).where(Chunk.document_id == document_id))
    session.execute(delete(Page).where(Page.document_id == document_id))
    job.pages_done = 0
    job.chunks_done = 0


def fail_job(session: Session, job: IngestJob, reason: str) -> None:
    """Marks the job failed with `reason` and removes its document, whatever it had stored."""
    if job.document_id is not None:
        session.execute(delete(Document).where(Document.id == job.document_id))
    job.document_id = None
    job.status = "failed"
    job.error = reason
    metrics.INGEST_JOBS.labels("failed").inc()
    logger.warning("ingest job %s failed: %s", job.id, reason)


def ingest_queued_document(
    job_id: uuid.UUID,
    document_id: uuid.UUID,
    *,
    runtime: Runtime,
    on_progress: Callable[[int], None] | None,
) -> None:
    """Stores the document's pages and chunks a batch of pages per transaction, each with the
    job's progress, and marks the document ready in the last one."""
    sessions = runtime.sessions
    marks: list[Mark] = []
    chunk_count = 0
    with sessions() as session:
        queued = session.get(Document, document_id)
        assert queued is not None
        # The uploader's title, if any, is the one it was queued with; else the file's stem.
        filename = queued.filename
        given = queued.title if queued.title != title_from_filename(filename) else None
    with box_spill(runtime.settings.uploads_dir) as spill:
        extracted = read_stored_pdf(
            sessions,
            document_id,
            uploads=runtime.settings.uploads_dir,
            limits=ingest_limits(runtime.settings),
            spill=spill,
            ocr=ocr_policy(
                runtime.settings, on_page=lambda page: store_pages_read(sessions, job_id, page)
            ),
        )
        name = document_name(extracted, filename, given)
        for batch in page_batches(
            extracted,
            spill,
            chunking=chunking_params(runtime.settings, runtime.count_tokens),
            embedder=runtime.embedder,
            batch_pages=runtime.settings.ingest_batch_pages,
            label=name.label,
        ):
            store_progress(sessions, job_id, document_id, batch)
            marks += batch.marks
            chunk_count += len(batch.chunks)
            if on_progress is not None:
                on_progress(batch.last)
    with sessions.begin() as session:
        document = session.get(Document, document_id)
        job = session.get(IngestJob, job_id)
        assert document is not None and job is not None
        finish_document(
            session,
            document,
            extracted,
            title=name.title,
            chunk_count=chunk_count,
            marks=marks,
        )
        document.status = "ready"
        job.status = "ready"
    metrics.record_ingestion(pages=len(extracted.pages))
    metrics.INGEST_JOBS.labels("ready").inc()
    logger.info(
        "ingest job %s ready", job_id, extra={"pages": len(extracted.pages), "chunks": chunk_count}
    )


def read_stored_pdf(
    sessions: sessionmaker[Session],
    document_id: uuid.UUID,
    *,
    uploads: Path,
    limits: IngestLimits,
    spill: BoxSpill,
    ocr: OcrPolicy | None = None,
) -> ExtractedDocument[PageLines]:
    """Returns the pages and outline of the document's stored PDF, its character boxes left
    in `spill`; its bytes are let go on return, not held through the ingestion. The page
    limit and the time limit apply to this reading; the batches after it are the queue's to
    pace (a worker that stalls is noticed by its heartbeat). `ocr` says which pages OCR reads."""
    with sessions() as session:
        content = session.scalar(
            select(DocumentFile.content).where(DocumentFile.document_id == document_id)
        )
    assert content is not None
    with spooled_upload(io.BytesIO(content), directory=uploads, max_bytes=len(content)) as path:
        deadline = Deadline(limits.timeout_seconds)
        with open_pdf(path) as pdf:
            return read_pdf(pdf, limits=limits, deadline=deadline, spill=spill, ocr=ocr)


def store_progress(
    sessions: sessionmaker[Session], job_id: uuid.UUID, document_id: uuid.UUID, batch: PageBatch
) -> None:
    """Stores the batch's pages and chunks in one transaction with the job's progress."""
    with sessions.begin() as session:
        store_batch(session, document_id, batch)
        session.execute(
            update(IngestJob)
            .where(IngestJob.id == job_id)
            .values(
                pages_done=func.greatest(IngestJob.pages_done, batch.last),
                chunks_done=IngestJob.chunks_done + len(batch.chunks),
            )
        )


def store_pages_read(sessions: sessionmaker[Session], job_id: uuid.UUID, page: int) -> None:
    """Stores, as the job's progress, that OCR has read up to `page`: OCR is the slow part of
    a scan, and all of it comes before the first batch is stored. The batches that follow
    never take the count back."""
    with sessions.begin() as session:
        session.execute(update(IngestJob).where(IngestJob.id == job_id).values(pages_done=page))
