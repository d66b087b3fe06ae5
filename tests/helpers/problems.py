"""What every robustness test asks of a response: success, or a problem+json with a `code`."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any


def assert_problem_or_success(status: int, headers: Mapping[str, Any], content: bytes) -> None:
    """Fails on a 5xx, or on an error that is not problem+json with a stable `code`."""
    assert status < 500, content[:2000]
    if status < 400:
        return
    content_type = headers.get("content-type", "")
    if not isinstance(content_type, str):
        content_type = ", ".join(content_type)
    assert content_type.startswith("application/problem+json"), (status, content_type)
    body = json.loads(content)
    assert body["status"] == status
    assert body["code"] and body["code"].islower(), body
