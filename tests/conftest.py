"""A real PostgreSQL with pgvector for the whole run: embedded, or DATABASE_URL's server."""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from app.core.config import Settings
from app.flows.runtime import Runtime, open_runtime
from tests.helpers.chat import ChatServer, serve_chat
from tests.helpers.corpus import SHARED_CORPUS
from tests.helpers.database import fresh_database, settings_for
from tests.helpers.embedding import RememberingEmbedder, Vectors


@pytest.fixture(scope="session")
def server_url() -> Iterator[str]:
    url = os.environ.get("DATABASE_URL", "")
    if url:
        yield Settings(database_url=url).database_url
        return
    from app.db.embedded import embedded_database_url, start_embedded_postgres

    # Not under pytest's temporary folders: they are private to root, and the embedded
    # server runs as its own user when the tests run as root.
    data_dir = Path(tempfile.mkdtemp(prefix="citelock-test-"))
    server = start_embedded_postgres(data_dir)
    yield embedded_database_url(server)
    server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="session")
def open_test_runtime(
    server_url: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[str], Runtime]]:
    """Returns a factory of runtimes, each over its own fresh database, all closed at the end.
    Their models remember the vectors any of them gave (RememberingEmbedder)."""
    opened: list[Runtime] = []
    vectors: Vectors = {}

    def open_for(database: str) -> Runtime:
        url = fresh_database(server_url, database)
        runtime = open_runtime(settings_for(url, tmp_path_factory.mktemp(database)))
        opened.append(runtime)
        return dataclasses.replace(runtime, embedder=RememberingEmbedder(runtime.embedder, vectors))

    yield open_for
    for runtime in opened:
        runtime.close()


@pytest.fixture
def chat_server() -> Iterator[ChatServer]:
    """A local OpenAI-compatible chat server, replying as the test sets it up."""
    with serve_chat() as server:
        yield server


def pytest_report_header(config: pytest.Config) -> list[str]:
    import onnxruntime
    import pymupdf

    return [
        f"pymupdf {pymupdf.__version__}, onnxruntime {onnxruntime.__version__}",
        f"shared corpus: {SHARED_CORPUS if SHARED_CORPUS.exists() else 'absent'}",
        f"database: {'DATABASE_URL' if os.environ.get('DATABASE_URL') else 'embedded PostgreSQL'}",
    ]
