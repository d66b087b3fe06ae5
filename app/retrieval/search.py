"""Chunk search: the nearest chunks by cosine distance, optionally fused with full-text ranks.

Nearest chunks under filters are found one of two ways, chosen per request:

- exact, when the filters leave at most EXACT_SCAN_MAX_ROWS chunks: every filtered chunk is
  compared with the query, so the result is the true top of the filtered set;
- through the HNSW index otherwise, with pgvector's iterative scan, which keeps walking the
  graph until enough chunks pass the filters. The walk is bounded (MAX_SCAN_TUPLES); when it
  ends with too few chunks, the exact scan runs instead, so a filter never loses results.

"hybrid" adds a full-text ranking (websearch_to_tsquery, ts_rank_cd over the generated
`content_tsv` column) and fuses both rankings by reciprocal rank, in the same statement.
Each statement stands alone (no transaction is needed); no embedding leaves this module.
"""

from __future__ import annotations

import math
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal, cast

import numpy as np
import numpy.typing as npt
import psycopg
from pgvector.psycopg.vector import VectorBinaryDumper
from psycopg.types import TypeInfo
from sqlalchemy import (
    ColumnElement,
    Connection,
    Engine,
    Float,
    Select,
    String,
    bindparam,
    event,
    func,
    literal,
    select,
)
from sqlalchemy.dialects.postgresql import REGCONFIG
from sqlalchemy.orm import InstrumentedAttribute, Session
from sqlalchemy.types import UserDefinedType

from app.db.annotations import boosting_mark_count
from app.db.models import Chunk, Document
from app.retrieval.filters import SearchFilters, filter_clauses

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

EF_SEARCH_SMALL = 40
"""hnsw.ef_search for a table of up to EF_SEARCH_SMALL_TABLE chunks (pgvector's default)."""

EF_SEARCH_SMALL_TABLE = 10_000

EF_SEARCH_GROWTH = 0.78
"""How fast hnsw.ef_search grows with the table: ef = 40 x (chunks / 10k) ^ 0.78.

A larger graph needs a longer candidate list for the same recall. Measured on two databases
of bench/query.py's data at each size (mixtures of real passage embeddings, many chunks at
nearly the same distance from a query; the graph of migration 0003), the share of the true
top 10 found:

    chunks    ef 40         ef 80         ef 120        ef 160-180    ef 200-240
    10,000    0.990-0.992   0.998         0.999         1.000         1.000
    100,000   0.896-0.899   0.939-0.948   0.967         0.976-0.979   0.984

so 40 at 10k and 240 at 100k keep 0.98; the exponent passes through both, and reaches
pgvector's limit near a million chunks. Each step of ef costs time in proportion (at 100k,
p50 1.2 ms at 40, 3.9 at 240), so a small table no longer pays for a large one's list.
"""

EF_SEARCH_MAX = 1_000
"""pgvector's upper limit for hnsw.ef_search."""

EF_SEARCH_STEP = 10
"""hnsw.ef_search moves in steps of this size. The table's size comes from ANALYZE, which
estimates a large table from a sample: the estimate of the same data may move by a fraction
of a percent, and a step keeps the same data searched with the same list (and so the same
results), but where the estimate straddles a step."""

EF_SEARCH_REFRESH_SECONDS = 60.0
"""How often a pooled connection re-reads the table's size for its hnsw.ef_search."""

EF_SEARCH_HEADROOM = 1.25
"""How much longer than the rows a statement reads an index walk's candidate list is made
(covering_ef_search): flagged and filtered chunks are dropped from what the walk yields."""

TABLE_EF_SEARCH = "citelock.table_ef_search"
EF_SEARCH = "citelock.ef_search"
VECTOR_DUMPER = "citelock.vector_dumper"
"""Keys of what a pooled connection's record remembers of its settings (its `info`)."""

MAX_SCAN_TUPLES = 20_000
"""How many index tuples an iterative scan may visit before it gives up (pgvector's default)."""

RRF_K = 60
"""The reciprocal rank fusion constant: a rank r contributes 1 / (RRF_K + r)."""

CONNECTION_SETTINGS = {
    "hnsw.iterative_scan": "strict_order",
    "hnsw.max_scan_tuples": str(MAX_SCAN_TUPLES),
    # The plan depends on the filter values, and psycopg prepares a statement that runs
    # often, after which PostgreSQL may switch to one generic plan for all values.
    "plan_cache_mode": "force_custom_plan",
    # An index walk reads its pages at random; at PostgreSQL's default cost for that (4.0,
    # for spinning disks) the planner sorted all 10k chunks of bench/query.py's data instead
    # of walking the HNSW graph, 22 ms against 13. The pages are in memory or on SSDs.
    "random_page_cost": "1.1",
}
"""What every connection search runs on is set to when it opens (configure_connections)."""

