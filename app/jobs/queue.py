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

import procrastinate
from procrastinate.worker import Worker
from sqlalchemy import Engine
from sqlalchemy.orm import Session

from app.runtime import Runtime

logger = logging.getLogger(__name__)

INGEST_TASK = "citelock.ingest_document"
INGEST_QUEUE = "ingest"
RETRY_LIMIT = 20
"""More than INGEST_MAX_ATTEMPTS may be: the job fails itself, with its reason, first."""
RETRY_WAIT_SECONDS = 5


def ingest_document_task(context: procrastinate.JobContext, job_id: str) -> str:
    from app.jobs.ingest_job import run_ingest_job

    runtime: Runtime = context.additional_context["runtime"]
    return run_ingest_job(uuid.UUID(job_id), runtime=runtime)


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


async def run_worker(runtime: Runtime, stop: asyncio.Event) -> None:
    """Runs one worker and its watch over stalled jobs until `stop` is set."""
    settings = runtime.settings
    app = queue_app(runtime.engine)
    async with app.open_async():
        worker = Worker(
            app,
            queues=[INGEST_QUEUE],
            concurrency=1,
            additional_context={"runtime": runtime},
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

    def __init__(self, runtime: Runtime) -> None:
        self.loop = asyncio.new_event_loop()
        self.stop_event = asyncio.Event()
        self.thread = threading.Thread(
            target=self.loop.run_until_complete,
            args=(self._run(runtime),),
            name="citelock-worker",
            daemon=True,
        )

    async def _run(self, runtime: Runtime) -> None:
        try:
            await run_worker(runtime, self.stop_event)
        except Exception:
            logger.exception("the in-process worker stopped")

    def start(self) -> InProcessWorker:
        self.thread.start()
        return self

    def stop(self) -> None:
        self.loop.call_soon_threadsafe(self.stop_event.set)
        self.thread.join()
        self.loop.close()
