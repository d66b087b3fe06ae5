"""The rows a batch of pages is stored as: its pages with their character boxes, and chunks
with their vectors and one rectangle per line."""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np
import numpy.typing as npt
from sqlalchemy import insert
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
                chunk_row(document_id, chunk, vector)
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
    }


def chunk_row(
    document_id: Any, chunk: PlacedChunk, vector: npt.NDArray[np.float32]
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
    }
