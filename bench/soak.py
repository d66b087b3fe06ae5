"""Soak: concurrent clients mixing queries and uploads against a `citelock serve` subprocess.

    python bench/soak.py [--clients 32] [--duration 600] [--chunks 100000]
        [--upload-share 0.1] [--burst 20] [--burst-pages 40] [--corpus ../shared/corpus/docs]
        [--database-url URL] [--write] [--output docs/benchmarks.md]

The database is pre-filled with --chunks realistic chunks (`passage_chunks`, as bench/query.py
loads them). Each client, with its own keep-alive connection, sends a query (a 4-9 word
phrase of a passage, vector mode, top_k 10) or, with probability --upload-share, uploads a
new two-page PDF of passages (into a collection of its own, so that every upload is a full
ingestion). Reported: requests and errors (any status but 200/201, or a transport failure),
p50/p95/p99 latency of each kind, and the server's resident memory after a minute of the
same load (the warm-up), at the end and at its peak (sampled every second from /proc).
After the soak, a burst: --burst uploads of --burst-pages pages sent at once (each ingested at
once, most waiting for a turn), with the server's memory before, at its peak and
BURST_SETTLE_SECONDS after the last answer, when what the burst held should be given back.
Goals: zero errors, query p99 under 250 ms at 100k chunks, memory growth under 10%.
`--write` puts the figures in docs/benchmarks.md; leave it off for short trial runs.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import threading
import time
from collections import defaultdict
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.embedding.embedder import embed_texts
from app.flows.runtime import open_runtime
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
    text_pdf,
    write_section,
)
from bench.query import TOP_K
from bench.search_floor import passage_chunks, query_phrases, read_passages, store_chunks

WARM_UP_SECONDS = 60.0
"""The same mix, from every client, before the soak starts and the memory baseline is taken:
so that the baseline holds what the load needs at this concurrency (a thread, a model run
and a database connection per concurrent request, the high-water of concurrent uploads)
and growth means what stays behind. Its errors are counted with the soak's."""
QUERY_TEXTS = 1000
UPLOAD_PDFS = 20
"""Distinct PDFs the uploads cycle through, each into a new collection."""
SAMPLE_SECONDS = 1.0
REQUEST_TIMEOUT_S = 120.0
GOAL_QUERY_P99_MS = 250.0
GOAL_MEMORY_GROWTH = 0.10
BURST_SETTLE_SECONDS = 10.0


@dataclass
class Tally:
    """What the clients saw, shared among their threads."""

    latencies: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    errors: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, kind: str, milliseconds: float, error: str | None) -> None:
        with self.lock:
            self.latencies[kind].append(milliseconds)
            if error is not None:
                self.errors[kind].append(error)


