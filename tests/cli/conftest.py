"""The CLI against the test database, and against a live service over real HTTP."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import uvicorn

from app.core.config import get_settings
from app.flows.runtime import Runtime
from app.main import create_app
from tests.helpers.database import fresh_database
from tests.helpers.pdfs import make_text_pdf
from tests.helpers.service import free_port


@pytest.fixture
def pdf_folder(tmp_path: Path) -> Path:
    """A folder with two PDFs (one in a subfolder), a copy of one, and a file that is no PDF."""
    folder = tmp_path / "papers"
    (folder / "nested").mkdir(parents=True)
    (folder / "alpha.pdf").write_bytes(make_text_pdf("Alpha", 3))
    (folder / "nested" / "beta.pdf").write_bytes(make_text_pdf("Beta", 2))
    (folder / "nested" / "alpha-copy.pdf").write_bytes((folder / "alpha.pdf").read_bytes())
    (folder / "notes.txt").write_text("not a PDF")
    return folder


@pytest.fixture
def cli_database(server_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Points the CLI's settings at an empty database of its own."""
    url = fresh_database(server_url, "citelock_cli")
    monkeypatch.setenv("DATABASE_URL", url)
    monkeypatch.setenv("CITELOCK_DATA_DIR", str(tmp_path / "data"))
    get_settings.cache_clear()
    yield url
    get_settings.cache_clear()


@pytest.fixture(scope="session")
def service_runtime(open_test_runtime: Callable[[str], Runtime]) -> Runtime:
    return open_test_runtime("citelock_cli_service")


@pytest.fixture
def live_service(service_runtime: Runtime) -> Iterator[str]:
    """Returns the URL of the service running on a real socket in a thread."""
    runtime = service_runtime
    port = free_port()
    app = create_app(runtime.settings, runtime=runtime)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError("the live service did not start")
        threading.Event().wait(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join()
