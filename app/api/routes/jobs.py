"""Background ingestion jobs: the progress of a large upload."""

from __future__ import annotations

import uuid

from fastapi import APIRouter

from app.api.deps import SessionDep
from app.contract.jobs import JobOut
from app.flows.ingest import get_job

router = APIRouter(prefix="/jobs", tags=["jobs"])


@router.get("/{job_id}")
def get_ingest_job(job_id: uuid.UUID, session: SessionDep) -> JobOut:
    return JobOut.of(get_job(session, job_id))
