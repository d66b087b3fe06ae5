"""The FastAPI application: routers, problem+json errors, and a lifespan that owns the runtime."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from fastapi.routing import APIRoute

from app import __version__
from app.api.docs import mount_docs
from app.api.middleware.auth import ApiKeyMiddleware
from app.api.middleware.body_limit import BodyLimitMiddleware
from app.api.middleware.observability import ObservabilityMiddleware
from app.api.middleware.observability import router as metrics_router
from app.api.middleware.request_id import RequestIdMiddleware
from app.api.middleware.security_headers import SecurityHeadersMiddleware
from app.api.problems import UnhandledErrorMiddleware, register_problem_handlers
from app.api.router import api_router
from app.api.routes import health
from app.core.config import Settings, get_settings
from app.core.logs import configure_logging
from app.flows.runtime import Runtime, open_runtime
from app.flows.worker import in_process_worker
from app.pdf.uploads import spool_temporary_files


def operation_id(route: APIRoute) -> str:
    """Returns `tag-function` so generated clients get stable, readable names."""
    tag = route.tags[0] if route.tags else "default"
    return f"{tag}-{route.name}"


def create_app(settings: Settings | None = None, runtime: Runtime | None = None) -> FastAPI:
    """Returns the service. A given `runtime` is used as is and left open (tests share one)."""
    settings = settings or get_settings()
    configure_logging(level=settings.log_level, log_format=settings.log_format)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if runtime is not None:
            app.state.runtime = runtime
            yield
            return
        app.state.runtime = open_runtime(settings)
        spool_temporary_files(settings.uploads_dir)
        worker = (
            in_process_worker(app.state.runtime).start()
            if settings.runs_in_process_worker
            else None
        )
        app.state.worker = worker
        try:
            yield
        finally:
            if worker is not None:
                worker.stop()
            app.state.runtime.close()

    app = FastAPI(
        title="citelock",
        version=__version__,
        summary="Citation-locked answers from your PDFs, with page, span and line-box provenance.",
        lifespan=lifespan,
        generate_unique_id_function=operation_id,
        docs_url=None,
        redoc_url=None,
    )
    mount_docs(app)
    register_problem_handlers(app)
    app.add_middleware(UnhandledErrorMiddleware)
    app.add_middleware(BodyLimitMiddleware, settings=settings)
    app.add_middleware(ApiKeyMiddleware, settings=settings)
    app.add_middleware(ObservabilityMiddleware)
    app.add_middleware(RequestIdMiddleware)
    app.add_middleware(SecurityHeadersMiddleware)
    if settings.cors_origin_list:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=settings.cors_origin_list,
            allow_methods=["GET", "POST", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type", "X-Request-ID"],
            expose_headers=["X-Request-ID"],
        )
    app.include_router(health.router)
    app.include_router(metrics_router)
    app.include_router(api_router)
    return app
