"""Every setting is documented in .env.example, nothing there is stale, and it loads."""

from __future__ import annotations

import re
from pathlib import Path

from pytest import MonkeyPatch

from app.core.config import Settings

ENV_EXAMPLE = Path(__file__).resolve().parents[2] / ".env.example"


def test_env_example_names_every_setting_and_only_settings() -> None:
    documented = set(re.findall(r"^#?\s*([A-Z][A-Z0-9_]*)=", ENV_EXAMPLE.read_text(), re.M))
    assert documented == {name.upper() for name in Settings.model_fields}


def test_env_example_copied_to_env_starts_with_the_defaults(monkeypatch: MonkeyPatch) -> None:
    for name in Settings.model_fields:
        monkeypatch.delenv(name.upper(), raising=False)

    copied = Settings(_env_file=ENV_EXAMPLE)

    assert copied.model_dump() == Settings(_env_file=None).model_dump()
