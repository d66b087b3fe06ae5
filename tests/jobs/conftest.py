"""A database of its own for background ingestion, with settings that make workers quick."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import client_for
from tests.helpers.service import WORKER_SETTINGS


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
