"""Long uploads go to a worker: 202 with a job to poll, progress that rises, nothing partial."""

from __future__ import annotations

import dataclasses
import time
import uuid

import pymupdf
import sqlalchemy as sa
from fastapi.testclient import TestClient
from rapidfuzz import fuzz

from app.chunking.flags import OCR
from app.flows.ingest_job import run_ingest_job, store_progress
from app.flows.ingest_stages import chunking_params, ingest_limits, page_batches, read_pdf
from app.flows.runtime import Runtime
from app.flows.worker import in_process_worker
from app.pdf.limits import Deadline
from app.pdf.reader import open_pdf
from app.pdf.spill import box_spill
from tests.helpers.clients import client_for
from tests.helpers.pdfs import long_pdf, text_pdf
from tests.helpers.scans import image_only_pdf

POLL_SECONDS = 0.05


def poll_until_done(client: TestClient, job_url: str) -> list[dict[str, object]]:
    """Returns every state of the job seen until it left `processing`."""
    seen = []
    while True:
        job = client.get(job_url).json()
        seen.append(job)
        if job["status"] != "processing":
            return seen
        time.sleep(POLL_SECONDS)


def stored_counts(runtime: Runtime, document_id: str) -> tuple[int, int, int]:
    """Returns the stored pages, chunks and distinct chunk ordinals of a document."""
    with runtime.engine.connect() as connection:
        row = connection.execute(
            sa.text(
                "SELECT (SELECT count(*) FROM pages WHERE document_id = :id), "
                "count(*), count(DISTINCT ordinal) FROM chunks WHERE document_id = :id"
            ),
            {"id": document_id},
        ).one()
    return int(row[0]), int(row[1]), int(row[2])


def test_a_300_page_upload_reports_rising_progress_to_completion(
    jobs_client: TestClient, jobs_runtime: Runtime
) -> None:
    worker = in_process_worker(jobs_runtime)
    accepted = jobs_client.post("/api/v1/documents", files={"file": ("long.pdf", long_pdf(300))})
    assert accepted.status_code == 202
    body = accepted.json()
    assert body["status"] == "processing"
    assert body["job_url"].startswith("/api/v1/jobs/")
    # Queued but not finished: invisible to listings and reads.
    assert jobs_client.get("/api/v1/documents").json()["count"] == 0
    assert jobs_client.get(f"/api/v1/documents/{body['id']}").status_code == 404

    worker.start()
    try:
        seen = poll_until_done(jobs_client, body["job_url"])
    finally:
        worker.stop()
    done = [job["pages_done"] for job in seen]
    assert done == sorted(done)
    assert any(0 < pages < 300 for pages in done), done
    final = seen[-1]
    assert final["status"] == "ready", final
    assert final["error"] is None
    assert final["pages_done"] == final["page_count"] == 300

    document = jobs_client.get(f"/api/v1/documents/{body['id']}").json()
    assert document["status"] == "ready"
    assert document["page_count"] == 300
    assert document["chunk_count"] == final["chunks_done"] > 0
    pages, chunks, ordinals = stored_counts(jobs_runtime, body["id"])
    assert (pages, chunks, ordinals) == (300, document["chunk_count"], document["chunk_count"])
    assert jobs_client.get("/api/v1/documents").json()["count"] == 1


def test_a_scan_is_read_by_ocr_in_a_job_whose_progress_rises_page_by_page(
    jobs_runtime: Runtime,
) -> None:
    # Short lines: recognition gives up on full-width lines of dense text and reads them again
    # in halves, which took 15 s of the test's 21 for two pages.
    source = text_pdf(
        f"Chapter {number}.\nPage {number} describes how citation locking\n"
        "ties each claim to its page."
        for number in (1, 2)
    )
    scan = image_only_pdf(source, range(1, 3), dpi=150)
    settings = jobs_runtime.settings.model_copy(update={"ocr_dpi": 150})
    runtime = dataclasses.replace(jobs_runtime, settings=settings)
    with client_for(runtime) as client:
        accepted = client.post("/api/v1/documents", files={"file": ("scan.pdf", scan)})
        assert accepted.status_code == 202
        worker = in_process_worker(runtime)
        worker.start()
        try:
            seen = poll_until_done(client, accepted.json()["job_url"])
        finally:
            worker.stop()
    done = [job["pages_done"] for job in seen]
    assert done == sorted(done)
    assert any(0 < pages < 2 for pages in done), done
    assert seen[-1]["status"] == "ready" and seen[-1]["pages_done"] == 2
    with jobs_runtime.engine.connect() as connection:
        from_ocr = connection.execute(
            sa.text("SELECT bool_and(from_ocr) FROM pages WHERE document_id = :id"),
            {"id": accepted.json()["id"]},
        ).scalar_one()
        chunks = connection.execute(
            sa.text("SELECT content, flags FROM chunks WHERE document_id = :id"),
            {"id": accepted.json()["id"]},
        ).all()
    assert from_ocr
    assert chunks and all(OCR in flags for _, flags in chunks)
    text = " ".join(content for content, _ in chunks)
    assert (
        fuzz.partial_ratio("Page 2 describes how citation locking ties each claim", text) >= 90
    ), text


def test_the_same_bytes_uploaded_while_queued_name_the_same_job(jobs_client: TestClient) -> None:
    pdf = long_pdf(3)
    first = jobs_client.post("/api/v1/documents", files={"file": ("a.pdf", pdf)})
    again = jobs_client.post("/api/v1/documents", files={"file": ("a.pdf", pdf)})
    assert first.status_code == again.status_code == 202
    assert first.json() == again.json()


