"""Every error leaves the service as application/problem+json (RFC 9457) with a stable `code`."""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from http import HTTPStatus
from typing import Any

import psycopg
import psycopg_pool
import sqlalchemy.exc
from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.routing import APIRoute
from jinja2 import Environment, PackageLoader, StrictUndefined
from pydantic import BaseModel, ConfigDict
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Match
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from app.api.middleware.observability import add_log_fields
from app.api.middleware.request_id import current_request_id
from app.core import metrics
from app.core.errors import CitelockError, DatabaseUnavailable, InvalidQuery, InvalidRequest

logger = logging.getLogger(__name__)

PROBLEM_JSON = "application/problem+json"
EMPTY_HEADERS = {"content-length", "content-type"}
"""Headers of the JSON problem that its HTML page does not share."""
PROBLEM_PAGE = Environment(
    loader=PackageLoader("app.api", "templates"), autoescape=True, undefined=StrictUndefined
).get_template("problem.html")


class Problem(BaseModel):
    """The body of every error (RFC 9457), with citelock's stable machine `code`."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    code: str
    request_id: str | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Returns the OpenAPI `responses` entries of these error statuses, as problem+json."""
    content = {PROBLEM_JSON: {"schema": Problem.model_json_schema()}}
    return {
        status: {"description": HTTPStatus(status).phrase, "content": content}
        for status in statuses
    }


HTTP_STATUS_CODES = {
    404: "not_found",
    405: "method_not_allowed",
    413: "file_too_large",
}


def problem(
    status: int,
    code: str,
    detail: str,
    *,
    title: str | None = None,
    headers: Mapping[str, str] | None = None,
    **extra: Any,
) -> JSONResponse:
    metrics.ERRORS.labels(code).inc()
    add_log_fields(code=code)
    body = {
        "type": f"https://citelock.dev/problems/{code}",
        "title": title or HTTPStatus(status).phrase,
        "status": status,
        "detail": detail,
        "code": code,
        "request_id": current_request_id.get(),
        **extra,
    }
    return JSONResponse(body, status_code=status, media_type=PROBLEM_JSON, headers=headers)


def invalid_input(request: Request) -> type[InvalidRequest]:
    """Returns the contract's error for a malformed request to this route."""
    return InvalidQuery if request.url.path.startswith("/api/v1/query") else InvalidRequest


def for_browser(request: Request, response: JSONResponse) -> Response:
    """Returns the problem as an HTML page when a browser opens a page route (the viewer),
    else as it is: a reader who follows an expired link should read why, not JSON."""
    route = request.scope.get("route")
    serves_html = isinstance(route, APIRoute) and route.response_class is HTMLResponse
    if not serves_html or "text/html" not in request.headers.get("accept", ""):
        return response
    body = json.loads(bytes(response.body))
    page = PROBLEM_PAGE.render(title=body["title"], detail=body["detail"], status=body["status"])
    headers = {k: v for k, v in response.headers.items() if k.lower() not in EMPTY_HEADERS}
    return HTMLResponse(page, status_code=response.status_code, headers=headers)


async def handle_citelock_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, CitelockError)
    response = problem(exc.status, exc.code, exc.detail, title=exc.title)
    response.headers.update(exc.headers)
    return for_browser(request, response)


async def handle_validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    errors = [
        {"loc": list(error["loc"]), "msg": error["msg"], "type": error["type"]}
        for error in exc.errors()
    ]
    detail = "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in errors)
    error = invalid_input(request)
    return for_browser(request, problem(422, error.code, detail, title=error.title, errors=errors))


async def handle_http_exception(request: Request, exc: Exception) -> JSONResponse:
    assert isinstance(exc, StarletteHTTPException)
    if exc.status_code == 400:
        # FastAPI's only 400 is a body it could not parse (not UTF-8, broken JSON or
        # multipart): bad input, which the contract answers with 422 and the route's code.
        error = invalid_input(request)
        return problem(422, error.code, str(exc.detail), title=error.title)
    code = HTTP_STATUS_CODES.get(exc.status_code, "http_error")
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        headers["Allow"] = ", ".join(allowed_methods(request))
    return problem(exc.status_code, code, str(exc.detail), headers=headers)


def allowed_methods(request: Request) -> list[str]:
    """Returns every method some route serves at this path.

    Starlette's own `Allow` names only the first route matching the path, yet a path such
    as /documents/{id} has one route per method.
    """
    methods: set[str] = set()
    for route in request.app.router.routes:
        match, _ = route.matches(request.scope)
        if match != Match.NONE:
            methods.update(getattr(route, "methods", None) or ())
    return sorted(methods)


OUTAGE_ERRORS = (
    sqlalchemy.exc.OperationalError,
    sqlalchemy.exc.InterfaceError,
    sqlalchemy.exc.TimeoutError,
    psycopg.OperationalError,
    psycopg.InterfaceError,
    psycopg_pool.PoolTimeout,
)
"""What PostgreSQL stopped, restarting or failing over looks like, through SQLAlchemy, or
straight from psycopg (the queue's connections)."""


def is_database_outage(error: BaseException | None) -> bool:
    """Returns whether the error, or one it was raised from, says the database did not answer."""
    while error is not None:
        if isinstance(error, OUTAGE_ERRORS):
            return True
        if isinstance(error, sqlalchemy.exc.DBAPIError) and error.connection_invalidated:
            return True
        error = error.__cause__ or error.__context__
    return False


def unexpected_problem(error: Exception) -> JSONResponse:
    """Returns the problem for an error no handler took: 503 for a database outage (the same
    request may succeed in a moment), else a 500 that reveals nothing."""
    if is_database_outage(error):
        # No traceback: an outage fails every request the same way, and a traceback each
        # filled the log by megabytes a second. The access line says the rest.
        outage = DatabaseUnavailable("the database does not answer; try again shortly")
        response = problem(outage.status, outage.code, outage.detail, title=outage.title)
        response.headers.update(outage.headers)
        return response
    logger.exception("unhandled error", exc_info=error)
    return problem(500, "internal_error", "The server could not complete the request.")


class UnhandledErrorMiddleware:
    """Answers any error that escapes the routes and their handlers, inside the request id
    and access log middleware, so the answer carries its request id and is logged once.

    An `Exception` handler registered with Starlette runs outside every middleware instead:
    its 500 had no request id, and Starlette raised the error again for the server to log a
    second traceback.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = False

        async def send_tracking_start(message: Message) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, send_tracking_start)
        except Exception as error:
            if started:
                raise  # half a response is out: the server can only close the connection
            await unexpected_problem(error)(scope, receive, send)


def register_problem_handlers(app: FastAPI) -> None:
    app.add_exception_handler(CitelockError, handle_citelock_error)
    app.add_exception_handler(RequestValidationError, handle_validation_error)
    app.add_exception_handler(StarletteHTTPException, handle_http_exception)
