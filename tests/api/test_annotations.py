"""The annotation routes, one test per route and outcome, and annotations stored at ingestion."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.core.errors import CitelockError
from app.db.annotations import verify_annotations
from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime
from tests.helpers.clients import upload
from tests.helpers.corpus import corpus_path


def annotated(name: str) -> bytes:
    return corpus_path("annotated", name).read_bytes()


def annotations_url(document_id: object) -> str:
    return f"/api/v1/documents/{document_id}/annotations"


def list_annotations(client: TestClient, document_id: object) -> list[dict[str, Any]]:
    response = client.get(annotations_url(document_id))
    assert response.status_code == 200, response.text
    body: list[dict[str, Any]] = response.json()
    return body


def page_chunk_ids(client: TestClient, document_id: object, page: int) -> set[str]:
    chunks = client.get(f"/api/v1/documents/{document_id}/chunks", params={"page": page}).json()
    return {chunk["chunk_id"] for chunk in chunks}


def chunk_rows(runtime: Runtime) -> list[tuple[Any, ...]]:
    """Returns every chunk with its text and vector, to show none was redone."""
    with runtime.engine.connect() as connection:
        query = "SELECT id, content, embedding::text FROM chunks ORDER BY id"
        return [tuple(row) for row in connection.execute(sa.text(query))]


def verify(runtime: Runtime, document_id: str) -> list[str]:
    with runtime.sessions() as session:
        return verify_annotations(session=session, document_id=uuid.UUID(document_id))


def test_upload_annotated_document_stores_its_annotations(
    client: TestClient, runtime: Runtime
) -> None:
    response = upload(client, annotated("pdfannots__hotos17.pdf"), "hotos17.pdf")
    assert response.status_code == 201, response.text
    document = response.json()
    assert document["annotation_count"] == 10
    found = list_annotations(client, document["id"])
    assert [(a["page"], a["type"]) for a in found] == [
        (1, "squiggly"),
        (1, "note"),
        (1, "strikeout"),
        (2, "highlight"),
        (2, "highlight"),
        (2, "highlight"),
        (2, "highlight"),
        (4, "squiggly"),
        (4, "underline"),
        (4, "strikeout"),
    ]
    assert {a["source"] for a in found} == {"pdf"}
    for annotation in found:
        assert annotation["chunk_ids"], annotation
        assert set(annotation["chunk_ids"]) <= page_chunk_ids(
            client, document["id"], annotation["page"]
        )
        assert annotation["rects"]
    note = found[1]
    assert (note["text"], note["comment"]) == ("", "This is a note with no text attached.")
    assert verify(runtime, document["id"]) == []


def test_every_annotated_corpus_file_ingests(runtime: Runtime) -> None:
    """Each file ingests with its annotations, and the verifier passes on what was stored."""
    stored: dict[str, int] = {}
    refused: dict[str, str] = {}
    for path in sorted(corpus_path("annotated").glob("*.pdf")):
        try:
            result = ingest_file(path, DocumentMeta(filename=path.name), runtime=runtime)
        except CitelockError as error:
            refused[path.name] = error.code
            continue
        stored[path.name] = result.document.annotation_count
        assert verify(runtime, str(result.document.id)) == [], path.name
    assert refused == {}
    # A page with no text at all under four marks: kept for the marks, with nothing to retrieve.
    assert stored["pdfium__annotation_markup_multiline_no_ap.pdf"] == 4
    assert stored["pysf__annotated_pdf.pdf"] == 3
    assert stored["pdfjs__highlights.pdf"] == 6
    assert stored["pdfannots__pr24.pdf"] == 6
    assert all(count > 0 for count in stored.values()), stored


def test_list_annotations_unknown_document_is_404(client: TestClient) -> None:
    response = client.get(annotations_url(uuid.uuid4()))
    assert response.status_code == 404
    assert response.json()["code"] == "document_not_found"


def test_put_annotated_copy_rereads_annotations_only(client: TestClient, runtime: Runtime) -> None:
    plain = corpus_path("docs", "tracemonkey.pdf").read_bytes()
    document = upload(client, plain, "tracemonkey.pdf").json()
    assert document["annotation_count"] == 0
    mine = client.post(
        annotations_url(document["id"]),
        json={"page": 2, "text": "trace trees", "comment": "key idea"},
    )
    assert mine.status_code == 201, mine.text
    before = chunk_rows(runtime)

    for _ in range(2):  # a second upload of the copy replaces, never adds
        response = client.put(
            annotations_url(document["id"]),
            files={
                "file": ("highlights.pdf", annotated("pdfjs__highlights.pdf"), "application/pdf")
            },
        )
        assert response.status_code == 200, response.text
        assert [(a["source"], a["type"], a["page"]) for a in response.json()] == [
            *[("pdf", "highlight", 1)] * 6,
            ("api", "highlight", 2),
        ]
    assert chunk_rows(runtime) == before
    assert client.get(f"/api/v1/documents/{document['id']}").json()["annotation_count"] == 7
    assert list_annotations(client, document["id"]) == response.json()
    assert verify(runtime, document["id"]) == []


@pytest.mark.parametrize(
    ("stored", "copy"),
    [
        # One page of the same paper: the page count differs.
        ("pdfjs__highlights.pdf", "pdfjs__bug1885505.pdf"),
        # One page each, different texts.
        ("pdfannots__pr24.pdf", "pdfannots__issue13.pdf"),
    ],
)
def test_put_another_document_is_422_not_same_document(
    client: TestClient, stored: str, copy: str
) -> None:
    document = upload(client, annotated(stored), stored).json()
    before = list_annotations(client, document["id"])
    response = client.put(
        annotations_url(document["id"]),
        files={"file": (copy, annotated(copy), "application/pdf")},
    )
    assert response.status_code == 422
    assert response.json()["code"] == "not_same_document"
    assert list_annotations(client, document["id"]) == before


def test_put_not_a_pdf_is_415(client: TestClient, sample_pdf: bytes) -> None:
    document = upload(client, sample_pdf).json()
    response = client.put(
        annotations_url(document["id"]), files={"file": ("notes.txt", b"hello", "text/plain")}
    )
    assert response.status_code == 415
    assert response.json()["code"] == "not_a_pdf"


def test_post_highlight_is_201_and_lies_on_its_chunk(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    document = upload(client, sample_pdf).json()
    # The selection joins the lines with a space where the page text has a line break.
    text = "A tracing compiler turns those recorded loops into fast native code"
    response = client.post(annotations_url(document["id"]), json={"page": 2, "text": text})
    assert response.status_code == 201, response.text
    created = response.json()
    assert created["type"] == "highlight" and created["source"] == "api"
    assert created["text"] == text and created["comment"] == ""
    assert created["chunk_ids"] and set(created["chunk_ids"]) <= page_chunk_ids(
        client, document["id"], 2
    )
    assert created["rects"]
    assert client.get(f"/api/v1/documents/{document['id']}").json()["annotation_count"] == 1
    assert verify(runtime, document["id"]) == []


@pytest.mark.parametrize(
    ("document_id", "body", "status", "code"),
    [
        (None, {"page": 1, "text": "not on this page at all"}, 422, "text_not_found"),
        (None, {"page": 9, "text": "Trace trees"}, 404, "page_not_found"),
        (uuid.UUID(int=7), {"page": 1, "text": "Trace trees"}, 404, "document_not_found"),
        (None, {"page": 1, "text": ""}, 422, "invalid_request"),
        (None, {"page": 0, "text": "Trace trees"}, 422, "invalid_request"),
        (None, {"text": "Trace trees"}, 422, "invalid_request"),
    ],
)
def test_post_highlight_refused(
    client: TestClient,
    sample_pdf: bytes,
    document_id: uuid.UUID | None,
    body: dict[str, Any],
    status: int,
    code: str,
) -> None:
    stored = upload(client, sample_pdf).json()["id"]
    response = client.post(annotations_url(document_id or stored), json=body)
    assert response.status_code == status, response.text
    assert response.json()["code"] == code
    assert list_annotations(client, stored) == []


def test_delete_document_removes_its_annotations(client: TestClient, runtime: Runtime) -> None:
    document = upload(client, annotated("pdfannots__pr24.pdf"), "pr24.pdf").json()
    assert client.delete(f"/api/v1/documents/{document['id']}").status_code == 204
    with runtime.engine.connect() as connection:
        for table in ("annotations", "annotation_chunks"):
            assert connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one() == 0


def test_verifier_reports_a_link_to_a_chunk_not_under_the_annotation(
    client: TestClient, runtime: Runtime
) -> None:
    document = upload(client, annotated("pdfannots__hotos17.pdf"), "hotos17.pdf").json()
    page_one = list_annotations(client, document["id"])[0]
    far_chunk = sorted(page_chunk_ids(client, document["id"], 8))[0]
    with runtime.engine.begin() as connection:
        connection.execute(
            sa.text("INSERT INTO annotation_chunks VALUES (:a, :c)"),
            {"a": page_one["id"], "c": far_chunk},
        )
        connection.execute(
            sa.text("UPDATE annotations SET page = 99 WHERE id = :a"), {"a": page_one["id"]}
        )
    problems = verify(runtime, document["id"])
    assert problems == [f"annotation {page_one['id']}: page 99 is not in 1-8"]
    with runtime.engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE annotations SET page = 1 WHERE id = :a"), {"a": page_one["id"]}
        )
    assert verify(runtime, document["id"]) == [
        f"annotation {page_one['id']}: linked chunk {far_chunk} does not lie under it"
    ]
