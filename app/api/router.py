"""Every resource's router, mounted under /api/v1."""

from fastapi import APIRouter

from app.api.routes import documents

api_router = APIRouter(prefix="/api/v1")
api_router.include_router(documents.router)
