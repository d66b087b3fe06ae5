"""Every resource's router, mounted under /api/v1."""

from fastapi import APIRouter

from app.api.problems import problem_responses
from app.api.routes import annotations, documents, jobs, query, responses

api_router = APIRouter(
    prefix="/api/v1",
    responses=problem_responses(401, 403, 404, 408, 413, 422, 503),
)
api_router.include_router(documents.router)
api_router.include_router(annotations.router)
api_router.include_router(query.router)
api_router.include_router(responses.router)
api_router.include_router(jobs.router)
