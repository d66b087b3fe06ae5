"""Storing, listing and checking the reader's annotations, and counting the marks on chunks."""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from sqlalchemy import (
    ColumnElement,
    ScalarSelect,
    Text,
    any_,
    delete,
    func,
    insert,
    literal,
    select,
    update,
)
from sqlalchemy.dialects.postgresql import ARRAY
from sqlalchemy.orm import Session

from app.core.geometry import ChunkSpan, chunks_under
from app.core.records import BOOSTING_TYPES, Mark
from app.db.models import Annotation, AnnotationChunk, Chunk, Document, Page


@dataclass(frozen=True)
class StoredAnnotation:
    annotation: Annotation
    chunk_ids: list[uuid.UUID]


def chunk_spans(*, session: Session, document_id: uuid.UUID) -> list[ChunkSpan]:
    """Returns where each of the document's chunks lies, in document order."""
    rows = session.execute(
        select(
            Chunk.id.label("chunk_id"),
            Chunk.page_start,
            Chunk.page_end,
            Chunk.page_span_start,
            Chunk.page_span_end,
        )
        .where(Chunk.document_id == document_id)
        .order_by(Chunk.ordinal, Chunk.id)
    ).all()
    return [ChunkSpan(**row._mapping) for row in rows]


def store_marks(
    *, session: Session, document_id: uuid.UUID, marks: Sequence[Mark], source: str
) -> list[uuid.UUID]:
    """Returns the ids of the stored marks, each linked to the chunks it lies on, in the
    caller's transaction. The document's annotation_count is the caller's to set."""
    if not marks:
        return []
    spans = chunk_spans(session=session, document_id=document_id)
    ids = [uuid.uuid4() for _ in marks]
    session.execute(
        insert(Annotation),
        [
            {
                "id": annotation_id,
                "document_id": document_id,
                "page": mark.page,
                "type": mark.type,
                "text": mark.text,
                "comment": mark.comment,
                "author": mark.author,
                "colour": mark.colour,
                # Hundredths of a point are far below a pixel at any zoom.
                "rects": [[round(value, 2) for value in rect] for rect in mark.rects],
                "page_span_start": mark.page_span_start,
                "page_span_end": mark.page_span_end,
                "source": source,
            }
            for annotation_id, mark in zip(ids, marks, strict=True)
        ],
    )
    links = [
        {"annotation_id": annotation_id, "chunk_id": chunk_id}
        for annotation_id, mark in zip(ids, marks, strict=True)
        for chunk_id in chunks_under(mark, spans)
    ]
    if links:
        session.execute(insert(AnnotationChunk), links)
    return ids


def delete_marks(*, session: Session, document_id: uuid.UUID, source: str) -> None:
    session.execute(
        delete(Annotation).where(Annotation.document_id == document_id, Annotation.source == source)
    )


def recount_annotations(*, session: Session, document_id: uuid.UUID) -> None:
    """Sets the document's annotation_count to what is stored."""
    count = (
        select(func.count())
        .select_from(Annotation)
        .where(Annotation.document_id == document_id)
        .scalar_subquery()
    )
    session.execute(
        update(Document).where(Document.id == document_id).values(annotation_count=count)
    )


def list_annotations(
    *, session: Session, document_id: uuid.UUID, ids: Iterable[uuid.UUID] | None = None
) -> list[StoredAnnotation]:
    """Returns the document's annotations (all, or those with `ids`) in reading order: by page,
    then where they lie in the page text (those on no text last), then as stored."""
    query = select(Annotation).where(Annotation.document_id == document_id)
    if ids is not None:
        query = query.where(Annotation.id.in_(list(ids)))
    annotations = session.scalars(
        query.order_by(
            Annotation.page, Annotation.page_span_start.asc().nulls_last(), Annotation.seq
        )
    ).all()
    links: dict[uuid.UUID, list[uuid.UUID]] = defaultdict(list)
    for annotation_id, chunk_id in session.execute(
        select(AnnotationChunk.annotation_id, AnnotationChunk.chunk_id)
        .where(AnnotationChunk.annotation_id.in_([a.id for a in annotations]))
        .order_by(AnnotationChunk.chunk_id)
    ):
        links[annotation_id].append(chunk_id)
    return [StoredAnnotation(a, links[a.id]) for a in annotations]


def boosting_mark_count(chunk_id: ColumnElement[uuid.UUID]) -> ScalarSelect[int]:
    """Returns how many of the reader's marks on the chunk `chunk_id` names count toward its
    rank (strike-outs do not), as a subquery correlated with the statement it goes in."""
    return (
        select(func.count())
        .select_from(AnnotationChunk)
        .join(Annotation, Annotation.id == AnnotationChunk.annotation_id)
        .where(
            AnnotationChunk.chunk_id == chunk_id,
            # An array parameter, not IN (...): the statement's SQL stays the same every time,
            # where IN's list is spliced into it at each execution.
            Annotation.type == any_(literal(sorted(BOOSTING_TYPES), ARRAY(Text))),
        )
        .scalar_subquery()
    )


def verify_annotations(*, session: Session, document_id: uuid.UUID) -> list[str]:
    """Returns what is wrong with the document's stored annotations; empty when all is well.

    Every annotation's page must be in the document and its span in that page's text;
    every chunk it is linked to must exist, belong to the document and lie under it; it
    must be linked to every chunk it lies on; annotation_count must match.
    """
    document = session.get(Document, document_id)
    if document is None:
        return [f"no document with id {document_id}"]
    page_lengths = {
        number: length
        for number, length in session.execute(
            select(Page.page_number, func.length(Page.text)).where(Page.document_id == document_id)
        )
    }
    spans = {span.chunk_id: span for span in chunk_spans(session=session, document_id=document_id)}
    stored = list_annotations(session=session, document_id=document_id)
    problems: list[str] = []
    for item in stored:
        annotation, name = item.annotation, f"annotation {item.annotation.id}"
        if not 1 <= annotation.page <= document.page_count:
            problems.append(f"{name}: page {annotation.page} is not in 1-{document.page_count}")
            continue
        end = annotation.page_span_end
        if end is not None and end > page_lengths.get(annotation.page, 0):
            problems.append(f"{name}: span ends at {end}, past page {annotation.page}'s text")
        mark = as_mark(annotation)
        for chunk_id in item.chunk_ids:
            if chunk_id not in spans:
                problems.append(f"{name}: linked chunk {chunk_id} is not one of the document's")
            elif not spans[chunk_id].covers(mark):
                problems.append(f"{name}: linked chunk {chunk_id} does not lie under it")
        missing = sorted(set(chunks_under(mark, spans.values())) - set(item.chunk_ids))
        problems.extend(f"{name}: not linked to chunk {chunk_id} under it" for chunk_id in missing)
    if document.annotation_count != len(stored):
        problems.append(
            f"annotation_count is {document.annotation_count} but {len(stored)} are stored"
        )
    return problems


def as_mark(annotation: Annotation) -> Mark:
    """Returns the stored annotation as the mark it was made from."""
    return Mark(
        page=annotation.page,
        type=annotation.type,
        text=annotation.text,
        comment=annotation.comment,
        author=annotation.author,
        colour=annotation.colour,
        rects=tuple((r[0], r[1], r[2], r[3]) for r in annotation.rects),
        page_span_start=annotation.page_span_start,
        page_span_end=annotation.page_span_end,
    )
