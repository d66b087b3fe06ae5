"""/metrics, the access log line, and /readyz while the model's server is stopped and started."""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from fastapi.testclient import TestClient
from prometheus_client.parser import text_string_to_metric_families

from app.core.logs import json_formatter
from app.embedding.backends import HttpEmbedder
from app.embedding.embedder import Embedder
from app.flows.runtime import Runtime
from tests.helpers.clients import client_for

QUESTION = "how do tracing compilers record hot loops?"


def scrape(client: TestClient) -> dict[tuple[str, frozenset[tuple[str, str]]], float]:
    """Returns every sample /metrics serves, keyed by name and labels."""
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def sample(samples: dict[Any, float], name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def test_metrics_count_requests_stages_errors_and_ingestion(
    client: TestClient, sample_pdf: bytes
) -> None:
    before = scrape(client)
    upload = client.post("/api/v1/documents", files={"file": ("a.pdf", sample_pdf)})
    assert upload.status_code == 201
    assert client.post("/api/v1/query", json={"query": QUESTION}).status_code == 200
    missing = client.get("/api/v1/documents/00000000-0000-0000-0000-000000000000")
    assert missing.status_code == 404
    after = scrape(client)

    def grew(name: str, **labels: str) -> float:
        return sample(after, name, **labels) - sample(before, name, **labels)

    query_labels = {"route": "/api/v1/query", "method": "POST"}
    assert grew("citelock_http_requests_total", status="200", **query_labels) == 1
    assert grew("citelock_http_request_duration_seconds_count", **query_labels) == 1
    document_route = {"route": "/api/v1/documents/{document_id}", "method": "GET"}
    assert grew("citelock_http_requests_total", status="404", **document_route) == 1
    assert grew("citelock_errors_total", code="document_not_found") == 1
    assert grew("citelock_queries_total", status="ok") == 1
    assert grew("citelock_query_stage_duration_seconds_count", stage="answer") == 1
    assert 0 < sample(after, "citelock_query_hit_ratio") <= 1
    assert grew("citelock_ingested_documents_total") == 1
    assert grew("citelock_ingested_pages_total") == 2


def test_unknown_paths_share_one_route_label(client: TestClient) -> None:
    client.get("/no/such/path/1")
    client.get("/no/such/path/2")
    samples = scrape(client)
    routes = {dict(labels).get("route") for name, labels in samples if "http_requests" in name}
    assert "unmatched" in routes
    assert not any(route and route.startswith("/no/such") for route in routes)


def test_one_access_line_per_request_without_the_query_text(
    client: TestClient, sample_pdf: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    client.post("/api/v1/documents", files={"file": ("a.pdf", sample_pdf)})
    caplog.clear()
    with caplog.at_level(logging.INFO):
        response = client.post(
            "/api/v1/query", json={"query": QUESTION}, headers={"X-Request-ID": "req-42"}
        )
    assert response.status_code == 200
    lines = [r for r in caplog.records if r.name == "citelock.access"]
    assert len(lines) == 1
    line = json.loads(json_formatter().format(lines[0]))
    assert line["request_id"] == "req-42"
    assert line["route"] == "/api/v1/query"
    assert line["method"] == "POST"
    assert line["status"] == 200
    assert line["duration_ms"] >= 0
    assert line["result_count"] == len(response.json()["chunks"]) > 0
    for record in caplog.records:
        assert "tracing compilers" not in json_formatter().format(record)


class EmbeddingServer(ThreadingHTTPServer):
    """A real embedding server on 127.0.0.1 (POST /embed), serving the real ONNX model."""

    def __init__(self, embedder: Embedder, port: int = 0) -> None:
        super().__init__(("127.0.0.1", port), EmbedHandler)
        self.embedder = embedder
        self.thread = threading.Thread(target=self.serve_forever, daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.shutdown()
        self.server_close()
        self.thread.join()


class EmbedHandler(BaseHTTPRequestHandler):
    server: EmbeddingServer

    def do_POST(self) -> None:
        texts = json.loads(self.rfile.read(int(self.headers["Content-Length"])))["inputs"]
        body = json.dumps(self.server.embedder.embed_batch(texts).tolist()).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture
def remote_model(runtime: Runtime) -> Iterator[tuple[EmbeddingServer, HttpEmbedder]]:
    server = EmbeddingServer(runtime.embedder)
    url = f"http://127.0.0.1:{server.server_address[1]}"
    remote = HttpEmbedder(url, name="all-MiniLM-L6-v2", dim=384, batch_size=16)
    yield server, remote
    remote.close()
    server.stop()


def test_readyz_fails_while_the_model_server_is_down(
    runtime: Runtime, remote_model: tuple[EmbeddingServer, HttpEmbedder]
) -> None:
    server, remote = remote_model
    with client_for(dataclasses.replace(runtime, embedder=remote)) as client:
        assert client.get("/readyz").status_code == 200
        server.stop()
        down = client.get("/readyz")
        assert down.status_code == 503
        assert down.headers["content-type"] == "application/problem+json"
        assert down.json()["code"] == "embedding_unavailable"
        restarted = EmbeddingServer(runtime.embedder, port=server.server_address[1])
        try:
            assert client.get("/readyz").status_code == 200
        finally:
            restarted.stop()
