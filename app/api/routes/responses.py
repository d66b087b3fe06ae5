"""Stored responses: their evidence, and the viewer that shows it on the pages."""

from __future__ import annotations

import uuid

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.api.deps import SessionDep
from app.api.viewer import render_viewer
from app.contract.schemas import ResponseOut
from app.flows.responses import stored_response

router = APIRouter(tags=["responses"])


@router.get("/responses/{response_id}")
def get_response(response_id: uuid.UUID, session: SessionDep) -> ResponseOut:
    return stored_response(session=session, response_id=response_id)


@router.get("/viewer", response_class=HTMLResponse)
def viewer(response_id: uuid.UUID, session: SessionDep) -> HTMLResponse:
    return HTMLResponse(render_viewer(session=session, response_id=response_id))
