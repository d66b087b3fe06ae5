"""The query endpoint: citation-locked answers over the stored chunks."""

from __future__ import annotations

from fastapi import APIRouter, Response
from starlette.concurrency import run_in_threadpool

from app.api.deps import RuntimeDep
from app.api.observability import add_log_fields
from app.api.query_service import answer_query
from app.api.schemas import QueryRequest, QueryResponse
from app.metrics import record_query
from app.runtime import Runtime

router = APIRouter(tags=["query"])


@router.post("/query", response_model=QueryResponse)
async def query(request: QueryRequest, runtime: RuntimeDep) -> Response:
    # The whole request in one trip to the thread pool (a session dependency and a plain
    # route would take three), and the response serialised once, by pydantic, to JSON.
    response = await run_in_threadpool(answer_in_session, request, runtime)
    record_query(response.status, response.timings_ms)
    add_log_fields(result_count=len(response.chunks), query_status=response.status)
    return Response(response.model_dump_json(), media_type="application/json")


def answer_in_session(request: QueryRequest, runtime: Runtime) -> QueryResponse:
    """Returns the answer, its stored evidence committed before the response leaves (each
    statement commits on its own)."""
    with runtime.autocommit_sessions() as session:
        return answer_query(
            request, session=session, embedder=runtime.embedder, settings=runtime.settings
        )
