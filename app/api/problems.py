"""Every error leaves the service as application/problem+json (RFC 9457) with a stable `code`."""

from __future__ import annotations

import logging
from http import HTTPStatus
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from app import metrics
from app.api.request_id import current_request_id
from app.errors import CitelockError

logger = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"

HTTP_STATUS_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "file_too_large",
}


def problem(
    status: int, code: str, detail: str, *, title: str | None = None, **extra: Any
) -> JSONResponse:
    metrics.ERRORS.labels(code).inc()
    body = {
        "type": f"https://citelock.dev/problems/{code}",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": current_request_id.get(),
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON)


def validation_code(request: Request) -> str:
    """Returns the contract's code for a malformed request to this route."""
    return "invalid_query" if request.url.path.startswith("/api/v1/query") else "invalid_request"


async def handle_citelock_error(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, CitelockError)
    response = problem(exc.status, exc.code, exc.detail, title=exc.title)
    response.headers.update(exc.headers)
    return response


async def handle_validation_error(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": list(error["loc"]), "msg": error["msg"], "type": error["type"]}
        for error in exc.errors()
    ]
    detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
    return problem(422, validation_code(request), detail, errors=errors)


async def handle_http_exception(_request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    code = HTTP_STATUS_CODES.get(exc.status_code, "http_error")
    return problem(exc.status_code, code, str(exc.detail))


async def handle_unexpected(_request: Request, exc: Exception) -> JSONResponse:
    logger.exception("unhandled error", exc_info=exc)
    return problem(500, "internal_error", "The server could not complete the request.")


def register_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(CitelockError, handle_citelock_error)
    app.add_exception_handler(RequestValidationError, handle_validation_error)
    app.add_exception_handler(StarletteHTTPException, handle_http_exception)
    app.add_exception_handler(Exception, handle_unexpected)
