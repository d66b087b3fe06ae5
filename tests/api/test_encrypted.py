"""A PDF uploaded with its password: its evidence is shown like any other's (viewer, page
images, annotated.pdf), and the password is never stored, logged or queued."""

from __future__ import annotations

import logging

import pymupdf
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime

PASSWORD = "Wr1tten-only-here"
TABLES_WITH_TEXT = ("documents", "document_files", "pages", "chunks", "responses", "ingest_jobs")


def encrypted(pdf: bytes) -> bytes:
    """Returns `pdf` locked with AES-256 behind PASSWORD."""
    with pymupdf.open(stream=pdf) as doc:
        return bytes(
            doc.tobytes(
                encryption=pymupdf.PDF_ENCRYPT_AES_256,
                user_pw=PASSWORD,
                owner_pw=PASSWORD + "-owner",
            )
        )


def test_encrypted_pdf_shows_its_evidence_and_keeps_no_password(
    client: TestClient, runtime: Runtime, sample_pdf: bytes, caplog: pytest.LogCaptureFixture
) -> None:
    locked = encrypted(sample_pdf)
    with pymupdf.open(stream=locked) as doc:
        assert doc.needs_pass
    caplog.set_level(logging.DEBUG)
    files = {"file": ("locked.pdf", locked, "application/pdf")}
    document = client.post("/api/v1/documents", files=files, data={"password": PASSWORD})
    assert document.status_code == 201, document.text
    document_id = document.json()["id"]
    query = {"query": "how does a tracing compiler speed up hot loops"}
    answer = client.post("/api/v1/query", json=query).json()
    assert answer["highlighted_sources"]

    viewer = client.get(answer["viewer_url"])
    assert viewer.status_code == 200 and "data:image/png;base64," in viewer.text
    page = client.get(f"/api/v1/documents/{document_id}/pages/1.png")
    assert page.status_code == 200 and page.content.startswith(b"\x89PNG")
    annotated = client.get(
        f"/api/v1/documents/{document_id}/annotated.pdf",
        params={"response_id": answer["response_id"]},
    )
    assert annotated.status_code == 200, annotated.text
    with pymupdf.open(stream=annotated.content) as doc:
        assert not doc.needs_pass
        assert sum(len(list(p.annots())) for p in doc) >= 1

    assert PASSWORD not in caplog.text
    secret = PASSWORD.encode()
    with runtime.engine.connect() as connection:
        for table in TABLES_WITH_TEXT:
            rows = connection.execute(sa.text(f"SELECT t::text FROM {table} t")).scalars()
            for row in rows:
                assert PASSWORD not in row and secret.hex() not in row, table
