"""Chunk search: the nearest chunks by cosine distance, optionally fused with full-text ranks.

Nearest chunks under filters are found one of two ways, chosen per request:

- exact, when the filters leave at most EXACT_SCAN_MAX_ROWS chunks: every filtered chunk is
  compared with the query, so the result is the true top of the filtered set;
- through the HNSW index otherwise, with pgvector's iterative scan, which keeps walking the
  graph until enough chunks pass the filters. The walk is bounded (MAX_SCAN_TUPLES); when it
  ends with too few chunks, the exact scan runs instead, so a filter never loses results.

"hybrid" adds a keyword ranking (chunks holding any of the query's telling terms, ranked by
BM25 from those terms' postings in `chunk_terms`, the lexemes of the generated `content_tsv`
column listed by term: app.retrieval.keywords) and fuses both rankings by weighted reciprocal
rank. The keyword ranking is its own statement (keyword_ranking), which needs no query vector,
so it can run while the query is embedded; the vector statement fuses its ids.
Each statement stands alone (no transaction is needed); no embedding leaves this module.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from functools import lru_cache
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
from sqlalchemy import (
    ColumnElement,
    Connection,
    Float,
    Select,
    Text,
    and_,
    bindparam,
    case,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import ARRAY, UUID
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.types import UserDefinedType

from app.core.chunks import Candidate
from app.db.annotations import boosting_mark_count
from app.db.connections import fit_connection
from app.db.models import Chunk, ChunkTerm, Document, Page
from app.db.terms import query_term_stats
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.keywords import keyword_query

SearchMode = Literal["vector", "hybrid"]

EXACT_SCAN_MAX_ROWS = 10_000
"""Filtered sets up to this many chunks are searched exactly, larger ones through the index.

