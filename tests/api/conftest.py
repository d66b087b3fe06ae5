"""One runtime (database + model) for the API tests; every test starts from empty tables."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime
from tests.helpers.browser import chromium, served
from tests.helpers.clients import client_for
from tests.helpers.corpus import corpus_path
from tests.helpers.pdfs import make_pdf


@pytest.fixture(scope="session")
def api_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    return open_test_runtime("citelock_api")


@pytest.fixture(scope="session")
def highlighted(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    """A database holding only pdfjs__highlights.pdf, the TraceMonkey paper highlighted in
    Preview (six highlights on page 1)."""
    path = corpus_path("annotated", "pdfjs__highlights.pdf")
    runtime = open_test_runtime("citelock_highlighted")
    ingest_file(path, DocumentMeta(filename=path.name), runtime=runtime)
    return runtime


@pytest.fixture
def runtime(api_runtime: Runtime) -> Iterator[Runtime]:
    yield api_runtime
    with api_runtime.engine.begin() as connection:
        connection.execute(sa.text("TRUNCATE documents, responses CASCADE"))


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with client_for(runtime) as test_client:
        yield test_client


@pytest.fixture
def live_url(runtime: Runtime) -> Iterator[str]:
    """Yields the base URL of the service served by uvicorn, for a browser to reach."""
    with served(runtime) as url:
        yield url


@pytest.fixture
def chromium_endpoint(tmp_path: Path) -> Iterator[str]:
    """Yields the DevTools endpoint of a headless chromium (skipped without one, failed in CI)."""
    with chromium(tmp_path / "chromium-profile") as endpoint:
        yield endpoint


@pytest.fixture
def limited_client(runtime: Runtime) -> Iterator[TestClient]:
    """A client whose upload limit is 1 KiB."""
    settings = runtime.settings.model_copy(update={"max_upload_bytes": 1024})
    with client_for(dataclasses.replace(runtime, settings=settings)) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def sample_pdf() -> bytes:
    return make_pdf()
