"""What a search may be restricted to, and the SQL conditions on `chunks` that say so."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, Text, all_, and_, any_, case, cast, func, literal, select
from sqlalchemy.dialects import postgresql

from app.db.models import Chunk, ChunkTerm, Document

READY = "ready"
"""The only document status search sees: a document still processing has no complete chunks."""


@dataclass(frozen=True)
class SearchFilters:
    """A search's restrictions; None (or empty) leaves that field unrestricted.

    `chapter` and `section` match whole titles, ignoring case. A chunk is on the pages
    `page_start`..`page_end` (inclusive, either end open) when its own pages overlap them.
    `exclude_flags` drops chunks carrying any of those flags ("references", "furniture", ...).
    """

    collection: str | None = None
    document_ids: tuple[uuid.UUID, ...] = ()
    chapter: str | None = None
    section: str | None = None
    language: str | None = None
    version: str | None = None
    page_start: int | None = None
    page_end: int | None = None
    is_my_copy: bool | None = None
    exclude_flags: tuple[str, ...] = ()

    @property
    def narrows(self) -> bool:
        """Returns whether a filter that can shrink the searched set a lot is set.

        `exclude_flags` is left out: it removes a few chunks of every document, so counting
        what it leaves would read most of the table to learn that it is still large.
        """
        return (
            bool(self.document_ids)
            or self.places
            or any(
                value is not None
                for value in (self.collection, self.language, self.version, self.is_my_copy)
            )
        )

    @property
    def places(self) -> bool:
        """Returns whether a filter on where a chunk stands (chapter, section, pages) is set."""
        return any(
            value is not None
            for value in (self.chapter, self.section, self.page_start, self.page_end)
        )


def filter_clauses(
    filters: SearchFilters, *, documents_listed: bool = False, postings: bool = False
) -> list[ColumnElement[bool]]:
    """Returns the WHERE conditions on `chunks` for `filters`, the ready-document one always first.

    Every value the caller gave travels as a bound parameter. Document metadata is matched
    through one `document_id IN (SELECT id FROM documents ...)`: measured at 100k chunks, the
    planner turns it into a memoized primary-key lookup during an index scan, or a nested
    loop over the (small) documents table when counting, so copying that metadata onto
    every chunk would not make either faster.

    `documents_listed` matches them as `document_id = ANY(<their ids, listed once>)` instead,
    for a full-text match: there the nested loop ran the text index's scan once per document
    (FinanceBench's 24 filings in a collection: 55-85 ms), where the listed ids let one
    bitmap of the text index meet one of the document index (8-11 ms, the same rows).

    With `postings`, the document and flag conditions are on `chunk_terms`' copies of them,
    so the keyword side filters its postings without reading chunks (the documents listed as
    posting_in_documents has it); the chapter, section and page conditions stay on `chunks`,
    which the caller joins when `filters.places`.
    """
    document_id = ChunkTerm.document_id if postings else Chunk.document_id
    flags = ChunkTerm.flags if postings else Chunk.flags
    document_clauses: list[ColumnElement[bool]] = [Document.status == READY]
    if filters.collection is not None:
        document_clauses.append(Document.collection == filters.collection)
    if filters.language is not None:
        document_clauses.append(Document.language == filters.language)
    if filters.version is not None:
        document_clauses.append(Document.version == filters.version)
    if filters.is_my_copy is not None:
        document_clauses.append(Document.is_my_copy == filters.is_my_copy)

    if postings:
        clauses: list[ColumnElement[bool]] = [posting_in_documents(document_clauses)]
    elif documents_listed:
        clauses = [document_id == any_(document_ids(*document_clauses))]
    else:
        clauses = [document_id.in_(select(Document.id).where(*document_clauses))]
    if filters.document_ids:
        clauses.append(document_id.in_(filters.document_ids))
    # lower() on both sides, in SQL, so the ix_chunks_*_lower indexes apply and the
    # caller's text is compared as a value: no LIKE, so '%' and '_' are plain characters.
    if filters.chapter is not None:
        clauses.append(func.lower(Chunk.chapter) == func.lower(filters.chapter))
    if filters.section is not None:
        clauses.append(func.lower(Chunk.section) == func.lower(filters.section))
    if filters.page_start is not None:
        clauses.append(Chunk.page_end >= filters.page_start)
    if filters.page_end is not None:
        clauses.append(Chunk.page_start <= filters.page_end)
    if filters.exclude_flags:
        # NOT (flags && ARRAY[...]): drop a chunk sharing any flag with the list.
        excluded = literal(list(filters.exclude_flags), postgresql.ARRAY(Text))
        clauses.append(~flags.bool_op("&&")(excluded))
    return clauses


IDS = postgresql.ARRAY(postgresql.UUID(as_uuid=True))


def document_ids(*clauses: ColumnElement[bool]) -> ColumnElement[Any]:
    """Returns the ids of the documents that meet `clauses`, as one array (NULL for none)."""
    return cast(select(func.array_agg(Document.id)).where(*clauses).scalar_subquery(), IDS)


def posting_in_documents(document_clauses: list[ColumnElement[bool]]) -> ColumnElement[bool]:
    """Returns whether a posting's document meets `document_clauses`, checked against the
    shorter list: the documents that do, or those that do not.

    Each posting is compared with every id of the list it is checked against, and a query's
    terms may have tens of thousands of postings: in a library of 200 documents, all of them
    ready and searched, the listed ones cost a question with 22,000 postings 15 ms; the
    unlisted (none) cost nothing.
    """
    listed = document_ids(*document_clauses)
    # With every document listed, the unlisted are none: an empty array, which no id is in.
    unlisted = func.coalesce(document_ids(and_(*document_clauses).is_not(True)), literal([], IDS))
    return case(
        (
            func.cardinality(listed) <= func.cardinality(unlisted),
            ChunkTerm.document_id == any_(listed),
        ),
        else_=ChunkTerm.document_id != all_(unlisted),
    )
