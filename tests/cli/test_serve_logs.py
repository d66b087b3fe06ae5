"""What `citelock serve` prints: readable lines at a terminal, JSON lines otherwise, and a
start-up line with the URL of the docs, without the libraries' routine chatter."""

from __future__ import annotations

import json
import os
import pty
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.core.logs import text_on_terminal
from tests.helpers.service import free_port

REPOSITORY = Path(__file__).resolve().parents[2]
START_TIMEOUT_S = 120.0
LISTENING = (
    "citelock listening on http://127.0.0.1:{port}, API docs at http://127.0.0.1:{port}/docs"
)


def serve_until_listening(
    database_url: str, data_dir: Path, *, terminal: bool, **env: str
) -> list[str]:
    """Returns the lines `citelock serve` writes until it listens, then stops it."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != "LOG_FORMAT"}
    environment.update(
        PYTHONPATH=str(REPOSITORY),
        DATABASE_URL=database_url,
        CITELOCK_DATA_DIR=str(data_dir),
        IN_PROCESS_WORKER="false",
        **env,
    )
    reader, writer = pty.openpty() if terminal else os.pipe()
    command = [
        sys.executable,
        "-c",
        "from app.cli import main; main()",
        "serve",
        "--port",
        str(port),
    ]
    process = subprocess.Popen(command, env=environment, stdout=writer, stderr=writer)
    os.close(writer)
    output = b""
    deadline = time.monotonic() + START_TIMEOUT_S
    try:
        while f"127.0.0.1:{port}/docs".encode() not in output and time.monotonic() < deadline:
            ready, _, _ = select.select([reader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(reader, 65536)
                except OSError:
                    break
                if not chunk:
                    break
                output += chunk
    finally:
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        os.close(reader)
    lines = output.decode().replace("\r\n", "\n").splitlines()
    assert any(LISTENING.format(port=port) in line for line in lines), lines
    return lines


@pytest.fixture
def serve_database(server_url: str) -> str:
    from tests.helpers.database import fresh_database

    return fresh_database(server_url, "citelock_serve_logs")


def test_at_a_terminal_the_start_is_a_few_readable_lines(
    serve_database: str, tmp_path: Path
) -> None:
    lines = serve_until_listening(serve_database, tmp_path, terminal=True)
    assert not any(line.startswith("{") for line in lines), lines
    assert not any("alembic" in line or "Warning" in line for line in lines), lines
    assert len(lines) <= 4, lines


def test_elsewhere_the_lines_are_json(serve_database: str, tmp_path: Path) -> None:
    lines = serve_until_listening(serve_database, tmp_path, terminal=False)
    records = [json.loads(line) for line in lines]
    assert not any(r["logger"].startswith("alembic") for r in records), records
    assert [r["logger"] for r in records][-1] == "citelock"


@pytest.mark.parametrize(
    ("log_format", "on_terminal", "written"),
    [
        ("auto", True, "text"),
        ("auto", False, "json"),
        ("json", True, "json"),
        ("text", False, "text"),
    ],
)
def test_the_format_follows_the_terminal_unless_one_is_asked_for(
    monkeypatch: pytest.MonkeyPatch, log_format: str, on_terminal: bool, written: str
) -> None:
    reader, writer = pty.openpty() if on_terminal else os.pipe()
    with os.fdopen(writer, "w") as stderr:
        monkeypatch.setattr(sys, "stderr", stderr)
        assert text_on_terminal(log_format) == written
    os.close(reader)
