"""Stored responses: their evidence, and the viewer that shows it on the pages."""

from __future__ import annotations

import uuid

from fastapi import APIRouter
from fastapi.responses import HTMLResponse

from app.api.deps import RuntimeDep, SessionDep
from app.api.viewer import render_viewer, viewer_headers
from app.contract.schemas import ResponseOut
from app.core.links import response_scope, token_query
from app.flows.responses import stored_response

router = APIRouter(tags=["responses"])


@router.get("/responses/{response_id}")
def get_response(response_id: uuid.UUID, session: SessionDep) -> ResponseOut:
    return stored_response(session=session, response_id=response_id)


@router.get("/viewer", response_class=HTMLResponse)
def viewer(response_id: uuid.UUID, session: SessionDep, runtime: RuntimeDep) -> HTMLResponse:
    link_query = token_query(runtime.settings, response_scope(response_id))
    html = render_viewer(session=session, response_id=response_id, link_query=link_query)
    return HTMLResponse(html, headers=viewer_headers(runtime.settings.cors_origin_list))
