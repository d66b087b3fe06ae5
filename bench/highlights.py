"""The cost of evidence highlighting per response: POST /api/v1/query with it on and off.

    python bench/query.py --section highlights [--queries 150] [--rounds 3]

A few PDFs of the shared corpus (two-column papers among them) are ingested for real, so
evidence reads real page text and character boxes. Two servers run the same app on the same
database, one with ENABLE_HIGHLIGHTS on and one off; every round sends each query to both,
in a random order per query. Queries are 4-9 word phrases of the stored chunks. Figures: the
evidence stage as the server times it (`timings_ms["evidence"]`) and the whole request as the
client sees it, with the difference on - off paired per query and round.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from contextlib import closing
from pathlib import Path

import httpx
import numpy as np
import sqlalchemy as sa

from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import open_runtime
from bench.kit import (
    Server,
    fresh_database,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    timed,
)
from bench.query import TOP_K, WARM_UP, post
from bench.search_floor import query_phrases

HIGHLIGHTS_TITLE = "Evidence highlights"
DOCUMENTS = ("tracemonkey.pdf", "multicolumn.pdf")
"""Two-column pages with hyphenation and ligatures, evidence's awkward cases, and few enough
pages to ingest in seconds: evidence reads only the cited pages, so more would not change it."""
MIN_CHUNK_WORDS = 20
"""Queries are cut from chunks of running text at least this long (not headings, not flagged)."""
GOAL_MS = 5.0
"""The evidence stage's p95 goal, per response."""


def measure_highlights(args: argparse.Namespace, server_url: str, data_dir: Path) -> str:
    """Returns the markdown section with the cost of highlights, measured in a fresh database."""
    url = fresh_database(server_url, "citelock_bench_highlights")
    with closing(open_runtime(settings_for(url, data_dir))) as runtime:
        paths = [args.corpus / name for name in DOCUMENTS if (args.corpus / name).exists()]
        ingest_ms, _ = timed(
            lambda: [ingest_file(p, DocumentMeta(filename=p.name), runtime=runtime) for p in paths]
        )
        with runtime.engine.connect() as connection:
            contents = [
                text
                for text in connection.scalars(
                    sa.text("SELECT content FROM chunks WHERE flags = '{}' ORDER BY id")
                )
                if len(text.split()) >= MIN_CHUNK_WORDS
            ]
            pages = connection.execute(sa.text("SELECT count(*) FROM pages")).scalar_one()
    rng = np.random.default_rng(4)
    texts = query_phrases(contents, args.queries[0], rng)
    times, evidence, rects = _run(url, data_dir, texts, args.rounds, rng)
    return _section(args, paths, pages, len(contents), ingest_ms, times, evidence, rects)


def _run(
    url: str, data_dir: Path, texts: list[str], rounds: int, rng: np.random.Generator
) -> tuple[dict[str, list[float]], list[float], list[int]]:
    """Returns request milliseconds by variant (paired), evidence-stage ms, rects per response."""
    times: dict[str, list[float]] = defaultdict(list)
    evidence: list[float] = []
    rects: list[int] = []
    with (
        Server(url, data_dir, highlights=True) as on_server,
        Server(url, data_dir, highlights=False) as off_server,
        httpx.Client(base_url=on_server.url) as on,
        httpx.Client(base_url=off_server.url) as off,
    ):
        clients = {"on": on, "off": off}
        for text in texts[:WARM_UP]:  # caches, prepared statements, thread pools
            for client in clients.values():
                post(client, text, "vector")
        for _ in range(rounds):
            for i in rng.permutation(len(texts)):
                for name in rng.permutation(list(clients)):
                    ms, body = timed(post, clients[name], texts[int(i)], "vector")
                    times[name].append(ms)
                    if name == "on":
                        evidence.append(body["timings_ms"]["evidence"])
                        rects.append(sum(len(h["rects"]) for h in body["highlighted_sources"]))
    return times, evidence, rects


def _section(
    args: argparse.Namespace, paths: list[Path], pages: int, chunks: int, ingest_ms: float,
    times: dict[str, list[float]], evidence: list[float], rects: list[int],
) -> str:  # fmt: skip
    # Paired by query and round: the same query's on and off requests ran back to back.
    difference = list(np.subtract(times["on"], times["off"]))
    rows = [
        ("evidence stage (server's `timings_ms.evidence`), highlights on", evidence),
        ("whole request, highlights on", times["on"]),
        ("whole request, highlights off", times["off"]),
        ("whole request, on - off (paired)", difference),
    ]
    table = table_head("what | p50 ms | p95 ms | p99 ms", "lrrr")
    for label, samples in rows:
        table.append(table_row(label, *(f"{p:.2f}" for p in percentiles(samples))))
    p95 = percentiles(evidence)[1]
    verdict = "met" if p95 < GOAL_MS else "**not met**"
    names = ", ".join(path.name for path in paths)
    answered = sum(1 for n in rects if n)
    return "\n".join(
        [
            f"Documents: {names}: {pages} pages, {chunks} chunks (ingested in "
            f"{ingest_ms / 1000:.0f} s). {len(times['on']) // args.rounds} query phrases of "
            f"the stored chunks, {args.rounds} rounds, each query sent to a server with "
            "ENABLE_HIGHLIGHTS on and one with it off (same app, same database, uvicorn "
            f"subprocesses), in a random order per query; top_k {TOP_K}, vector search. "
            f"Responses with highlights: {answered} of {len(rects)}, "
            f"{np.mean(rects):.1f} line rectangles each on average (max {max(rects)}).",
            "",
            *table,
            "",
            f"Goal: evidence stage p95 under {GOAL_MS:.0f} ms per response: {p95:.2f} ms, "
            f"{verdict}. Both servers store the response (the viewer's evidence), so the "
            "difference is the evidence itself and its larger JSON.",
            "",
            machine_summary(shared=True),
            "",
            f"Reproduce: `python bench/query.py --section highlights --queries "
            f"{args.queries[0]} --rounds {args.rounds}`",
        ]
    )
