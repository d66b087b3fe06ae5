"""The query endpoint: citation-locked answers over the stored chunks."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import RuntimeDep, SessionDep
from app.api.observability import add_log_fields
from app.api.query_service import answer_query
from app.api.schemas import QueryRequest, QueryResponse
from app.metrics import record_query

router = APIRouter(tags=["query"])


@router.post("/query")
def query(request: QueryRequest, session: SessionDep, runtime: RuntimeDep) -> QueryResponse:
    response = answer_query(
        request, session=session, embedder=runtime.embedder, settings=runtime.settings
    )
    record_query(response.status, response.timings_ms)
    add_log_fields(result_count=len(response.chunks), query_status=response.status)
    return response
