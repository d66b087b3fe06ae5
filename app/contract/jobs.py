"""The shapes of background ingestion: the 202 answer to an upload, and the job it names."""

from __future__ import annotations

import uuid
from typing import Literal

from pydantic import BaseModel

from app.db.models import IngestJob


def job_url(job_id: uuid.UUID) -> str:
    return f"/api/v1/jobs/{job_id}"


class DocumentQueued(BaseModel):
    id: uuid.UUID
    status: Literal["processing"] = "processing"
    job_url: str


class JobOut(BaseModel):
    id: uuid.UUID
    document_id: uuid.UUID | None
    """None once a failure has removed the document."""
    status: Literal["processing", "ready", "failed"]
    page_count: int
    pages_done: int
    chunks_done: int
    error: str | None

    @classmethod
    def of(cls, job: IngestJob) -> JobOut:
        return cls.model_validate(job, from_attributes=True)
