"""citelock's Python client: citation-locked answers from a citelock service's PDFs.

from citelock_client import Client

with Client("http://127.0.0.1:8000", api_key="...") as citelock:
    citelock.upload("paper.pdf", collection="papers")
    answer = citelock.query("how are trace trees formed?", filters={"collection": "papers"})
    print(answer.answer, answer.sources)
"""

from citelock_client._async_client import AsyncClient
from citelock_client._client import Client
from citelock_client._exceptions import (
    CitelockError,
    ConnectError,
    ConnectionLost,
    ContentTooLarge,
    Forbidden,
    IngestFailed,
    NotFound,
    ServiceError,
    ServiceUnavailable,
    Timeout,
    TransportError,
    Unauthorized,
    UnprocessableContent,
    UnsupportedMediaType,
)
from citelock_client._models import (
    Annotation,
    AnnotationCreate,
    BBox,
    Chunk,
    ChunkHit,
    Document,
    DocumentList,
    DocumentQueued,
    HighlightedSource,
    Job,
    PageRect,
    QueryFilters,
    QueryRequest,
    QueryResponse,
    SelectedText,
    SelectionScope,
    StoredResponse,
    TocEntry,
)
from citelock_client._version import __version__

__all__ = [
    "Annotation",
    "AnnotationCreate",
    "AsyncClient",
    "BBox",
    "Chunk",
    "ChunkHit",
    "CitelockError",
    "Client",
    "ConnectError",
    "ConnectionLost",
    "ContentTooLarge",
    "Document",
    "DocumentList",
    "DocumentQueued",
    "Forbidden",
    "HighlightedSource",
    "IngestFailed",
    "Job",
    "NotFound",
    "PageRect",
    "QueryFilters",
    "QueryRequest",
    "QueryResponse",
    "SelectedText",
    "SelectionScope",
    "ServiceError",
    "ServiceUnavailable",
    "StoredResponse",
    "Timeout",
    "TocEntry",
    "TransportError",
    "Unauthorized",
    "UnprocessableContent",
    "UnsupportedMediaType",
    "__version__",
]
