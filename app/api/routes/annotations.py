"""The reader's annotations of a document: list them, re-read them from an annotated copy,
add a highlight made in the frontend."""

from __future__ import annotations

import uuid
from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile, status

from app.api.deps import RuntimeDep, SessionDep
from app.api.problems import problem_responses
from app.contract.schemas import AnnotationCreate, AnnotationOut
from app.db import documents
from app.db.annotations import list_annotations
from app.flows.annotations import add_highlight, replace_pdf_annotations

router = APIRouter(prefix="/documents/{document_id}/annotations", tags=["annotations"])


@router.get("")
def get_annotations(document_id: uuid.UUID, session: SessionDep) -> list[AnnotationOut]:
    documents.get_document(session=session, document_id=document_id)
    found = list_annotations(session=session, document_id=document_id)
    return [AnnotationOut.of(item) for item in found]


@router.put("", responses=problem_responses(413, 415))
def put_annotations(
    document_id: uuid.UUID,
    file: Annotated[UploadFile, File(description="An annotated copy of the same document")],
    session: SessionDep,
    runtime: RuntimeDep,
    password: Annotated[str | None, Form(max_length=1000)] = None,
) -> list[AnnotationOut]:
    found = replace_pdf_annotations(
        file.file,
        document_id=document_id,
        password=password,
        session=session,
        settings=runtime.settings,
    )
    return [AnnotationOut.of(item) for item in found]


@router.post("", status_code=status.HTTP_201_CREATED)
def post_annotation(
    document_id: uuid.UUID, body: AnnotationCreate, session: SessionDep
) -> AnnotationOut:
    created = add_highlight(
        session=session,
        document_id=document_id,
        page=body.page,
        text=body.text,
        comment=body.comment,
    )
    return AnnotationOut.of(created)
