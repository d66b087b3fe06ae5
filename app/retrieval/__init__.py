"""Retrieval: a query in, the ranked chunks and the context the answer is built on out
(filters, vector or hybrid search, threshold, dedupe, the reader's marks, selection mode)."""

from app.retrieval.filters import SearchFilters
from app.retrieval.pipeline import ContextBundle, RetrievalParams, retrieve_context
from app.retrieval.search import SearchMode, search_chunks

__all__ = [
    "ContextBundle",
    "RetrievalParams",
    "SearchFilters",
    "SearchMode",
    "retrieve_context",
    "search_chunks",
]
