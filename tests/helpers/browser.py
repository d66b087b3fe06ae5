"""A real browser for the tests: Debian's chromium, headless, driven over CDP by playwright,
and the service as a real uvicorn server (a browser cannot reach TestClient's in-process app).

Without chromium or playwright the browser tests skip with a reason, except under CI (the
`CI` variable set), where they fail: a green CI run must not hide a broken viewer or /docs.
The tests launch chromium themselves and connect to it, so no browser build is downloaded.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from app.flows.runtime import Runtime
from tests.helpers.service import serve

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
START_TIMEOUT_S = 60.0
"""How long the server or the browser may take to come up before the test gives up."""


def missing(reason: str) -> None:
    """Fails the test under CI, skips it elsewhere."""
    if os.environ.get("CI"):
        pytest.fail(f"{reason}, and CI runs every browser test")
    pytest.skip(reason)


def chromium_path() -> str:
    found = shutil.which("chromium")
    if found is None:
        missing("chromium is not installed (Debian: apt-get install chromium)")
    assert found is not None
    return found


def playwright_api() -> ModuleType:
    try:
        import playwright.sync_api
    except ImportError:
        missing("playwright is not installed (pip install '.[test]')")
    return playwright.sync_api


def wait_for(ready: Any, what: str) -> Any:
    """Returns `ready()` once it is truthy, polling; fails the test after START_TIMEOUT_S."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"{what} did not start within {START_TIMEOUT_S:.0f} s")


@contextmanager
def served(runtime: Runtime) -> Iterator[str]:
    """Yields the base URL of the service on 127.0.0.1, served by uvicorn in a thread."""
    service, url = serve(runtime)
    try:
        yield url
    finally:
        service.stop()


@contextmanager
def chromium(profile: Path) -> Iterator[str]:
    """Yields the DevTools HTTP endpoint of a headless chromium launched here."""
    command = [
        chromium_path(), "--headless", "--no-sandbox", "--disable-gpu",
        "--remote-debugging-port=0", f"--user-data-dir={profile}", "--no-first-run",
        "--hide-scrollbars", "about:blank",
    ]  # fmt: skip
    profile.mkdir(parents=True, exist_ok=True)
    with (profile.parent / "chromium.log").open("wb") as log:
        process = subprocess.Popen(command, stdout=log, stderr=log)
    try:
        # Chromium writes the port it chose into the profile once DevTools listens.
        active = profile / "DevToolsActivePort"
        port = wait_for(lambda: active.exists() and active.read_text().split("\n")[0], "chromium")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
