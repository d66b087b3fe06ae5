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
from app.main import create_app
from tests.browser import chromium, served
from tests.generated_pdfs import text_pdf
from tests.shared_corpus import corpus_path


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


def client_for(runtime: Runtime) -> TestClient:
    return TestClient(create_app(runtime.settings, runtime=runtime), raise_server_exceptions=False)


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


PARAGRAPHS = [
    "Citation locking ties every claim in an answer to the page it came from. "
    "The reader can open the page and see the very lines that were quoted.",
    "Trace trees record hot loops in a dynamic language. A tracing compiler "
    "turns those recorded loops into fast native code for later iterations.",
    "Vector search finds passages whose meaning is close to the question, "
    "even when they share few words with it.",
]


HEADINGS = ["Why citations matter", "How the pieces fit together"]


def make_pdf() -> bytes:
    """Returns a two-page text PDF, a heading and a few paragraphs a page, with an outline."""
    return text_pdf(
        (heading + "\n\n" + "\n\n".join(PARAGRAPHS) for heading in HEADINGS),
        toc=[[1, heading, number] for number, heading in enumerate(HEADINGS, 1)],
    )


@pytest.fixture(scope="session")
def sample_pdf() -> bytes:
    return make_pdf()
