"""The documents routes, one test per route and outcome."""

from __future__ import annotations

import dataclasses
import uuid
from pathlib import Path

import numpy as np
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import TABLES, client_for, row_counts, upload
from tests.helpers.corpus import corpus_path
from tests.helpers.pdfs import HEADINGS


def test_upload_document_created(client: TestClient, sample_pdf: bytes) -> None:
    response = upload(client, sample_pdf, collection="papers", title="Sample")
    assert response.status_code == 201, response.text
    body = response.json()
    assert body["title"] == "Sample"
    assert body["collection"] == "papers"
    assert body["page_count"] == 2
    assert body["chunk_count"] >= 2
    assert body["annotation_count"] == 0
    assert body["status"] == "ready"
    assert body["toc"] == [
        {"level": 1, "title": title, "page": page} for page, title in enumerate(HEADINGS, 1)
    ]


def test_upload_document_same_bytes_is_idempotent(client: TestClient, sample_pdf: bytes) -> None:
    first = upload(client, sample_pdf).json()
    again = upload(client, sample_pdf)
    assert again.status_code == 200
    assert again.json()["id"] == first["id"]
    elsewhere = upload(client, sample_pdf, collection="other")
    assert elsewhere.status_code == 201
    assert elsewhere.json()["id"] != first["id"]


def test_list_and_get_documents(client: TestClient, sample_pdf: bytes) -> None:
    created = upload(client, sample_pdf, collection="a").json()
    upload(client, sample_pdf, collection="b")
    listed = client.get("/api/v1/documents", params={"collection": "a"}).json()
    assert listed["count"] == 1
    assert [d["id"] for d in listed["data"]] == [created["id"]]
    assert client.get("/api/v1/documents").json()["count"] == 2
    assert client.get(f"/api/v1/documents/{created['id']}").json() == created


