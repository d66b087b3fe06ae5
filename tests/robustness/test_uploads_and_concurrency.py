"""Hostile filenames are stored safely with nothing written outside the data folder; the same
PDF uploaded twenty times at once is one document; queries racing ingestion and deletion
never fail and never see a document in part."""

from __future__ import annotations

import dataclasses
import os
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from app.pdf.uploads import MAX_FILENAME_CHARS, display_filename
from tests.helpers.clients import client_for, row_counts, upload
from tests.helpers.problems import assert_problem_or_success

HOSTILE_FILENAMES = [
    "../../../../tmp/escaped.pdf",
    "..\\..\\..\\Windows\\System32\\escaped.pdf",
    "/etc/passwd",
    "a/b/c/nested.pdf",
    "nul\x00byte.pdf",
    "x" * 1000 + ".pdf",
    "../" * 300 + "deep.pdf",
    "tab\tand\x7fdel\x1b[31m.pdf",
    "",
]


def raw_upload(client: TestClient, pdf: bytes, *, filename: str, collection: str) -> Any:
    """Posts a multipart form written by hand, the filename's bytes as given: httpx would
    percent-encode a NUL or a line break before the service saw it."""
    boundary = b"citelock-robustness-boundary"
    body = b"".join(
        [
            b"--%s\r\n" % boundary,
            b'Content-Disposition: form-data; name="collection"\r\n\r\n',
            collection.encode() + b"\r\n",
            b"--%s\r\n" % boundary,
            b'Content-Disposition: form-data; name="file"; filename="%s"\r\n' % filename.encode(),
            b"Content-Type: application/pdf\r\n\r\n",
            pdf + b"\r\n",
            b"--%s--\r\n" % boundary,
        ]
    )
    content_type = b"multipart/form-data; boundary=" + boundary
    return client.post(
        "/api/v1/documents", content=body, headers={"content-type": content_type.decode()}
    )


def tree(root: Path) -> set[Path]:
    return {path.relative_to(root) for path in root.rglob("*")}


@pytest.fixture
def own_data_client(runtime: Runtime, tmp_path: Path) -> Iterator[TestClient]:
    """A client whose data folder is tmp_path/data, so that all around it can be watched."""
    settings = runtime.settings.model_copy(update={"citelock_data_dir": tmp_path / "data"})
    with client_for(dataclasses.replace(runtime, settings=settings)) as test_client:
        yield test_client


def test_hostile_filenames_are_stored_safely_and_nothing_escapes(
    own_data_client: TestClient, tmp_path: Path, sample_pdf: bytes
) -> None:
    before_around, before_cwd = tree(tmp_path), set(os.listdir())
    for number, name in enumerate(HOSTILE_FILENAMES):
        # A collection each, so that every upload is a new document with its own name.
        response = raw_upload(own_data_client, sample_pdf, filename=name, collection=f"c{number}")
        assert response.status_code == 201, response.text
        stored = own_data_client.get(f"/api/v1/documents/{response.json()['id']}").json()
        filename = stored["filename"]
        assert filename == display_filename(name)
        assert "/" not in filename and "\\" not in filename and "\x00" not in filename
        assert filename.isprintable() and 0 < len(filename) <= MAX_FILENAME_CHARS
    created = tree(tmp_path) - before_around
    assert all(path.parts[0] == "data" for path in created), created
    assert not [p for p in (tmp_path / "data" / "uploads").rglob("*") if p.is_file()]
    assert set(os.listdir()) == before_cwd
    assert not Path("/tmp/escaped.pdf").exists()


def test_same_pdf_uploaded_twenty_times_at_once_is_one_document(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    with ThreadPoolExecutor(max_workers=20) as pool:
        responses = list(pool.map(lambda _: upload(client, sample_pdf), range(20)))
    statuses = sorted(response.status_code for response in responses)
    assert statuses == [200] * 19 + [201], [r.text for r in responses if r.status_code >= 300]
    assert len({response.json()["id"] for response in responses}) == 1
    assert row_counts(runtime)["documents"] == 1


UPLOAD_CYCLES = 6
QUERY_THREADS = 3


def test_queries_racing_ingestion_and_deletion_never_fail_or_see_part_of_a_document(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    baseline = upload(client, sample_pdf, collection="baseline").json()
    contents = {
        chunk["content"]
        for page in (1, 2)
        for chunk in client.get(
            f"/api/v1/documents/{baseline['id']}/chunks", params={"page": page}
        ).json()
    }
    created: list[str] = [baseline["id"]]
    done = threading.Event()

    def ingest_and_delete() -> None:
        try:
            for cycle in range(UPLOAD_CYCLES):
                response = upload(client, sample_pdf, collection=f"cycle{cycle}")
                assert response.status_code == 201, response.text
                created.append(response.json()["id"])
                assert client.delete(f"/api/v1/documents/{created[-1]}").status_code == 204
        finally:
            done.set()

    def query_until_done() -> list[dict[str, Any]]:
        answers = []
        while not done.is_set():
            response = client.post("/api/v1/query", json={"query": "trace trees", "top_k": 10})
            assert_problem_or_success(response.status_code, response.headers, response.content)
            assert response.status_code == 200, response.text
            answers.append(response.json())
        return answers

    with ThreadPoolExecutor(max_workers=QUERY_THREADS + 1) as pool:
        queries = [pool.submit(query_until_done) for _ in range(QUERY_THREADS)]
        pool.submit(ingest_and_delete).result()
        answers = [answer for future in queries for answer in future.result()]

    assert answers
    for answer in answers:
        by_document: dict[str, list[str]] = {}
        for chunk in answer["chunks"]:
            assert chunk["document_id"] in created
            assert chunk["content"] in contents  # whole chunks of whole documents only
            by_document.setdefault(chunk["document_id"], []).append(chunk["content"])
        for source in answer["highlighted_sources"] or []:
            assert source["document_id"] in by_document
    # Every copy is a whole document: the same chunks as the baseline, or none at all.
    for answer in answers:
        per_document = {}
        for chunk in answer["chunks"]:
            per_document.setdefault(chunk["document_id"], set()).add(chunk["content"])
        if per_document:
            assert len({frozenset(chunks) for chunks in per_document.values()}) == 1, answer
    assert row_counts(runtime)["documents"] == 1
