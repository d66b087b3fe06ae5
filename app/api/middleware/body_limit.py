"""Refuses request bodies over the upload limit while they arrive, before any parsing.

FastAPI parses a multipart form completely (spooling it to disk) before a route runs, so
the route's own limit would come after a huge upload had already been written. This
middleware answers 413 as soon as the declared length, or the bytes received so far, pass
the limit.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.problems import problem

FORM_OVERHEAD_BYTES = 64 * 1024
"""Room for the multipart boundaries and the form fields beside the file."""


class BodyLimitMiddleware:
    def __init__(self, app: ASGIApp, *, max_upload_bytes: int) -> None:
        self.app = app
        self.max_body_bytes = max_upload_bytes + FORM_OVERHEAD_BYTES
        self.max_upload_bytes = max_upload_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] not in ("POST", "PUT", "PATCH"):
            await self.app(scope, receive, send)
            return
        declared = dict(scope["headers"]).get(b"content-length", b"")
        if declared.isdigit() and int(declared) > self.max_body_bytes:
            await self.refuse(scope, receive, send)
            return

        received = 0
        started = refused = False

        async def counted_receive() -> Message:
            nonlocal received, refused
            message = await receive()
            if message["type"] == "http.request" and not started:
                received += len(message.get("body", b""))
                if received > self.max_body_bytes:
                    # Answer now; to the app the client is gone, so it stops reading.
                    refused = True
                    await self.refuse(scope, receive, send)
                    return {"type": "http.disconnect"}
            return message

        async def guarded_send(message: Message) -> None:
            nonlocal started
            if refused:
                return
            started = started or message["type"] == "http.response.start"
            await send(message)

        await self.app(scope, counted_receive, guarded_send)

    async def refuse(self, scope: Scope, receive: Receive, send: Send) -> None:
        detail = f"the request is larger than the upload limit of {self.max_upload_bytes} bytes"
        await problem(413, "file_too_large", detail, title="File too large")(scope, receive, send)
