"""The real service on a loopback port (uvicorn on a thread, with a background worker) for the
client's tests; every test starts from empty tables.

The client is a distribution of its own (clients/python), not a dependency of the service:
its folder goes first on the path here, so `pip install '.[test]' && pytest` tests this
checkout's client without installing it.
"""

from __future__ import annotations

import dataclasses
import socket
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
import uvicorn
from pydantic import SecretStr

from app.flows.runtime import Runtime
from app.flows.worker import in_process_worker
from app.main import create_app
from tests.api.conftest import make_pdf
from tests.jobs.conftest import WORKER_SETTINGS, long_pdf

CLIENT_ROOT = Path(__file__).resolve().parents[2] / "clients" / "python"
sys.path.insert(0, str(CLIENT_ROOT))

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


@pytest.fixture(scope="session")
def client_runtime(open_test_runtime: Callable[[str], Runtime]) -> Iterator[Runtime]:
    """A database of the client tests' own, with a worker taking its background uploads."""
    base = open_test_runtime("citelock_client")
    settings = base.settings.model_copy(
        update={**WORKER_SETTINGS, "background_page_threshold": BACKGROUND_PAGES}
    )
    runtime = dataclasses.replace(base, settings=settings)
    worker = in_process_worker(runtime).start()
    yield runtime
    worker.stop()


@pytest.fixture(scope="session")
def session_service_url(client_runtime: Runtime) -> Iterator[str]:
    service, url = serve(client_runtime)
    yield url
    service.stop()


@pytest.fixture(scope="session")
def session_keyed_service_url(client_runtime: Runtime) -> Iterator[str]:
    """The same service with API keys: `READ_WRITE` may write, `READ_ONLY` only read."""
    settings = client_runtime.settings.model_copy(
        update={"api_keys": SecretStr(f"{READ_WRITE}:rw,{READ_ONLY}:ro")}
    )
    service, url = serve(dataclasses.replace(client_runtime, settings=settings))
    yield url
    service.stop()


def empty_tables(runtime: Runtime) -> None:
    with runtime.engine.begin() as connection:
        connection.execute(
            sa.text("TRUNCATE documents, responses, ingest_jobs, procrastinate_jobs CASCADE")
        )


@pytest.fixture
def service_url(session_service_url: str, client_runtime: Runtime) -> Iterator[str]:
    yield session_service_url
    empty_tables(client_runtime)


@pytest.fixture
def keyed_service_url(session_keyed_service_url: str, client_runtime: Runtime) -> Iterator[str]:
    yield session_keyed_service_url
    empty_tables(client_runtime)


@pytest.fixture(scope="session")
def sample_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The API tests' two-page sample PDF, on disk: the client uploads paths."""
    path = tmp_path_factory.mktemp("client") / "sample.pdf"
    path.write_bytes(make_pdf())
    return path


@pytest.fixture(scope="session")
def long_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PDF long enough to be ingested in the background."""
    path = tmp_path_factory.mktemp("client") / "long.pdf"
    path.write_bytes(long_pdf(BACKGROUND_PAGES + 2))
    return path
