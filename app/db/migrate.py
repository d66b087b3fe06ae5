"""Applies the alembic migrations, from `citelock serve`, the tests, or `alembic upgrade head`."""

from __future__ import annotations

import importlib.util
from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, text

from app.core.config import get_settings
from app.db.embedded import embedded_database_url, start_embedded_postgres

MIGRATION_LOCK_ID = 7_294_001
"""pg_advisory_lock key: replicas starting together migrate one at a time."""


def migrations_path() -> Path:
    """Returns the migrations folder: the repository's alembic/, or its installed copy."""
    source_tree = Path(__file__).resolve().parents[2] / "alembic"
    if (source_tree / "env.py").is_file():
        return source_tree
    spec = importlib.util.find_spec("app.migrations")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("citelock's migrations are not installed (app.migrations)")
    return Path(next(iter(spec.submodule_search_locations)))


def upgrade_database(engine: Engine) -> None:
    """Brings the database's schema to the newest revision."""
    config = Config()
    config.set_main_option("script_location", str(migrations_path()))
    with engine.begin() as connection:
        connection.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK_ID})
        config.attributes["connection"] = connection
        command.upgrade(config, "head")


def database_url_for_cli() -> str:
    """Returns DATABASE_URL, or the URL of the embedded server (started if need be)."""
    settings = get_settings()
    if settings.database_url:
        return settings.database_url
    return embedded_database_url(start_embedded_postgres(settings.citelock_data_dir))
