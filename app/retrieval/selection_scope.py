"""Selection mode: retrieval restricted to the pages where a reader's selected text stands.

The selection is first located in the stored page texts (app.retrieval.selection): on the
pages the viewer names, else anywhere in its document, else, with no document named, in the
documents the request's filters allow. Found, retrieval runs over that document and those
pages only (and the chapter, when given), as an exact scan, and the context opens with the
selection as it stands on its pages. Not found, or empty, standard retrieval runs instead and
the status says `scope_fallback`, with the reason.

Nothing outside the located pages reaches the answer: a chunk that crosses the range's edge
(one page in, one out) is cut to its part inside the range, which is still exactly the page
text at its offsets.
"""

from __future__ import annotations

import heapq
import math
import uuid
from collections import defaultdict
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, replace

from sqlalchemy import ColumnElement, select, tuple_
from sqlalchemy.orm import Session

from app.core.chunks import Candidate
from app.core.errors import InvalidSelection
from app.core.geometry import chunk_segments
from app.db.documents import get_document
from app.db.models import Document, Page
from app.retrieval.filters import READY, SearchFilters
from app.retrieval.selection import (
    Match,
    PageRun,
    Selection,
    key_words,
    locate,
    page_runs,
    whole_sentences,
)

SELECTION_TOP_K = 3
"""Chunks returned in selection mode unless the request asks for another number: a few pages
hold few chunks, and the selection itself comes first in the context anyway."""

MAX_CANDIDATE_PAGES = 20
"""Pages holding the selection's rarest key words that are compared with it (each with its
neighbours, for a selection across a page break) when its pages are not known."""

PAGES_READ_AT_ONCE = 500
"""Pages' texts held at a time while the candidates are picked (a dense page is ~5 KB)."""

SELECTION_NAMESPACE = uuid.UUID("6f7c2b1e-5d0a-4c53-9a8e-3b1f2d4c5e60")
"""Names the selection's passage: uuid5 of its place, so the same selection has the same id."""


@dataclass(frozen=True)
class Located:
    match: Match
    """Where the selection stands, widened to its whole sentences."""
    document: Document
    note: str | None = None


@dataclass(frozen=True)
class Fallback:
    reason: str


def resolve_selection(
    session: Session, selection: Selection, filters: SearchFilters
) -> Located | Fallback:
    """Returns where the selection stands, or why it is taken for no selection at all.

    Raises DocumentNotFound for an unknown `document_id`, InvalidSelection for a page range
    that is reversed or outside the document. Pages given without a document narrow the
    search to those page numbers in every document the filters allow.
    """
    start, end = selection.start_page, selection.end_page
    given = [page for page in (start, end) if page is not None]
    if given and (given[0] > given[-1] or given[0] < 1):
        raise InvalidSelection(f"the pages {start}-{end} are not a range of pages")
    document: Document | None = None
    scope: list[ColumnElement[bool]]
    if selection.document_id is not None:
        document = get_document(session=session, document_id=selection.document_id)
        if given and given[-1] > document.page_count:
            raise InvalidSelection(
                f"page {given[-1]} is outside the document (pages 1-{document.page_count})"
            )
        scope = [Page.document_id == document.id]
    else:
        scope = document_scope(filters)
    where = document.filename if document is not None else "any document"
    if not selection.text.strip():
        return Fallback("the selection is empty")
    words = key_words(selection.text)
    if not words:
        return Fallback("the selection has no words to look for")

    note = None
    if given:
        first, last = given[0], given[-1]
        pages = Page.page_number.between(first, last)
        runs = (
            pages_between(session, document.id, first, last)
            if document is not None
            else candidate_runs(session, words, [*scope, pages])
        )
        match = locate(selection.text, runs)
        if match is not None:
            match = whole_sentences(match, runs)
            return Located(match, document or document_of(session, match))
        note = "the selection is not on the pages given"
    runs = candidate_runs(session, words, scope)
    match = locate(selection.text, runs)
    if match is None:
        return Fallback(f"the selection was not found in {where}")
    match = whole_sentences(match, runs)
    if note is not None:
        note += f"; it was found on {pages_label(match)}"
    return Located(match, document or document_of(session, match), note)


def document_scope(filters: SearchFilters) -> list[ColumnElement[bool]]:
    """Returns the conditions on `pages` keeping the ready documents the filters allow."""
    documents: list[ColumnElement[bool]] = [Document.status == READY]
    for column, value in (
        (Document.collection, filters.collection),
        (Document.language, filters.language),
        (Document.version, filters.version),
        (Document.is_my_copy, filters.is_my_copy),
    ):
        if value is not None:
            documents.append(column == value)
    clauses: list[ColumnElement[bool]] = [
        Page.document_id.in_(select(Document.id).where(*documents))
    ]
    if filters.document_ids:
        clauses.append(Page.document_id.in_(filters.document_ids))
    return clauses


def pages_between(session: Session, document_id: uuid.UUID, first: int, last: int) -> list[PageRun]:
    """Returns the document's pages `first`..`last` as one run."""
    rows = session.execute(
        select(Page.page_number, Page.text)
        .where(Page.document_id == document_id, Page.page_number.between(first, last))
        .order_by(Page.page_number)
    ).all()
    return page_runs(document_id, [(row.page_number, row.text) for row in rows])


