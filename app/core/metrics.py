"""The service's Prometheus metrics, one set per process (prometheus-client's default registry).

Workers in other processes count their own ingestion; `citelock worker --metrics-port`
serves theirs.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

from prometheus_client import Counter, Gauge, Histogram

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)

HTTP_REQUESTS = Counter(
    "citelock_http_requests",
    "HTTP requests, by route template, method and status.",
    ["route", "method", "status"],
)
HTTP_REQUEST_SECONDS = Histogram(
    "citelock_http_request_duration_seconds",
    "Time from request to the end of the response, by route template and method.",
    ["route", "method"],
    buckets=LATENCY_BUCKETS,
)
ERRORS = Counter("citelock_errors", "problem+json responses, by their code.", ["code"])
QUERIES = Counter("citelock_queries", "Answered queries, by retrieval status.", ["status"])
QUERY_STAGE_SECONDS = Histogram(
    "citelock_query_stage_duration_seconds",
    "Time spent in each stage of a query (embedding, search, answer...).",
    ["stage"],
    buckets=LATENCY_BUCKETS,
)
QUERY_HIT_RATIO = Gauge(
    "citelock_query_hit_ratio", "Queries with status ok over all queries, since the start."
)
INGESTED_DOCUMENTS = Counter("citelock_ingested_documents", "Documents stored by ingestion.")
INGESTED_PAGES = Counter("citelock_ingested_pages", "Pages stored by ingestion.")
INGEST_JOBS = Counter(
    "citelock_ingest_jobs", "Background ingestion jobs that ended, by outcome.", ["outcome"]
)


def query_hit_ratio() -> float:
    """Returns the share of queries that found an answer; NaN before the first query."""
    totals = {
        sample.labels["status"]: sample.value
        for family in QUERIES.collect()
        for sample in family.samples
        if sample.name.endswith("_total")
    }
    answered = sum(totals.values())
    return totals.get("ok", 0.0) / answered if answered else math.nan


QUERY_HIT_RATIO.set_function(query_hit_ratio)


def record_query(status: str, timings_ms: Mapping[str, float]) -> None:
    QUERIES.labels(status).inc()
    for stage, milliseconds in timings_ms.items():
        QUERY_STAGE_SECONDS.labels(stage).observe(milliseconds / 1000)


def record_ingestion(*, pages: int) -> None:
    INGESTED_DOCUMENTS.inc()
    INGESTED_PAGES.inc(pages)
