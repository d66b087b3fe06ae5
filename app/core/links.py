"""Signed, expiring links: what a browser opens without an API key (an <iframe>, an <a>).

A token is `EXPIRES.SIGNATURE`, the signature an HMAC-SHA256 with the server's link secret
over the token's scope (`response:ID`: that response's viewer, its annotated PDFs and the
pages it cites) and its expiry. It opens that scope until it expires and nothing else; it
carries no key and cannot be turned into one.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import time

from app.core.config import Settings


def response_scope(response_id: object) -> str:
    return f"response:{response_id}"


def link_secret(settings: Settings) -> bytes:
    """Returns LINK_SECRET, or one derived from API_KEYS: replicas with the same keys agree
    on it with nothing more to configure, and changing the keys revokes every link."""
    given = settings.link_secret.get_secret_value()
    material = given or "citelock-links\n" + settings.api_keys.get_secret_value()
    return hashlib.sha256(material.encode()).digest()


def signature(secret: bytes, scope: str, expires: int) -> str:
    digest = hmac.new(secret, f"{scope}\n{expires}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode("ascii")


def sign_link(settings: Settings, scope: str, *, now: float | None = None) -> str:
    """Returns a token that opens `scope` for LINK_TTL_SECONDS."""
    expires = int((time.time() if now is None else now) + settings.link_ttl_seconds)
    return f"{expires}.{signature(link_secret(settings), scope, expires)}"


def link_is_valid(settings: Settings, token: str, scope: str, *, now: float | None = None) -> bool:
    """Returns whether `token` was signed here for `scope` and has not expired."""
    expires_text, _, given = token.partition(".")
    if not expires_text.isdigit() or len(expires_text) > 12:
        return False
    expires = int(expires_text)
    expected = signature(link_secret(settings), scope, expires)
    fresh = (time.time() if now is None else now) < expires
    return hmac.compare_digest(expected, given) and fresh


def token_query(settings: Settings, scope: str) -> str:
    """Returns `&token=...` for a link into `scope` when API keys guard the API, else ''."""
    if not settings.parsed_api_keys:
        return ""
    return f"&token={sign_link(settings, scope)}"