def resident_bytes(pid: int) -> int:
    """Returns the resident memory of process `pid` (VmRSS in /proc)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for process {pid}")


def upload_pdfs(passages: list[str], count: int, pages: int = 2) -> list[bytes]:
    """Returns `count` distinct PDFs of `pages` pages, each a passage a page."""
    return [
        text_pdf(
            [passages[(pages * number + page) % len(passages)] for page in range(pages)],
            box=(72, 72, 523, 770),
            fontsize=11,
        )
        for number in range(count)
    ]


def client_loop(
    base_url: str,
    seed: int,
    until: float,
    texts: list[str],
    pdfs: list[bytes],
    upload_share: float,
    tally: Tally,
) -> None:
    """Sends queries and uploads until `until` (monotonic), recording each one."""
    rng = np.random.default_rng(seed)
    with httpx.Client(base_url=base_url, timeout=REQUEST_TIMEOUT_S) as client:
        sent = 0
        while time.monotonic() < until:
            sent += 1
            kwargs: dict[str, Any]
            if rng.random() < upload_share:
                kind, path = "upload", "/api/v1/documents"
                pdf = pdfs[int(rng.integers(len(pdfs)))]
                kwargs = {
                    "files": {"file": ("soak.pdf", pdf, "application/pdf")},
                    "data": {"collection": f"soak-{seed}-{sent}"},
                }
            else:
                kind, path = "query", "/api/v1/query"
                kwargs = {"json": {"query": texts[int(rng.integers(len(texts)))], "top_k": TOP_K}}
            started = time.perf_counter()
            try:
                status = client.post(path, **kwargs).status_code
                error = None if status in (200, 201) else f"HTTP {status}"
            except httpx.HTTPError as exc:
                error = type(exc).__name__
            tally.record(kind, (time.perf_counter() - started) * 1000, error)


def sample_memory(pid: int, stop: threading.Event, samples: list[int]) -> None:
    while not stop.wait(SAMPLE_SECONDS):
        try:
            samples.append(resident_bytes(pid))
        except (OSError, RuntimeError):
            return  # the server is gone: the clients will report it


@dataclass(frozen=True)
class BurstResult:
    uploads: int
    pages: int
    errors: list[str]
    seconds: float
    memory_before: int
    memory_peak: int
    memory_after: int


@dataclass(frozen=True)
class SoakResult:
    tally: Tally
    seconds: float
    memory_start: int
    memory_end: int
    memory_peak: int
    load_notes: str
    warm_up_errors: int
    burst: BurstResult | None


def burst(base_url: str, pid: int, pdfs: list[bytes], pages: int) -> BurstResult:
    """Returns the server's memory through a burst of simultaneous uploads, each into a new
    collection, and BURST_SETTLE_SECONDS after the last one was answered."""
    tally = Tally()

    def send(number: int, pdf: bytes) -> None:
        started = time.perf_counter()
        try:
            with httpx.Client(base_url=base_url, timeout=10 * REQUEST_TIMEOUT_S) as client:
                status = client.post(
                    "/api/v1/documents",
                    files={"file": ("burst.pdf", pdf, "application/pdf")},
                    data={"collection": f"burst-{number}"},
                ).status_code
            error = None if status in (200, 201) else f"HTTP {status}"
        except httpx.HTTPError as exc:
            error = type(exc).__name__
        tally.record("burst", (time.perf_counter() - started) * 1000, error)

    memory_before = resident_bytes(pid)
    samples = [memory_before]
    stop = threading.Event()
    sampler = threading.Thread(target=sample_memory, args=(pid, stop, samples), daemon=True)
    sampler.start()
    started = time.monotonic()
    senders = [threading.Thread(target=send, args=item) for item in enumerate(pdfs)]
    for thread in senders:
        thread.start()
    for thread in senders:
        thread.join()
    seconds = time.monotonic() - started
    time.sleep(BURST_SETTLE_SECONDS)
    stop.set()
    sampler.join()
    return BurstResult(
        uploads=len(pdfs),
        pages=pages,
        errors=tally.errors.get("burst", []),
        seconds=seconds,
        memory_before=memory_before,
        memory_peak=max(samples),
        memory_after=resident_bytes(pid),
    )


def soak(args: argparse.Namespace, url: str, data_dir: Path) -> SoakResult:
    """Returns what the clients saw and the server's memory, after pre-filling the database."""
    rng = np.random.default_rng(0)
    with closing(open_runtime(settings_for(url, data_dir))) as runtime:
        passages = read_passages(args.corpus, args.pool, rng)
        pool = embed_texts(runtime.embedder, passages)
        started = time.perf_counter()
        store_chunks(runtime, args.chunks, passage_chunks(passages, pool, args.chunks, rng))
        load_notes = (
            f"{args.chunks} chunks loaded and indexed in {time.perf_counter() - started:.0f} s"
        )
    texts = query_phrases(passages, QUERY_TEXTS, rng)
    pdfs = upload_pdfs(passages, UPLOAD_PDFS)
    burst_pdfs = upload_pdfs(passages, args.burst, args.burst_pages)

    def run_clients(seconds: float, first_seed: int, tally: Tally) -> float:
        """Runs every client for `seconds`; returns how long they took to stop."""
        started = time.monotonic()
        clients = [
            threading.Thread(
                target=client_loop,
                args=(server.url, seed, started + seconds, texts, pdfs, args.upload_share, tally),
            )
            for seed in range(first_seed, first_seed + args.clients)
        ]
        for thread in clients:
            thread.start()
        for thread in clients:
            thread.join()
        return time.monotonic() - started

    with Server(url, data_dir) as server:
        assert server.process is not None
        warm_up = Tally()
        run_clients(WARM_UP_SECONDS, args.clients, warm_up)
        memory_start = resident_bytes(server.process.pid)
        samples = [memory_start]
        stop = threading.Event()
        sampler = threading.Thread(
            target=sample_memory, args=(server.process.pid, stop, samples), daemon=True
        )
        sampler.start()
        tally = Tally()
        seconds = run_clients(args.duration, 0, tally)
        stop.set()
        sampler.join()
        memory_end = resident_bytes(server.process.pid)
        burst_result = (
            burst(server.url, server.process.pid, burst_pdfs, args.burst_pages)
            if burst_pdfs
            else None
        )
    warm_up_errors = sum(len(errors) for errors in warm_up.errors.values())
    return SoakResult(
        tally,
        seconds,
        memory_start,
        memory_end,
        max(samples),
        load_notes,
        warm_up_errors,
        burst_result,
    )


