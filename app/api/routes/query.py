"""The query endpoint: citation-locked answers over the stored chunks."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from app.api.deps import RuntimeDep
from app.api.middleware.observability import add_log_fields
from app.api.middleware.request_id import current_request_id
from app.contract.schemas import QueryRequest, QueryResponse
from app.core.metrics import record_query
from app.flows.query import answer_query
from app.flows.runtime import Runtime

router = APIRouter(tags=["query"])


@router.post("/query", response_model=QueryResponse)
async def query(request: QueryRequest, runtime: RuntimeDep) -> Response:
    # The whole request in one trip to the thread pool (a session dependency and a plain
    # route would take three), and the response serialised once, by pydantic, to JSON.
    response = await run_in_threadpool(
        answer_in_session, request, runtime, current_request_id.get()
    )
    record_query(response.status, response.timings_ms)
    add_log_fields(result_count=len(response.chunks), query_status=response.status)
    return Response(response.model_dump_json(), media_type="application/json")


def answer_in_session(request: QueryRequest, runtime: Runtime, request_id: str) -> QueryResponse:
    """Returns the answer, its stored evidence committed before the response leaves (each
    statement commits on its own)."""
    with runtime.autocommit_sessions() as session:
        return answer_query(
            request,
            session=session,
            embedder=runtime.embedder,
            settings=runtime.settings,
            request_id=request_id,
        )
