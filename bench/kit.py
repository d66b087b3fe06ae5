"""What the benchmarks share: the database server and databases they measure on, the service
they start, timing and percentiles, and the markdown they write into docs/benchmarks.md.

Also the entry point of the server subprocess (`Server` runs `python -m bench.kit`).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from pgvector.psycopg import register_vector

from app.core.config import Settings

REPOSITORY = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPOSITORY.parent / "shared" / "corpus" / "docs"
BENCHMARKS = REPOSITORY / "docs" / "benchmarks.md"
HEADER = (
    "# Benchmarks\n\n"
    "Figures written by the scripts under `bench/`; each section says how to reproduce it.\n"
)
SHARED_MACHINE = " The machine is shared with other work, so figures are noisy."
SERVICE_APP = "bench.kit:service_app"
"""The app `Server` runs unless told otherwise: the one `citelock serve` runs."""
READY_TIMEOUT_S = 180.0
LOG_TAIL_CHARS = 4000


# Databases


def settings_for(database_url: str, data_dir: Path, **overrides: Any) -> Settings:
    """Returns the service's settings on `database_url`, ignoring any .env file."""
    return Settings(
        database_url=database_url, citelock_data_dir=data_dir, _env_file=None, **overrides
    )


@contextmanager
def database_server(database_url: str, data_dir: Path) -> Iterator[str]:
    """Yields the URL of the server to measure on: DATABASE_URL's (the argument, else the
    environment's), or else an embedded server's, started in `data_dir` and stopped on exit
    (before the folder goes: a running server would keep files open in it)."""
    url = Settings(database_url=database_url, _env_file=None).database_url
    if url:
        yield url
        return
    from app.db.embedded import embedded_database_url, start_embedded_postgres

    server = start_embedded_postgres(data_dir)
    try:
        yield embedded_database_url(server)
    finally:
        server.cleanup()


def fresh_database(server_url: str, name: str) -> str:
    """Returns the URL of database `name` on the server at `server_url`, dropped and created
    anew."""
    admin = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as connection:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    finally:
        admin.dispose()
    return sa.make_url(server_url).set(database=name).render_as_string(hide_password=False)


@contextmanager
def vector_driver(engine: sa.Engine) -> Iterator[Any]:
    """Yields a pooled connection's own psycopg connection, pgvector's types registered, for
    what SQLAlchemy does not do (binary COPY, bare statements); it goes back to the pool with
    autocommit off, as it came."""
    connection = engine.raw_connection()
    driver: Any = connection.driver_connection
    try:
        register_vector(driver)
        yield driver
    finally:
        driver.autocommit = False
        connection.close()


# The service in a subprocess


class Server:
    """A `citelock serve`-like subprocess on 127.0.0.1 and an ephemeral port, while in `with`.

    `app` names a factory, `module:function(database_url, data_dir, highlights) -> ASGI app`,
    as uvicorn names apps; by default the service's own.
    """

    def __init__(
        self,
        database_url: str,
        data_dir: Path,
        *,
        highlights: bool = False,
        app: str = SERVICE_APP,
    ) -> None:
        self.database_url = database_url
        self.data_dir = data_dir
        self.highlights = highlights
        self.app = app
        self.listener = socket.create_server(("127.0.0.1", 0), backlog=128)
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}"
        self.process: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Server:
        fd = self.listener.fileno()
        log = (self.data_dir / "server.log").open("ab")
        command = [sys.executable, "-m", "bench.kit", self.app, self.database_url]
        command += ["--data-dir", str(self.data_dir), "--fd", str(fd)]
        command += ["--highlights"] if self.highlights else []
        self.process = subprocess.Popen(
            command, stdout=log, stderr=log, pass_fds=[fd], cwd=REPOSITORY
        )
        deadline = time.monotonic() + READY_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"the server exited; see {self.data_dir / 'server.log'}")
            try:
                if httpx.get(f"{self.url}/readyz", timeout=5).status_code == 200:
                    return self
            except httpx.TransportError:
                pass  # still loading the model: the socket queues, but nobody accepts yet
            time.sleep(0.5)
        raise RuntimeError(f"the server was not ready within {READY_TIMEOUT_S:.0f} s")

    def __exit__(self, error_type: type[BaseException] | None, *_: object) -> None:
        if error_type is not None:  # the log goes with the temporary folder: show its end
            log = (self.data_dir / "server.log").read_text(errors="replace")
            print(f"server log, last lines:\n{log[-LOG_TAIL_CHARS:]}", file=sys.stderr)
        if self.process is not None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.listener.close()


