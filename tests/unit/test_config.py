"""Every setting is documented in .env.example, and nothing there is stale."""

from __future__ import annotations

import re
from pathlib import Path

from app.core.config import Settings

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"


def test_env_example_names_every_setting_and_only_settings() -> None:
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(), re.M))
    assert documented == {name.upper() for name in Settings.model_fields}
