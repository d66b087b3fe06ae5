"""Stored responses read back: their evidence, and the PDF with the cited lines highlighted."""

from __future__ import annotations

import uuid

from sqlalchemy.orm import Session

from app.contract.schemas import ResponseOut
from app.core.errors import ResponseNotFound
from app.db import documents
from app.db.responses import get_response
from app.pdf.active_content import without_active_content
from app.pdf.reader import highlight_lines


def stored_response(*, session: Session, response_id: uuid.UUID) -> ResponseOut:
    """Returns the stored evidence of a response that has not expired."""
    row = get_response(session=session, response_id=response_id)
    return ResponseOut.model_validate(
        {
            **row.evidence,
            "response_id": row.response_id,
            "created_at": row.created_at,
            "expires_at": row.expires_at,
        }
    )


def cited_pages(
    *, session: Session, document_id: uuid.UUID, response_id: uuid.UUID
) -> list[tuple[int, list[tuple[float, float, float, float]]]]:
    """Returns (page, line rectangles) of each line the response cites in the document;
    refuses a document the response does not cite, so a link signed for the response opens
    its own documents only."""
    response = stored_response(session=session, response_id=response_id)
    cited = [
        (item.page_number, list(item.rects))
        for item in response.highlighted_sources or []
        if item.document_id == document_id
    ]
    if not cited:
        raise ResponseNotFound(
            f"response {response_id} highlights nothing in document {document_id}"
        )
    return cited


def annotated_pdf(*, session: Session, document_id: uuid.UUID, response_id: uuid.UUID) -> bytes:
    """Returns the document's PDF with each line the response cites in it highlighted, and
    without scripts or actions that open files or addresses: we serve it."""
    cited = cited_pages(session=session, document_id=document_id, response_id=response_id)
    pdf = documents.document_file(session=session, document_id=document_id)
    return without_active_content(highlight_lines(pdf, cited))
