"""The service on a real socket in a thread (the client tests), and quick workers' settings."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import sqlalchemy as sa
import uvicorn

from app.flows.runtime import Runtime
from app.main import create_app

CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"
BACKGROUND_PAGES = 3
"""Uploads of more pages than this go to the worker: the two-page sample is ingested at
once, `long_pdf(BACKGROUND_PAGES + 2)` in the background."""
READ_WRITE, READ_ONLY = "client-rw-key-0123", "client-ro-key-0123"


def loopback_socket() -> socket.socket:
    """Returns a socket bound to a free loopback port, not yet listening: connecting to it is
    refused until a server takes it."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", 0))
    return sock


def socket_url(sock: socket.socket) -> str:
    host, port = sock.getsockname()
    return f"http://{host}:{port}"


class ServiceThread:
    """An ASGI app served by uvicorn on a thread of this process, on a given socket."""

    def __init__(self, app: Any, sock: socket.socket) -> None:
        config = uvicorn.Config(app, log_level="warning", lifespan="on")
        self.server = uvicorn.Server(config)
        self.sock = sock
        self.thread = threading.Thread(
            target=self.server.run, kwargs={"sockets": [sock]}, daemon=True
        )

    def start(self) -> ServiceThread:
        self.thread.start()
        while not self.server.started:
            if not self.thread.is_alive():
                raise RuntimeError("the service did not start")
            self.thread.join(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join()


class StatusRecorder:
    """ASGI middleware noting the path and status of every answer, and signalling the first
    answer of a given status: how a test sees the service refuse before the client retries."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.answers: list[tuple[str, int]] = []
        self.watched: dict[int, threading.Event] = {}

    def event(self, status: int) -> threading.Event:
        return self.watched.setdefault(status, threading.Event())

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        async def recording_send(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.answers.append((scope["path"], message["status"]))
                self.event(message["status"]).set()
            await send(message)

        await self.app(scope, receive, recording_send)


def serve(runtime: Runtime, sock: socket.socket | None = None) -> tuple[ServiceThread, str]:
    """Returns the started service over `runtime` and its base URL."""
    sock = sock or loopback_socket()
    service = ServiceThread(create_app(runtime.settings, runtime=runtime), sock).start()
    return service, socket_url(sock)


def empty_tables(runtime: Runtime) -> None:
    with runtime.engine.begin() as connection:
        connection.execute(
            sa.text("TRUNCATE documents, responses, ingest_jobs, procrastinate_jobs CASCADE")
        )


WORKER_SETTINGS = {
    "background_page_threshold": 0,
    "ingest_batch_pages": 4,
    "worker_heartbeat_seconds": 0.5,
    "worker_stalled_seconds": 3.0,
    "worker_poll_seconds": 0.2,
}
"""Every upload goes to a worker; a killed worker is noticed within seconds."""


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])
