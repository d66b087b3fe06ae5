"""Stored responses read back: their evidence, and the PDF with the cited lines highlighted."""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath

from sqlalchemy.orm import Session

from app.contract.schemas import HighlightedSource, ResponseOut
from app.core.errors import ResponseNotFound
from app.db import documents
from app.db.responses import get_response
from app.pdf.active_content import without_active_content
from app.pdf.reader import highlight_lines

SOURCE_LABEL = re.compile(r"(?P<name>.+), pp?\. (?P<first>\d+)(?:-(?P<last>\d+))?")
"""A source as the answer names it: "name.pdf, p. 3" or "name.pdf, pp. 3-4"."""


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


@dataclass(frozen=True)
class AnnotatedPdf:
    filename: str
    """The document's file name, marked as the cited copy."""
    content: bytes


Citation = tuple[int, list[tuple[float, float, float, float]], str]
"""A cited line's page, its rectangles, and the note saying which `[n]` it supports."""


def cited_pages(
    *, session: Session, document_id: uuid.UUID, response_id: uuid.UUID
) -> list[Citation]:
    """Returns each line the response cites in the document; refuses a document the response
    does not cite, so a link signed for the response opens its own documents only."""
    response = stored_response(session=session, response_id=response_id)
    cited = [
        (item.page_number, list(item.rects), citation_note(item, response.sources))
        for item in response.highlighted_sources or []
        if item.document_id == document_id
    ]
    if not cited:
        raise ResponseNotFound(
            f"response {response_id} highlights nothing in document {document_id}"
        )
    return cited


def annotated_pdf(
    *, session: Session, document_id: uuid.UUID, response_id: uuid.UUID
) -> AnnotatedPdf:
    """Returns the document's PDF with each line the response cites in it highlighted, each
    highlight saying which of the answer's `[n]` it is and its source, and without scripts or
    actions that open files or addresses: we serve it."""
    cited = cited_pages(session=session, document_id=document_id, response_id=response_id)
    document = documents.get_document(session=session, document_id=document_id)
    pdf = documents.document_file(session=session, document_id=document_id)
    filename = f"{PurePath(document.filename).stem} (cited).pdf"
    return AnnotatedPdf(filename, without_active_content(highlight_lines(pdf, cited)))


def citation_note(item: HighlightedSource, sources: Sequence[str]) -> str:
    """Returns "[n] name.pdf, p. 3" for the source `sources[n-1]` that the evidence supports:
    the first naming its document and a page range holding its page."""
    for number, source in enumerate(sources, 1):
        label = SOURCE_LABEL.fullmatch(source)
        if label is None or label["name"] != item.document_name:
            continue
        first = int(label["first"])
        if first <= item.page_number <= int(label["last"] or first):
            return f"[{number}] {source}"
    return f"{item.document_name}, p. {item.page_number}"
