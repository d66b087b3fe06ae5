"""Liveness and readiness."""

from __future__ import annotations

from fastapi import APIRouter, Request

from app.api.deps import RuntimeDep
from app.api.problems import problem_responses
from app.contract.schemas import Health
from app.core.errors import DatabaseUnavailable, EmbeddingUnavailable, WorkerUnavailable
from app.flows.runtime import database_ready, model_ready

router = APIRouter(tags=["health"])


@router.get("/healthz")
def healthz() -> Health:
    return Health(status="ok")


@router.get("/readyz", responses=problem_responses(503))
def readyz(runtime: RuntimeDep, request: Request) -> Health:
    if not database_ready(runtime.engine):
        raise DatabaseUnavailable("the database does not answer")
    if not model_ready(runtime.embedder):
        raise EmbeddingUnavailable("the embedding model does not answer")
    worker = getattr(request.app.state, "worker", None)
    if worker is not None and not worker.alive:
        raise WorkerUnavailable("the in-process worker has stopped: restart the service")
    return Health(status="ready")
