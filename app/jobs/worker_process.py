"""`citelock worker`: one worker process, stopped cleanly by SIGINT or SIGTERM."""

from __future__ import annotations

import asyncio
import logging
import signal

from prometheus_client import start_http_server

from app.config import Settings
from app.jobs.queue import run_worker
from app.logs import configure_logging
from app.runtime import Runtime, open_runtime

logger = logging.getLogger(__name__)


def run_worker_process(settings: Settings, *, metrics_port: int | None) -> None:
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    if metrics_port is not None:
        start_http_server(metrics_port)
    runtime = open_runtime(settings)
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
    await run_worker(runtime, stop)
