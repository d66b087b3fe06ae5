"""hnsw.ef_search grows with the table, from pgvector's default to its upper limit."""

from __future__ import annotations

import pytest

from app.db.connections import (
    EF_SEARCH_MAX,
    EF_SEARCH_SMALL,
    EF_SEARCH_STEP,
    covering_ef_search,
    ef_search_for,
)


@pytest.mark.parametrize("chunks", [-1.0, 0.0, 500.0, 10_000.0])
def test_a_small_or_unanalysed_table_gets_the_default_list(chunks: float) -> None:
    assert ef_search_for(chunks) == EF_SEARCH_SMALL == 40


def test_the_list_grows_with_the_table_and_stops_at_pgvectors_limit() -> None:
    sizes = [10_000.0 * 1.5**step for step in range(40)]
    lists = [ef_search_for(size) for size in sizes]
    assert lists == sorted(lists)
    assert lists[-1] == EF_SEARCH_MAX


def test_at_100k_chunks_the_list_is_the_one_measured_to_find_098() -> None:
    # connections.EF_SEARCH_GROWTH: 0.976-0.979 of the true top 10 at 160-180, 0.984 at 200-240.
    assert 200 <= ef_search_for(100_000) <= 250


def test_an_estimate_moved_by_analyze_keeps_the_same_list() -> None:
    # ANALYZE samples a large table: the same 100k chunks may be estimated a little apart.
    assert ef_search_for(99_800) == ef_search_for(100_000) == ef_search_for(100_200)
    assert ef_search_for(100_000) % EF_SEARCH_STEP == 0


@pytest.mark.parametrize("rows", [1, 20, 40, 80])
def test_a_walk_covers_the_rows_its_statement_reads_and_a_quarter_more(rows: int) -> None:
    # The one past the last (the chunk_id tie-break) and room for the filters' drops.
    assert covering_ef_search(rows) >= rows * 1.25 + 1
    assert covering_ef_search(40) == 51


def test_covering_a_walk_stays_within_pgvectors_limit() -> None:
    assert covering_ef_search(5_000) == EF_SEARCH_MAX