STATEMENT_CACHE_SIZE = 256
"""Built statements kept, one per filters, limit, mode and scan kind (see vector_statement)."""

TEXT_SEARCH_CONFIG = "english"
"""The text search configuration of `chunks.content_tsv` (migration 0002); queries must match it."""


@dataclass(frozen=True)
class Candidate:
    """One chunk found by search, with how it ranked, and what the caller shows of it."""

    chunk_id: uuid.UUID
    document_id: uuid.UUID
    distance: float
    """Cosine distance to the query vector: 0 for the same direction, up to 2."""
    keyword_rank: int | None
    """1-based rank among the full-text matches; None when not among them, or in "vector" mode."""
    vector_rank: int | None
    """1-based rank by distance; None for a chunk found only by its words."""
    fused_score: float
    """Sum of 1 / (RRF_K + rank) over the rankings the chunk is in."""
    content: str
    page_start: int
    page_end: int
    page_span_start: int
    page_span_end: int
    chapter: str | None
    section: str | None
    flags: tuple[str, ...]
    document_filename: str
    document_title: str
    hl_count: int = 0
    """The reader's marks on the chunk that count toward its rank; 0 unless they were asked for."""


def configure_connections(engine: Engine) -> None:
    """Sets CONNECTION_SETTINGS on every connection `engine` opens from now on, and keeps each
    connection's hnsw.ef_search fit for the table's size (ef_search_for).

    As connection defaults they cost nothing per query, and a search needs no transaction of
    its own to set them: set per query, they took a round trip before every search. The size
    is re-read on checkout once EF_SEARCH_REFRESH_SECONDS have passed, so a growing table
    raises ef_search within a minute.
    """

    @event.listens_for(engine, "connect")
    def apply_settings(connection: Any, _: Any) -> None:
        with connection.cursor() as cursor:
            for name, value in CONNECTION_SETTINGS.items():
                cursor.execute("SELECT set_config(%s, %s, false)", (name, value))
        # A setting made in a transaction that rolls back is undone with it.
        connection.commit()

    @event.listens_for(engine, "checkout")
    def fit_ef_search(connection: Any, record: Any, _: Any) -> None:
        now = time.monotonic()
        if now < record.info.get("ef_search_checked_at", -math.inf) + EF_SEARCH_REFRESH_SECONDS:
            return
        with connection.cursor() as cursor:
            cursor.execute("SELECT reltuples FROM pg_class WHERE oid = to_regclass('chunks')")
            found = cursor.fetchone()
            ef_search = ef_search_for(found[0] if found else 0.0)
            cursor.execute("SELECT set_config('hnsw.ef_search', %s, false)", (str(ef_search),))
        connection.commit()
        record.info["ef_search_checked_at"] = now
        record.info[TABLE_EF_SEARCH] = record.info[EF_SEARCH] = ef_search


def fit_connection(connection: Connection, *, walked_rows: int | None) -> None:
    """Readies `connection` for a search statement, at most once per connection and setting:
    psycopg learns to send the query vector in binary, and, before an index walk that must
    yield `walked_rows` rows, hnsw.ef_search is raised to hold them (covering_ef_search).

    A setting is kept on the connection (and remembered in its pool record) only outside a
    transaction, where nothing can roll it back; inside one it is made for that transaction.
    """
    pooled = connection.connection
    driver = cast(psycopg.Connection[Any], pooled.driver_connection)
    if VECTOR_DUMPER not in pooled.info:
        vector = TypeInfo.fetch(driver, "vector")
        if vector is None:
            raise RuntimeError("the vector type is missing: the database is not migrated")
        dumper = type("QueryVectorDumper", (VectorBinaryDumper,), {"oid": vector.oid})
        driver.adapters.register_dumper(np.ndarray, dumper)
        pooled.info[VECTOR_DUMPER] = True
    if walked_rows is None:
        return
    table_ef_search = pooled.info.get(TABLE_EF_SEARCH, EF_SEARCH_SMALL)
    wanted = max(table_ef_search, covering_ef_search(walked_rows))
    if pooled.info.get(EF_SEARCH) == wanted:
        return
    kept = driver.autocommit
    # On the driver's connection, as configure_connections's settings: set-up, not a search.
    driver.execute("SELECT set_config('hnsw.ef_search', %s, %s)", (str(wanted), not kept))
    if kept:
        pooled.info[EF_SEARCH] = wanted


