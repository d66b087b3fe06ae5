"""Logging for the service, the worker and the CLI: JSON lines or plain text."""

from __future__ import annotations

import logging
import sys
from typing import TextIO

from pythonjsonlogger.json import JsonFormatter

HANDLER_NAME = "citelock"
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


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


def configure_logging(*, level: str, log_format: str) -> None:
    """Sends records to stderr in the chosen format through one handler of ours, replacing
    the one an earlier call installed and leaving other handlers (a test's capture) alone."""
    handler = StderrHandler()
    handler.set_name(HANDLER_NAME)
    formatter = json_formatter() if log_format == "json" else logging.Formatter(TEXT_FORMAT)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for previous in [h for h in root.handlers if h.get_name() == HANDLER_NAME]:
        root.removeHandler(previous)
    root.addHandler(handler)
    root.setLevel(level)
