"""Every resource's router, mounted under /api/v1."""

from fastapi import APIRouter

from app.api.routes import annotations, documents, query, responses

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(documents.router)
api_router.include_router(annotations.router)
api_router.include_router(query.router)
api_router.include_router(responses.router)
