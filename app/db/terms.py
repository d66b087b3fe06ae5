"""Term frequencies: how many chunks hold each of a query's terms, and which of a few chosen
chunks hold each; and each chunk's terms, listed by term (the keyword side's postings)."""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.orm import Session

# BM25's constants stand in every stored posting's impact (IMPACT): changing one takes a
# migration that lists the postings again, as 0014 does.
K1 = 1.2
"""How fast a term's repeats stop counting (BM25's k1, its usual value)."""
B = 0.75
"""How much a chunk's length discounts its terms (BM25's b, its usual value)."""
AVERAGE_CHUNK_TOKENS = 110.0
"""A chunk's usual length in tokens (the mean over the benchmark sets: 103 on the papers and
manuals, 113 on the filings), against which BM25 measures a chunk's."""

ZETA_2 = math.pi**2 / 6
"""The sum of 1/n^2 over every n, to which ts_rank's measure of a term's repeats tends."""

STORE_TERMS = text(
    "INSERT INTO document_terms (term, document_id, chunk_count) "
    "SELECT word, CAST(:document_id AS uuid), ndoc FROM ts_stat("
    "format('SELECT content_tsv FROM chunks WHERE document_id = %L', CAST(:document_id AS uuid)))"
)

REPEATS = "cardinality(positions)"
"""How often a chunk holds a term: its positions in the chunk's `content_tsv`."""


def real(value: float) -> str:
    """Returns `value` as an SQL double precision literal (an unadorned 0.5 is numeric)."""
    return f"CAST({value!r} AS double precision)"


HELD = (
    f"CASE {REPEATS} WHEN 1 THEN {real(1.0)} WHEN 2 THEN {real(1.25)}"
    f" WHEN 3 THEN {real(1.0 + 1 / 4 + 1 / 9)}"
    f" ELSE {real(ZETA_2)} - {real(1.0)} / ({REPEATS} + {real(0.5)}) END"
)
"""What a term a chunk holds adds to ts_rank's measure (in its units of 0.1 / ZETA_2): the sum
of 1/n^2 for n up to its repeats, within 0.001 past 3."""

IMPACT = (
    f"{REPEATS} * {real(K1 + 1.0)} / ({REPEATS} + {real(K1)}"
    f" * ({real(1.0 - B)} + {real(B)} * token_count / {real(AVERAGE_CHUNK_TOKENS)}))"
)
"""What a term a chunk holds adds to its BM25 score, for a weight of 1: saturating in its
repeats and discounted by the chunk's length in tokens."""

POSTINGS = (
    "INSERT INTO chunk_terms (term, chunk_id, document_id, held, impact, flags, content_order) "
    f"SELECT lexeme, id, document_id, {HELD}, {IMPACT}, flags,"
    " CAST(CAST('x' || substr(content_sha256, 1, 15) AS bit(60)) AS bigint) "
    "FROM chunks, unnest(content_tsv)"
)
"""Lists stored chunks under each of their terms (`chunk_terms`), each with what the term adds
to the chunk's measures, worked out once here rather than for every posting a query reads;
a WHERE clause picks which chunks."""

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
