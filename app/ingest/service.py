"""Ingestion as the API and the CLI call it: bytes or a path in, a stored document out."""

from __future__ import annotations

from pathlib import Path
from typing import BinaryIO

from app.ingest.limits import IngestLimits
from app.ingest.pipeline import ChunkingParams, DocumentMeta, IngestResult, ingest_pdf
from app.ingest.uploads import spooled_upload
from app.runtime import Runtime


def chunking_params(runtime: Runtime) -> ChunkingParams:
    return ChunkingParams(
        max_tokens=runtime.settings.chunk_max_tokens,
        overlap_tokens=runtime.settings.chunk_overlap_tokens,
        count_tokens=runtime.count_tokens,
    )


def ingest_file(path: Path, meta: DocumentMeta, *, runtime: Runtime) -> IngestResult:
    return ingest_pdf(
        path,
        meta,
        sessions=runtime.sessions,
        embedder=runtime.embedder,
        chunking=chunking_params(runtime),
        limits=IngestLimits(
            max_pages=runtime.settings.max_pages,
            timeout_seconds=runtime.settings.ingest_timeout_seconds,
        ),
    )


def ingest_upload(stream: BinaryIO, meta: DocumentMeta, *, runtime: Runtime) -> IngestResult:
    """Returns the stored document for an uploaded stream, copied under the size limit first."""
    settings = runtime.settings
    with spooled_upload(
        stream,
        directory=settings.citelock_data_dir / "uploads",
        max_bytes=settings.max_upload_bytes,
    ) as path:
        return ingest_file(path, meta, runtime=runtime)