def test_get_document_unknown_is_404_problem(client: TestClient) -> None:
    response = client.get(f"/api/v1/documents/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == "document_not_found"


def test_get_document_malformed_id_is_422_problem(client: TestClient) -> None:
    response = client.get("/api/v1/documents/not-a-uuid")
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"


def test_page_chunks_hold_provenance(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    document = upload(client, sample_pdf).json()
    chunks = client.get(f"/api/v1/documents/{document['id']}/chunks", params={"page": 2}).json()
    assert chunks
    with runtime.engine.connect() as connection:
        page_text = connection.execute(
            sa.text("SELECT text FROM pages WHERE document_id = :id AND page_number = 2"),
            {"id": document["id"]},
        ).scalar_one()
    for chunk in chunks:
        assert "embedding" not in chunk
        assert chunk["page_start"] <= 2 <= chunk["page_end"]
        if chunk["page_start"] == chunk["page_end"] == 2:
            assert chunk["content"] == page_text[chunk["page_span_start"] : chunk["page_span_end"]]
        assert chunk["rects"] and all(len(r["rect"]) == 4 for r in chunk["rects"])
        assert chunk["chapter"] in HEADINGS


def test_page_chunks_page_outside_document_is_404(client: TestClient, sample_pdf: bytes) -> None:
    document = upload(client, sample_pdf).json()
    response = client.get(f"/api/v1/documents/{document['id']}/chunks", params={"page": 3})
    assert response.status_code == 404
    assert response.json()["code"] == "page_not_found"


def test_page_png_renders(client: TestClient, sample_pdf: bytes) -> None:
    document = upload(client, sample_pdf).json()
    response = client.get(f"/api/v1/documents/{document['id']}/pages/1.png", params={"scale": 1})
    assert response.status_code == 200
    assert response.headers["content-type"] == "image/png"
    assert response.content.startswith(b"\x89PNG")


def test_delete_document_removes_everything(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    document = upload(client, sample_pdf).json()
    assert row_counts(runtime)["document_terms"] > 0
    assert client.delete(f"/api/v1/documents/{document['id']}").status_code == 204
    assert client.get(f"/api/v1/documents/{document['id']}").status_code == 404
    assert row_counts(runtime) == dict.fromkeys(TABLES, 0)
    assert client.delete(f"/api/v1/documents/{document['id']}").status_code == 404


def test_stored_page_geometry_matches_text(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    document = upload(client, sample_pdf).json()
    with runtime.engine.connect() as connection:
        rows = connection.execute(
            sa.text("SELECT text, char_boxes, line_ids FROM pages WHERE document_id = :id"),
            {"id": document["id"]},
        ).all()
    assert len(rows) == 2  # the sample's pages
    for text, boxes, line_ids in rows:
        assert np.frombuffer(boxes, dtype=np.float32).reshape(-1, 4).shape[0] == len(text)
        assert np.frombuffer(line_ids, dtype=np.int32).shape[0] == len(text)


BAD_FILES = [
    ("empty.pdf", 422, "empty_file"),
    ("bug_325_a.pdf", 422, "corrupt_pdf"),
    ("fuzzed_poppler-742-0.pdf", 422, "corrupt_pdf"),
    ("header_plus_eof_invalid.pdf", 422, "corrupt_pdf"),
    ("zero_pages_poppler-395-0.pdf", 422, "no_pages"),
    ("enc_password-example.pdf", 422, "encrypted_pdf"),
    ("trunc_scan-bad.pdf", 422, "no_text_layer"),
]


@pytest.mark.parametrize(("name", "status", "code"), BAD_FILES)
def test_upload_bad_pdf_is_refused_leaving_nothing(
    client: TestClient, runtime: Runtime, name: str, status: int, code: str
) -> None:
    pdf = corpus_path("bad", name).read_bytes()
    response = upload(client, pdf, name=name)
    assert response.status_code == status, response.text
    assert response.headers["content-type"] == "application/problem+json"
    body = response.json()
    assert body["code"] == code
    assert {"type", "title", "status", "detail"} <= body.keys()
    assert row_counts(runtime) == dict.fromkeys(TABLES, 0)
    assert not [
        p for p in (runtime.settings.citelock_data_dir / "uploads").rglob("*") if p.is_file()
    ]


def test_refused_upload_names_the_users_file_never_a_server_path(
    client: TestClient, runtime: Runtime
) -> None:
    refused = 0
    for path in sorted(corpus_path("bad").iterdir()):
        name = f"my {path.name}"
        response = upload(client, path.read_bytes(), name=name)
        if response.status_code < 400:
            continue
        refused += 1
        detail = response.json()["detail"]
        assert detail.startswith(f"{name}: "), detail
        assert "/" not in detail and "upload-" not in detail, detail
    assert refused >= len(BAD_FILES)


@pytest.mark.parametrize(
    "name", ["enc_owner-only_test-2333.pdf", "rebuildxref_error_notrailer.pdf"]
)
def test_upload_repairable_or_owner_locked_pdf_ingests(client: TestClient, name: str) -> None:
    response = upload(client, corpus_path("bad", name).read_bytes(), name=name)
    assert response.status_code == 201, response.text


def test_upload_encrypted_pdf_with_password(client: TestClient) -> None:
    pdf = corpus_path("bad", "enc_password-example.pdf").read_bytes()
    wrong = upload(client, pdf, password="nope")
    assert wrong.json()["code"] == "encrypted_pdf"
    response = upload(client, pdf, password="test")
    assert response.status_code == 201, response.text
    assert response.json()["page_count"] == 4


def test_upload_scanned_pdf_is_read_by_ocr_in_the_background(client: TestClient) -> None:
    pdf = corpus_path("docs", "scan_huckfinn_multipage.pdf").read_bytes()
    response = upload(client, pdf)
    # Six pages to read by OCR weigh as sixty of text: past the threshold, a worker's job.
    assert response.status_code == 202, response.text
    assert response.json()["status"] == "processing"


def test_upload_scanned_pdf_without_ocr_has_no_text_layer(runtime: Runtime) -> None:
    settings = runtime.settings.model_copy(update={"ocr": "off"})
    pdf = corpus_path("docs", "scan_huckfinn_multipage.pdf").read_bytes()
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        assert upload(client, pdf).json()["code"] == "no_text_layer"


def test_upload_non_pdf_is_415(client: TestClient, runtime: Runtime) -> None:
    response = upload(client, b"GIF89a not a pdf at all" * 10, name="cat.pdf")
    assert response.status_code == 415
    assert response.json()["code"] == "not_a_pdf"
    assert row_counts(runtime) == dict.fromkeys(TABLES, 0)


def test_upload_over_limit_is_413(limited_client: TestClient, sample_pdf: bytes) -> None:
    assert len(sample_pdf) > 1024
    response = upload(limited_client, sample_pdf)
    assert response.status_code == 413
    assert response.json()["code"] == "file_too_large"


def test_upload_far_over_limit_is_refused_before_parsing(limited_client: TestClient) -> None:
    body = b"%PDF-1.7 " + b"x" * (200 * 1024)
    declared = upload(limited_client, body)
    assert declared.status_code == 413
    assert declared.json()["code"] == "file_too_large"
    form = (
        b'--x\r\nContent-Disposition: form-data; name="file"; filename="a.pdf"\r\n'
        b"Content-Type: application/pdf\r\n\r\n" + body + b"\r\n--x--\r\n"
    )
    chunked = limited_client.post(  # no Content-Length: the body arrives in pieces
        "/api/v1/documents",
        content=(form[i : i + 8192] for i in range(0, len(form), 8192)),
        headers={"content-type": "multipart/form-data; boundary=x"},
    )
    assert chunked.status_code == 413
    assert chunked.json()["code"] == "file_too_large"


def test_upload_without_file_is_422(client: TestClient) -> None:
    response = client.post("/api/v1/documents", data={"collection": "x"})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"


def test_unknown_route_is_404_problem(client: TestClient) -> None:
    response = client.get("/api/v1/nothing-here")
    assert response.status_code == 404
    assert response.json()["code"] == "not_found"


def test_health_ready_and_docs(client: TestClient) -> None:
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.get("/readyz").json() == {"status": "ready"}
    paths = client.get("/openapi.json").json()["paths"]
    assert "/api/v1/documents/{document_id}/pages/{page_number}.png" in paths
    docs = client.get("/docs")
    assert docs.status_code == 200
    assert "cdn" not in docs.text and "/docs-assets/swagger-ui-bundle.js" in docs.text
    assert client.get("/docs-assets/swagger-ui-bundle.js").status_code == 200
    assert client.get("/redoc").status_code == 200
    assert client.get("/docs-assets/redoc.standalone.js").status_code == 200
    home = client.get("/", follow_redirects=False)
    assert home.status_code == 307 and home.headers["location"] == "/docs"


def test_uploads_leave_no_files(client: TestClient, runtime: Runtime, sample_pdf: bytes) -> None:
    upload(client, sample_pdf)
    uploads: Path = runtime.settings.citelock_data_dir / "uploads"
    assert not [p for p in uploads.rglob("*") if p.is_file()]


def test_request_id_is_echoed_or_made(client: TestClient) -> None:
    given = client.get("/healthz", headers={"X-Request-ID": "abc-123"})
    assert given.headers["x-request-id"] == "abc-123"
    made = client.get("/healthz", headers={"X-Request-ID": "bad id\nwith newline"})
    assert made.headers["x-request-id"] != "bad id\nwith newline"
    missing = client.get(f"/api/v1/documents/{uuid.uuid4()}", headers={"X-Request-ID": "r-1"})
    assert missing.json()["request_id"] == "r-1"


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("../../etc/passwd.pdf", "passwd.pdf"),
        ("C:\\Users\\me\\paper.pdf", "paper.pdf"),
        ("x" * 1000 + ".pdf", "x" * 251 + ".pdf"),
    ],
)
def test_upload_filename_is_stored_safely(
    client: TestClient, runtime: Runtime, sample_pdf: bytes, given: str, stored: str
) -> None:
    response = upload(client, sample_pdf, name=given, collection=given[:20].replace("\x00", ""))
    assert response.status_code == 201, response.text
    assert response.json()["filename"] == stored
    assert not [
        p for p in (runtime.settings.citelock_data_dir / "uploads").rglob("*") if p.is_file()
    ]
