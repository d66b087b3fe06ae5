"""The real service on a loopback port (uvicorn on a thread, with a background worker) for the
client's tests; every test starts from empty tables.

The client is a distribution of its own (clients/python), not a dependency of the service:
its folder goes first on the path here, so `pip install '.[test]' && pytest` tests this
checkout's client without installing it.
"""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from pydantic import SecretStr

from app.flows.runtime import Runtime
from app.flows.worker import in_process_worker
from tests.helpers.pdfs import long_pdf, make_pdf
from tests.helpers.service import (
    BACKGROUND_PAGES,
    CLIENT_ROOT,
    READ_ONLY,
    READ_WRITE,
    WORKER_SETTINGS,
    empty_tables,
    serve,
)

sys.path.insert(0, str(CLIENT_ROOT))


@pytest.fixture(scope="session")
def client_runtime(open_test_runtime: Callable[[str], Runtime]) -> Iterator[Runtime]:
    """A database of the client tests' own, with a worker taking its background uploads."""
    base = open_test_runtime("citelock_client")
    settings = base.settings.model_copy(
        update={**WORKER_SETTINGS, "background_page_threshold": BACKGROUND_PAGES}
    )
    runtime = dataclasses.replace(base, settings=settings)
    worker = in_process_worker(runtime).start()
    yield runtime
    worker.stop()


@pytest.fixture(scope="session")
def session_service_url(client_runtime: Runtime) -> Iterator[str]:
    service, url = serve(client_runtime)
    yield url
    service.stop()


@pytest.fixture(scope="session")
def session_keyed_service_url(client_runtime: Runtime) -> Iterator[str]:
    """The same service with API keys: `READ_WRITE` may write, `READ_ONLY` only read."""
    settings = client_runtime.settings.model_copy(
        update={"api_keys": SecretStr(f"{READ_WRITE}:rw,{READ_ONLY}:ro")}
    )
    service, url = serve(dataclasses.replace(client_runtime, settings=settings))
    yield url
    service.stop()


@pytest.fixture
def service_url(session_service_url: str, client_runtime: Runtime) -> Iterator[str]:
    yield session_service_url
    empty_tables(client_runtime)


@pytest.fixture
def keyed_service_url(session_keyed_service_url: str, client_runtime: Runtime) -> Iterator[str]:
    yield session_keyed_service_url
    empty_tables(client_runtime)


@pytest.fixture(scope="session")
def sample_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The API tests' two-page sample PDF, on disk: the client uploads paths."""
    path = tmp_path_factory.mktemp("client") / "sample.pdf"
    path.write_bytes(make_pdf())
    return path


@pytest.fixture(scope="session")
def long_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PDF long enough to be ingested in the background."""
    path = tmp_path_factory.mktemp("client") / "long.pdf"
    path.write_bytes(long_pdf(BACKGROUND_PAGES + 2))
    return path
