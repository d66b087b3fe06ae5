"""The client's models are the service's schemas: regenerated here, they must equal the
committed ones; and they take what a newer service may add."""

from __future__ import annotations

import importlib.util
from types import ModuleType

from citelock_client import QueryResponse

from app.core.config import Settings
from app.main import create_app
from tests.helpers.service import CLIENT_ROOT


def generator() -> ModuleType:
    """Returns clients/python/scripts/generate_models.py as a module (it is a script, not part
    of any package)."""
    path = CLIENT_ROOT / "scripts" / "generate_models.py"
    spec = importlib.util.spec_from_file_location("generate_models", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_committed_models_match_the_service_schemas() -> None:
    models = generator()
    openapi = create_app(Settings(_env_file=None)).openapi()  # type: ignore[call-arg]
    assert models.MODELS_PATH.read_text() == models.render_models(openapi), (
        "the service's schemas changed: run python clients/python/scripts/generate_models.py"
    )


def test_a_response_with_fields_and_values_this_client_does_not_know_still_reads() -> None:
    newer = {
        "answer": "",
        "sources": [],
        "confidence": 0.0,
        "query_type": "standard",
        "status": "needs_review",
        "synthesis": "extractive",
        "request_id": "r",
        "response_id": None,
        "chunks": [],
        "highlighted_sources": None,
        "viewer_url": None,
        "timings_ms": {},
        "citations": [],
        "follow_ups": [{"n": 1, "question": "And in 2021?"}],
    }
    response = QueryResponse.model_validate(newer)
    assert response.status == "needs_review"
    assert response.model_extra == {"follow_ups": [{"n": 1, "question": "And in 2021?"}]}
