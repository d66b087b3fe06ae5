"""The dependencies routes ask for, declared once."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated

from fastapi import Depends, Request
from sqlalchemy.orm import Session

from app.flows.runtime import Runtime


async def get_runtime(request: Request) -> Runtime:
    # async: FastAPI runs a plain function dependency in its thread pool, a hop per request.
    runtime: Runtime = request.app.state.runtime
    return runtime


RuntimeDep = Annotated[Runtime, Depends(get_runtime)]


def get_session(runtime: RuntimeDep) -> Iterator[Session]:
    """Yields a session in a transaction: committed when the route returns, rolled back on error."""
    with runtime.sessions.begin() as session:
        yield session


SessionDep = Annotated[Session, Depends(get_session, scope="function")]
"""Committed before the response is sent (FastAPI's default scope would commit after it): a
client that reads right after a 2xx sees its write, and a failed commit is its error."""
