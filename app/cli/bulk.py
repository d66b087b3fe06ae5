"""`citelock ingest`: many PDFs into one collection, with a progress bar per file.

The files go either straight into the database (the same ingestion the API runs) or to a
running service over HTTP; either way a file whose sha256 is already in the collection is
skipped before it is parsed or uploaded.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
)
from sqlalchemy import select

from app.cli.service_client import ServiceClient
from app.core.errors import CitelockError
from app.db.models import Document
from app.flows.ingest import (
    DocumentMeta,
    PagesStored,
    Queued,
    file_sha256,
    get_job,
    ingest_document,
)
from app.flows.runtime import Runtime

Outcome = Literal["created", "existing", "skipped", "failed"]


@dataclass(frozen=True)
class FileReport:
    path: Path
    outcome: Outcome
    pages: int = 0
    chunks: int = 0
    document_id: str | None = None
    error: str | None = None
    detail: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return {k: str(v) if isinstance(v, Path) else v for k, v in vars(self).items()}


class Target(Protocol):
    """Where the files go: the database, or a running service."""

    def known_documents(self, collection: str) -> dict[str, str]:
        """Returns the id of each ready document in `collection`, by its sha256."""
        ...

    def ingest(self, path: Path, meta: DocumentMeta, advance: PagesStored) -> FileReport:
        """Returns what became of `path`, calling `advance(pages_done, page_count)` as pages
        are stored."""
        ...


def pdf_files(paths: Iterable[Path]) -> list[Path]:
    """Returns the given files and the PDFs under the given folders, recursively, sorted."""
    found = {f for p in paths for f in ([p] if p.is_file() else p.rglob("*.pdf")) if f.is_file()}
    return sorted(found)


class DatabaseTarget:
    def __init__(self, runtime: Runtime) -> None:
        self.runtime = runtime

    def known_documents(self, collection: str) -> dict[str, str]:
        with self.runtime.sessions() as session:
            # A document still processing is not known: ingesting it again resumes its job.
            found = session.execute(
                select(Document.sha256, Document.id).where(
                    Document.collection == collection, Document.status == "ready"
                )
            )
            return {sha256: str(document_id) for sha256, document_id in found}

    def ingest(self, path: Path, meta: DocumentMeta, advance: PagesStored) -> FileReport:
        """Ingests a long PDF as a queued job run right here, so its bar follows the stored
        batches; were this process to stop, any worker would finish the job."""
        result = ingest_document(
            path, meta, runtime=self.runtime, run_job_here=True, on_progress=advance
        )
        if isinstance(result, Queued):
            return self.report_job(path, result)
        document = result.document
        return FileReport(
            path,
            "created" if result.created else "existing",
            pages=document.page_count,
            chunks=document.chunk_count,
            document_id=str(document.id),
        )

    def report_job(self, path: Path, queued: Queued) -> FileReport:
        with self.runtime.sessions() as session:
            job = get_job(session, queued.job_id)
            document = session.get(Document, queued.document_id) if job.status == "ready" else None
        if document is None:
            return FileReport(path, "failed", error="ingest_failed", detail=job.error)
        return FileReport(
            path,
            "created",
            pages=document.page_count,
            chunks=document.chunk_count,
            document_id=str(document.id),
        )


class ServiceTarget:
    def __init__(self, client: ServiceClient) -> None:
        self.client = client

    def known_documents(self, collection: str) -> dict[str, str]:
        return {d["sha256"]: d["id"] for d in self.client.documents(collection)}

    def ingest(self, path: Path, meta: DocumentMeta, advance: PagesStored) -> FileReport:
        status, body = self.client.upload(path, meta)
        if status == 202:
            job = self.client.wait_for_job(
                body["job_url"], lambda j: advance(j["pages_done"], j["page_count"])
            )
            if job["status"] != "ready":
                return FileReport(path, "failed", error="ingest_failed", detail=job["error"])
            return FileReport(
                path,
                "created",
                pages=job["page_count"],
                chunks=job["chunks_done"],
                document_id=body["id"],
            )
        advance(body["page_count"], body["page_count"])
        return FileReport(
            path,
            "created" if status == 201 else "existing",
            pages=body["page_count"],
            chunks=body["chunk_count"],
            document_id=body["id"],
        )


@dataclass(frozen=True)
class Summary:
    reports: list[FileReport]
    seconds: float

    @property
    def pages(self) -> int:
        return sum(r.pages for r in self.reports if r.outcome == "created")

    def count(self, outcome: Outcome) -> int:
        return sum(1 for r in self.reports if r.outcome == outcome)

    def line(self) -> str:
        rate = self.pages / self.seconds if self.seconds > 0 else 0.0
        return (
            f"{self.count('created')} ingested, {self.count('existing')} already stored, "
            f"{self.count('skipped')} skipped, {self.count('failed')} failed: "
            f"{self.pages} pages in {self.seconds:.1f} s ({rate:.1f} pages/s)"
        )


def ingest_files(
    files: list[Path], *, meta: DocumentMeta, target: Target, console: Console
) -> Summary:
    """Returns what became of each file after ingesting them one by one, each with its bar;
    `meta` is what is said of every file (its file name aside)."""
    started = time.perf_counter()
    known = target.known_documents(meta.collection)
    reports: list[FileReport] = []
    columns = (
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("pages"),
        TimeElapsedColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        for path in files:
            task = progress.add_task(path.name, total=None)
            file_meta = dataclasses.replace(meta, filename=path.name)
            report = ingest_one(path, file_meta, target, known, progress, task)
            reports.append(report)
            progress.update(task, description=f"{path.name} [dim]{report.outcome}[/dim]")
            progress.stop_task(task)
    return Summary(reports, time.perf_counter() - started)


def ingest_one(
    path: Path,
    meta: DocumentMeta,
    target: Target,
    known: dict[str, str],
    progress: Progress,
    task: Any,
) -> FileReport:
    """Returns what became of one file; a skipped one names the document already stored."""
    sha256 = file_sha256(path)
    if sha256 in known:
        progress.update(task, total=0, completed=0)
        return FileReport(path, "skipped", document_id=known[sha256])
    try:
        report = target.ingest(
            path, meta, lambda done, pages: progress.update(task, completed=done, total=pages)
        )
    except CitelockError as error:
        return FileReport(path, "failed", error=error.code, detail=error.detail)
    if report.document_id is not None:
        known[sha256] = report.document_id
    return report
