"""The engine and session factory."""

from __future__ import annotations

from sqlalchemy import Engine, create_engine
from sqlalchemy.orm import Session, sessionmaker


def make_engine(database_url: str, *, pool_size: int = 5) -> Engine:
    """Returns an engine that checks connections before use, so a restarted server is survived.

    The pool hands out the connection returned last: sequential requests keep one warm
    connection, with its prepared statements and settings, instead of cycling through all.
    """
    return create_engine(
        database_url,
        pool_size=pool_size,
        max_overflow=pool_size,
        pool_pre_ping=True,
        pool_use_lifo=True,
    )


def make_sessionmaker(engine: Engine) -> sessionmaker[Session]:
    return sessionmaker(engine, expire_on_commit=False)
