"""Bearer API keys on every /api/v1 route, when `API_KEYS` is set."""

from __future__ import annotations

import hmac

from fastapi import Request

from app.api.deps import RuntimeDep
from app.api.route_template import route_template
from app.core.access import Access, ApiKey
from app.core.errors import Forbidden, Unauthorized

READ_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})

READ_ONLY_POSTS = frozenset({"/api/v1/query"})
"""POST routes that only read: a question carries a body but changes nothing."""


def matching_key(keys: tuple[ApiKey, ...], token: str) -> ApiKey | None:
    """Returns the key equal to `token`, comparing with every key in constant time, so the
    response time tells nothing about how much of a key was guessed, nor which one."""
    given = token.encode()
    found = None
    for key in keys:
        if hmac.compare_digest(key.secret, given):
            found = key
    return found


def is_write(request: Request) -> bool:
    return (
        request.method not in READ_METHODS and route_template(request.scope) not in READ_ONLY_POSTS
    )


async def require_api_key(request: Request, runtime: RuntimeDep) -> None:
    """Refuses the request without a known key (401), or a read-only key on a write (403)."""
    keys = runtime.settings.parsed_api_keys
    if not keys:
        return
    scheme, _, token = request.headers.get("authorization", "").partition(" ")
    key = matching_key(keys, token.strip()) if scheme.lower() == "bearer" else None
    if key is None:
        raise Unauthorized("send Authorization: Bearer KEY with a key this service knows")
    if key.access is not Access.write and is_write(request):
        raise Forbidden("this key may read and query only; writing needs a read-write key")
