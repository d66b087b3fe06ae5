"""One runtime (database + model) for the robustness tests; every test starts from empty tables."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import client_for
from tests.helpers.pdfs import make_pdf


@pytest.fixture(scope="session")
def robust_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    return open_test_runtime("citelock_robustness")


@pytest.fixture
def runtime(robust_runtime: Runtime) -> Iterator[Runtime]:
    yield robust_runtime
    with robust_runtime.engine.begin() as connection:
        connection.execute(sa.text("TRUNCATE documents CASCADE"))


@pytest.fixture
def client(runtime: Runtime) -> Iterator[TestClient]:
    with client_for(runtime) as test_client:
        yield test_client


@pytest.fixture(scope="session")
def sample_pdf() -> bytes:
    return make_pdf()
