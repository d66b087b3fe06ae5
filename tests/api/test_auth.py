"""API keys: every /api/v1 route refuses a request without a known key; ro keys cannot write."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr, ValidationError

from app.core.access import Access, parse_api_keys
from app.core.config import Settings
from app.flows.runtime import Runtime
from tests.helpers.clients import client_for

READ_WRITE, READ_ONLY = "rw-key-0123456789", "ro-key-0123456789"


@pytest.fixture
def keyed_client(runtime: Runtime) -> Iterator[TestClient]:
    settings = runtime.settings.model_copy(
        update={"api_keys": SecretStr(f"{READ_WRITE}:rw,{READ_ONLY}:ro")}
    )
    with client_for(dataclasses.replace(runtime, settings=settings)) as test_client:
        yield test_client


def v1_requests(client: TestClient) -> list[tuple[str, str]]:
    """Returns (method, path) for every /api/v1 operation the app documents, parameters filled."""
    paths = client.get("/openapi.json").json()["paths"]
    return [
        (method.upper(), re.sub(r"\{[^}]+\}", "1", path))
        for path, operations in sorted(paths.items())
        if path.startswith("/api/v1")
        for method in sorted(operations)
    ]


def test_every_v1_route_without_a_key_is_401(keyed_client: TestClient) -> None:
    requests = v1_requests(keyed_client)
    assert len(requests) >= 7
    for method, path in requests:
        response = keyed_client.request(method, path)
        assert response.status_code == 401, (method, path, response.text)
        assert response.headers["content-type"] == "application/problem+json"
        assert response.headers["www-authenticate"] == "Bearer"
        assert response.json()["code"] == "unauthorized"


@pytest.mark.parametrize(
    "authorization",
    ["Bearer not-a-key", f"Basic {READ_WRITE}", READ_WRITE, f"Bearer {READ_WRITE}x", "Bearer "],
)
def test_unknown_or_malformed_key_is_401(keyed_client: TestClient, authorization: str) -> None:
    response = keyed_client.get("/api/v1/documents", headers={"Authorization": authorization})
    assert response.status_code == 401
    assert response.json()["code"] == "unauthorized"


def test_read_only_key_reads_and_queries_but_cannot_ingest(
    keyed_client: TestClient, sample_pdf: bytes
) -> None:
    read_only = {"Authorization": f"Bearer {READ_ONLY}"}
    assert keyed_client.get("/api/v1/documents", headers=read_only).status_code == 200
    query = keyed_client.post("/api/v1/query", json={"query": "trace trees"}, headers=read_only)
    assert query.status_code == 200
    upload = keyed_client.post(
        "/api/v1/documents", files={"file": ("a.pdf", sample_pdf)}, headers=read_only
    )
    assert upload.status_code == 403
    assert upload.json()["code"] == "forbidden"
    listed = keyed_client.get("/api/v1/documents", headers=read_only).json()
    assert listed["count"] == 0


def test_read_write_key_ingests_and_deletes(keyed_client: TestClient, sample_pdf: bytes) -> None:
    read_write = {"Authorization": f"Bearer {READ_WRITE}"}
    upload = keyed_client.post(
        "/api/v1/documents", files={"file": ("a.pdf", sample_pdf)}, headers=read_write
    )
    assert upload.status_code == 201
    read_only = {"Authorization": f"Bearer {READ_ONLY}"}
    document_url = f"/api/v1/documents/{upload.json()['id']}"
    assert keyed_client.delete(document_url, headers=read_only).status_code == 403
    assert keyed_client.delete(document_url, headers=read_write).status_code == 204


def test_health_and_metrics_need_no_key(keyed_client: TestClient) -> None:
    assert keyed_client.get("/healthz").status_code == 200


def test_without_api_keys_the_api_is_open(client: TestClient) -> None:
    assert client.get("/api/v1/documents").status_code == 200


def test_cors_allows_configured_origins(runtime: Runtime) -> None:
    settings = runtime.settings.model_copy(update={"cors_origins": "https://reader.example"})
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        preflight = client.options(
            "/api/v1/query",
            headers={
                "Origin": "https://reader.example",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "authorization,content-type",
            },
        )
        assert preflight.status_code == 200
        assert preflight.headers["access-control-allow-origin"] == "https://reader.example"
        other = client.get("/api/v1/documents", headers={"Origin": "https://evil.example"})
        assert "access-control-allow-origin" not in other.headers


def test_api_keys_setting_parses_and_refuses_without_echoing_the_key() -> None:
    keys = parse_api_keys("alpha:rw, beta:ro")
    assert [(k.secret, k.access) for k in keys] == [
        (b"alpha", Access.write),
        (b"beta", Access.read),
    ]
    assert "alpha" not in repr(keys)
    with pytest.raises(ValidationError) as refused:
        Settings(api_keys="secret-key:admin", _env_file=None)  # type: ignore[call-arg]
    assert "secret-key" not in str(refused.value)
    shown = repr(Settings(api_keys="alpha-key:rw", _env_file=None))  # type: ignore[call-arg]
    assert "alpha-key" not in shown
