"""Schemathesis over every operation of the service's own OpenAPI schema, in process: no 500,
every error problem+json with a `code`, every response as the schema says."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from app.core.config import Settings
from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime
from app.main import create_app
from tests.helpers.pdfs import make_pdf
from tests.helpers.problems import assert_problem_or_success

schema = schemathesis.openapi.from_dict(create_app(Settings(_env_file=None)).openapi())

EXAMPLES_PER_OPERATION = 40
"""Enough to reach every validation branch of each route; the suite stays within seconds."""

REFUSED_BY_CONTENT = {
    "POST /api/v1/documents",
    "PUT /api/v1/documents/{document_id}/annotations",
    "POST /api/v1/documents/{document_id}/annotations",
    "POST /api/v1/query",
}
"""Operations that refuse some schema-valid requests for what no schema can state (bytes that
are not a PDF, text that is not on the page, a selection past the document's end): their
refusals are still checked to be problem+json with a `code`."""


@pytest.fixture(scope="module")
def stored_document(
    robust_runtime: Runtime, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[uuid.UUID]:
    path = tmp_path_factory.mktemp("fuzz") / "sample.pdf"
    path.write_bytes(make_pdf())
    result = ingest_file(path, DocumentMeta(filename=path.name), runtime=robust_runtime)
    yield result.document.id


@pytest.fixture(scope="module")
def asgi_app(robust_runtime: Runtime, stored_document: uuid.UUID) -> FastAPI:
    return create_app(robust_runtime.settings, runtime=robust_runtime)


def aim_at(case: Any, document_id: uuid.UUID) -> None:
    """Points half the generated document ids at the stored document, so that its pages,
    chunks and annotations are fuzzed too, not only the 404 path."""
    generated = (case.path_parameters or {}).get("document_id")
    try:
        even = uuid.UUID(str(generated)).int % 2 == 0
    except ValueError:
        return  # a deliberately malformed id stays as generated
    if even:
        case.path_parameters["document_id"] = str(document_id)


@schema.parametrize()
@settings(
    max_examples=EXAMPLES_PER_OPERATION,
    deadline=None,
    suppress_health_check=list(HealthCheck),
    database=None,
    derandomize=True,
)
def test_every_operation(case: Any, asgi_app: FastAPI, stored_document: uuid.UUID) -> None:
    aim_at(case, stored_document)
    excluded = [positive_data_acceptance] if case.operation.label in REFUSED_BY_CONTENT else []
    response = case.call_and_validate(app=asgi_app, excluded_checks=excluded)
    assert_problem_or_success(response.status_code, response.headers, response.content)
