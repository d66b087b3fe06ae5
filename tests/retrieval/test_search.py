"""search_chunks against the synthetic corpus, checked against an independent exact search.

Every chunk's fields are known (see conftest), so which chunks a filter keeps is decided
in Python, and the exact answer is those chunks sorted by their distance to the query (as
pgvector computes it, for every chunk) then id: compared with search_chunks, ids and order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import sqlalchemy as sa

from app.core.chunks import Candidate
from app.db import connections
from app.db.terms import AVERAGE_CHUNK_TOKENS, K1, B, query_term_stats
from app.retrieval import search
from app.retrieval.filters import SearchFilters
from app.retrieval.keywords import keyword_query
from app.retrieval.pipeline import ranking_key
from app.retrieval.search import SearchMode, search_chunks
from tests.helpers.search_corpus import (
    CHUNKS_PER_DOCUMENT,
    DOCUMENTS,
    RARE_CHUNK,
    RARE_WORD,
    Corpus,
    Keep,
    captured_statements,
    chunk_id,
    document_id,
    explain,
)

Query = npt.NDArray[np.float32]

FILTER_CASES: list[tuple[SearchFilters, Keep]] = [
    (SearchFilters(collection="alpha"), lambda f: f["collection"] == "alpha"),
    (
        SearchFilters(language="de", version="2.0"),
        lambda f: f["language"] == "de" and f["version"] == "2.0",
    ),
    (SearchFilters(is_my_copy=True), lambda f: f["is_my_copy"]),
    (
        SearchFilters(document_ids=(document_id(2), document_id(7))),
        lambda f: f["document_id"] in (document_id(2), document_id(7)),
    ),
    (
        SearchFilters(document_ids=(document_id(1),), page_start=40, page_end=42),
        lambda f: (
            f["document_id"] == document_id(1) and f["page_end"] >= 40 and f["page_start"] <= 42
        ),
    ),
    (SearchFilters(page_end=3), lambda f: f["page_start"] <= 3),
    (
        SearchFilters(chapter="chapter 3", collection="beta"),
        lambda f: f["chapter"].lower() == "chapter 3" and f["collection"] == "beta",
    ),
    (SearchFilters(section="SECTION 7"), lambda f: f["section"] == "Section 7"),
    (
        SearchFilters(collection="gamma", exclude_flags=("references", "furniture")),
        lambda f: f["collection"] == "gamma" and not f["flags"],
    ),
    # The processing document's chunks never show, even when asked for by id.
    (SearchFilters(document_ids=(document_id(10),)), lambda f: False),
]


def recall_at_10(found: list[Candidate], exact: list[Any]) -> float:
    return len({c.chunk_id for c in found[:10]} & set(exact[:10])) / 10


@pytest.mark.parametrize(("filters", "keep"), FILTER_CASES)
def test_filtered_results_equal_exact_search(
    corpus: Corpus, queries: Query, filters: SearchFilters, keep: Keep
) -> None:
    for query in queries[:5]:
        found = corpus.search(query, filters)
        assert [c.chunk_id for c in found] == corpus.exact(query, keep, 40)
        assert [c.vector_rank for c in found] == list(range(1, len(found) + 1))


@pytest.mark.parametrize(
    ("filters", "keep", "documents"),
    [
        (*FILTER_CASES[0], range(4)),
        (SearchFilters(exclude_flags=("references",)), lambda f: not f["flags"], range(10)),
    ],
)
@pytest.mark.usefixtures("index_walk")
def test_index_path_under_broad_filters_keeps_recall(
    corpus: Corpus,
    monkeypatch: pytest.MonkeyPatch,
    filters: SearchFilters,
    keep: Keep,
    documents: range,
) -> None:
    # Queries near the chunks the filter keeps, as a search in a collection mostly is. Far
    # from all of them, the filtered top 10 are nearly equidistant and the index finds
    # about half of them: see EXACT_SCAN_MAX_ROWS.
    monkeypatch.setattr(search, "EXACT_SCAN_MAX_ROWS", 100)
    fields = dict(zip(corpus.ids, corpus.fields, strict=True))
    recalls = []
    for query in corpus.near_topics(documents, 20, seed=11):
        with captured_statements(corpus.runtime) as statements:
            found = corpus.search(query, filters)
        *set_up, index_pass = statements  # and no exact pass after it
        with corpus.runtime.sessions.begin() as session:
            for statement in set_up:
                session.connection().exec_driver_sql(*statement)
            assert "ix_chunks_embedding_hnsw" in explain(session, index_pass)
        assert len(found) == 40
        assert all(keep(fields[c.chunk_id]) for c in found)
        assert [c.distance for c in found] == sorted(c.distance for c in found)
        recalls.append(recall_at_10(found, corpus.exact(query, keep, 10)))
    assert np.mean(recalls) >= 0.98


@pytest.mark.usefixtures("index_walk")
def test_exhausted_index_scan_falls_back_to_exact_search(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    # One document's 600 chunks pass, too many for the exact path here, and fewer than the
    # 800 asked for: the index walk must end short, and the exact pass then find them all.
    # (A walk stopped by hnsw.max_scan_tuples ends short too, but pgvector then returns every
    # candidate it had discarded, which over this dense graph is enough.)
    monkeypatch.setattr(search, "EXACT_SCAN_MAX_ROWS", 100)
    filters = SearchFilters(document_ids=(document_id(5),))
    for query in corpus.near_topics(range(7, 10), 3, seed=3):
        with captured_statements(corpus.runtime) as statements:
            found = [c.chunk_id for c in corpus.search(query, filters, k=200)]
        _, index_pass, exact_pass = statements  # the set-up first
        assert "<=>" in index_pass[0]
        assert "cosine_distance(chunks.embedding" in exact_pass[0]
        assert found == corpus.exact(query, lambda f: f["document_id"] == document_id(5), 800)


@pytest.mark.usefixtures("index_walk")
def test_unfiltered_search_uses_the_index_with_high_recall(corpus: Corpus, queries: Query) -> None:
    with (
        captured_statements(corpus.runtime) as statements,
        corpus.runtime.sessions.begin() as session,
    ):
        search_chunks(
            session,
            query_vector=queries[0],
            query_text="",
            filters=SearchFilters(),
            k=10,
            mode="vector",
        )
        plan = explain(session, statements[-1])
        iterative = session.scalar(sa.text("SELECT current_setting('hnsw.iterative_scan')"))
    assert "Index Scan using ix_chunks_embedding_hnsw" in plan
    assert iterative == "strict_order"

    everything: Keep = lambda f: True  # noqa: E731
    recalls = [
        recall_at_10(corpus.search(q, SearchFilters()), corpus.exact(q, everything, 10))
        for q in queries
    ]
    assert np.mean(recalls) >= 0.98


def test_hybrid_puts_the_rare_keyword_chunk_near_the_top(corpus: Corpus, queries: Query) -> None:
    rare = chunk_id(*RARE_CHUNK)
    found = corpus.search(queries[0], SearchFilters(), k=5, mode="hybrid", text=RARE_WORD)
    top = {c.chunk_id: c for c in found[:5]}
    assert rare in top
    assert top[rare].keyword_rank == 1
    assert rare not in {c.chunk_id for c in corpus.search(queries[0], SearchFilters(), k=5)}
    elsewhere = SearchFilters(collection="gamma")
    found = corpus.search(queries[0], elsewhere, k=5, mode="hybrid", text=RARE_WORD)
    assert rare not in {c.chunk_id for c in found}


def test_hybrid_order_is_fused_score_then_distance_then_id(corpus: Corpus, queries: Query) -> None:
    filters, text = SearchFilters(collection="beta"), "soul and motion"
    found = corpus.search(queries[1], filters, mode="hybrid", text=text)
    assert len(found) == 40
    assert any(c.keyword_rank is not None for c in found)
    keys = [(-c.fused_score, c.distance, c.chunk_id) for c in found]
    assert keys == sorted(keys)
    # Ranked by words: BM25, best first, ties by the text's hash, then chunk id.
    by_words = sorted((c for c in found if c.keyword_rank), key=lambda c: c.keyword_rank or 0)
    scores = bm25_scores(corpus, text, [c.chunk_id for c in by_words])
    word_keys = [(*scores[c.chunk_id], c.chunk_id) for c in by_words]
    assert word_keys == sorted(word_keys)
    for c in found:
        expected = sum(1 / (search.RRF_K + r) for r in (c.vector_rank, c.keyword_rank) if r)
        assert c.fused_score == pytest.approx(expected)


def bm25_scores(corpus: Corpus, text: str, chunks: list[Any]) -> dict[Any, tuple[float, str]]:
    """Returns each chunk's (-BM25 score, text hash), computed here from its terms' repeats."""
    terms = "SELECT DISTINCT unnest(tsvector_to_array(to_tsvector('english', :t)))"
    repeats = (
        "SELECT id, token_count, content_sha256, lexeme, cardinality(positions) FROM chunks, "
        "unnest(content_tsv) WHERE id = ANY(:ids)"
    )
    with corpus.runtime.sessions() as session:
        counts, total = query_term_stats(session, text, (), config="english")
        query = keyword_query(counts, total)
        weights = dict(
            zip(query.terms + query.common_terms, query.weights + query.common_weights, strict=True)
        )
        assert set(weights) == set(session.execute(sa.text(terms), {"t": text}).scalars())
        scores: dict[Any, tuple[float, str]] = {}
        for chunk, tokens, sha256, lexeme, tf in session.execute(sa.text(repeats), {"ids": chunks}):
            length = 1 - B + B * tokens / AVERAGE_CHUNK_TOKENS
            gain = weights.get(lexeme, 0.0) * tf * (K1 + 1) / (tf + K1 * length)
            scores[chunk] = (scores.get(chunk, (0.0, sha256))[0] - gain, sha256)
    return scores


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
@pytest.mark.parametrize("count_marks", [False, True])
def test_search_returns_its_rows_in_the_pipelines_ranking_order(
    corpus: Corpus, queries: Query, mode: SearchMode, count_marks: bool
) -> None:
    # retrieve_context ranks by search_chunks's own order: no second sort.
    for query in queries[:10]:
        found = corpus.search(
            query, SearchFilters(), mode=mode, text="soul and motion", count_marks=count_marks
        )
        assert len(found) == 40
        assert found == sorted(found, key=lambda c: ranking_key(c, mode))


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
@pytest.mark.parametrize("filters", [SearchFilters(), SearchFilters(collection="alpha")])
def test_repeated_searches_return_identical_results(
    corpus: Corpus, queries: Query, mode: SearchMode, filters: SearchFilters
) -> None:
    first = corpus.search(queries[2], filters, mode=mode, text="memory reason")
    for _ in range(6):  # past psycopg's prepare threshold (5): a prepared statement too
        assert corpus.search(queries[2], filters, mode=mode, text="memory reason") == first


@pytest.mark.parametrize("mode", ["vector", "hybrid"])
def test_counting_marks_changes_neither_the_results_nor_the_one_statement(
    corpus: Corpus, queries: Query, mode: SearchMode
) -> None:
    plain = corpus.search(queries[3], SearchFilters(), mode=mode, text="memory reason")
    with captured_statements(corpus.runtime) as statements:
        marked = corpus.search(
            queries[3], SearchFilters(), mode=mode, text="memory reason", count_marks=True
        )
    # The index walk found enough: no exact pass after it (the keyword side looks its
    # terms up and ranks its matches first).
    assert len(statements) == (3 if mode == "hybrid" else 1)
    assert [replace(c, hl_count=0) for c in marked] == plain
    assert all(c.hl_count == 0 for c in marked)  # the synthetic corpus carries no marks


def test_connections_fit_ef_search_to_the_tables_size(
    corpus: Corpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    engine = corpus.runtime.engine
    estimate = "SELECT reltuples FROM pg_class WHERE oid = 'chunks'::regclass"
    with engine.connect() as connection:
        chunks = connection.execute(sa.text(estimate)).scalar_one()
        setting = connection.execute(sa.text("SHOW hnsw.ef_search")).scalar_one()
    assert int(setting) == connections.ef_search_for(chunks)

    # A larger table, as the next refresh would find it.
    monkeypatch.setattr(connections, "EF_SEARCH_SMALL_TABLE", 100)
    monkeypatch.setattr(connections, "EF_SEARCH_REFRESH_SECONDS", 0.0)
    with engine.connect() as connection:
        grown = connection.execute(sa.text("SHOW hnsw.ef_search")).scalar_one()
    assert int(grown) == connections.ef_search_for(chunks) > int(setting)
    monkeypatch.undo()
    engine.dispose()  # new connections, fitted to the corpus's size again


def test_a_walk_for_more_rows_than_the_list_holds_gets_a_longer_list(
    corpus: Corpus, queries: Query
) -> None:
    show = sa.text("SHOW hnsw.ef_search")
    # Outside a transaction (the query route's sessions) the list stays with the connection.
    with corpus.runtime.autocommit_sessions() as session:
        k = 2 * int(session.execute(show).scalar_one())  # overfetch 4: 8x the table's list
        walked = connections.covering_ef_search(4 * k)
        search_chunks(
            session, query_vector=queries[0], query_text="", filters=SearchFilters(), k=k,
            mode="vector",
        )  # fmt: skip
        assert int(session.execute(show).scalar_one()) == walked
    # In a transaction it lasts as long as the transaction: nothing a rollback could undo.
    with corpus.runtime.sessions() as session:
        search_chunks(
            session, query_vector=queries[0], query_text="", filters=SearchFilters(), k=k + 1,
            mode="vector",
        )  # fmt: skip
        assert int(session.execute(show).scalar_one()) == connections.covering_ef_search(4 * k + 4)
        session.rollback()
        assert int(session.execute(show).scalar_one()) == walked


def test_the_query_vector_reaches_the_driver_as_an_array(corpus: Corpus, queries: Query) -> None:
    # Sent in binary by pgvector's dumper, not written out as 384 decimals first.
    with captured_statements(corpus.runtime) as statements:
        corpus.search(queries[0], SearchFilters())
    (_, parameters), *_ = statements
    assert isinstance(parameters["query_vector"], np.ndarray)


HOSTILE = [
    "'; DROP TABLE chunks; --",
    "%",
    "_",
    "\\",
    "Chapter 1\\'",
    '{"$ne": null}',
    "' OR '1'='1",
]


@pytest.fixture
def unchanged_tables(corpus: Corpus) -> Iterator[None]:
    def sizes() -> tuple[int, int]:
        with corpus.runtime.engine.connect() as connection:
            count = "SELECT (SELECT count(*) FROM chunks), (SELECT count(*) FROM documents)"
            chunks, documents = connection.execute(sa.text(count)).one()
        return chunks, documents

    before = sizes()
    yield
    assert sizes() == before


@pytest.mark.usefixtures("unchanged_tables")
@pytest.mark.parametrize("value", HOSTILE)
def test_hostile_filter_values_match_nothing(corpus: Corpus, queries: Query, value: str) -> None:
    for field in ("collection", "chapter", "section", "language", "version"):
        filters = SearchFilters(**{field: value})  # type: ignore[arg-type]
        assert corpus.search(queries[0], filters, mode="hybrid", text=value) == []


@pytest.mark.usefixtures("unchanged_tables")
@pytest.mark.parametrize("text", HOSTILE)
def test_hostile_query_text_is_only_words(corpus: Corpus, queries: Query, text: str) -> None:
    assert len(corpus.search(queries[0], SearchFilters(), mode="hybrid", text=text)) == 40


def test_term_counts_are_the_searched_collections_own(corpus: Corpus) -> None:
    # How rare a word is in another reader's collection must not rank this one's chunks.
    held = (
        "SELECT count(*) FROM chunks JOIN documents ON documents.id = chunks.document_id "
        "WHERE documents.status = 'ready' AND (CAST(:c AS text) IS NULL OR collection = :c) "
        "AND content_tsv @@ to_tsquery('english', :t)"
    )
    with corpus.runtime.sessions() as session:
        for collection in ("alpha", "beta", None):
            counts, total = query_term_stats(
                session, f"soul {RARE_WORD}", (), config="english", collection=collection
            )
            expected = {
                term: session.execute(sa.text(held), {"c": collection, "t": term}).scalar_one()
                for term in ("soul", "zyxomorph")
            }
            assert {stat.term: stat.chunk_count for stat in counts} == expected
            ready = [d for d in DOCUMENTS if d[4] == "ready" and collection in (None, d[0])]
            assert total == len(ready) * CHUNKS_PER_DOCUMENT
        assert expected["zyxomorph"] == 1
