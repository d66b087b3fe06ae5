"""When a failed request is sent again, and after how long."""

from __future__ import annotations

from dataclasses import dataclass

import httpx

from citelock_client._exceptions import ConnectError, ConnectionLost, TransportError

RETRIED_STATUSES = frozenset({503})
"""The service's "not now" (its database or model does not answer): the same request may
succeed in a moment. A 4xx never is: the request itself is wrong."""

MAX_DELAY_SECONDS = 30.0


@dataclass(frozen=True)
class RetryPolicy:
    """Up to `retries` more attempts, waiting `backoff` seconds, then twice that, and so on
    (no jitter: the same failures give the same waits)."""

    retries: int = 3
    backoff: float = 0.5

    def delay(self, attempt: int, retry_after: str | None = None) -> float:
        """Returns how long to wait before attempt `attempt + 1`; a `Retry-After` in seconds
        from the service wins."""
        if retry_after is not None and retry_after.strip().isdigit():
            return min(float(retry_after), MAX_DELAY_SECONDS)
        return float(min(self.backoff * 2**attempt, MAX_DELAY_SECONDS))

    def after_response(self, attempt: int, response: httpx.Response) -> float | None:
        """Returns the wait before sending again after this error answer, or None to give up."""
        if attempt >= self.retries or response.status_code not in RETRIED_STATUSES:
            return None
        return self.delay(attempt, response.headers.get("retry-after"))

    def after_error(self, attempt: int, error: TransportError, *, idempotent: bool) -> float | None:
        """Returns the wait before sending again after no answer came, or None to give up.

        A refused connection means nothing was sent. A connection that broke mid-request may
        have delivered it, so only a request that does no harm twice is sent again. A timeout
        is not retried: the service may still be working on it, and a second copy would only
        add to its load.
        """
        safe = isinstance(error, ConnectError) or (idempotent and isinstance(error, ConnectionLost))
        return self.delay(attempt) if safe and attempt < self.retries else None
