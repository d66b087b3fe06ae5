"""Databases for the tests: a fresh one on the test server, and settings pointing at it."""

from __future__ import annotations

from pathlib import Path

import sqlalchemy as sa
from sqlalchemy.engine import make_url

from app.core.config import Settings


def fresh_database(server_url: str, name: str) -> str:
    """Returns the URL of an empty database `name` on the test server."""
    engine = sa.create_engine(server_url, isolation_level="AUTOCOMMIT")
    with engine.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        connection.execute(sa.text(f'CREATE DATABASE "{name}"'))
    engine.dispose()
    return make_url(server_url).set(database=name).render_as_string(hide_password=False)


def settings_for(database_url: str, data_dir: Path) -> Settings:
    """Returns the service's settings on `database_url`, ignoring any .env file."""
    return Settings(database_url=database_url, citelock_data_dir=data_dir, _env_file=None)  # type: ignore[call-arg]
