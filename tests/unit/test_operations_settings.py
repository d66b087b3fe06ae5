from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from app.core.config import Settings


def settings(**values: Any) -> Settings:
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


@pytest.mark.parametrize(
    ("values", "in_process"),
    [
        ({}, True),
        ({"database_url": "postgresql://db/citelock"}, False),
        ({"database_url": "postgresql://db/citelock", "in_process_worker": True}, True),
        ({"in_process_worker": False}, False),
    ],
)
def test_the_server_runs_a_worker_only_with_the_embedded_database_unless_told(
    values: dict[str, Any], in_process: bool
) -> None:
    assert settings(**values).runs_in_process_worker is in_process


def test_a_worker_cannot_be_taken_for_dead_between_two_heartbeats() -> None:
    with pytest.raises(ValidationError, match="WORKER_STALLED_SECONDS"):
        settings(worker_heartbeat_seconds=10, worker_stalled_seconds=5)


def test_cors_origins_are_a_comma_separated_list() -> None:
    assert settings(cors_origins=" https://a.example, https://b.example ,").cors_origin_list == [
        "https://a.example",
        "https://b.example",
    ]
