"""Reading and deleting stored documents (writing them is ingestion's job)."""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator, Sequence

import numpy as np
from sqlalchemy import delete, func, select, tuple_
from sqlalchemy.orm import Session

from app.core.errors import DocumentNotFound, PageNotFound
from app.core.records import PageText
from app.db.models import Chunk, Document, DocumentFile, Page

ITER_PAGE_SIZE = 500


def list_documents(
    *, session: Session, collection: str | None, limit: int, offset: int
) -> tuple[Sequence[Document], int]:
    """Returns one page of ready documents, oldest first, and how many there are in all."""
    where = [Document.status == "ready"]
    if collection is not None:
        where.append(Document.collection == collection)
    count = session.scalar(select(func.count()).select_from(Document).where(*where)) or 0
    documents = session.scalars(
        select(Document)
        .where(*where)
        .order_by(Document.created_at, Document.id)
        .limit(limit)
        .offset(offset)
    ).all()
    return documents, count


def iter_documents(*, session: Session, collection: str | None) -> Iterator[Document]:
    """Yields every ready document, oldest first, a page of rows at a time."""
    offset = 0
    while True:
        found, _ = list_documents(
            session=session, collection=collection, limit=ITER_PAGE_SIZE, offset=offset
        )
        yield from found
        if len(found) < ITER_PAGE_SIZE:
            return
        offset += len(found)


def get_document(*, session: Session, document_id: uuid.UUID) -> Document:
    document = session.get(Document, document_id)
    if document is None or document.status != "ready":
        raise DocumentNotFound(f"no document with id {document_id}")
    return document


def delete_document(*, session: Session, document_id: uuid.UUID) -> None:
    """Removes the document and, by cascade, its file, pages, chunks and annotations."""
    deleted = session.execute(
        delete(Document).where(Document.id == document_id).returning(Document.id)
    ).first()
    if deleted is None:
        raise DocumentNotFound(f"no document with id {document_id}")


def page_chunks(*, session: Session, document_id: uuid.UUID, page: int) -> Sequence[Chunk]:
    """Returns the chunks touching `page`, in document order."""
    document = get_document(session=session, document_id=document_id)
    check_page(document, page)
    return session.scalars(
        select(Chunk)
        .where(Chunk.document_id == document_id, Chunk.page_start <= page, Chunk.page_end >= page)
        .order_by(Chunk.ordinal, Chunk.id)
    ).all()


def document_pdf(*, session: Session, document_id: uuid.UUID, page: int) -> bytes:
    """Returns the PDF's bytes after checking that it has `page`."""
    check_page(get_document(session=session, document_id=document_id), page)
    return document_file(session=session, document_id=document_id)


def document_file(*, session: Session, document_id: uuid.UUID) -> bytes:
    """Returns the bytes of the PDF as it was uploaded, decrypted if it needed a password."""
    get_document(session=session, document_id=document_id)
    content = session.scalar(
        select(DocumentFile.content).where(DocumentFile.document_id == document_id)
    )
    assert content is not None
    return content


def page_sizes(
    *, session: Session, pages: Collection[tuple[uuid.UUID, int]]
) -> dict[tuple[uuid.UUID, int], tuple[float, float]]:
    """Returns the width and height in points of each (document id, page number) still stored."""
    if not pages:
        return {}
    rows = session.execute(
        select(Page.document_id, Page.page_number, Page.width, Page.height).where(
            tuple_(Page.document_id, Page.page_number).in_(list(pages))
        )
    )
    return {(row[0], row[1]): (row[2], row[3]) for row in rows}


def check_page(document: Document, page: int) -> None:
    if not 1 <= page <= document.page_count:
        raise PageNotFound(f"page {page} is outside the document (pages 1-{document.page_count})")


def stored_pages(
    *, session: Session, document_id: uuid.UUID, numbers: Sequence[int] | None = None
) -> list[PageText]:
    """Returns the document's pages as ingestion read them (all, or those numbered), in order."""
    query = select(Page).where(Page.document_id == document_id).order_by(Page.page_number)
    if numbers is not None:
        query = query.where(Page.page_number.in_(numbers))
    return [
        PageText(
            number=page.page_number,
            text=page.text,
            width=page.width,
            height=page.height,
            char_boxes=np.frombuffer(page.char_boxes, dtype=np.float32).reshape(-1, 4),
            line_ids=np.frombuffer(page.line_ids, dtype=np.int32),
        )
        for page in session.scalars(query)
    ]
