"""Latency and throughput of POST /api/v1/query at 10k and 100k chunks, beside their floor.

    python bench/query.py [--sizes 10000 100000] [--queries 150 100] [--rounds 3]
        [--corpus ../shared/corpus/docs] [--database-url URL] [--output docs/benchmarks.md]
    python bench/query.py --section highlights [--queries 100] [--rounds 3]

`--section highlights` measures only the cost of evidence highlighting instead, on ingested
PDFs (bench/highlights.py), in a minute or two.

The floor is what no search can beat: embedding the query plus the bare pgvector statement
(`ORDER BY embedding <=> q LIMIT 10` through the HNSW index, default ef_search). The goals are
set against a second floor, at equal recall: the statement at the least hnsw.ef_search of the
sweep (the service's own among them) whose recall@10 reaches that of the service's index
path, so that it finds as much of the true top 10 as the service does: what recall costs,
apart from what the service adds. The goals are for the default search mode (SEARCH_MODE).
A third, the bare endpoint, serves the first floor over HTTP (FastAPI and uvicorn in a
subprocess of their own, nothing of the service): what HTTP alone costs.
Measured in the same run, for the same query strings: the embedding alone, the bare SQL, the
library call `retrieve_context` and the whole HTTP request against a uvicorn server in a
subprocess (the app `citelock serve` runs, on 127.0.0.1, ephemeral port, one keep-alive httpx
client), in "vector" and "hybrid" modes, top_k 10, and in selection mode (vector, top_k
10): a selection of the first words of one page, named with its document and page, whose
page text is the text of the chunks on it (the synthetic chunks have no pages of their own).
Then queries per second with 1 and 4 clients, and recall@10 of the index paths against an
exact scan.

Chunks are realistic in what search sees: a pool of passages from the PDFs in --corpus is
embedded with the real model, and every chunk vector is a mixture of two of them plus noise
drawn from the pool's own covariance (`passage_chunks` in bench/search_floor.py). Queries
are 4-9 word phrases of the passages, embedded for real on every call.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import sqlalchemy as sa
from fastapi import Body, FastAPI
from sqlalchemy.dialects.postgresql import insert as pg_insert

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.contract.schemas import QueryRequest
from app.db.connections import ef_search_for
from app.db.models import Chunk, Page
from app.embedding.embedder import embed_query, embed_texts
from app.flows.query import retrieval_params
from app.flows.runtime import Runtime, open_runtime
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.pipeline import RetrievalParams, retrieve_context
from app.retrieval.search import search_chunks
from app.retrieval.selection import Selection
from bench.kit import (
    BENCHMARKS,
    DEFAULT_CORPUS,
    Server,
    database_server,
    fresh_database,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    timed,
    vector_driver,
    write_section,
)
from bench.search_floor import (
    CHUNKS_PER_DOCUMENT,
    Vectors,
    passage_chunks,
    query_phrases,
    read_passages,
    store_chunks,
)

TOP_K = 10
WARM_UP = 10
"""Queries run through every variant, untimed, before the rounds."""
HTTP_VARIANTS = ["http vector", "http hybrid", "http selection"]
BARE_ENDPOINT = "http bare endpoint"
"""The floor behind FastAPI and uvicorn (bare_endpoint), timed in a phase of its own."""
CLIENT_TIMEOUT = 60.0
"""Seconds a request may take: httpx's default 5 s failed a warm-up request on a loaded machine."""
BURST_REQUESTS = 48
"""Requests per throughput burst, shared among its clients."""
EF_SWEEP = (40, 80, 120, 180, 240, 400)
"""hnsw.ef_search values whose recall and latency the bare statement is measured at."""
SELECTIONS = 20
"""Pages given page rows and selected from, one per query in turn."""
SELECTION_WORDS = 30
"""Words of a selection: the first words of its page."""
REQUEST_GOAL = 1.8
RETRIEVAL_GOAL = 1.3
"""The whole request's and retrieval's (`retrieve_context`) p95 at most these times the floor
at equal recall's, in the default search mode, at 100,000 chunks."""
GOAL_CHUNKS = 100_000
RECALL_GOAL = 0.98
BARE_SQL = "SELECT id FROM chunks ORDER BY embedding <=> %s LIMIT 10"
EXACT = sa.text(
    # cosine_distance() is the function behind <=>; no index orders by a call, so this scans.
    "SELECT id, cosine_distance(embedding, :query) AS distance FROM chunks "
    "ORDER BY distance, id LIMIT 10"
).bindparams(sa.bindparam("query", type_=Chunk.embedding.type))
KEYWORD_MATCHES = sa.text(
    "SELECT count(*) FROM chunks WHERE content_tsv @@ websearch_to_tsquery('english', :text)"
)
SIZES = sa.text(
    "SELECT current_setting('shared_buffers'), pg_size_pretty(pg_table_size('chunks')), "
    "pg_size_pretty(pg_relation_size('ix_chunks_embedding_hnsw')), "
    "pg_size_pretty(pg_relation_size('ix_chunks_content_tsv')), "
    "pg_size_pretty(pg_total_relation_size('chunk_terms'))"
)