def test_an_upload_at_or_under_the_threshold_is_ingested_at_once(
    jobs_runtime: Runtime,
) -> None:
    settings = jobs_runtime.settings.model_copy(update={"background_page_threshold": 3})
    with client_for(dataclasses.replace(jobs_runtime, settings=settings)) as client:
        response = client.post("/api/v1/documents", files={"file": ("a.pdf", long_pdf(3))})
    assert response.status_code == 201
    assert response.json()["status"] == "ready"


def test_an_upload_over_the_page_limit_is_refused_not_queued(jobs_runtime: Runtime) -> None:
    settings = jobs_runtime.settings.model_copy(update={"max_pages": 4})
    with client_for(dataclasses.replace(jobs_runtime, settings=settings)) as client:
        response = client.post("/api/v1/documents", files={"file": ("a.pdf", long_pdf(5))})
        assert response.status_code == 413
        assert response.json()["code"] == "too_many_pages"
        assert client.get("/api/v1/documents").json()["data"] == []
    with jobs_runtime.engine.connect() as connection:
        assert connection.execute(sa.text("SELECT count(*) FROM ingest_jobs")).scalar() == 0


def test_a_pdf_without_text_fails_its_job_with_the_reason(
    jobs_client: TestClient, jobs_runtime: Runtime
) -> None:
    blank = pymupdf.open()
    for _ in range(3):
        blank.new_page()
    accepted = jobs_client.post("/api/v1/documents", files={"file": ("blank.pdf", blank.tobytes())})
    assert accepted.status_code == 202
    job_id = uuid.UUID(accepted.json()["job_url"].rsplit("/", 1)[1])
    assert run_ingest_job(job_id, runtime=jobs_runtime) == "failed"
    job = jobs_client.get(accepted.json()["job_url"]).json()
    assert job["status"] == "failed"
    assert job["error"].startswith("no_text_layer")
    assert job["document_id"] is None
    assert jobs_client.get(f"/api/v1/documents/{accepted.json()['id']}").status_code == 404


def test_a_rerun_after_an_interrupted_run_stores_each_chunk_once(
    jobs_client: TestClient, jobs_runtime: Runtime
) -> None:
    pdf = long_pdf(10)
    accepted = jobs_client.post("/api/v1/documents", files={"file": ("ten.pdf", pdf)}).json()
    job_id = uuid.UUID(accepted["job_url"].rsplit("/", 1)[1])
    document_id = uuid.UUID(accepted["id"])
    # What a worker killed after its batches, before it made the document ready, leaves.
    path = jobs_runtime.settings.citelock_data_dir / "ten.pdf"
    path.write_bytes(pdf)
    limits = ingest_limits(jobs_runtime.settings)
    with box_spill(jobs_runtime.settings.uploads_dir) as spill, open_pdf(path) as opened:
        extracted = read_pdf(
            opened, limits=limits, deadline=Deadline(limits.timeout_seconds), spill=spill
        )
        batches = page_batches(
            extracted,
            spill,
            chunking=chunking_params(jobs_runtime.settings, jobs_runtime.count_tokens),
            embedder=jobs_runtime.embedder,
            batch_pages=jobs_runtime.settings.ingest_batch_pages,
        )
        for batch in batches:
            store_progress(jobs_runtime.sessions, job_id, document_id, batch)
    pages, left_behind, _ = stored_counts(jobs_runtime, accepted["id"])
    assert pages == 10 and left_behind > 0
    assert jobs_client.get("/api/v1/documents").json()["count"] == 0

    assert run_ingest_job(job_id, runtime=jobs_runtime) == "ready"
    job = jobs_client.get(accepted["job_url"]).json()
    pages, chunks, ordinals = stored_counts(jobs_runtime, accepted["id"])
    assert (pages, chunks, ordinals) == (10, left_behind, left_behind)
    assert job["chunks_done"] == left_behind


def test_a_job_interrupted_too_often_fails_with_the_reason(
    jobs_client: TestClient, jobs_runtime: Runtime
) -> None:
    accepted = jobs_client.post("/api/v1/documents", files={"file": ("b.pdf", long_pdf(5))}).json()
    job_id = accepted["job_url"].rsplit("/", 1)[1]
    with jobs_runtime.engine.begin() as connection:
        connection.execute(
            sa.text("UPDATE ingest_jobs SET attempts = :n WHERE id = :id"),
            {"n": jobs_runtime.settings.ingest_max_attempts, "id": job_id},
        )
    assert run_ingest_job(uuid.UUID(job_id), runtime=jobs_runtime) == "failed"
    job = jobs_client.get(accepted["job_url"]).json()
    assert job["status"] == "failed"
    assert "interrupted" in job["error"]
    assert jobs_client.get(f"/api/v1/documents/{accepted['id']}").status_code == 404


def test_a_document_deleted_while_queued_fails_its_job(
    jobs_client: TestClient, jobs_runtime: Runtime
) -> None:
    accepted = jobs_client.post("/api/v1/documents", files={"file": ("c.pdf", long_pdf(5))}).json()
    assert jobs_client.delete(f"/api/v1/documents/{accepted['id']}").status_code == 204
    job_id = uuid.UUID(accepted["job_url"].rsplit("/", 1)[1])
    assert run_ingest_job(job_id, runtime=jobs_runtime) == "failed"
    job = jobs_client.get(accepted["job_url"]).json()
    assert job["status"] == "failed"
    assert "deleted" in job["error"]


def test_an_unknown_job_is_404(jobs_client: TestClient) -> None:
    response = jobs_client.get(f"/api/v1/jobs/{uuid.uuid4()}")
    assert response.status_code == 404
    assert response.json()["code"] == "job_not_found"
