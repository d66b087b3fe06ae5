"""Documents: upload, list, get, delete, the chunks of a page, a rendered page, the PDF with a
response's cited lines highlighted."""

from __future__ import annotations

import uuid
from typing import Annotated
from urllib.parse import quote

from fastapi import APIRouter, File, Form, Query, Response, UploadFile, status

from app.api.deps import RuntimeDep, SessionDep
from app.api.problems import problem_responses
from app.contract.jobs import DocumentQueued, job_url
from app.contract.schemas import (
    PAGE_NUMBER_MAX,
    ChunkOut,
    CollectionName,
    DocumentForm,
    DocumentList,
    DocumentOut,
)
from app.db import documents
from app.flows.ingest import DocumentMeta, Queued, ingest_upload
from app.flows.responses import annotated_pdf, cited_pages
from app.pdf.reader import render_page_png
from app.pdf.uploads import display_filename

router = APIRouter(prefix="/documents", tags=["documents"])


@router.post(
    "",
    status_code=status.HTTP_201_CREATED,
    responses={
        200: {"model": DocumentOut, "description": "Same bytes already in the collection"},
        202: {"model": DocumentQueued, "description": "Long PDF: ingesting in the background"},
        **problem_responses(413, 415),
    },
)
def upload_document(
    file: Annotated[UploadFile, File(description="The PDF")],
    form: Annotated[DocumentForm, Form()],
    runtime: RuntimeDep,
    response: Response,
) -> DocumentOut | DocumentQueued:
    meta = DocumentMeta(filename=display_filename(file.filename), **form.model_dump())
    result = ingest_upload(file.file, meta, runtime=runtime)
    if isinstance(result, Queued):
        response.status_code = status.HTTP_202_ACCEPTED
        return DocumentQueued(id=result.document_id, job_url=job_url(result.job_id))
    if not result.created:
        response.status_code = status.HTTP_200_OK
    return DocumentOut.of(result.document)


@router.get("")
def list_documents(
    session: SessionDep,
    collection: Annotated[CollectionName | None, Query(max_length=200)] = None,
    limit: Annotated[int, Query(ge=1, le=1000)] = 100,
    offset: Annotated[int, Query(ge=0, le=PAGE_NUMBER_MAX)] = 0,
) -> DocumentList:
    found, count = documents.list_documents(
        session=session, collection=collection, limit=limit, offset=offset
    )
    return DocumentList(data=[DocumentOut.of(d) for d in found], count=count)


@router.get("/{document_id}")
def get_document(document_id: uuid.UUID, session: SessionDep) -> DocumentOut:
    return DocumentOut.of(documents.get_document(session=session, document_id=document_id))


@router.delete("/{document_id}", status_code=status.HTTP_204_NO_CONTENT)
def delete_document(document_id: uuid.UUID, session: SessionDep) -> None:
    documents.delete_document(session=session, document_id=document_id)


@router.get("/{document_id}/chunks")
def page_chunks(
    document_id: uuid.UUID, session: SessionDep, page: Annotated[int, Query(ge=1)]
) -> list[ChunkOut]:
    found = documents.page_chunks(session=session, document_id=document_id, page=page)
    return [ChunkOut.of(chunk) for chunk in found]


@router.get(
    "/{document_id}/pages/{page_number}.png",
    response_class=Response,
    responses={200: {"content": {"image/png": {}}}},
)
def page_png(
    document_id: uuid.UUID,
    page_number: int,
    session: SessionDep,
    scale: Annotated[float, Query(gt=0.1, le=4.0)] = 1.5,
    response_id: Annotated[
        uuid.UUID | None,
        Query(description="A response citing this document: its signed link opens the page."),
    ] = None,
) -> Response:
    if response_id is not None:
        cited_pages(session=session, document_id=document_id, response_id=response_id)
    pdf = documents.document_pdf(session=session, document_id=document_id, page=page_number)
    return Response(render_page_png(pdf, page_number, scale), media_type="image/png")


ANNOTATED_PDF = "/{document_id}/annotated.pdf"


@router.get(
    ANNOTATED_PDF,
    response_class=Response,
    responses={200: {"content": {"application/pdf": {}}}},
)
def annotated_document(
    document_id: uuid.UUID, response_id: uuid.UUID, session: SessionDep
) -> Response:
    pdf = annotated_pdf(session=session, document_id=document_id, response_id=response_id)
    disposition = {"Content-Disposition": content_disposition(pdf.filename)}
    return Response(pdf.content, media_type="application/pdf", headers=disposition)


# A browser or a download manager asks HEAD first; the answer is GET's, without the body.
router.add_api_route(ANNOTATED_PDF, annotated_document, methods=["HEAD"], include_in_schema=False)


def content_disposition(filename: str) -> str:
    """Returns an inline Content-Disposition naming `filename` (RFC 6266): ASCII for old
    clients, UTF-8 for the rest."""
    ascii_name = filename.encode("ascii", "replace").decode().replace('"', "'")
    return f"inline; filename=\"{ascii_name}\"; filename*=UTF-8''{quote(filename)}"
