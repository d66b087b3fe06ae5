"""A database of its own for background ingestion, with settings that make workers quick."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.api.conftest import client_for
from tests.generated_pdfs import text_pdf

WORKER_SETTINGS = {
    "background_page_threshold": 0,
    "ingest_batch_pages": 4,
    "worker_heartbeat_seconds": 0.5,
    "worker_stalled_seconds": 3.0,
    "worker_poll_seconds": 0.2,
}
"""Every upload goes to a worker; a killed worker is noticed within seconds."""


@pytest.fixture(scope="session")
def jobs_runtime_base(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    return open_test_runtime("citelock_jobs")


@pytest.fixture
def jobs_runtime(jobs_runtime_base: Runtime) -> Iterator[Runtime]:
    settings = jobs_runtime_base.settings.model_copy(update=WORKER_SETTINGS)
    yield dataclasses.replace(jobs_runtime_base, settings=settings)
    with jobs_runtime_base.engine.begin() as connection:
        connection.execute(sa.text("TRUNCATE documents, ingest_jobs, procrastinate_jobs CASCADE"))


@pytest.fixture
def jobs_client(jobs_runtime: Runtime) -> Iterator[TestClient]:
    with client_for(jobs_runtime) as client:
        yield client


def long_pdf(pages: int, *, tag: str = "") -> bytes:
    """Returns a text PDF of `pages` pages, a paragraph a page, each page's text its own."""
    return text_pdf(
        f"Chapter {number} {tag}. Page {number} describes how citation locking ties each "
        f"claim to its page. The reader of page {number} can open it and see the quoted "
        "lines. Tracing compilers record hot loops; vector search finds passages close "
        "in meaning to a question."
        for number in range(1, pages + 1)
    )