def service_app(database_url: str, data_dir: Path, highlights: bool) -> Any:
    """Returns the app `citelock serve` runs, its logging configured as there."""
    from app.core.logs import configure_logging
    from app.main import create_app

    settings = settings_for(database_url, data_dir, enable_highlights=highlights)
    # As `citelock serve` runs it: the service's own JSON access line, not uvicorn's.
    configure_logging(level=settings.log_level, log_format=settings.log_format)
    return create_app(settings)


def serve(argv: Sequence[str] | None = None) -> None:
    """Runs a `Server`'s app on the listening socket it passes until terminated; the parent
    binds the socket, so that it knows the ephemeral port without a race."""
    import uvicorn
    from uvicorn.importer import import_from_string

    parser = argparse.ArgumentParser(description="The server subprocess of the benchmarks.")
    parser.add_argument("app")
    parser.add_argument("database_url")
    parser.add_argument("--data-dir", type=Path, required=True)
    parser.add_argument("--fd", type=int, required=True)
    parser.add_argument("--highlights", action="store_true")
    args = parser.parse_args(argv)
    listener = socket.socket(fileno=args.fd)
    app = import_from_string(args.app)(args.database_url, args.data_dir, args.highlights)
    config = uvicorn.Config(app, log_config=None, access_log=False)
    uvicorn.Server(config).run(sockets=[listener])


# Measuring


def timed(call: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    """Returns the milliseconds `call(*args)` took, and what it returned."""
    started = time.perf_counter()
    result = call(*args)
    return (time.perf_counter() - started) * 1000, result


def percentiles(samples: npt.ArrayLike) -> tuple[float, float, float]:
    """Returns the p50, p95 and p99 of `samples`."""
    p50, p95, p99 = np.percentile(samples, [50, 95, 99])
    return float(p50), float(p95), float(p99)


# Writing the figures


def table_head(columns: str, align: str) -> list[str]:
    """Returns a markdown table's header and rule: `columns` as the header reads, separated by
    " | "; `align` an `l` (text) or `r` (figure) per column."""
    names = columns.split(" | ")
    if len(align) != len(names):
        raise ValueError(f"{len(names)} columns but {len(align)} alignments: {align!r}")
    rule = "|" + "".join({"l": "---|", "r": "---:|"}[side] for side in align)
    return [table_row(*names), rule]


def table_row(*cells: object) -> str:
    """Returns one markdown table row of `cells`."""
    return "|" + "|".join(f" {cell} " if str(cell) else " " for cell in cells) + "|"


def machine_summary(*, shared: bool = False) -> str:
    """Returns one line naming the CPU, cores, memory and Python this ran on; with `shared`,
    a warning that other work shared the machine."""
    cpu = platform.processor() or platform.machine()
    cpuinfo = Path("/proc/cpuinfo")
    if cpuinfo.exists():
        found = re.search(r"model name\s*:\s*(.+)", cpuinfo.read_text())
        cpu = found.group(1).strip() if found else cpu
    memory = ""
    meminfo = Path("/proc/meminfo")
    if meminfo.exists():
        found = re.search(r"MemTotal:\s*(\d+) kB", meminfo.read_text())
        memory = f", {int(found.group(1)) / 2**20:.0f} GiB" if found else ""
    # Other work on the machine slows every figure: the load says how much there was.
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    return (
        f"Machine: {cpu}, {os.cpu_count()} cores{memory}, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}; load average {load} at the end of the run; "
        f"measured {date.today().isoformat()}." + (SHARED_MACHINE if shared else "")
    )


def write_section(path: Path, title: str, body: str) -> None:
    """Replaces (or appends) the `## title` section of the benchmarks file."""
    text = path.read_text() if path.exists() else HEADER
    section = f"## {title}\n\n{body.strip()}\n"
    pattern = re.compile(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", re.S | re.M)
    if pattern.search(text):
        text = pattern.sub(lambda _: section + "\n", text).rstrip() + "\n"
    else:
        text = text.rstrip() + "\n\n" + section
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def text_pdf(
    pages: Iterable[str], *, box: tuple[float, float, float, float], fontsize: float
) -> bytes:
    """Returns a PDF with one page per text, each set in `box` at `fontsize`."""
    import pymupdf

    document = pymupdf.open()
    for text in pages:
        document.new_page().insert_textbox(pymupdf.Rect(*box), text, fontsize=fontsize)
    pdf: bytes = document.tobytes()
    document.close()
    return pdf


if __name__ == "__main__":
    serve()