def candidate_runs(
    session: Session, words: Sequence[str], scope: Sequence[ColumnElement[bool]]
) -> list[PageRun]:
    """Returns the pages worth comparing with a selection, in runs of consecutive pages.

    The MAX_CANDIDATE_PAGES pages scoring best on `words` (ties by document id and page) are
    taken with their neighbours, so that a selection across a page break lies in one run;
    runs come in the order of their best page. A page scores the sum of the inverse page
    frequencies, over the pages in scope, of the words it holds: a word on every page weighs
    next to nothing.
    """
    # The pages' texts are read and searched here, not by PostgreSQL: its strpos over
    # lower(text) took 40 ms for 8 words on a 113-page manual, this whole pick 12 ms.
    held: list[tuple[uuid.UUID, int, tuple[bool, ...]]] = []
    for document_id, page_number, text in page_texts(session, scope):
        lowered = text.lower()
        held.append((document_id, page_number, tuple(word in lowered for word in words)))
    weights = [
        math.log((len(held) + 1) / (sum(page[2][index] for page in held) + 0.5))
        for index in range(len(words))
    ]
    scored = [
        (-sum(weight for weight, has in zip(weights, flags, strict=True) if has), doc, page)
        for doc, page, flags in held
        if any(flags)
    ]
    best = [(doc, page) for _, doc, page in heapq.nsmallest(MAX_CANDIDATE_PAGES, scored)]
    rank = {place: position for position, place in enumerate(best)}
    wanted = sorted({(doc, page + shift) for doc, page in rank for shift in (-1, 0, 1)})
    if not wanted:
        return []
    rows = session.execute(
        select(Page.document_id, Page.page_number, Page.text)
        .where(tuple_(Page.document_id, Page.page_number).in_(wanted))
        .order_by(Page.document_id, Page.page_number)
    ).all()
    by_document: dict[uuid.UUID, list[tuple[int, str]]] = defaultdict(list)
    for row in rows:
        by_document[row.document_id].append((row.page_number, row.text))
    runs = [run for doc, pages in by_document.items() for run in page_runs(doc, pages)]

    def best_rank(run: PageRun) -> int:
        pages = range(run.first_page, run.first_page + len(run.texts))
        return min(rank.get((run.document_id, page), len(rank)) for page in pages)

    return sorted(runs, key=best_rank)


def page_texts(
    session: Session, scope: Sequence[ColumnElement[bool]]
) -> Iterator[tuple[uuid.UUID, int, str]]:
    """Yields (document id, page number, text) of the pages in scope, in that order, reading
    PAGES_READ_AT_ONCE pages at a time (a request's session may be in autocommit, where no
    server-side cursor can stream them)."""
    after: tuple[uuid.UUID, int] | None = None
    while True:
        statement = select(Page.document_id, Page.page_number, Page.text).where(*scope)
        if after is not None:
            statement = statement.where(tuple_(Page.document_id, Page.page_number) > after)
        rows = session.execute(
            statement.order_by(Page.document_id, Page.page_number).limit(PAGES_READ_AT_ONCE)
        ).all()
        for row in rows:
            yield row.document_id, row.page_number, row.text
        if len(rows) < PAGES_READ_AT_ONCE:
            return
        after = rows[-1].document_id, rows[-1].page_number


def document_of(session: Session, match: Match) -> Document:
    return get_document(session=session, document_id=match.document_id)


def pages_label(match: Match) -> str:
    if match.start_page == match.end_page:
        return f"p. {match.start_page}"
    return f"pp. {match.start_page}-{match.end_page}"


def within_pages(chunk: Candidate, first: int, last: int) -> Candidate | None:
    """Returns the chunk, or its part on pages `first`..`last` when it crosses their edge, or
    None when no words of it lie there (a chunk of more than two pages has no parts)."""
    if first <= chunk.page_start and chunk.page_end <= last:
        return chunk
    inside = [s for s in chunk_segments(chunk) if first <= s.page_number <= last]
    if len(inside) != 1:
        return None
    segment = inside[0]
    content = chunk.content[segment.start : segment.end]
    if not any(character.isalnum() for character in content):
        return None
    return replace(
        chunk,
        content=content,
        page_start=segment.page_number,
        page_end=segment.page_number,
        page_span_start=segment.page_offset,
        page_span_end=segment.page_offset + len(content),
    )


def selection_passage(
    located: Located, chunks: Sequence[Candidate], min_similarity: float
) -> Candidate:
    """Returns the selection as a passage of the context: its pages' text at its offsets.

    It has no distance of its own (embedding up to 256 tokens costs several times the
    query's embedding): it is given that of the best chunk on its pages, or the similarity
    threshold's when none passed it.
    """
    match = located.match
    distance = min((c.distance for c in chunks), default=1.0 - min_similarity)
    place = f"{match.document_id}/{match.start_page}/{match.start_offset}"
    place += f"/{match.end_page}/{match.end_offset}"
    return Candidate(
        chunk_id=uuid.uuid5(SELECTION_NAMESPACE, place),
        document_id=match.document_id,
        distance=distance,
        keyword_rank=None,
        vector_rank=None,
        fused_score=0.0,
        content=match.text,
        page_start=match.start_page,
        page_end=match.end_page,
        page_span_start=match.start_offset,
        page_span_end=match.end_offset,
        chapter=None,
        section=None,
        flags=(),
        document_filename=located.document.filename,
        document_title=located.document.title,
    )