Measured with search_chunks at 100k chunks (bench/search_floor.py's data, top 40), p50/p95
in ms, for queries near the filtered chunks and far from them (the index must then walk
past every nearer chunk):

    filtered chunks   exact        index, near   index, far
    5,000             5.4 / 9.6    6.6 / 14      31 / 81
    10,000            8.0 / 12.7   3.4 / 6.5     13 / 30
    20,000            21 / 27      3.7 / 6.9     13 / 27

Up to 10k the exact scan is about as fast as the index on average, and it is exact.
"""

RRF_K = 60
"""The reciprocal rank fusion constant: a rank r contributes weight / (RRF_K + r)."""

VECTOR_WEIGHT = 1.0
KEYWORD_WEIGHT = 1.0
"""How much each ranking counts in the fused score (bench/eval_pages.py measured them)."""

SCORED_MATCHES = 500
"""Keyword matches BM25 scores at most, those holding the most of the query's telling terms
(ts_rank's measure, which reads no term's weight: app.db.terms.HELD). Scoring every match ranked
fewer gold pages on FinanceBench (one collection hit@5 0.552 -> 0.483, two questions), so
the cap stays although the postings make scoring them all cheap."""

STATEMENT_CACHE_SIZE = 256
"""Built statements kept, one per filters, limit, mode and scan kind (see vector_statement)."""

TEXT_SEARCH_CONFIG = "english"
"""The text search configuration of `chunks.content_tsv` (migration 0002); queries must match it."""


def search_chunks(
    session: Session,
    *,
    query_vector: npt.NDArray[np.float32],
    query_text: str,
    filters: SearchFilters,
    k: int,
    overfetch: int = 4,
    mode: SearchMode,
    exact: bool = False,
    count_marks: bool = False,
    keyword_ids: Sequence[uuid.UUID] | None = None,
) -> list[Candidate]:
    """Returns up to k * overfetch candidates, best first; the same request on the same data
    returns the same list.

    Best first means by fused score (descending), then distance, then chunk id; in "vector"
    mode the fused score falls as the distance grows, so that is distance, then chunk id.
    `query_text` is only read in "hybrid" mode. The session's engine must have been through
    configure_connections; no transaction is needed (each statement stands alone).
    `exact` forces the exact scan whatever the filtered set's size (selection mode: a few
    pages, whose every chunk must be compared, never an index walk that may drop some).
    With `count_marks`, each candidate's hl_count is the reader's marks on it, fetched in
    the same statement. `keyword_ids` is keyword_ranking's list for the same query, filters
    and k * overfetch, when it was read beforehand; in "hybrid" mode it is read here if not.
    """
    if k < 1 or overfetch < 1:
        raise ValueError(f"k and overfetch must be positive, not {k} and {overfetch}")
    limit = k * overfetch
    build = vector_statement if mode == "vector" else hybrid_statement
    query: dict[str, Any] = {"query_vector": query_vector}
    if mode == "hybrid":
        if keyword_ids is None:
            keyword_ids = keyword_ranking(session, query_text, filters, limit)
        query["keyword_ids"] = list(keyword_ids)
    # On the connection (SQLAlchemy Core): the rows are plain tuples, and the ORM's handling
    # of them cost 0.2 ms a search.
    connection = session.connection()
    exact = exact or few_enough_to_scan(connection, filters)
    fit_connection(connection, walked_rows=None if exact else limit)
    rows = connection.execute(build(filters, limit, exact=exact, marks=count_marks), query).all()
    if not exact and vector_hit_count(rows, mode) < limit:
        # The index scan ran out (MAX_SCAN_TUPLES, or a table smaller than the limit) before
        # enough chunks passed the filters; only the exact scan is sure to find them all.
        statement = build(filters, limit, exact=True, marks=count_marks)
        rows = connection.execute(statement, query).all()
    return candidates_from(rows, mode, marks=count_marks)


def keyword_ranking(
    session: Session, query_text: str, filters: SearchFilters, limit: int
) -> list[uuid.UUID]:
    """Returns the ids of the `limit` best keyword matches of `query_text` under `filters`,
    best first: BM25 over the postings of the query's telling terms (app.retrieval.keywords).

    It reads no query vector, so a search can read it while the query is embedded and hand it
    to search_chunks.
    """
    terms, total_chunks = query_term_stats(
        session, query_text, (), config=TEXT_SEARCH_CONFIG, collection=filters.collection
    )
    keywords = keyword_query(terms, total_chunks)
    query = {
        "keyword_terms": list(keywords.terms),
        "keyword_weights": list(keywords.weights),
        "common_terms": list(keywords.common_terms),
        "common_weights": list(keywords.common_weights),
    }
    return list(session.connection().execute(keyword_statement(filters, limit), query).scalars())


@lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def keyword_statement(filters: SearchFilters, limit: int) -> Select[Any]:
    """Returns the statement of keyword_ranking: the ids of the `limit` best keyword matches.

    The query is left to the bound parameters `keyword_terms`, `keyword_weights`,
    `common_terms` and `common_weights` (app.retrieval.keywords' KeywordQuery).
    """
    matching_terms = query_terms("keyword_terms", "keyword_weights", "matching_terms")
    # The matches that hold the most of the query's telling terms, however often (ts_rank's
    # measure, which reads no term's weight), are scored: SCORED_MATCHES of them, ties broken
    # by the text. Everything is read from the terms' postings, no chunk row.
    held = func.sum(ChunkTerm.held)
    matches = (
        select(
            ChunkTerm.chunk_id.label("chunk_id"),
            ChunkTerm.content_order.label("content_order"),
            bm25(matching_terms.c.weight).label("score"),
        )
        .select_from(matching_terms)
        .join(ChunkTerm, ChunkTerm.term == matching_terms.c.term)
        .where(*filter_clauses(filters, postings=True))
        .group_by(ChunkTerm.chunk_id, ChunkTerm.content_order)
        .order_by(held.desc(), ChunkTerm.content_order, ChunkTerm.chunk_id)
        .limit(SCORED_MATCHES)
    )
    if filters.places:
        matches = matches.join(Chunk, Chunk.id == ChunkTerm.chunk_id)
    matched = matches.cte("matched")
    # The common terms count in a match's score: each looked up under its term for each match
    # (a correlated subquery, so their long posting lists are never read whole).
    common_terms = query_terms("common_terms", "common_weights", "common_terms")
    common_score = (
        select(bm25(common_terms.c.weight))
        .select_from(common_terms)
        .join(
            ChunkTerm,
            and_(ChunkTerm.term == common_terms.c.term, ChunkTerm.chunk_id == matched.c.chunk_id),
        )
        .scalar_subquery()
    )
    score = matched.c.score + func.coalesce(common_score, 0.0)
    # Many chunks share a score when the query's words are common; the text's order (its
    # hash) breaks those ties before the chunk id, which is new at each ingestion, so the same
    # documents ingested again keep the same keyword ranking.
    return (
        select(matched.c.chunk_id)
        .order_by(score.desc(), matched.c.content_order, matched.c.chunk_id)
        .limit(limit)
    )


def few_enough_to_scan(connection: Connection, filters: SearchFilters) -> bool:
    """Returns whether the filters leave at most EXACT_SCAN_MAX_ROWS chunks, so that scanning
    them all is about as fast as the index and exact; counted only when a filter narrows."""
    if not filters.narrows:
        return False
    filtered: int = connection.execute(count_statement(filters)).scalar_one()
    return filtered <= EXACT_SCAN_MAX_ROWS


@lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def count_statement(filters: SearchFilters) -> Select[Any]:
    """Returns the statement that counts the filtered chunks, stopping one past
    EXACT_SCAN_MAX_ROWS, so it reads at most that many index entries."""
    capped = (
        select(literal(1))
        .select_from(Chunk)
        .where(*filter_clauses(filters))
        .limit(EXACT_SCAN_MAX_ROWS + 1)
        .subquery()
    )
    return select(func.count()).select_from(capped)


class QueryVector(UserDefinedType[npt.NDArray[np.float32]]):
    """The query vector as a bound parameter: handed to psycopg as it is, which sends it in
    binary (fit_connection registers pgvector's dumper), where the column's own type writes
    its 384 floats out as text first, a quarter of a millisecond a query."""

    cache_ok = True

    def get_col_spec(self, **_: Any) -> str:
        return "vector"


def query_distance(*, exact: bool) -> ColumnElement[float]:
    """Returns the cosine distance of a chunk to the bound `query_vector`.

    The exact form calls the function behind <=>: the same values, but no index orders by a
    function call, so the planner has to compare every filtered chunk.
    """
    vector = bindparam("query_vector", type_=QueryVector())
    if exact:
        return func.cosine_distance(Chunk.embedding, vector, type_=Float)
    indexed: ColumnElement[float] = Chunk.embedding.cosine_distance(vector)
    return indexed


def distances_to(
    session: Session, chunk_ids: Sequence[uuid.UUID], query_vector: npt.NDArray[np.float32]
) -> dict[uuid.UUID, float]:
    """Returns the cosine distance of each of the chunks `chunk_ids` to `query_vector`."""
    if not chunk_ids:
        return {}
    rows = session.execute(
        select(Chunk.id, Chunk.embedding.cosine_distance(query_vector)).where(
            Chunk.id.in_(chunk_ids)
        )
    ).all()
    return {chunk_id: float(distance) for chunk_id, distance in rows}


DISTANCE = 16
"""The position of the distance in a search row: right after payload()'s columns."""

VECTOR_HITS = DISTANCE + 4
"""The position of a hybrid search row's `vector_hits`, after vector rank, keyword rank and
fused score; the reader's marks, when counted, come after it."""


def payload() -> list[ColumnElement[Any] | InstrumentedAttribute[Any]]:
    """Returns the columns every search row starts with, in `candidates_from`'s order."""
    return [
        Chunk.id,
        Chunk.document_id,
        Chunk.content,
        Chunk.page_start,
        Chunk.page_end,
        Chunk.page_span_start,
        Chunk.page_span_end,
        Chunk.chapter,
        Chunk.section,
        Chunk.flags,
        Chunk.context_header,
        Chunk.table_header_start,
        Chunk.table_header_end,
        table_header_text(),
        Document.filename,
        Document.title,
    ]


PageOffset = ColumnElement[Any] | InstrumentedAttribute[Any]


def chunk_page_text(start: PageOffset, end: PageOffset) -> ColumnElement[str]:
    """Returns the text between offsets `start` and `end` of the page a chunk starts on, read
    for each row returned (a correlated subquery)."""
    return (
        select(func.substr(Page.text, start + 1, end - start))
        .where(Page.document_id == Chunk.document_id, Page.page_number == Chunk.page_start)
        .scalar_subquery()
    )


def table_header_text() -> ColumnElement[str | None]:
    """Returns the text of the lines that head a table chunk's table, read from its page at
    the offsets stored with the chunk (NULL for a chunk of no table): only the rows returned
    look their page up."""
    header = chunk_page_text(Chunk.table_header_start, Chunk.table_header_end)
    return case((Chunk.table_header_start.is_not(None), header))


@lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def vector_statement(
    filters: SearchFilters, limit: int, *, exact: bool, marks: bool = False
) -> Select[Any]:
    """Returns the statement of a "vector" search: payload and distance, nearest first.

    The query is left to the bound parameter `query_vector`, given at execution, so that one
    statement serves every query with the same filters: building one costs about as much as
    the index scan itself. One level, no re-join: the index scan reads each row once.
    """
    distance = query_distance(exact=exact)
    statement = (
        select(*payload(), distance)
        .join(Document, Document.id == Chunk.document_id)
        .where(*filter_clauses(filters))
        .order_by(distance, Chunk.id)
        .limit(limit)
    )
    if not marks:
        return statement
    return with_marks(statement, lambda columns: (columns[DISTANCE], columns[0]))


@lru_cache(maxsize=STATEMENT_CACHE_SIZE)
def hybrid_statement(
    filters: SearchFilters, limit: int, *, exact: bool, marks: bool = False
) -> Select[Any]:
    """Returns the statement of a "hybrid" search: payload, distance, vector rank, keyword
    rank, fused score and `vector_hits` (how many chunks the vector ranking found), best first.

    The nearest `limit` chunks, ranked, and the `limit` best keyword matches (keyword_ranking)
    are joined and scored by reciprocal rank fusion. As in vector_statement, the query is left
    to bound parameters: `query_vector`, and `keyword_ids`, the keyword matches' ids best first.
    """
    clauses = filter_clauses(filters)
    distance = query_distance(exact=exact)
    # Each side is ranked outside its LIMIT, so its sort keeps only the best `limit` rows.
    vector_hits = (
        select(Chunk.id.label("chunk_id"), distance.label("distance"))
        .where(*clauses)
        .order_by(distance, Chunk.id)
        .limit(limit)
        .cte("vector_hits")
    )
    vector_ranked = select(
        vector_hits.c.chunk_id,
        vector_hits.c.distance,
        func.row_number()
        .over(order_by=(vector_hits.c.distance, vector_hits.c.chunk_id))
        .label("rank"),
    ).subquery("vector_ranked")
    # The keyword ranking (keyword_ranking's ids, best first) is the bound `keyword_ids`.
    keyword_ranked = (
        func.unnest(bindparam("keyword_ids", type_=ARRAY(UUID(as_uuid=True))))
        .table_valued("chunk_id", with_ordinality="rank", name="keyword_ranked")
        .render_derived()
    )
    fused = (
        select(
            func.coalesce(vector_ranked.c.chunk_id, keyword_ranked.c.chunk_id).label("chunk_id"),
            vector_ranked.c.distance,
            vector_ranked.c.rank.label("vector_rank"),
            keyword_ranked.c.rank.label("keyword_rank"),
            (
                rrf(vector_ranked.c.rank, VECTOR_WEIGHT)
                + rrf(keyword_ranked.c.rank, KEYWORD_WEIGHT)
            ).label("fused_score"),
        )
        .select_from(
            vector_ranked.join(
                keyword_ranked, vector_ranked.c.chunk_id == keyword_ranked.c.chunk_id, full=True
            )
        )
        .subquery("fused")
    )
    # A chunk found only by its words has no distance from the vector ranking; its own is
    # computed here, for the few rows that reach this join.
    fused_distance = func.coalesce(fused.c.distance, query_distance(exact=False))
    statement = (
        select(
            *payload(),
            fused_distance,
            fused.c.vector_rank,
            fused.c.keyword_rank,
            fused.c.fused_score,
            select(func.count()).select_from(vector_hits).scalar_subquery(),
        )
        .select_from(fused)
        .join(Chunk, Chunk.id == fused.c.chunk_id)
        .join(Document, Document.id == Chunk.document_id)
        .order_by(fused.c.fused_score.desc(), fused_distance, Chunk.id)
        .limit(limit)
    )
    if not marks:
        return statement
    return with_marks(
        statement,
        lambda columns: (columns[VECTOR_HITS - 1].desc(), columns[DISTANCE], columns[0]),
    )


def query_terms(terms: str, weights: str, name: str) -> Any:
    """Returns the table of the bound parameters `terms` and `weights`: (term, weight) rows."""
    return (
        func.unnest(bindparam(terms, type_=ARRAY(Text)), bindparam(weights, type_=ARRAY(Float)))
        .table_valued("term", "weight", name=name)
        .render_derived()
    )


def bm25(weight: ColumnElement[float]) -> ColumnElement[float]:
    """Returns a chunk's BM25 score over the postings joined: the sum over the query terms it
    holds of each term's weight times the term's impact in the chunk (app.db.terms.IMPACT)."""
    return func.sum(weight * ChunkTerm.impact, type_=Float)


def with_marks(
    statement: Select[Any],
    order: Callable[[Sequence[ColumnElement[Any]]], Sequence[ColumnElement[Any]]],
) -> Select[Any]:
    """Returns the rows of `statement`, in the same order (`order` of its columns), each with
    the reader's marks on its chunk as a last column: counted only for the rows returned."""
    found = statement.subquery("found")
    columns = list(found.c)
    return select(*columns, boosting_mark_count(columns[0])).order_by(*order(columns))


def rrf(rank: ColumnElement[Any], weight: float) -> ColumnElement[float]:
    """Returns the reciprocal-rank-fusion term of a rank column: weight / (RRF_K + rank), 0 if
    absent."""
    return func.coalesce(
        literal(weight, Float) / (literal(float(RRF_K), Float) + rank), literal(0.0, Float)
    )


def vector_hit_count(rows: Sequence[Sequence[Any]], mode: SearchMode) -> int:
    """Returns how many chunks the vector ranking of a search found."""
    if mode == "vector":
        return len(rows)
    return int(rows[0][VECTOR_HITS]) if rows else 0


def candidates_from(
    rows: Sequence[Sequence[Any]], mode: SearchMode, *, marks: bool = False
) -> list[Candidate]:
    """Returns the Candidates the rows of a search describe, in their order."""
    found = []
    for position, row in enumerate(rows, 1):
        # Unpacked by position: reading the fields by name took a quarter of a millisecond.
        (chunk_id, document_id, content, page_start, page_end, span_start, span_end,
         chapter, section, flags, header, table_start, table_end, table_text, filename, title,
         distance, *rest) = row  # fmt: skip
        hl_count = rest.pop() if marks else 0
        if mode == "vector":
            vector_rank, keyword_rank = position, None
            fused_score = VECTOR_WEIGHT / (RRF_K + position)
        else:
            vector_rank, keyword_rank, fused_score, _ = rest
        found.append(
            Candidate(
                chunk_id=chunk_id,
                document_id=document_id,
                distance=float(distance),
                keyword_rank=keyword_rank,
                vector_rank=vector_rank,
                fused_score=float(fused_score),
                content=content,
                page_start=page_start,
                page_end=page_end,
                page_span_start=span_start,
                page_span_end=span_end,
                chapter=chapter,
                section=section,
                flags=tuple(flags),
                context_header=header,
                table_header=(table_start, table_end) if table_start is not None else None,
                table_header_text=" ".join(table_text.split()) if table_text else "",
                document_filename=filename,
                document_title=title,
                hl_count=hl_count,
            )
        )
    return found
