"""The query endpoint: citation-locked answers over the stored chunks."""

from __future__ import annotations

from fastapi import APIRouter

from app.api.deps import RuntimeDep, SessionDep
from app.api.query_service import answer_query
from app.api.schemas import QueryRequest, QueryResponse

router = APIRouter(tags=["query"])


@router.post("/query")
def query(request: QueryRequest, session: SessionDep, runtime: RuntimeDep) -> QueryResponse:
    return answer_query(
        request, session=session, embedder=runtime.embedder, settings=runtime.settings
    )