Burst = tuple[int, float, list[float]]


def bare_endpoint(database_url: str, data_dir: Path, highlights: bool) -> FastAPI:
    """Returns the least a query endpoint can be: the floor (the query embedded, then the bare
    top-10 statement at pgvector's default ef_search) behind FastAPI, run in its thread pool
    as the service's route runs, with no middleware, filters, answer or stored response.
    What it costs beyond the floor is what HTTP alone costs on this machine. A `Server` app
    factory: `highlights` has nothing to apply to."""
    runtime = open_runtime(settings_for(database_url, data_dir))
    app = FastAPI()
    # Held by the app for the server's life: the runtime and the floor's own bare cursor.
    app.state.resources = ExitStack()
    app.state.resources.callback(runtime.close)
    cursor = bare_cursor(runtime, app.state.resources, ef_search=40)

    @app.post("/api/v1/query")
    def query(query: str = Body(), top_k: int = Body(), search: str = Body()) -> list[str]:
        return [str(chunk_id) for chunk_id in top10(cursor, embed_query(runtime.embedder, query))]

    @app.get("/readyz")
    def readyz() -> dict[str, str]:
        return {"status": "ready"}

    return app


@dataclass
class Measured:
    """One size's figures: latencies by variant, throughput bursts, recalls and data notes."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    """Milliseconds by variant, in the same (round, query) order for every variant."""
    bursts: dict[tuple[str, int], list[Burst]] = field(default_factory=lambda: defaultdict(list))
    """By (mode, clients): each burst's requests, seconds and per-request milliseconds."""
    stages: dict[str, list[dict[str, float]]] = field(default_factory=lambda: defaultdict(list))
    """By variant, the `timings_ms` of `retrieve_context` (for HTTP: the server's own)."""
    sweep: dict[int, tuple[list[list[uuid.UUID]], list[float]]] = field(default_factory=dict)
    """By ef_search: each query's bare top-10 ids, and the milliseconds each took."""
    recalls: dict[str, float] = field(default_factory=dict)
    service_ef_search: int = 0
    """The hnsw.ef_search the service's connections take at this size (ef_search_for)."""
    equal_ef_search: int = 0
    """The least hnsw.ef_search of the sweep whose recall reaches the service's path's."""
    mode: str = ""
    """The default search mode, whose figures the goals are for."""
    notes: str = ""


def post(
    client: httpx.Client, text: str, mode: str, selection: Selection | None = None
) -> dict[str, Any]:
    """Returns the JSON of one POST /api/v1/query, refusing any status but 200."""
    body: dict[str, Any] = {"query": text, "top_k": TOP_K, "search": mode}
    if selection is not None:
        body["selected_text"] = {
            "text": selection.text,
            "document_id": str(selection.document_id),
            "start_page": selection.start_page,
            "end_page": selection.end_page,
        }
    response = client.post("/api/v1/query", json=body)
    response.raise_for_status()
    answer: dict[str, Any] = response.json()
    return answer


