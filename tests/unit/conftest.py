"""The real embedding model for the unit tests that rank claims by it, loaded once."""

from __future__ import annotations

import pytest

from app.core.config import Settings
from app.embedding import Embedder, load_embedder


@pytest.fixture(scope="session")
def embedder() -> Embedder:
    return load_embedder(Settings(_env_file=None, database_url=""))  # type: ignore[call-arg]
