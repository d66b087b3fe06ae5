"""Reading and deleting stored documents (writing them is ingestion's job)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Sequence

from sqlalchemy import delete, func, select
from sqlalchemy.orm import Session

from app.db.models import Chunk, Document, DocumentFile
from app.errors import DocumentNotFound, PageNotFound

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
    """Removes the document and, by cascade, its file, pages and chunks."""
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
    document = get_document(session=session, document_id=document_id)
    check_page(document, page)
    content = session.scalar(
        select(DocumentFile.content).where(DocumentFile.document_id == document_id)
    )
    assert content is not None
    return content


def check_page(document: Document, page: int) -> None:
    if not 1 <= page <= document.page_count:
        raise PageNotFound(f"page {page} is outside the document (pages 1-{document.page_count})")
