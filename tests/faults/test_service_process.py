"""`citelock serve` as an operator runs it, on the embedded database: killed mid-upload,
started again, started twice on one port. Whatever the exit, the PostgreSQL it started
stops with it, and a crash leaves no upload on disk and no row."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from tests.helpers.pdfs import long_pdf
from tests.helpers.service import free_port

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 180.0
"""How long a start (initdb the first time, migrations, the model) may take on a busy machine
before the test gives up; not a measure of anything."""


@pytest.fixture
def data_dir() -> Iterator[Path]:
    # Not under pytest's temporary folders: the server runs as its own user under root.
    folder = Path(tempfile.mkdtemp(prefix="citelock-serve-"))
    yield folder
    postgres_stopped(folder) or stop_left_postgres(folder)
    shutil.rmtree(folder, ignore_errors=True)


def start_service(data_dir: Path, port: int) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "CITELOCK_DATA_DIR": str(data_dir),
        "DATABASE_URL": "",
        "BACKGROUND_PAGE_THRESHOLD": "1000",
        "LOG_FORMAT": "text",
    }
    command = [sys.executable, "-c", "from app.cli import main; main()", "serve"]
    return subprocess.Popen(
        [*command, "--port", str(port)],
        env=env,
        cwd=data_dir,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )


def wait_ready(service: subprocess.Popen[bytes], url: str) -> None:
    deadline = time.monotonic() + START_SECONDS
    while time.monotonic() < deadline:
        assert service.poll() is None, service.stderr.read().decode() if service.stderr else ""
        try:
            if httpx.get(f"{url}/readyz", timeout=5).status_code == 200:
                return
        except httpx.TransportError:
            pass
        time.sleep(0.3)
    raise AssertionError("the service did not become ready")


def upload_until_cut(url: str, pdf: bytes) -> None:
    """Uploads `pdf`; the service is killed before it answers."""
    with contextlib.suppress(httpx.TransportError):
        httpx.post(f"{url}/api/v1/documents", files={"file": ("long.pdf", pdf)}, timeout=300)


def postgres_stopped(data_dir: Path) -> bool:
    return not (data_dir / "pg" / "postmaster.pid").exists()


def stop_left_postgres(data_dir: Path) -> None:
    pid = int((data_dir / "pg" / "postmaster.pid").read_text().split()[0])
    os.kill(pid, signal.SIGQUIT)


def stop(service: subprocess.Popen[bytes]) -> int:
    service.send_signal(signal.SIGTERM)
    return service.wait(timeout=120)


def test_a_second_serve_on_a_taken_port_exits_at_once_and_the_first_stops_its_postgres(
    data_dir: Path, record_property: pytest.RecordProperty
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = start_service(data_dir, port)
    wait_ready(first, url)

    started = time.perf_counter()
    second = start_service(data_dir, port)
    code = second.wait(timeout=120)
    record_property("second_serve_exit_seconds", round(time.perf_counter() - started, 2))
    message = second.stderr.read().decode() if second.stderr else ""
    assert code != 0
    assert f"cannot listen on 127.0.0.1:{port}" in message
    assert httpx.get(f"{url}/readyz").status_code == 200  # the first one is untouched

    assert stop(first) == 0 or first.returncode == -signal.SIGTERM
    assert postgres_stopped(data_dir)


def test_a_service_killed_mid_upload_leaves_no_file_and_no_row_and_the_next_stops_postgres(
    data_dir: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    first = start_service(data_dir, port)
    wait_ready(first, url)
    spool = data_dir / "uploads" / str(first.pid)

    upload = threading.Thread(target=upload_until_cut, args=(url, long_pdf(300)), daemon=True)
    upload.start()
    deadline = time.monotonic() + START_SECONDS
    while not list(spool.glob("upload-*.pdf")):
        assert time.monotonic() < deadline, "the upload never reached the spool"
        time.sleep(0.02)
    first.send_signal(signal.SIGKILL)
    first.wait()
    assert list(spool.glob("upload-*.pdf")), "killed mid-upload, the spooled file was left"
    assert not postgres_stopped(data_dir), "a killed service cannot stop its PostgreSQL"

    second = start_service(data_dir, port)
    wait_ready(second, url)
    assert not spool.exists(), "the start swept the dead process's spool"
    assert httpx.get(f"{url}/api/v1/documents").json()["count"] == 0
    stop(second)
    assert postgres_stopped(data_dir), "the dead pid in the handle list kept PostgreSQL running"
