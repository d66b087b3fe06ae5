"""Every request gets an id: the caller's `X-Request-ID` when it is sane, a new one otherwise."""

from __future__ import annotations

import re
import uuid
from contextvars import ContextVar

from starlette.types import ASGIApp, Message, Receive, Scope, Send

HEADER = b"x-request-id"
ACCEPTED = re.compile(r"[A-Za-z0-9._:-]{1,128}")
"""What a caller's id may look like: anything else could smuggle text into logs."""

current_request_id: ContextVar[str] = ContextVar("request_id", default="")


class RequestIdMiddleware:
    """Sets `current_request_id` for the request and echoes it in the response headers.

    A plain ASGI middleware, not BaseHTTPMiddleware: it adds no task or stream copy to
    every request's latency.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        given = dict(scope["headers"]).get(HEADER, b"").decode("latin-1")
        request_id = given if ACCEPTED.fullmatch(given) else uuid.uuid4().hex
        token = current_request_id.set(request_id)

        async def send_with_id(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(k, v) for k, v in message.get("headers", []) if k != HEADER]
                message["headers"] = [*headers, (HEADER, request_id.encode())]
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        finally:
            current_request_id.reset(token)
