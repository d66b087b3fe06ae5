"""A QueryRequest in, a QueryResponse out: retrieval, then the answer built on its context."""

from __future__ import annotations

from sqlalchemy.orm import Session

from app.api.request_id import current_request_id
from app.api.schemas import ChunkHit, QueryFilters, QueryRequest, QueryResponse
from app.config import Settings
from app.retrieval.assemble import similarity
from app.retrieval.embedder import Embedder
from app.retrieval.filters import SearchFilters
from app.retrieval.pipeline import RetrievalParams, final_score, retrieve_context


def search_filters(filters: QueryFilters, settings: Settings) -> SearchFilters:
    return SearchFilters(
        collection=filters.collection,
        document_ids=tuple(filters.document_ids),
        chapter=filters.chapter,
        section=filters.section,
        language=filters.language,
        version=filters.version,
        page_start=filters.page_start,
        page_end=filters.page_end,
        is_my_copy=filters.is_my_copy,
        exclude_flags=settings.excluded_flags,
    )


def retrieval_params(request: QueryRequest, settings: Settings) -> RetrievalParams:
    return RetrievalParams(
        top_k=request.top_k,
        overfetch=settings.search_overfetch,
        mode=request.search or settings.search_mode,
        filters=search_filters(request.filters, settings),
        min_similarity=settings.min_similarity,
        token_budget=settings.context_token_budget,
    )


def answer_query(
    request: QueryRequest, *, session: Session, embedder: Embedder, settings: Settings
) -> QueryResponse:
    params = retrieval_params(request, settings)
    bundle = retrieve_context(request.query, params, session=session, embedder=embedder)
    hits = [
        ChunkHit(
            chunk_id=chunk.chunk_id,
            document_id=chunk.document_id,
            document_name=chunk.document_filename,
            content=chunk.content,
            page_start=chunk.page_start,
            page_end=chunk.page_end,
            chapter=chunk.chapter,
            section=chunk.section,
            distance=round(chunk.distance, 6),
            relevance_score=round(similarity(chunk.distance), 6),
            final_score=round(final_score(chunk, params.mode), 6),
        )
        for chunk in bundle.chunks
    ]
    return QueryResponse(
        answer="",
        sources=[],
        confidence=0.0,
        query_type="standard",
        status=bundle.status,
        request_id=current_request_id.get(),
        response_id=None,
        chunks=hits,
        highlighted_sources=None,
        viewer_url=None,
        timings_ms=bundle.timings_ms,
    )
