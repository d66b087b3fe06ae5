"""Background ingestion workers: on a thread of the service, or `citelock worker`, a process
of its own stopped cleanly by SIGINT or SIGTERM; both run the ingest flow's jobs."""

from __future__ import annotations

import asyncio
import logging
import signal
from functools import partial

from prometheus_client import start_http_server

from app.core.config import Settings
from app.core.logs import configure_logging
from app.flows.ingest_job import run_ingest_job
from app.flows.runtime import Runtime, open_runtime
from app.jobs.queue import InProcessWorker, run_worker
from app.pdf.uploads import spool_temporary_files

logger = logging.getLogger(__name__)


def in_process_worker(runtime: Runtime) -> InProcessWorker:
    """Returns a worker on a thread of this process, not yet started."""
    return InProcessWorker(
        runtime.engine, runtime.settings, partial(run_ingest_job, runtime=runtime)
    )


def run_worker_process(settings: Settings, *, metrics_port: int | None) -> None:
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    if metrics_port is not None:
        start_http_server(metrics_port)
    runtime = open_runtime(settings)
    spool_temporary_files(settings.uploads_dir)
    try:
        asyncio.run(work_until_signalled(runtime))
    finally:
        runtime.close()


async def work_until_signalled(runtime: Runtime) -> None:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    logger.info("worker ready")
    await run_worker(
        runtime.engine, runtime.settings, partial(run_ingest_job, runtime=runtime), stop
    )
