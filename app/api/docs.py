"""The OpenAPI docs pages, Swagger UI at /docs and ReDoc at /redoc, served with their own
files: the machine may be offline, and a CDN would see every visit.

The files come from the fastapi-offline package (Swagger UI 5 and ReDoc 2, both of which
read OpenAPI 3.1, which FastAPI writes); only its static folder is used.
"""

from __future__ import annotations

from importlib.resources import files

from fastapi import FastAPI
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

ASSETS = "/docs-assets"
DOCS = "/docs"
REDOC_POLICY = "img-src 'self' data: blob:"
"""ReDoc shows a logo from Redocly's CDN: the browser is told not to fetch it (and ReDoc
then leaves it out), so reading the docs contacts no other site."""


def mount_docs(app: FastAPI) -> None:
    """Serves /docs, /redoc and their files, and sends `GET /` to /docs."""
    assets = files("fastapi_offline") / "static"
    app.mount(ASSETS, StaticFiles(directory=str(assets)), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get("/", include_in_schema=False)
    def home() -> RedirectResponse:
        return RedirectResponse(DOCS)

    @app.get(DOCS, include_in_schema=False)
    def swagger_ui() -> HTMLResponse:
        return get_swagger_ui_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            swagger_js_url=f"{ASSETS}/swagger-ui-bundle.js",
            swagger_css_url=f"{ASSETS}/swagger-ui.css",
            swagger_favicon_url=f"{ASSETS}/favicon.png",
        )

    @app.get("/redoc", include_in_schema=False)
    def redoc() -> HTMLResponse:
        page = get_redoc_html(
            openapi_url=openapi_url,
            title=f"{app.title} API",
            redoc_js_url=f"{ASSETS}/redoc.standalone.js",
            redoc_favicon_url=f"{ASSETS}/favicon.png",
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = REDOC_POLICY
        return page
