"""Bearer API keys on every /api/v1 route, when `API_KEYS` is set, checked from the headers
before a byte of the body is read; or a signed link's token on the routes a browser opens.

A dependency would run only after FastAPI had read and parsed the body: a 94 MB JSON body
with no key was parsed on the event loop for two seconds, and a multipart upload spooled to
disk, before its 401. Here the refusal goes out before the body is asked for, so the body
is never read (a client sending `Expect: 100-continue` never even sends it).
"""

from __future__ import annotations

import hmac
import re
from urllib.parse import parse_qs

from starlette.types import ASGIApp, Receive, Scope, Send

from app.api.problems import problem
from app.core.access import Access, ApiKey
from app.core.config import Settings
from app.core.errors import CitelockError, Forbidden, Unauthorized
from app.core.links import link_is_valid, response_scope

API_PREFIX = "/api/v1/"

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

READ_ONLY_POSTS = frozenset({"/api/v1/query"})
"""POST routes that only read: a question carries a body but changes nothing."""

LINKABLE_PATH = re.compile(
    r"/api/v1/(viewer|documents/[0-9A-Fa-f-]{36}/(annotated\.pdf|pages/\d+\.png))"
)
"""The routes a browser opens from a link (an <iframe>, an <a>, an <img>): a token scoped to
the response named by their `response_id` opens them. The routes check that a document is
one the response cites."""


def matching_key(keys: tuple[ApiKey, ...], token: str) -> ApiKey | None:
    """Returns the key equal to `token`, comparing with every key in constant time, so the
    response time tells nothing about how much of a key was guessed, nor which one."""
    given = token.encode()
    found = None
    for key in keys:
        if hmac.compare_digest(key.secret, given):
            found = key
    return found


def is_write(method: str, path: str) -> bool:
    return method not in READ_METHODS and path.rstrip("/") not in READ_ONLY_POSTS


def opens_by_link(settings: Settings, scope: Scope) -> bool:
    """Returns whether the request is a read of a linkable route with a valid token for the
    response it names."""
    if scope["method"] not in ("GET", "HEAD") or not LINKABLE_PATH.fullmatch(scope["path"]):
        return False
    query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
    tokens, responses = query.get("token", []), query.get("response_id", [])
    if len(tokens) != 1 or len(responses) != 1:
        return False
    return link_is_valid(settings, tokens[0], response_scope(responses[0]))


def refusal(settings: Settings, scope: Scope) -> CitelockError | None:
    """Returns why the request may not proceed, or None."""
    keys = settings.parsed_api_keys
    if not keys or not scope["path"].startswith(API_PREFIX):
        return None
    headers = dict(scope["headers"])
    credentials = headers.get(b"authorization", b"").decode("latin-1")
    method, _, token = credentials.partition(" ")
    key = matching_key(keys, token.strip()) if method.lower() == "bearer" else None
    if key is None:
        if opens_by_link(settings, scope):
            return None
        return Unauthorized("send Authorization: Bearer KEY with a key this service knows")
    if key.access is not Access.write and is_write(scope["method"], scope["path"]):
        return Forbidden("this key may read and query only; writing needs a read-write key")
    return None


class ApiKeyMiddleware:
    def __init__(self, app: ASGIApp, *, settings: Settings) -> None:
        self.app = app
        self.settings = settings

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        refused = refusal(self.settings, scope) if scope["type"] == "http" else None
        if refused is None:
            await self.app(scope, receive, send)
            return
        response = problem(refused.status, refused.code, refused.detail, title=refused.title)
        response.headers.update(refused.headers)
        await response(scope, receive, send)
