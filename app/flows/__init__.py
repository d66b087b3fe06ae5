"""One flow per use case, called by every interface: ingest a document, answer a query,
read a stored response, the reader's annotations, the workers; and the runtime they share."""

from app.flows.ingest import (
    DocumentMeta,
    IngestResult,
    Queued,
    ingest_document,
    ingest_file,
    ingest_upload,
)
from app.flows.query import answer_query
from app.flows.runtime import Runtime, open_runtime

__all__ = [
    "DocumentMeta",
    "IngestResult",
    "Queued",
    "Runtime",
    "answer_query",
    "ingest_document",
    "ingest_file",
    "ingest_upload",
    "open_runtime",
]