def burst(clients: list[httpx.Client], texts: list[str], mode: str) -> Burst:
    """Returns (requests, seconds, per-request ms) of `texts` sent by the clients at once."""

    def send(client: httpx.Client, share: list[str]) -> list[float]:
        return [timed(post, client, text, mode)[0] for text in share]

    shares = [texts[n :: len(clients)] for n in range(len(clients))]
    with ThreadPoolExecutor(len(clients)) as pool:
        started = time.perf_counter()
        latencies = [ms for done in pool.map(send, clients, shares) for ms in done]
        seconds = time.perf_counter() - started
    return len(texts), seconds, latencies


def store_selections(runtime: Runtime, rng: np.random.Generator) -> list[Selection]:
    """Returns SELECTIONS selections, each the first words of a random page, after storing
    those pages: their text is the chunks on them, joined as paragraphs."""
    with runtime.sessions.begin() as session:
        documents = session.scalars(sa.select(Chunk.document_id).distinct()).all()
        selections = []
        for _ in range(SELECTIONS):
            document_id = documents[int(rng.integers(len(documents)))]
            page = int(rng.integers(1, CHUNKS_PER_DOCUMENT // 3))
            contents = session.scalars(
                sa.select(Chunk.content)
                .where(Chunk.document_id == document_id, Chunk.page_start == page)
                .order_by(Chunk.ordinal)
            ).all()
            text = "\n\n".join(contents)
            row = {"document_id": document_id, "page_number": page, "text": text, "width": 0.0,
                   "height": 0.0, "char_boxes": b"", "line_ids": b""}  # fmt: skip
            session.execute(
                pg_insert(Page).values(row).on_conflict_do_nothing(),
            )
            words = " ".join(text.split()[:SELECTION_WORDS])
            selections.append(Selection(words, document_id, page, page))
    return selections


def bare_cursor(runtime: Runtime, stack: ExitStack, ef_search: int) -> Any:
    """Returns a psycopg cursor on its own autocommit connection, in pgvector's default
    settings but hnsw.ef_search (the app's connection settings undone)."""
    driver = stack.enter_context(vector_driver(runtime.engine))
    driver.autocommit = True
    driver.execute("RESET ALL")
    driver.execute(f"SET hnsw.ef_search = {ef_search}")
    return driver.cursor()


def measure(
    url: str, data_dir: Path, count: int, queries: int, rounds: int, passages: list[str],
    pool: Vectors | None,
) -> tuple[Measured, Vectors]:  # fmt: skip
    """Returns one size's figures, and the pool's vectors (embedded on the first call)."""
    settings = settings_for(url, data_dir)
    runtime = open_runtime(settings)
    measured = Measured()
    rng = np.random.default_rng(count)
    with ExitStack() as stack:
        stack.callback(runtime.close)
        if pool is None:
            pool = embed_texts(runtime.embedder, passages)
        chunks = passage_chunks(passages, pool, count, rng)
        load_s, _ = timed(store_chunks, runtime, count, chunks)
        texts = query_phrases(passages, queries, rng)
        selections = store_selections(runtime, rng)
        vectors = [embed_query(runtime.embedder, text) for text in texts]
        server = stack.enter_context(Server(url, data_dir))
        clients = [
            stack.enter_context(httpx.Client(base_url=server.url, timeout=CLIENT_TIMEOUT))
            for _ in range(4)
        ]
        bare_server = stack.enter_context(Server(url, data_dir, app="bench.query:bare_endpoint"))
        bare_client = stack.enter_context(
            httpx.Client(base_url=bare_server.url, timeout=CLIENT_TIMEOUT)
        )
        measured.service_ef_search = ef_search_for(count)
        efs = sorted({*EF_SWEEP, measured.service_ef_search})
        bare = {ef: bare_cursor(runtime, stack, ef) for ef in efs}
        params = {
            mode: retrieval_params(QueryRequest(query="-", top_k=TOP_K, search=mode), settings)
            for mode in ("vector", "hybrid")
        }
        measured.mode = settings.search_mode
        # Recall first: the floor at equal recall is timed in the rounds at the ef_search
        # whose recall reaches the service's.
        measured.sweep = sweep(bare, vectors, rng)
        truths = exact_top10(runtime, vectors)
        service_recall = path_recall(runtime, texts, vectors, truths, params["vector"])
        measured.equal_ef_search = next(
            (ef for ef in efs if ids_recall(truths, measured.sweep[ef][0]) >= service_recall),
            efs[-1],
        )
        bare_service = bare[measured.equal_ef_search]

        def library(text: str, mode: str, selection: Selection | None = None) -> object:
            with runtime.autocommit_sessions() as session:  # as the query route has it
                return retrieve_context(
                    text,
                    params[mode],
                    session=session,
                    embedder=runtime.embedder,
                    selected_text=selection,
                )

        def selected(i: int) -> Selection:
            return selections[i % len(selections)]

        variants: dict[str, Callable[[int], object]] = {
            "embed": lambda i: embed_query(runtime.embedder, texts[i]),
            "bare": lambda i: top10(bare[40], vectors[i]),
            "bare service": lambda i: top10(bare_service, vectors[i]),
            "lib vector": lambda i: library(texts[i], "vector"),
            "lib hybrid": lambda i: library(texts[i], "hybrid"),
            "http vector": lambda i: post(clients[0], texts[i], "vector"),
            "http hybrid": lambda i: post(clients[0], texts[i], "hybrid"),
            "lib selection": lambda i: library(texts[i], "vector", selected(i)),
            "http selection": lambda i: post(clients[0], texts[i], "vector", selected(i)),
            BARE_ENDPOINT: lambda i: post(bare_client, texts[i], "vector"),
        }
        for i in range(min(WARM_UP, queries)):  # caches, prepared statements, thread pools
            for variant in variants.values():
                variant(i)
        found: dict[str, dict[int, Any]] = defaultdict(dict)
        # In phases a round, this process's calls, then the server's, then the bare
        # endpoint's: onnxruntime's threads spin on a while after an embedding, and an
        # embedding in one process just before a request to another took the cores from it
        # (2.4 ms on the request's p50). A service's clients do not embed on its machine.
        in_process = [n for n in variants if not n.startswith("http")]
        phases = [in_process, HTTP_VARIANTS, [BARE_ENDPOINT]]
        for _ in range(rounds):
            order = rng.permutation(queries)
            for names, i in ((names, i) for names in phases for i in order):
                for name in rng.permutation(names):
                    ms, result = timed(variants[name], int(i))
                    measured.times[name].append(ms)
                    stages = getattr(result, "timings_ms", None) or (
                        result.get("timings_ms") if isinstance(result, dict) else None
                    )
                    if stages:
                        measured.stages[name].append(stages)
                    found[name].setdefault(int(i), result)
        combinations = [(mode, n) for mode in ("vector", "hybrid") for n in (1, 4)]
        for _ in range(rounds):
            for index in rng.permutation(len(combinations)):
                mode, n = combinations[index]
                sample = [texts[int(i)] for i in rng.choice(queries, size=BURST_REQUESTS)]
                measured.bursts[mode, n].append(burst(clients[:n], sample, mode))
        measured.recalls, measured.notes = quality(
            runtime, texts, truths, service_recall, found, measured.sweep
        )
        measured.notes = f"loaded and indexed in {load_s / 1000:.0f} s; " + measured.notes
    return measured, pool


def top10(cursor: Any, vector: Vectors) -> list[uuid.UUID]:
    """Returns the ids of the bare top-10 statement's rows, nearest first."""
    return [row[0] for row in cursor.execute(BARE_SQL, (vector,)).fetchall()]


def sweep(
    cursors: dict[int, Any], vectors: list[Vectors], rng: np.random.Generator
) -> dict[int, tuple[list[list[uuid.UUID]], list[float]]]:
    """Returns, by ef_search, each query's bare top-10 ids and the milliseconds it took.

    Per query the ef_search values run in a random order, as the rounds' variants do.
    """
    found: dict[int, tuple[list[list[uuid.UUID]], list[float]]] = {ef: ([], []) for ef in cursors}
    for vector in vectors:
        for ef in rng.permutation(list(cursors)):
            ms, ids = timed(top10, cursors[int(ef)], vector)
            found[int(ef)][0].append(ids)
            found[int(ef)][1].append(ms)
    return found


def exact_top10(runtime: Runtime, vectors: list[Vectors]) -> list[set[uuid.UUID]]:
    """Returns each query's true top 10, by an exact scan, with its best similarity first."""
    with runtime.sessions.begin() as session:
        return [{row[0] for row in session.execute(EXACT, {"query": v})} for v in vectors]


def ids_recall(truths: list[set[uuid.UUID]], found: list[list[uuid.UUID]]) -> float:
    """Returns the mean share of each query's true top 10 among the ids found for it."""
    return float(np.mean([len(t & set(ids)) / TOP_K for t, ids in zip(truths, found, strict=True)]))


def path_recall(
    runtime: Runtime, texts: list[str], vectors: list[Vectors], truths: list[set[uuid.UUID]],
    params: RetrievalParams,
) -> float:  # fmt: skip
    """Returns recall@10 of the service's index path (`search_chunks`, vector, the app's
    filters) against exact scans under the same filters."""
    recalls = []
    with runtime.sessions.begin() as session:
        for text, vector in zip(texts, vectors, strict=True):
            truth = set(session.scalars(exact_filtered(params.filters), {"query": vector}))
            ours = search_chunks(
                session, query_vector=vector, query_text=text, filters=params.filters, k=TOP_K,
                overfetch=params.overfetch, mode="vector",
            )  # fmt: skip
            recalls.append(len(truth & {c.chunk_id for c in ours[:TOP_K]}) / TOP_K)
    return float(np.mean(recalls))


def quality(
    runtime: Runtime, texts: list[str], truths: list[set[uuid.UUID]], service_recall: float,
    found: dict[str, dict[int, Any]],
    sweep_found: dict[int, tuple[list[list[uuid.UUID]], list[float]]],
) -> tuple[dict[str, float], str]:  # fmt: skip
    """Returns recall@10 by path against exact scans, and a line describing the data."""
    recalls = {"vector": service_recall}
    for bare in ("bare", "bare service"):
        recalls[bare] = ids_recall(truths, [found[bare][i] for i in range(len(texts))])
    for ef, (found_at, _) in sweep_found.items():
        recalls[f"ef {ef}"] = ids_recall(truths, found_at)
    matches, returned = [], []
    with runtime.sessions.begin() as session:
        for i, text in enumerate(texts):
            matches.append(session.execute(KEYWORD_MATCHES, {"text": text}).scalar_one())
            returned.append(len(found["lib vector"][i].chunks))
        sizes = session.execute(SIZES).one()
    notes = (
        f"shared_buffers {sizes[0]}, chunks table {sizes[1]}, HNSW index {sizes[2]}, "
        f"full-text index {sizes[3]}, keyword postings (`chunk_terms`, with its indexes) "
        f"{sizes[4]}; full-text matches per query {np.median(matches):.0f} "
        f"(median; {np.mean(np.array(matches) > 0):.0%} of queries have any); "
        f"`retrieve_context` vector returned {np.mean(returned):.1f} of {TOP_K} chunks on "
        "average (min_similarity and dedupe drop the rest)"
    )
    return recalls, notes


def exact_filtered(filters: SearchFilters) -> sa.Select[Any]:
    """Returns the exact top-10 ids under `filters`: no index orders by the function call."""
    query = sa.bindparam("query", type_=Chunk.embedding.type)
    distance = sa.func.cosine_distance(Chunk.embedding, query)
    nearest = sa.select(Chunk.id).where(*filter_clauses(filters))
    return nearest.order_by(distance, Chunk.id).limit(TOP_K)


def floors(measured: Measured) -> dict[str, list[float]]:
    """Returns each query's floor, paired (the same query and round): its embedding plus the
    bare statement at pgvector's default ef_search ("floor"), and plus the bare statement at
    the least ef_search that finds as much of the true top 10 as the service ("floor service",
    the floor at equal recall)."""
    times = measured.times
    return {
        "floor": list(np.add(times["embed"], times["bare"])),
        "floor service": list(np.add(times["embed"], times["bare service"])),
    }


def latency_rows(count: int, measured: Measured) -> list[str]:
    """Returns the latency table's rows for one size; ratios are to the floor at equal
    recall, the goals' floor."""
    times = {**measured.times, **floors(measured)}
    floor_p50, floor_p95, _ = percentiles(times["floor service"])
    equal_ef = measured.equal_ef_search
    labels = [
        ("embed", "query embedding alone", ""),
        ("bare", "bare top-10 SQL (HNSW, ef_search 40)", "bare"),
        ("floor", "**floor**: embedding + bare top-10 SQL", "bare"),
        ("bare service", f"bare top-10 SQL, ef_search {equal_ef}", "bare service"),
        ("floor service", "**floor at equal recall**: embedding + that SQL", "bare service"),
        (BARE_ENDPOINT, "bare endpoint: the floor behind FastAPI (`bare_endpoint`)", ""),
        ("lib vector", "`retrieve_context`, vector", "vector"),
        ("lib hybrid", "`retrieve_context`, hybrid", ""),
        ("http vector", "POST /api/v1/query, vector", ""),
        ("http hybrid", "POST /api/v1/query, hybrid", ""),
        ("lib selection", "`retrieve_context`, selection mode", ""),
        ("http selection", "POST /api/v1/query, selection mode", ""),
    ]
    rows = []
    for name, label, recall in labels:
        p50, p95, p99 = percentiles(times[name])
        ratios = [f"{p50 / floor_p50:.2f}x", f"{p95 / floor_p95:.2f}x"]
        if name in ("embed", "bare", "bare service"):
            ratios = ["", ""]
        score = f"{measured.recalls[recall]:.3f}" if recall else ""
        rows.append(
            table_row(f"{count:,}", label, f"{p50:.1f}", f"{p95:.1f}", f"{p99:.1f}", *ratios, score)
        )
    return rows


def stage_names(results: dict[int, Measured]) -> list[str]:
    """Returns the names of the timed stages any variant reported, in their first order."""
    names = {
        stage: None
        for measured in results.values()
        for reported in measured.stages.values()
        for timings in reported
        for stage in timings
    }
    return list(names)


def stage_rows(count: int, measured: Measured, names: list[str]) -> list[str]:
    """Returns the stage table's rows for one size: where each variant's time goes, p50."""
    rows = []
    for name in (
        "lib vector", "lib hybrid", "lib selection", "http vector", "http hybrid", "http selection"
    ):  # fmt: skip
        stages = measured.stages[name]
        medians = [
            f"{np.median([s.get(stage, 0.0) for s in stages]):.1f}"
            if any(stage in s for s in stages)
            else "-"
            for stage in names
        ]
        rest = np.median(
            [t - sum(s.values()) for t, s in zip(measured.times[name], stages, strict=True)]
        )
        rows.append(table_row(f"{count:,}", name, *medians, f"{rest:.1f}"))
    return rows


def sweep_rows(count: int, measured: Measured) -> list[str]:
    """Returns the ef_search table's rows for one size."""
    rows = []
    for ef, (_, times) in sorted(measured.sweep.items()):
        p50, p95, _ = percentiles(times)
        recall = measured.recalls[f"ef {ef}"]
        rows.append(table_row(f"{count:,}", ef, f"{recall:.3f}", f"{p50:.1f}", f"{p95:.1f}"))
    return rows


def goal_lines(count: int, measured: Measured) -> list[str]:
    """Returns one line per goal for one size: met or not, with the figure."""
    times = measured.times
    floor_p95, equal_p95 = (percentiles(floor)[1] for floor in floors(measured).values())
    bare_endpoint_p95 = percentiles(times[BARE_ENDPOINT])[1]
    lines = [
        f"- {count:,} chunks, the floor at equal recall: ef_search {measured.equal_ef_search}, "
        f"recall@10 {measured.recalls['bare service']:.3f} against the service's "
        f"{measured.recalls['vector']:.3f} (the service's connections take ef_search "
        f"{measured.service_ef_search})",
        f"- {count:,} chunks, the bare endpoint (no part of the service, only the floor over "
        f"HTTP) p95: {bare_endpoint_p95 / floor_p95:.2f}x floor",
    ]
    for kind, label, goal in [
        ("lib", "retrieval (`retrieve_context`)", RETRIEVAL_GOAL),
        ("http", "whole request", REQUEST_GOAL),
    ]:
        for mode in ("hybrid", "vector"):
            p95 = percentiles(times[f"{kind} {mode}"])[1]
            ratio = p95 / equal_p95
            verdict = "met" if ratio <= goal else "**not met**"
            judged = mode == measured.mode and count >= GOAL_CHUNKS
            lines.append(
                f"- {count:,} chunks, {label} p95, {mode}"
                f"{' (the default)' if mode == measured.mode else ''}: {ratio:.2f}x the floor "
                f"at equal recall"
                + (f" (goal at most {goal}x): {verdict}" if judged else "")
                + f"; {p95 / floor_p95:.2f}x the floor at ef_search 40"
                + (f", {p95 / bare_endpoint_p95:.2f}x the bare endpoint" if kind == "http" else "")
            )
    for kind in ("lib", "http"):
        selection = percentiles(times[f"{kind} selection"])[0]
        standard = percentiles(times[f"{kind} vector"])[0]
        verdict = "met" if selection <= standard else "**not met**"
        lines.append(
            f"- {count:,} chunks, {kind} selection mode p50 {selection:.1f} ms against "
            f"{standard:.1f} ms in standard vector mode (goal: no slower): {verdict}"
        )
    recall = measured.recalls["vector"]
    verdict = "met" if recall >= RECALL_GOAL else "**not met**"
    lines.append(
        f"- {count:,} chunks, recall@10 of the app's index path: {recall:.3f} "
        f"(goal at least {RECALL_GOAL}): {verdict}"
    )
    return lines


def throughput_rows(count: int, measured: Measured) -> list[str]:
    """Returns the throughput table's rows for one size."""
    rows = []
    for (mode, clients), bursts in sorted(measured.bursts.items()):
        qps = [requests / seconds for requests, seconds, _ in bursts]
        latencies = [ms for _, _, burst in bursts for ms in burst]
        p50, p95, _ = percentiles(latencies)
        spread = f"{np.median(qps):.1f} ({min(qps):.1f}-{max(qps):.1f})"
        rows.append(table_row(f"{count:,}", mode, clients, spread, f"{p50:.1f}", f"{p95:.1f}"))
    return rows


def section(args: argparse.Namespace, results: dict[int, Measured]) -> str:
    """Returns the markdown section with every size's figures."""
    latency = table_head(
        "chunks | what | p50 ms | p95 ms | p99 ms | p50 / floor at equal recall "
        "| p95 / floor at equal recall | recall@10",
        "rlrrrrrr",
    )
    throughput = table_head(
        "chunks | mode | clients | queries/s, median (range) | p50 ms | p95 ms", "rlrrrr"
    )
    names = stage_names(results)
    stages = table_head(
        " | ".join(["chunks", "what", *names, "the rest"]), "rl" + "r" * len(names) + "r"
    )
    efs = table_head("chunks | ef_search | recall@10 | p50 ms | p95 ms", "rrrrr")
    notes, goals = [], []
    for count, measured in results.items():
        latency += latency_rows(count, measured)
        stages += stage_rows(count, measured, names)
        efs += sweep_rows(count, measured)
        throughput += throughput_rows(count, measured)
        goals += goal_lines(count, measured)
        notes.append(f"- {count:,} chunks: {measured.notes}")
    queries = " ".join(str(q) for q in args.queries)
    per_size = ", ".join(f"{q} at {c:,} chunks" for c, q in sizes_and_queries(args))
    return "\n".join(
        [
            f"Distinct query phrases: {per_size}; {args.rounds} rounds; every round "
            "runs each query through every variant, in a fresh random order per query, so "
            "that the load of a shared machine falls on all of them alike: first the calls in "
            "this process, then the service's HTTP requests, then the bare endpoint's "
            "(onnxruntime's threads spin on after an embedding, and one in another process "
            "slowed the server's next request). The floors are paired: "
            "each query's embedding time plus its bare SQL time from the same round; the floor "
            "at equal recall runs the bare SQL at the least ef_search of the sweep below whose "
            "recall reaches the service's index path's, and the goals are set against it, in "
            "the default search mode (SEARCH_MODE). Recall@10 "
            "is against an exact scan; `retrieve_context`'s is that of `search_chunks` (vector, "
            "the app's filters) whose index path it takes. top_k 10; the HTTP figures include "
            "the client (httpx, keep-alive), JSON both ways and the extractive answer, but not "
            "highlights (ENABLE_HIGHLIGHTS off: synthetic chunks have no page rows).",
            "",
            *latency,
            "",
            "Where the time goes, p50 ms of each stage as `retrieve_context` times it (for HTTP, "
            "as the server reports it in `timings_ms`); the rest is the median of what the "
            "stages leave: session and transaction, and for HTTP validation, serialisation, "
            "uvicorn and the client.",
            "",
            *stages,
            "",
            "Throughput: bursts of requests from 1 or 4 clients (threads, each with its own "
            "keep-alive connection), interleaved over the rounds; latency is per request "
            "within the bursts. The server is one uvicorn process, as `citelock serve` runs.",
            "",
            *throughput,
            "",
            "Recall of the bare top-10 statement by hnsw.ef_search (pgvector's default is 40; "
            "the service's connections take `ef_search_for(chunks)`: 40 up to 10,000 chunks, "
            "250 at 100,000, or more where a statement reads more rows than that list holds, "
            "`covering_ef_search`), each value run for every query, in a random order per query:",
            "",
            *efs,
            "",
            "Data:",
            *notes,
            "",
            "Goals:",
            *goals,
            "",
            machine_summary(shared=True),
            "",
            f"Reproduce: `python bench/query.py --sizes {' '.join(map(str, args.sizes))} "
            f"--queries {queries} --rounds {args.rounds}`",
        ]
    )


def sizes_and_queries(args: argparse.Namespace) -> list[tuple[int, int]]:
    """Returns (chunks, distinct queries) per size; the --queries list repeats if short."""
    return list(zip(args.sizes, args.queries * len(args.sizes), strict=False))


def run(args: argparse.Namespace, server_url: str, data_dir: Path) -> dict[int, Measured]:
    """Returns each size's measurements, each measured in a fresh database."""
    passages = read_passages(args.corpus, args.pool, np.random.default_rng(0))
    pool: Vectors | None = None
    results: dict[int, Measured] = {}
    for count, queries in sizes_and_queries(args):
        url = fresh_database(server_url, f"citelock_bench_query_{count}")
        results[count], pool = measure(url, data_dir, count, queries, args.rounds, passages, pool)
        print("\n".join(latency_rows(count, results[count])), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, nargs="+", default=[150, 100])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pool", type=int, default=300, help="passages embedded for real")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    parser.add_argument("--section", choices=["latency", "highlights"], default="latency")
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as server_url,
    ):
        if args.section == "highlights":
            from bench.highlights import HIGHLIGHTS_TITLE, measure_highlights

            title, text = HIGHLIGHTS_TITLE, measure_highlights(args, server_url, Path(data_dir))
        else:
            title, text = "Query latency", section(args, run(args, server_url, Path(data_dir)))
    print(text)
    write_section(args.output, title, text)


if __name__ == "__main__":
    main()
