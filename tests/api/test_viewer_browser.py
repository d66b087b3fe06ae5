"""The viewer in a real browser: Debian's chromium, headless, driven over CDP by playwright.

The service runs as a real uvicorn server on a free port in a thread (a browser cannot reach
TestClient's in-process app). The test launches chromium itself and connects to it, so no
browser build is downloaded. A screenshot of each viewer page is kept in test-artifacts/.
"""

from __future__ import annotations

import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from app.api.viewer import PAGE_SCALE
from app.flows.runtime import Runtime
from app.main import create_app
from tests.helpers.corpus import corpus_path

CHROMIUM = shutil.which("chromium")
pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="chromium is not installed (Debian: apt-get install chromium)"
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
START_TIMEOUT_S = 60.0
"""How long the server or the browser may take to come up before the test gives up."""


def wait_for(ready: Any, what: str) -> Any:
    """Returns `ready()` once it is truthy, polling; fails the test after START_TIMEOUT_S."""
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        found = ready()
        if found:
            return found
        time.sleep(0.1)
    pytest.fail(f"{what} did not start within {START_TIMEOUT_S:.0f} s")


@pytest.fixture
def live_url(runtime: Runtime) -> Iterator[str]:
    """Yields the base URL of the service on 127.0.0.1, served by uvicorn in a thread."""
    listener = socket.create_server(("127.0.0.1", 0))
    app = create_app(runtime.settings, runtime=runtime)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]}, daemon=True)
    thread.start()
    wait_for(lambda: server.started, "uvicorn")
    yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    server.should_exit = True
    thread.join()
    listener.close()


@pytest.fixture
def chromium_endpoint(tmp_path: Path) -> Iterator[str]:
    """Yields the DevTools HTTP endpoint of a headless chromium this fixture launched."""
    assert CHROMIUM is not None
    profile = tmp_path / "chromium-profile"
    command = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-port=0",
        f"--user-data-dir={profile}", "--no-first-run", "--hide-scrollbars", "about:blank",
    ]  # fmt: skip
    with (tmp_path / "chromium.log").open("wb") as log:
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


CASES = {
    "sample": (None, "how does a tracing compiler speed up hot loops"),
    "tracemonkey": ("tracemonkey.pdf", "How does TraceMonkey record and compile hot loops?"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_viewer_in_a_browser(
    case: str, live_url: str, chromium_endpoint: str, sample_pdf: bytes
) -> None:
    sync_playwright = pytest.importorskip(
        "playwright.sync_api", reason="playwright is not installed (pip install '.[test]')"
    ).sync_playwright
    document, query = CASES[case]
    pdf = corpus_path("docs", document).read_bytes() if document else sample_pdf
    with httpx.Client(base_url=live_url, timeout=120) as client:
        files = {"file": (document or "sample.pdf", pdf, "application/pdf")}
        assert client.post("/api/v1/documents", files=files).status_code == 201
        body = client.post("/api/v1/query", json={"query": query}).raise_for_status().json()
    total_rects = sum(len(item["rects"]) for item in body["highlighted_sources"])
    assert total_rects > 0

    problems: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(chromium_endpoint)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        page.on("requestfailed", lambda request: problems.append(f"failed: {request.url}"))
        page.goto(live_url + body["viewer_url"], wait_until="load")

        assert page.locator(".line-mark").count() == total_rects
        assert page.evaluate(
            "Array.from(document.images).every(i => i.complete && i.naturalWidth > 0)"
        )
        placed = page.evaluate(MARK_RECTS, PAGE_SCALE)
        page.screenshot(path=ARTIFACTS / f"viewer-{case}.png", full_page=True)
        page.locator("nav a").first.click()
        assert page.url.endswith("#page-1")
        browser.close()
    assert problems == []
    # Each mark sits where a cited line's rectangle, in points scaled to the image, says.
    rects = [rect for item in body["highlighted_sources"] for rect in item["rects"]]
    assert placed
    for corners in placed:
        assert any(
            all(abs(a - b) < 1.0 for a, b in zip(corners, rect, strict=True)) for rect in rects
        ), corners


MARK_RECTS = """scale => Array.from(document.querySelectorAll('.line-mark')).map(mark => {
    const image = mark.parentElement.querySelector('img');
    const box = image.getBoundingClientRect(), at = mark.getBoundingClientRect();
    const points = image.naturalWidth / scale / box.width;
    return [at.left - box.left, at.top - box.top, at.right - box.left, at.bottom - box.top]
        .map(pixels => pixels * points);
})"""
"""Each mark's rectangle on its page image, in PDF points (the image is `scale` px a point)."""
