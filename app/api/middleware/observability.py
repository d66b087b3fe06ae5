"""Per request: the Prometheus counters and latency, and one access log line.

The log line carries the request id, route template, method, status, duration and, where
the route reports one, the result count; never the query text, a header or the body.
"""

from __future__ import annotations

import logging
import time
from contextvars import ContextVar
from typing import Any

from fastapi import APIRouter, Response
from prometheus_client import CONTENT_TYPE_LATEST, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.middleware.request_id import current_request_id
from app.api.route_template import route_template
from app.core import metrics

access_logger = logging.getLogger("citelock.access")

request_log_fields: ContextVar[dict[str, Any] | None] = ContextVar(
    "request_log_fields", default=None
)
"""Fields a route adds to its request's log line. The middleware puts a fresh dict here and
a route fills it in place, so a sync route running in a worker thread (on a copy of the
context) still reaches the middleware's dict."""


def add_log_fields(**fields: Any) -> None:
    holder = request_log_fields.get()
    if holder is not None:
        holder.update(fields)


class ObservabilityMiddleware:
    """A plain ASGI middleware, like RequestIdMiddleware; it must sit inside that one, so the
    request id is set when the line is written."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        status = 500
        fields: dict[str, Any] = {}
        token = request_log_fields.set(fields)

        async def send_with_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, send_with_status)
        finally:
            request_log_fields.reset(token)
            seconds = time.perf_counter() - started
            route = route_template(scope)
            metrics.HTTP_REQUESTS.labels(route, scope["method"], str(status)).inc()
            metrics.HTTP_REQUEST_SECONDS.labels(route, scope["method"]).observe(seconds)
            access_logger.info(
                "%s %s %d",
                scope["method"],
                route,
                status,
                extra={
                    "request_id": current_request_id.get(),
                    "route": route,
                    "method": scope["method"],
                    "status": status,
                    "duration_ms": round(seconds * 1000, 3),
                    **fields,
                },
            )


router = APIRouter(tags=["health"])


@router.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
def prometheus_metrics() -> Response:
    return Response(generate_latest(), media_type=CONTENT_TYPE_LATEST)
