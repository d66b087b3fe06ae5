"""The rows a batch of pages is stored as: its pages with their character boxes, and chunks
with their vectors (and the model they come from) and one rectangle per line; the chunks that
another model embedded, and their new vectors."""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import ColumnElement, Row, func, insert, or_, select, update
from sqlalchemy.orm import Session

from app.core.geometry import union_rect
from app.core.records import PageBatch, PageText, PlacedChunk
from app.db.models import Chunk, Page


def store_batch(session: Session, document_id: Any, batch: PageBatch) -> None:
    """Writes the batch's pages and chunks."""
    session.execute(insert(Page), [page_row(document_id, page) for page in batch.pages])
    if batch.chunks:
        session.execute(
            insert(Chunk),
            [
                chunk_row(document_id, chunk, vector, model=batch.embedding_model)
                for chunk, vector in zip(batch.chunks, batch.vectors, strict=True)
            ],
        )


def page_row(document_id: Any, page: PageText) -> dict[str, Any]:
    return {
        "document_id": document_id,
        "page_number": page.number,
        "text": page.text,
        "width": page.width,
        "height": page.height,
        "char_boxes": page.char_boxes.astype(np.float32).tobytes(),
        "line_ids": page.line_ids.astype(np.int32).tobytes(),
        "from_ocr": page.ocr_confidence is not None,
        "ocr_confidence": page.ocr_confidence,
    }


def chunk_row(
    document_id: Any, chunk: PlacedChunk, vector: npt.NDArray[np.float32], *, model: str
) -> dict[str, Any]:
    draft = chunk.draft
    bbox = union_rect(rect for page, rect in chunk.line_rects if page == draft.page_start)
    return {
        "document_id": document_id,
        "ordinal": draft.ordinal,
        "page_start": draft.page_start,
        "page_end": draft.page_end,
        "page_span_start": draft.page_span_start,
        "page_span_end": draft.page_span_end,
        "document_span_start": draft.document_span_start,
        "document_span_end": draft.document_span_end,
        "bbox": list(bbox) if bbox else [0.0, 0.0, 0.0, 0.0],
        "line_rects": [{"page": page, "rect": list(rect)} for page, rect in chunk.line_rects],
        "chapter": draft.chapter,
        "section": draft.section,
        "content": draft.content,
        "context_header": draft.context_header,
        "table_header_start": draft.table_header[0] if draft.table_header else None,
        "table_header_end": draft.table_header[1] if draft.table_header else None,
        "content_sha256": hashlib.sha256(draft.content.encode()).hexdigest(),
        "token_count": draft.token_count,
        "flags": list(draft.flags),
        "embedding": vector,
        "embedding_model": model,
    }


def embedded_by_others(model: str) -> ColumnElement[bool]:
    """Returns the condition "embedded by a model other than `model`".

    Spelt as two ranges, not `<>`, which no btree index answers: the index on the model
    then finds the few other models' chunks without reading the table.
    """
    return or_(Chunk.embedding_model < model, Chunk.embedding_model > model)


def count_other_models(session: Session, model: str) -> dict[str, int]:
    """Returns how many chunks each model other than `model` embedded, by model name."""
    rows = session.execute(
        select(Chunk.embedding_model, func.count())
        .where(embedded_by_others(model))
        .group_by(Chunk.embedding_model)
        .order_by(Chunk.embedding_model)
    )
    return {name: count for name, count in rows}


def chunks_of_other_models(
    session: Session, model: str, *, after: uuid.UUID | None, limit: int
) -> Sequence[Row[uuid.UUID, str, str, list[str]]]:
    """Returns (id, context header, content, flags) of up to `limit` chunks that a model other
    than `model` embedded, in chunk id order, from the first id past `after`."""
    query = select(Chunk.id, Chunk.context_header, Chunk.content, Chunk.flags).where(
        embedded_by_others(model)
    )
    if after is not None:
        query = query.where(Chunk.id > after)
    return session.execute(query.order_by(Chunk.id).limit(limit)).all()


def store_vectors(
    session: Session,
    ids: Sequence[uuid.UUID],
    vectors: npt.NDArray[np.float32],
    *,
    model: str,
) -> None:
    """Replaces the chunks' vectors with `vectors` (row i for ids[i]), `model`'s."""
    session.execute(
        update(Chunk),
        [
            {"id": chunk_id, "embedding": vector, "embedding_model": model}
            for chunk_id, vector in zip(ids, vectors, strict=True)
        ],
    )
