"""Installing the client pulls httpx and pydantic, never the service's heavy dependencies."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.helpers.service import CLIENT_ROOT

SERVICE_ONLY = {"fastapi", "onnxruntime", "pymupdf", "psycopg", "psycopg-binary", "sqlalchemy"}


def test_installing_the_client_resolves_none_of_the_service_dependencies(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    # As into an empty environment (--ignore-installed): pip resolves every requirement from
    # the index, as it would in a chatbot backend's fresh virtual environment.
    subprocess.run(
        [
            sys.executable, "-m", "pip", "install", "--dry-run", "--ignore-installed",
            "--quiet", "--report", str(report), str(CLIENT_ROOT),
        ],
        check=True,
        capture_output=True,
    )  # fmt: skip
    resolved = {
        item["metadata"]["name"].lower() for item in json.loads(report.read_text())["install"]
    }
    assert {"citelock-client", "httpx", "pydantic"} <= resolved
    assert not resolved & SERVICE_ONLY, resolved & SERVICE_ONLY
