"""The reader's annotations as the API and the CLI change them: from an annotated copy of a
stored document, or one highlight at a time from the frontend."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import BinaryIO

from sqlalchemy.orm import Session

from app.core.config import Settings
from app.core.errors import NotSameDocument, TextNotFound
from app.core.records import Mark, PageText
from app.db import annotations as stored_annotations
from app.db.documents import check_page, get_document, stored_pages
from app.pdf.annotations import collapse, highlight_mark, locate_marks, locate_text
from app.pdf.reader import extract_document, open_pdf
from app.pdf.uploads import spooled_upload


def read_marks(path: Path, password: str | None = None) -> list[Mark]:
    """Returns the reader's annotations in a PDF file, in reading order, without storing it."""
    with open_pdf(path, password) as pdf:
        extracted = extract_document(pdf)
    return locate_marks(extracted.annotations, extracted.pages)


def replace_pdf_annotations(
    stream: BinaryIO,
    *,
    document_id: uuid.UUID,
    password: str | None,
    session: Session,
    settings: Settings,
) -> list[stored_annotations.StoredAnnotation]:
    """Returns the document's annotations after replacing those read from its PDF with those
    of `stream`, an annotated copy of the same document; the frontend's ("api") stay.

    The copy is a different file (the reader's viewer rewrote it), so it is recognised by
    its pages reading the same as the stored ones, not by its bytes. Its marks are placed on
    the stored pages' text, so they meet the stored chunks exactly: nothing is re-chunked
    or re-embedded.
    """
    get_document(session=session, document_id=document_id)
    pages = stored_pages(session=session, document_id=document_id)
    with (
        spooled_upload(
            stream,
            directory=settings.uploads_dir,
            max_bytes=settings.max_upload_bytes,
        ) as path,
        open_pdf(path, password) as pdf,
    ):
        copy = extract_document(pdf)
    check_same_pages(pages, copy.pages)
    marks = locate_marks(copy.annotations, pages)
    stored_annotations.delete_marks(session=session, document_id=document_id, source="pdf")
    stored_annotations.store_marks(
        session=session, document_id=document_id, marks=marks, source="pdf"
    )
    stored_annotations.recount_annotations(session=session, document_id=document_id)
    return stored_annotations.list_annotations(session=session, document_id=document_id)


def check_same_pages(stored: list[PageText], copy: list[PageText]) -> None:
    """Raises NotSameDocument unless both have as many pages, each reading the same
    (whitespace aside: a rewritten file may space its text differently)."""
    if len(stored) != len(copy):
        raise NotSameDocument(
            f"the file has {len(copy)} pages, the document {len(stored)}: "
            "upload an annotated copy of the same document"
        )
    for ours, theirs in zip(stored, copy, strict=True):
        if collapse(ours.text) != collapse(theirs.text):
            raise NotSameDocument(
                f"page {ours.number} of the file does not read like the document's: "
                "upload an annotated copy of the same document"
            )


def add_highlight(
    *, session: Session, document_id: uuid.UUID, page: int, text: str, comment: str
) -> stored_annotations.StoredAnnotation:
    """Returns the stored highlight of `text` on `page`, found in the page's text."""
    document = get_document(session=session, document_id=document_id)
    check_page(document, page)
    (page_text,) = stored_pages(session=session, document_id=document_id, numbers=[page])
    span = locate_text(page_text, text)
    if span is None:
        raise TextNotFound(f"the text is not on page {page} of the document")
    mark = highlight_mark(page_text, span, comment)
    ids = stored_annotations.store_marks(
        session=session, document_id=document_id, marks=[mark], source="api"
    )
    stored_annotations.recount_annotations(session=session, document_id=document_id)
    (created,) = stored_annotations.list_annotations(
        session=session, document_id=document_id, ids=ids
    )
    return created
