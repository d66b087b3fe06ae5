"""Every error the client raises, each with the `code` and `status` a caller can act on.

CitelockError                  .code, .status (None when no answer came), .detail
 +-- TransportError            no answer from the service
 |    +-- ConnectError         connect_error: could not connect (retried)
 |    +-- ConnectionLost       connection_lost: the connection broke mid-request (retried
 |    |                        when the request is safe to send again)
 |    +-- Timeout              timeout: no answer within the client's timeout (not retried)
 +-- ServiceError              the service answered with a problem (application/problem+json)
 |    +-- Unauthorized         401 unauthorized
 |    +-- Forbidden            403 forbidden
 |    +-- NotFound             404 document_not_found, page_not_found, response_not_found, ...
 |    +-- ContentTooLarge      413 file_too_large, too_many_pages
 |    +-- UnsupportedMediaType 415 not_a_pdf
 |    +-- UnprocessableContent 422 invalid_query, invalid_request, encrypted_pdf, ...
 |    +-- ServiceUnavailable   503 database_unavailable, embedding_unavailable (after the retries)
 +-- IngestFailed              ingest_failed: a background ingestion job ended `failed`

A `ServiceError` of a status not listed is raised as `ServiceError` itself. httpx's errors never
leave the client: `translate_transport_errors` turns them into `TransportError`s, the original
chained as `__cause__`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx

from citelock_client._models import Job

__all__ = [
    "CitelockError",
    "ConnectError",
    "ConnectionLost",
    "ContentTooLarge",
    "Forbidden",
    "IngestFailed",
    "NotFound",
    "ServiceError",
    "ServiceUnavailable",
    "Timeout",
    "TransportError",
    "Unauthorized",
    "UnprocessableContent",
    "UnsupportedMediaType",
]


class CitelockError(Exception):
    """`code` is the service's stable machine code (or the client's own, for errors with no
    answer); `status` the HTTP status, None when no answer came."""

    def __init__(self, detail: str, *, code: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.status = status

    def __str__(self) -> str:
        status = f"{self.status} " if self.status is not None else ""
        return f"{status}{self.code}: {self.detail}"


class TransportError(CitelockError):
    def __init__(self, detail: str, *, code: str = "transport_error") -> None:
        super().__init__(detail, code=code)


class ConnectError(TransportError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, code="connect_error")


class ConnectionLost(TransportError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, code="connection_lost")


class Timeout(TransportError):
    def __init__(self, detail: str) -> None:
        super().__init__(detail, code="timeout")


class ServiceError(CitelockError):
    """The problem the service answered: `problem` is its whole body (RFC 9457 fields, `code`,
    and any extension such as a validation error's `errors`)."""

    status: int

    def __init__(self, detail: str, *, code: str, status: int, problem: dict[str, Any]) -> None:
        super().__init__(detail, code=code, status=status)
        self.problem = problem
        self.request_id: str | None = problem.get("request_id")


class Unauthorized(ServiceError):
    pass


class Forbidden(ServiceError):
    pass


class NotFound(ServiceError):
    pass


class ContentTooLarge(ServiceError):
    pass


class UnsupportedMediaType(ServiceError):
    pass


class UnprocessableContent(ServiceError):
    pass


class ServiceUnavailable(ServiceError):
    pass


class IngestFailed(CitelockError):
    """A background ingestion ended `failed`; the service has removed the document. `job` is
    the job's last state, whose `error` says why."""

    def __init__(self, detail: str, *, job: Job) -> None:
        super().__init__(detail, code="ingest_failed")
        self.job = job


ERRORS_BY_STATUS: dict[int, type[ServiceError]] = {
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    413: ContentTooLarge,
    415: UnsupportedMediaType,
    422: UnprocessableContent,
    503: ServiceUnavailable,
}


def error_from_response(response: httpx.Response) -> ServiceError:
    """Returns the exception for an error answer, from its problem+json body when it has one
    (a proxy in front of the service may answer with anything)."""
    try:
        body = response.json()
    except ValueError:
        body = None
    problem: dict[str, Any] = body if isinstance(body, dict) else {}
    problem.setdefault("request_id", response.headers.get("x-request-id"))
    error_type = ERRORS_BY_STATUS.get(response.status_code, ServiceError)
    return error_type(
        str(problem.get("detail") or response.reason_phrase or response.text[:200]),
        code=str(problem.get("code") or f"http_{response.status_code}"),
        status=response.status_code,
        problem=problem,
    )


TRANSLATIONS: list[tuple[type[httpx.HTTPError], type[TransportError]]] = [
    # Connecting timed out: nothing was sent, so it is a failure to connect, safe to retry.
    (httpx.ConnectTimeout, ConnectError),
    (httpx.TimeoutException, Timeout),
    (httpx.ConnectError, ConnectError),
    (httpx.ReadError, ConnectionLost),
    (httpx.WriteError, ConnectionLost),
    (httpx.RemoteProtocolError, ConnectionLost),
]
"""The most specific match first."""


@contextmanager
def translate_transport_errors() -> Iterator[None]:
    """Raises httpx's errors inside as the client's own: the one place they are caught."""
    try:
        yield
    except httpx.HTTPError as error:
        translated = next(
            (ours for theirs, ours in TRANSLATIONS if isinstance(error, theirs)), TransportError
        )
        raise translated(str(error) or type(error).__name__) from error
