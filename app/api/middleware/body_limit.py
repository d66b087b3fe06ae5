"""Refuses request bodies over their limit, or too slow to arrive, while they arrive.

FastAPI reads a whole body (a multipart form spooled to disk, JSON parsed on the event loop)
before a route runs, so a route's own limit would come after the harm. This middleware
answers 413 as soon as the declared length, or the bytes received so far, pass the limit: an
upload's (MAX_UPLOAD_BYTES) for a multipart form, MAX_JSON_BYTES for anything else. A body
still arriving REQUEST_BODY_TIMEOUT_SECONDS after the request began is cut with 408, so a
client trickling a byte at a time cannot hold a connection and its buffers for ever.
"""

from __future__ import annotations

import asyncio
import time

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import problem
from app.core.config import Settings
from app.core.errors import CitelockError, FileTooLarge, RequestTimeout, RequestTooLarge

FORM_OVERHEAD_BYTES = 64 * 1024
"""Room for the multipart boundaries and the form fields beside the file."""

BODY_METHODS = frozenset({"POST", "PUT", "PATCH"})


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        self.app = app
        self.max_upload_bytes = settings.max_upload_bytes
        self.max_json_bytes = settings.max_json_bytes
        self.timeout_seconds = settings.request_body_timeout_seconds

    def too_large(self, scope: Scope) -> tuple[int, CitelockError]:
        """Returns the body limit of this request and the error past it."""
        content_type = dict(scope["headers"]).get(b"content-type", b"")
        if content_type.lower().startswith(b"multipart/form-data"):
            detail = f"the request is larger than the upload limit of {self.max_upload_bytes} bytes"
            return self.max_upload_bytes + FORM_OVERHEAD_BYTES, FileTooLarge(detail)
        detail = f"the request body is larger than the limit of {self.max_json_bytes} bytes"
        return self.max_json_bytes, RequestTooLarge(detail)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in BODY_METHODS:
            await self.app(scope, receive, send)
            return
        limit, past_limit = self.too_large(scope)
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > limit:
            await refuse(past_limit, scope, receive, send)
            return

        deadline = time.monotonic() + self.timeout_seconds
        received = 0
        started = refused = body_done = False

        async def guarded_receive() -> Message:
            nonlocal received, refused, body_done
            if refused:
                return {"type": "http.disconnect"}
            if body_done:
                return await receive()  # the client's going away: no deadline on that
            try:
                async with asyncio.timeout_at(asyncio.get_running_loop().time() + remaining()):
                    message = await receive()
            except TimeoutError:
                return await cut(RequestTimeout("the request body did not arrive in time"))
            if message["type"] == "http.request":
                body_done = not message.get("more_body", False)
                received += len(message.get("body", b""))
                if received > limit:
                    return await cut(past_limit)
            return message

        def remaining() -> float:
            return max(deadline - time.monotonic(), 0.0)

        async def cut(error: CitelockError) -> Message:
            # Answer now; to the app the client is gone, so it stops reading.
            nonlocal refused
            refused = True
            if not started:
                await refuse(error, scope, receive, send)
            return {"type": "http.disconnect"}

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, guarded_receive, guarded_send)


async def refuse(error: CitelockError, scope: Scope, receive: Receive, send: Send) -> None:
    response = problem(error.status, error.code, error.detail, title=error.title)
    await response(scope, receive, send)
