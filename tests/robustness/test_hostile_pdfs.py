"""Hostile PDFs, from the shared corpus and made here: each is ingested or refused with a clear
code, the service stays up, and a refused one leaves no row and no file behind."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers import hostile_pdfs
from tests.helpers.clients import TABLES, client_for, row_counts, upload
from tests.helpers.corpus import SHARED_CORPUS
from tests.helpers.problems import assert_problem_or_success

INGEST_TIMEOUT_SECONDS = 5.0
"""Far more than a one-page PDF needs, far less than 10 MB of text takes."""


@pytest.fixture
def limited_client(runtime: Runtime) -> Iterator[TestClient]:
    """A client of a service with the default page limit and a short ingestion time limit,
    ingesting every upload at once: the limits then answer the upload itself (a queued PDF
    meets them in its worker, and fails its job with the same reason)."""
    settings = runtime.settings.model_copy(
        update={
            "max_pages": 2000,
            "ingest_timeout_seconds": INGEST_TIMEOUT_SECONDS,
            "background_page_threshold": 2000,
        }
    )
    with client_for(dataclasses.replace(runtime, settings=settings)) as test_client:
        yield test_client


def upload_and_check(
    client: TestClient, runtime: Runtime, pdf: bytes, name: str
) -> dict[str, object]:
    """Returns the response body after checking the outcome is clean either way."""
    response = upload(client, pdf, name=name)
    assert_problem_or_success(response.status_code, response.headers, response.content)
    assert client.get("/healthz").status_code == 200
    assert not [
        p for p in (runtime.settings.citelock_data_dir / "uploads").rglob("*") if p.is_file()
    ]
    if response.status_code >= 400:
        assert row_counts(runtime) == dict.fromkeys(TABLES, 0), name
    body: dict[str, object] = response.json()
    return body


BAD_CORPUS = sorted(path.name for path in (SHARED_CORPUS / "bad").glob("*.pdf"))


@pytest.mark.skipif(not BAD_CORPUS, reason=f"shared corpus not found at {SHARED_CORPUS}")
@pytest.mark.parametrize("name", BAD_CORPUS)
def test_bad_corpus_pdf_is_ingested_or_refused_cleanly(
    limited_client: TestClient, runtime: Runtime, name: str
) -> None:
    upload_and_check(limited_client, runtime, (SHARED_CORPUS / "bad" / name).read_bytes(), name)


GENERATED: list[tuple[Callable[[], bytes], set[str]]] = [
    (hostile_pdfs.many_objects, {"ingested"}),
    (hostile_pdfs.empty_pages, {"too_many_pages"}),
    (hostile_pdfs.huge_image, {"ingested"}),
    (hostile_pdfs.deeply_nested, {"ingested"}),
    (hostile_pdfs.deep_page_tree, {"ingested"}),
    (hostile_pdfs.text_megabytes, {"ingest_timeout"}),
    (hostile_pdfs.zip_body, {"corrupt_pdf"}),
]


@pytest.mark.parametrize(
    ("make", "outcomes"), GENERATED, ids=[make.__name__ for make, _ in GENERATED]
)
def test_generated_hostile_pdf_is_ingested_or_refused_cleanly(
    limited_client: TestClient,
    runtime: Runtime,
    tmp_path: Path,
    make: Callable[[], bytes],
    outcomes: set[str],
) -> None:
    body = upload_and_check(limited_client, runtime, make(), f"{make.__name__}.pdf")
    outcome = "ingested" if "id" in body else body["code"]
    assert outcome in outcomes, body
    if outcome == "ingested":  # its page renders too, at the largest scale, within bounds
        rendered = limited_client.get(f"/api/v1/documents/{body['id']}/pages/1.png?scale=4")
        assert rendered.status_code == 200, rendered.text
