"""The pool's connections made ready for search: settings at connect, hnsw.ef_search fit to
the chunks table's size and to each statement, the query vector sent in binary."""

from __future__ import annotations

import math
import time
from typing import Any, cast

import numpy as np
import psycopg
from pgvector.psycopg.vector import VectorBinaryDumper
from psycopg.types import TypeInfo
from sqlalchemy import Connection, Engine, event

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
