"""The API docs in a real browser (tests/helpers/browser.py): Swagger UI at /docs and ReDoc
at /redoc render FastAPI's OpenAPI 3.1 and list the operations, fetching nothing elsewhere."""

from __future__ import annotations

import pytest

from tests.helpers.browser import ARTIFACTS, playwright_api

OPERATIONS = ("/api/v1/query", "/api/v1/documents", "/api/v1/viewer")

PAGES = {"docs": "/", "redoc": "/redoc"}
"""Each page and where a reader goes for it: `/` leads to /docs."""

REDOC_LOGO = "https://cdn.redoc.ly/redoc/logo-mini.svg"
BLOCKED_LOGO = (f"{REDOC_LOGO}: csp", f"Loading the image '{REDOC_LOGO}' violates")

RENDERED = "document.body.innerText.includes('/api/v1/query')"


@pytest.mark.parametrize("page_name", list(PAGES))
def test_docs_render_the_operations(page_name: str, live_url: str, chromium_endpoint: str) -> None:
    problems: list[str] = []
    with playwright_api().sync_playwright() as playwright:
        browser = playwright.chromium.connect_over_cdp(chromium_endpoint)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.on("console", lambda m: problems.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda error: problems.append(str(error)))
        # ReDoc runs its search in a worker loaded from a blob: URL of the page's own origin.
        local = (live_url, f"blob:{live_url}")
        page.on(
            "requestfailed",
            lambda r: None if r.url.startswith(local) else problems.append(f"{r.url}: {r.failure}"),
        )
        page.on("response", lambda r: None if r.url.startswith(local) else problems.append(r.url))
        page.goto(live_url + PAGES[page_name], wait_until="load")
        page.wait_for_function(RENDERED, timeout=30_000)
        text = page.inner_text("body")
        page.screenshot(path=ARTIFACTS / f"{page_name}.png")
        browser.close()
    # The one request refused is ReDoc's logo, by the page's policy, before it leaves.
    assert [p for p in problems if not p.startswith(BLOCKED_LOGO)] == []
    assert "Unable to render" not in text
    for path in OPERATIONS:
        assert path in text
