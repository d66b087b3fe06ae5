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
import time
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


def queue_app(engine: Engine, *, wait_seconds: float = 30.0) -> procrastinate.App:
    """Returns a procrastinate app over the engine's database, its tasks registered; its
    connections are waited for `wait_seconds` at most."""
    conninfo = engine.url.set(drivername="postgresql").render_as_string(hide_password=False)
    connector = procrastinate.PsycopgConnector(
        conninfo=conninfo, min_size=1, max_size=4, timeout=wait_seconds
    )
    app = procrastinate.App(connector=connector)
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


RECONNECT_FIRST_SECONDS = 1.0
RECONNECT_MAX_SECONDS = 30.0
"""A worker that lost the database tries again after a pause doubling up to this."""


async def run_worker(
    engine: Engine, settings: Settings, run_ingest_job: RunIngestJob, stop: asyncio.Event
) -> None:
    """Runs one worker and its watch over stalled jobs until `stop` is set, through database
    outages of any length.

    procrastinate's worker stops at the first error from the database (a fetch, a heartbeat,
    its pool waiting for a connection longer than WORKER_DATABASE_WAIT_SECONDS). It is
    started again, on a new pool, after a pause that doubles up to RECONNECT_MAX_SECONDS
    while the database stays away; back, it takes up the queue, and the job it was running
    when the database went away is queued again by the stalled-job watch, since its
    heartbeat stopped with it.
    """
    pause = RECONNECT_FIRST_SECONDS
    while not stop.is_set():
        started = time.monotonic()
        try:
            await run_worker_once(engine, settings, run_ingest_job, stop)
        except Exception as error:
            # One line, no traceback: an outage would otherwise fill the log with the same one.
            logger.warning(
                "the worker lost the database (%s); starting again in %.0f s",
                type(error).__name__,
                pause,
            )
        if stop.is_set():
            return
        if time.monotonic() - started > RECONNECT_MAX_SECONDS:
            pause = RECONNECT_FIRST_SECONDS
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), timeout=pause)
        pause = min(pause * 2, RECONNECT_MAX_SECONDS)


async def run_worker_once(
    engine: Engine, settings: Settings, run_ingest_job: RunIngestJob, stop: asyncio.Event
) -> None:
    """Runs one worker and its watch over stalled jobs until `stop` is set or the worker stops."""
    app = queue_app(engine, wait_seconds=settings.worker_database_wait_seconds)
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
        await asyncio.wait([run, stopping, watch], return_when=asyncio.FIRST_COMPLETED)
        stopping.cancel()
        watch.cancel()
        worker.stop()  # type: ignore[no-untyped-call]
        try:
            await run
        finally:
            with contextlib.suppress(asyncio.CancelledError):
                await watch


WORKER_STOP_SECONDS = 10.0
"""How long stopping the service waits for the in-process worker's job to end. A job still
running then is left to fail with the database going away, and is queued again at the next
start (its heartbeat stopped), so a shutdown never hangs on a long document."""


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

    @property
    def alive(self) -> bool:
        """Whether the worker still runs (reconnecting counts): /readyz reports it when not."""
        return self.thread.is_alive()

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join(WORKER_STOP_SECONDS)
        if self.thread.is_alive():
            logger.warning("the in-process worker is still in a job; it will be queued again")
            return
        self.loop.close()
