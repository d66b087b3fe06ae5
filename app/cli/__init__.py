"""The `citelock` command: a thin shell over the flows the routes call."""

from app.cli.commands import app, main

__all__ = ["app", "main"]
