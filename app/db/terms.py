"""Term frequencies: how many chunks hold each of a query's terms, and which of a few chosen
chunks hold each; and each chunk's terms, listed by term (the keyword side's postings)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

STORE_TERMS = text(
    "INSERT INTO document_terms (term, document_id, chunk_count) "
    "SELECT word, CAST(:document_id AS uuid), ndoc FROM ts_stat("
    "format('SELECT content_tsv FROM chunks WHERE document_id = %L', CAST(:document_id AS uuid)))"
)

POSTINGS = (
    "INSERT INTO chunk_terms"
    " (term, chunk_id, document_id, repeats, token_count, flags, content_order) "
    "SELECT lexeme, id, document_id, cardinality(positions), token_count, flags,"
    " CAST(CAST('x' || substr(content_sha256, 1, 15) AS bit(60)) AS bigint) "
    "FROM chunks, unnest(content_tsv)"
)
"""Lists stored chunks under each of their terms (`chunk_terms`); a WHERE clause picks which."""

STORE_POSTINGS = text(POSTINGS + " WHERE document_id = CAST(:document_id AS uuid)")

QUERY_TERMS = text(
    """
    WITH query_terms AS (
        SELECT DISTINCT unnest(tsvector_to_array(to_tsvector(CAST(:config AS regconfig), :query)))
            AS term
    ), chosen_terms AS (
        SELECT id, unnest(tsvector_to_array(content_tsv)) AS term
        FROM chunks WHERE id = ANY(:chunk_ids)
    ), counted AS (
        SELECT id, chunk_count FROM documents
        WHERE status = 'ready' AND (CAST(:collection AS text) IS NULL OR collection = :collection)
    )
    SELECT query_terms.term,
           coalesce((SELECT sum(document_terms.chunk_count)
                     FROM document_terms JOIN counted ON counted.id = document_terms.document_id
                     WHERE document_terms.term = query_terms.term), 0) AS chunk_count,
           ARRAY(SELECT id FROM chosen_terms WHERE chosen_terms.term = query_terms.term
                 ORDER BY id) AS held_by,
           (SELECT coalesce(sum(chunk_count), 0) FROM counted) AS total_chunks
    FROM query_terms
    ORDER BY query_terms.term
    """
)


@dataclass(frozen=True)
class TermStat:
    """A query's term: how many chunks in the database hold it, and which of the chosen do."""

    term: str
    chunk_count: int
    held_by: frozenset[uuid.UUID] = frozenset()


def store_document_terms(session: Session, document_id: uuid.UUID) -> None:
    """Counts, for each term, the document's chunks that hold it, and lists each chunk under
    each of its terms (the keyword side's postings); the chunks are stored."""
    session.execute(STORE_TERMS, {"document_id": str(document_id)})
    session.execute(STORE_POSTINGS, {"document_id": str(document_id)})


def query_term_stats(
    session: Session,
    query: str,
    chosen: Sequence[uuid.UUID],
    *,
    config: str,
    collection: str | None = None,
) -> tuple[list[TermStat], int]:
    """Returns the query's terms (as `config` makes them of its text) with their chunk counts
    and which of the `chosen` chunks hold each, and the number of chunks in all: counted over
    the ready documents of `collection`, or of all collections when it is None. A collection
    is its reader's corpus: how rare a word is in another's must not rank its chunks."""
    rows = session.execute(
        QUERY_TERMS,
        {"config": config, "query": query, "chunk_ids": list(chosen), "collection": collection},
    ).all()
    # A query without terms needs no total: nothing is weighed.
    total = int(rows[0].total_chunks) if rows else 0
    stats = [TermStat(row.term, int(row.chunk_count), frozenset(row.held_by)) for row in rows]
    return stats, total
