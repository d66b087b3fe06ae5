"""The chunks of a document that may hold a statement's rows, for an answer computed from them
(app.answer.metrics)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from sqlalchemy import func, literal, or_, select
from sqlalchemy.orm import Session

from app.core.chunks import Candidate
from app.db.models import Chunk, Document
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
    above = chunk_page_text(
        func.greatest(Chunk.page_span_start - ABOVE_CHARS, 0),
        Chunk.page_span_start,
    )
    rows = session.execute(
        select(*payload(), literal(0.0), above)
        .join(Document, Document.id == Chunk.document_id)
        .where(
            Chunk.document_id == document_id,
            or_(*(Chunk.content.op("~*")(pattern) for pattern in patterns)),
        )
        .order_by(Chunk.ordinal, Chunk.id)
    ).all()
    chunks = candidates_from([row[:-1] for row in rows], "vector")
    return [(chunk, row[-1] or "") for chunk, row in zip(chunks, rows, strict=True)]