def covering_ef_search(walked_rows: int) -> int:
    """Returns the smallest hnsw.ef_search whose first walk yields `walked_rows` rows, the one
    more that ordering by chunk_id reads past the last, and room for the chunks the filters drop
    (up to pgvector's limit: past it, the iterative scan walks on).

    A walk that runs out of candidates before the statement has its rows starts another
    (pgvector's iterative scan), which at 10k chunks cost more than a list a quarter longer:
    top 40 in 1.59 ms at ef_search 40, 1.22 at 50.
    """
    return min(math.ceil(walked_rows * EF_SEARCH_HEADROOM) + 1, EF_SEARCH_MAX)


def ef_search_for(chunks: float) -> int:
    """Returns the hnsw.ef_search that finds 0.98 of the true top 10 among `chunks` chunks (see
    EF_SEARCH_GROWTH); `chunks` is PostgreSQL's estimate, -1 for a table never analysed."""
    if chunks <= EF_SEARCH_SMALL_TABLE:
        return EF_SEARCH_SMALL
    grown: float = EF_SEARCH_SMALL * (chunks / EF_SEARCH_SMALL_TABLE) ** EF_SEARCH_GROWTH
    return min(math.ceil(grown / EF_SEARCH_STEP) * EF_SEARCH_STEP, EF_SEARCH_MAX)


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
    the same statement.
    """
    if k < 1 or overfetch < 1:
        raise ValueError(f"k and overfetch must be positive, not {k} and {overfetch}")
    limit = k * overfetch
    build = vector_statement if mode == "vector" else hybrid_statement
    query = {"query_vector": query_vector, "query_text": query_text}
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


DISTANCE = 12
"""The position of the distance in a search row: right after payload()'s columns."""

VECTOR_HITS = DISTANCE + 4
"""The position of a hybrid search row's `vector_hits`, after vector rank, keyword rank and
fused score; the reader's marks, when counted, come after it."""


def payload() -> list[InstrumentedAttribute[Any]]:
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
        Document.filename,
        Document.title,
    ]


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

    The nearest `limit` chunks and the `limit` best full-text matches, each ranked, are
    joined and scored by reciprocal rank fusion. As in vector_statement, the query is left
    to the bound parameters `query_vector` and `query_text`.
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
    query = func.websearch_to_tsquery(
        literal(TEXT_SEARCH_CONFIG, REGCONFIG), bindparam("query_text", type_=String)
    )
    text_rank = func.ts_rank_cd(Chunk.content_tsv, query, type_=Float)
    keyword_hits = (
        select(Chunk.id.label("chunk_id"), text_rank.label("score"))
        .where(Chunk.content_tsv.bool_op("@@")(query), *clauses)
        .order_by(text_rank.desc(), Chunk.id)
        .limit(limit)
        .subquery("keyword_hits")
    )
    keyword_ranked = select(
        keyword_hits.c.chunk_id,
        func.row_number()
        .over(order_by=(keyword_hits.c.score.desc(), keyword_hits.c.chunk_id))
        .label("rank"),
    ).subquery("keyword_ranked")
    fused = (
        select(
            func.coalesce(vector_ranked.c.chunk_id, keyword_ranked.c.chunk_id).label("chunk_id"),
            vector_ranked.c.distance,
            vector_ranked.c.rank.label("vector_rank"),
            keyword_ranked.c.rank.label("keyword_rank"),
            (rrf(vector_ranked.c.rank) + rrf(keyword_ranked.c.rank)).label("fused_score"),
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


def with_marks(
    statement: Select[Any],
    order: Callable[[Sequence[ColumnElement[Any]]], Sequence[ColumnElement[Any]]],
) -> Select[Any]:
    """Returns the rows of `statement`, in the same order (`order` of its columns), each with
    the reader's marks on its chunk as a last column: counted only for the rows returned."""
    found = statement.subquery("found")
    columns = list(found.c)
    return select(*columns, boosting_mark_count(columns[0])).order_by(*order(columns))


def rrf(rank: ColumnElement[Any]) -> ColumnElement[float]:
    """Returns the reciprocal-rank-fusion term of a rank column: 1 / (RRF_K + rank), 0 if absent."""
    return func.coalesce(
        literal(1.0, Float) / (literal(float(RRF_K), Float) + rank), literal(0.0, Float)
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
         chapter, section, flags, filename, title, distance, *rest) = row  # fmt: skip
        hl_count = rest.pop() if marks else 0
        if mode == "vector":
            vector_rank, keyword_rank, fused_score = position, None, 1.0 / (RRF_K + position)
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
                document_filename=filename,
                document_title=title,
                hl_count=hl_count,
            )
        )
    return found