def section(args: argparse.Namespace, result: SoakResult) -> str:
    """Returns the markdown of the soak's figures."""
    mib = 2**20
    growth = result.memory_end / result.memory_start - 1
    rows = table_head("kind | requests | errors | per second | p50 ms | p95 ms | p99 ms", "lrrrrrr")
    for kind in ("query", "upload"):
        latencies = result.tally.latencies.get(kind, [])
        if not latencies:
            continue
        errors = len(result.tally.errors.get(kind, []))
        rate = f"{len(latencies) / result.seconds:.1f}"
        figures = (f"{p:.1f}" for p in percentiles(latencies))
        rows.append(table_row(kind, len(latencies), errors, rate, *figures))
    error_kinds = sorted({e for errors in result.tally.errors.values() for e in errors})
    query_p99 = percentiles(result.tally.latencies["query"])[2]
    total_errors = sum(len(errors) for errors in result.tally.errors.values())
    goals = [
        f"- errors: {total_errors} (goal 0){': ' + ', '.join(error_kinds) if error_kinds else ''}"
        f"; {result.warm_up_errors} during the warm-up",
        f"- query p99: {query_p99:.0f} ms (goal under {GOAL_QUERY_P99_MS:.0f} ms at 100k chunks)",
        f"- server memory: {result.memory_start / mib:.0f} MiB after warm-up, "
        f"{result.memory_end / mib:.0f} MiB at the end ({growth:+.1%}; goal under "
        f"{GOAL_MEMORY_GROWTH:.0%}), peak {result.memory_peak / mib:.0f} MiB",
    ]
    if result.burst is not None:
        b = result.burst
        goals.append(
            f"- burst of {b.uploads} simultaneous {b.pages}-page uploads ({b.seconds:.0f} s, "
            f"{len(b.errors)} errors): server memory {b.memory_before / mib:.0f} MiB before, "
            f"peak {b.memory_peak / mib:.0f} MiB, {b.memory_after / mib:.0f} MiB "
            f"{BURST_SETTLE_SECONDS:.0f} s after ({b.memory_after / b.memory_before - 1:+.1%})"
        )
    return "\n".join(
        [
            f"{args.clients} clients for {result.seconds:.0f} s against `citelock serve` "
            f"(a uvicorn subprocess on 127.0.0.1, highlights off as in the query benchmark), "
            f"each sending a query (vector, top_k {TOP_K}) or, {args.upload_share:.0%} of the "
            f"time, a new two-page PDF; {result.load_notes}. Before the soak, "
            f"{WARM_UP_SECONDS:.0f} s of the same load from every client; the memory "
            "baseline is taken after it.",
            "",
            *rows,
            "",
            *goals,
            "",
            machine_summary(),
            "",
            f"Reproduce: `python bench/soak.py --clients {args.clients} --duration "
            f"{args.duration:g} --chunks {args.chunks} --write`",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--clients", type=int, default=32)
    parser.add_argument("--duration", type=float, default=600.0, help="seconds")
    parser.add_argument("--chunks", type=int, default=100_000)
    parser.add_argument("--upload-share", type=float, default=0.1)
    parser.add_argument("--burst", type=int, default=20, help="simultaneous uploads after")
    parser.add_argument("--burst-pages", type=int, default=40)
    parser.add_argument("--pool", type=int, default=300, help="passages embedded for real")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--write", action="store_true", help="write docs/benchmarks.md")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as server_url,
    ):
        url = fresh_database(server_url, "citelock_bench_soak")
        result = soak(args, url, Path(data_dir))
    text = section(args, result)
    print(text)
    if args.write:
        write_section(args.output, "Soak", text)


if __name__ == "__main__":
    main()
