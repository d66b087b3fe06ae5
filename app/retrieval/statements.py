"""Chunks read by their place rather than ranked: with the page's text above them, where a
table's title, unit and column heads stand, for an answer computed from their rows
(app.answer.metrics, app.answer.extremes); the chunk after one, where a list it quotes goes on."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import ColumnElement, Text, func, literal, or_, select
from sqlalchemy.dialects import postgresql
from sqlalchemy.orm import Session

from app.core.chunks import Candidate
from app.db.models import Chunk, Document, Page
from app.retrieval.search import candidates_from, chunk_page_text, payload

ABOVE_CHARS = 3000
"""The page's text before a chunk that comes with it: enough for a statement's title, unit and
column heads above the rows a chunk holds."""


def chunks_holding(
    session: Session, document_id: uuid.UUID, patterns: Sequence[str]
) -> list[tuple[Candidate, str]]:
    """Returns the chunks of the document whose text matches one of `patterns` (PostgreSQL
    regular expressions, any case), in the document's order, each with the last ABOVE_CHARS
    of its page's text before it."""
    return _with_text_above(
        session,
        Chunk.document_id == document_id,
        or_(*(Chunk.content.op("~*")(pattern) for pattern in patterns)),
    )


def table_chunks(session: Session, chunk: Candidate) -> list[tuple[Candidate, str]]:
    """Returns the chunks of the table `chunk` is a chunk of (those under the same header), in
    the document's order, each with the last ABOVE_CHARS of its page's text before it; the
    chunk alone for a chunk of no table."""
    if chunk.table_header is None:
        return _with_text_above(session, Chunk.id == chunk.chunk_id)
    return _with_text_above(
        session,
        Chunk.document_id == chunk.document_id,
        Chunk.page_start == chunk.page_start,
        Chunk.table_header_start == chunk.table_header[0],
        Chunk.table_header_end == chunk.table_header[1],
    )


def page_end(session: Session, document_id: uuid.UUID, page: int) -> str:
    """Returns the last ABOVE_CHARS of the page's text, "" for no such page."""
    return (
        session.scalar(
            select(func.right(Page.text, ABOVE_CHARS)).where(
                Page.document_id == document_id, Page.page_number == page
            )
        )
        or ""
    )


def chunks_on_page(session: Session, document_id: uuid.UUID, page: int) -> list[Candidate]:
    """Returns the chunks of the document that begin on `page`, in the document's order."""
    return [
        chunk
        for chunk, _ in _with_text_above(
            session, Chunk.document_id == document_id, Chunk.page_start == page, above=False
        )
    ]


def following_chunk(
    session: Session, chunk: Candidate, exclude_flags: Sequence[str]
) -> Candidate | None:
    """Returns the chunk after `chunk` in its document, past those carrying one of
    `exclude_flags` (a running head between two pages' text); None after the last."""
    ordinal = select(Chunk.ordinal).where(Chunk.id == chunk.chunk_id).scalar_subquery()
    excluded = literal(list(exclude_flags), postgresql.ARRAY(Text))
    found = _with_text_above(
        session,
        Chunk.document_id == chunk.document_id,
        Chunk.ordinal > ordinal,
        ~Chunk.flags.bool_op("&&")(excluded),
        above=False,
        limit=1,
    )
    return found[0][0] if found else None


def table_chunks_on_pages(
    session: Session, pages: Sequence[tuple[uuid.UUID, int]]
) -> list[tuple[Candidate, str]]:
    """Returns the chunks of tables that begin on any of `pages` ((document, page) pairs), in
    each document's order, each with the last ABOVE_CHARS of its page's text before it (as
    table_chunks), in one statement."""
    if not pages:
        return []
    return _with_text_above(
        session,
        Chunk.table_header_start.is_not(None),
        or_(
            *(
                (Chunk.document_id == document_id) & (Chunk.page_start == page)
                for document_id, page in pages
            )
        ),
    )


def _with_text_above(
    session: Session, *where: ColumnElement[bool], above: bool = True, limit: int | None = None
) -> list[tuple[Candidate, str]]:
    """Returns the chunks `where` selects (the first `limit` of them), each with the last
    ABOVE_CHARS of its page's text before it ("" unless `above`)."""
    text_above = (
        chunk_page_text(
            func.greatest(Chunk.page_span_start - ABOVE_CHARS, 0), Chunk.page_span_start
        )
        if above
        else literal("")
    )
    rows = session.execute(
        select(*payload(), literal(0.0), text_above)
        .join(Document, Document.id == Chunk.document_id)
        .where(*where)
        .order_by(Chunk.ordinal, Chunk.id)
        .limit(limit)
    ).all()
    chunks = candidates_from([row[:-1] for row in rows], "vector")
    return [(chunk, row[-1] or "") for chunk, row in zip(chunks, rows, strict=True)]
