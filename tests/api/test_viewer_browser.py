"""The viewer in a real browser (tests/helpers/browser.py). A screenshot of each viewer page is kept
in test-artifacts/."""

from __future__ import annotations

import httpx
import pytest

from app.api.viewer import PAGE_SCALE
from tests.helpers.browser import ARTIFACTS, playwright_api
from tests.helpers.corpus import corpus_path

CASES = {
    "sample": (None, "how does a tracing compiler speed up hot loops"),
    "tracemonkey": ("tracemonkey.pdf", "How does TraceMonkey record and compile hot loops?"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_viewer_in_a_browser(
    case: str, live_url: str, chromium_endpoint: str, sample_pdf: bytes
) -> None:
    sync_playwright = playwright_api().sync_playwright
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
        # A quote's link jumps to its first marked line, which then stands in view.
        page.locator("blockquote mark a").last.click()
        anchor = page.url.rsplit("#", 1)[1]
        assert anchor.startswith("mark-")
        assert page.evaluate(IN_VIEW, anchor)
        browser.close()
    assert problems == []
    # Each mark sits where a cited line's rectangle, in points scaled to the image, says.
    rects = [rect for item in body["highlighted_sources"] for rect in item["rects"]]
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

IN_VIEW = """id => {
    const box = document.getElementById(id).getBoundingClientRect();
    return box.top >= 0 && box.bottom <= window.innerHeight;
}"""
"""Whether the element with this id lies inside the viewport."""
