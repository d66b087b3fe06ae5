"""Every resource's router, mounted under /api/v1."""

from fastapi import APIRouter

from app.api.problems import problem_responses
from app.api.routes import annotations, documents, query

api_router = APIRouter(prefix="/api/v1", responses=problem_responses(404, 422, 503))
api_router.include_router(documents.router)
api_router.include_router(annotations.router)
api_router.include_router(query.router)
