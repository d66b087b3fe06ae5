"""The HTTP contract (shared/API.md) as pydantic models, shared by every interface."""

from app.contract.jobs import DocumentQueued, JobOut
from app.contract.schemas import ChunkHit, ChunkOut, DocumentOut, QueryRequest, QueryResponse

__all__ = [
    "ChunkHit",
    "ChunkOut",
    "DocumentOut",
    "DocumentQueued",
    "JobOut",
    "QueryRequest",
    "QueryResponse",
]
