"""Ingestion as the API and the CLI call it: a path in, a stored document out."""

from __future__ import annotations

from pathlib import Path

from app.core.metrics import record_ingestion
from app.flows.ingest import ChunkingParams, DocumentMeta, IngestResult, ingest_pdf
from app.flows.runtime import Runtime
from app.pdf.limits import IngestLimits


def chunking_params(runtime: Runtime) -> ChunkingParams:
    return ChunkingParams(
        max_tokens=runtime.settings.chunk_max_tokens,
        overlap_tokens=runtime.settings.chunk_overlap_tokens,
        count_tokens=runtime.count_tokens,
    )


def ingest_limits(runtime: Runtime) -> IngestLimits:
    return IngestLimits(
        max_pages=runtime.settings.max_pages,
        timeout_seconds=runtime.settings.ingest_timeout_seconds,
    )


def ingest_file(path: Path, meta: DocumentMeta, *, runtime: Runtime) -> IngestResult:
    """Returns the stored document, after waiting for a turn (runtime.ingest_slots): uploads
    past the core count would only share the cores and multiply the memory they hold."""
    with runtime.ingest_slots:
        result = ingest_pdf(
            path,
            meta,
            sessions=runtime.sessions,
            embedder=runtime.embedder,
            chunking=chunking_params(runtime),
            limits=ingest_limits(runtime),
            batch_pages=runtime.settings.ingest_batch_pages,
            scratch=runtime.settings.uploads_dir,
        )
    if result.created:
        record_ingestion(pages=result.document.page_count)
    return result
