"""The task queue (procrastinate on the service's own PostgreSQL) and its workers.

Any number of worker processes, on any machines, take jobs from the one database. A worker
that dies mid-job stops sending heartbeats; every worker watches for such jobs and puts
them back in the queue, where the job's own run cleans up after the dead one.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import threading
import uuid
from collections.abc import Callable

import procrastinate
from procrastinate.worker import Worker
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.core.config import Settings

logger = logging.getLogger(__name__)

INGEST_TASK = "citelock.ingest_document"
INGEST_QUEUE = "ingest"
RETRY_LIMIT = 20
"""More than INGEST_MAX_ATTEMPTS may be: the job fails itself, with its reason, first."""
RETRY_WAIT_SECONDS = 5


RunIngestJob = Callable[[uuid.UUID], str]
"""Ingests the document of the job with this id and returns the job's final status."""


def ingest_document_task(context: procrastinate.JobContext, job_id: str) -> str:
    run_ingest_job: RunIngestJob = context.additional_context["run_ingest_job"]
    return run_ingest_job(uuid.UUID(job_id))


def queue_app(engine: Engine) -> procrastinate.App:
    """Returns a procrastinate app over the engine's database, its tasks registered."""
    conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    app = procrastinate.App(
        connector=procrastinate.PsycopgConnector(conninfo=conninfo, min_size=1, max_size=4)
    )
    # An error run is retried after a pause; the job's own attempt count decides when to stop.
    retry = procrastinate.RetryStrategy(max_attempts=RETRY_LIMIT, wait=RETRY_WAIT_SECONDS)
    app.task(name=INGEST_TASK, queue=INGEST_QUEUE, pass_context=True, retry=retry)(
        ingest_document_task
    )
    return app


@functools.cache
def deferring_app(engine: Engine) -> procrastinate.App:
    """Returns the process's app for queuing jobs, made once: procrastinate registers its
    built-in tasks again in every App it makes. It is never opened: jobs are queued on the
    caller's connection."""
    return queue_app(engine)


def defer_ingestion(session: Session, job_id: uuid.UUID) -> None:
    """Queues the job on the session's own connection: it is queued exactly when the
    session's transaction, which stores the document, commits."""
    connection = session.connection()
    app = deferring_app(connection.engine)
    task = app.configure_task(INGEST_TASK, connection=connection.connection.driver_connection)
    task.defer(job_id=str(job_id))


async def retry_stalled_jobs(app: procrastinate.App, *, stalled_seconds: float) -> int:
    """Returns how many jobs of dead workers (no heartbeat for `stalled_seconds`) were queued
    again."""
    stalled = await app.job_manager.get_stalled_jobs(seconds_since_heartbeat=stalled_seconds)
    for job in stalled:
        logger.warning("job %s was left by a stopped worker: queued again", job.id)
        await app.job_manager.retry_job(job)
    return len(list(stalled))


async def run_worker(
    engine: Engine, settings: Settings, run_ingest_job: RunIngestJob, stop: asyncio.Event
) -> None:
    """Runs one worker and its watch over stalled jobs until `stop` is set."""
    app = queue_app(engine)
    async with app.open_async():
        worker = Worker(
            app,
            queues=[INGEST_QUEUE],
            concurrency=1,
            additional_context={"run_ingest_job": run_ingest_job},
            install_signal_handlers=False,
            update_heartbeat_interval=settings.worker_heartbeat_seconds,
            stalled_worker_timeout=settings.worker_stalled_seconds,
            fetch_job_polling_interval=settings.worker_poll_seconds,
        )
        run = asyncio.create_task(worker.run())  # type: ignore[no-untyped-call]

        async def watch_stalled() -> None:
            while True:
                await retry_stalled_jobs(app, stalled_seconds=settings.worker_stalled_seconds)
                await asyncio.sleep(settings.worker_heartbeat_seconds)

        watch = asyncio.create_task(watch_stalled())
        stopping = asyncio.create_task(stop.wait())
        await asyncio.wait([run, stopping], return_when=asyncio.FIRST_COMPLETED)
        watch.cancel()
        worker.stop()  # type: ignore[no-untyped-call]
        await run
        with contextlib.suppress(asyncio.CancelledError):
            await watch


class InProcessWorker:
    """A worker on a thread of the service's process, for the embedded single-machine setup."""

    def __init__(self, engine: Engine, settings: Settings, run_ingest_job: RunIngestJob) -> None:
        self.loop = asyncio.new_event_loop()
        self.stop_event = asyncio.Event()
        self.thread = threading.Thread(
            target=self.loop.run_until_complete,
            args=(self._run(engine, settings, run_ingest_job),),
            name="citelock-worker",
            daemon=True,
        )

    async def _run(self, engine: Engine, settings: Settings, run_ingest_job: RunIngestJob) -> None:
        try:
            await run_worker(engine, settings, run_ingest_job, self.stop_event)
        except Exception:
            logger.exception("the in-process worker stopped")

    def start(self) -> InProcessWorker:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join()
        self.loop.close()
