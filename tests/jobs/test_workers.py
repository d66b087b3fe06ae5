"""Two `citelock worker` processes drain a queue; one is SIGKILLed mid-document."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.ingest_job import LOCK_NAMESPACE
from app.flows.runtime import Runtime
from tests.helpers.pdfs import long_pdf
from tests.helpers.service import WORKER_SETTINGS

DOCUMENTS = 20
PAGES = 8
WAIT_SECONDS = 600
"""How long the queue may take to drain before the test gives up (not a speed check)."""

WORKER_NAMES = ("citelock-worker-a", "citelock-worker-b")


def worker_env(runtime: Runtime, name: str, data_dir: Path) -> dict[str, str]:
    url = runtime.engine.url.update_query_dict({"application_name": name})
    env = {
        **os.environ,
        "DATABASE_URL": url.render_as_string(hide_password=False),
        "CITELOCK_DATA_DIR": str(data_dir),
        "EMBEDDING_THREADS": "1",
        "INGEST_BATCH_PAGES": "2",
    }
    env.update({key.upper(): str(value) for key, value in WORKER_SETTINGS.items()})
    return env


@pytest.fixture
def workers(jobs_runtime: Runtime, tmp_path: Path) -> Iterator[dict[str, subprocess.Popen[bytes]]]:
    started = {}
    for name in WORKER_NAMES:
        log = (tmp_path / f"{name}.log").open("wb")
        started[name] = subprocess.Popen(
            [sys.executable, "-c", "from app.cli import main; main()", "worker"],
            env=worker_env(jobs_runtime, name, tmp_path / name),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    yield started
    for process in started.values():
        if process.poll() is None:
            process.send_signal(signal.SIGTERM)
            process.wait(timeout=60)


def lock_holders(runtime: Runtime) -> dict[str, uuid.UUID]:
    """Returns, per worker holding a document's lock, the job of that document."""
    with runtime.engine.connect() as connection:
        held = connection.execute(
            sa.text(
                "SELECT a.application_name, l.objid FROM pg_locks l "
                "JOIN pg_stat_activity a ON a.pid = l.pid "
                "WHERE l.locktype = 'advisory' AND l.granted AND l.classid = :ns"
            ),
            {"ns": LOCK_NAMESPACE},
        ).all()
        jobs = connection.execute(
            sa.text("SELECT id, document_id FROM ingest_jobs WHERE status = 'processing'")
        ).all()
    by_key = {(zlib.crc32(doc.bytes) - 2**31) & 0xFFFFFFFF: job for job, doc in jobs if doc}
    return {name: by_key[objid] for name, objid in held if objid in by_key}


def pages_done(runtime: Runtime, job_id: uuid.UUID) -> int:
    with runtime.engine.connect() as connection:
        return int(
            connection.execute(
                sa.text("SELECT pages_done FROM ingest_jobs WHERE id = :id"), {"id": job_id}
            ).scalar_one()
        )


def wait_for(condition: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT_SECONDS
    while not condition():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


def assert_listed_documents_are_whole(client: TestClient, runtime: Runtime) -> list[str]:
    """Returns the listed documents' ids after checking each has all its pages and chunks."""
    listed = client.get("/api/v1/documents", params={"limit": 1000}).json()["data"]
    with runtime.engine.connect() as connection:
        for document in listed:
            pages, chunks, ordinals = connection.execute(
                sa.text(
                    "SELECT (SELECT count(*) FROM pages WHERE document_id = :id), count(*), "
                    "count(DISTINCT ordinal) FROM chunks WHERE document_id = :id"
                ),
                {"id": document["id"]},
            ).one()
            assert pages == document["page_count"] == PAGES
            assert chunks == ordinals == document["chunk_count"] > 0
    return [document["id"] for document in listed]


def test_two_workers_drain_the_queue_and_survive_a_sigkill(
    jobs_client: TestClient,
    jobs_runtime: Runtime,
    workers: dict[str, subprocess.Popen[bytes]],
) -> None:
    queued = [
        jobs_client.post(
            "/api/v1/documents", files={"file": (f"doc{i}.pdf", long_pdf(PAGES, tag=f"doc{i}"))}
        )
        for i in range(DOCUMENTS)
    ]
    assert [r.status_code for r in queued] == [202] * DOCUMENTS

    # Both processes at work at once, then the one with the most of its document still to do
    # is killed, early enough in it that it cannot finish between the look and the kill.
    holders: dict[str, uuid.UUID] = {}
    done: dict[str, int] = {}

    def both_mid_document() -> bool:
        nonlocal holders, done
        holders = lock_holders(jobs_runtime)
        done = {name: pages_done(jobs_runtime, job) for name, job in holders.items()}
        return len(holders) == 2 and all(done.values()) and min(done.values()) <= PAGES // 2

    wait_for(both_mid_document, "both workers to be mid-document")
    victim = min(done, key=lambda name: (done[name], name))
    victim_job = holders[victim]
    workers[victim].send_signal(signal.SIGKILL)
    workers[victim].wait()
    with jobs_runtime.engine.connect() as connection:
        victim_document = connection.execute(
            sa.text("SELECT document_id::text FROM ingest_jobs WHERE id = :id"), {"id": victim_job}
        ).scalar_one()
    assert victim_document not in assert_listed_documents_are_whole(jobs_client, jobs_runtime)

    def drained() -> bool:
        with jobs_runtime.engine.connect() as connection:
            return not connection.execute(
                sa.text("SELECT count(*) FROM ingest_jobs WHERE status = 'processing'")
            ).scalar_one()

    wait_for(drained, "the queue to drain")
    with jobs_runtime.engine.connect() as connection:
        jobs = connection.execute(sa.text("SELECT id, status, attempts FROM ingest_jobs")).all()
    assert len(jobs) == DOCUMENTS
    assert {status for _, status, _ in jobs} == {"ready"}
    assert dict((job, attempts) for job, _, attempts in jobs)[victim_job] == 2
    listed = assert_listed_documents_are_whole(jobs_client, jobs_runtime)
    assert sorted(listed) == sorted(r.json()["id"] for r in queued)
