"""SQL and JSON injection through the query filters and the CLI's --where: answered 200 or 422,
never 500, and the stored data is exactly as it was."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from app.cli import commands as cli
from app.flows.runtime import Runtime
from tests.helpers.clients import client_for, upload
from tests.helpers.problems import assert_problem_or_success

STORED_TABLES = ("documents", "document_files", "pages", "chunks", "annotations")

SQL_PAYLOADS = [
    "' OR '1'='1",
    "papers' --",
    "'; DROP TABLE chunks; --",
    "x'); DELETE FROM documents; --",
    "1; UPDATE documents SET collection = 'pwned'",
    "$$; TRUNCATE pages CASCADE; $$",
    "' UNION SELECT id, content, NULL FROM chunks --",
    '" OR ""="',
    "%",
    "_",
    "\\",
    "papers\\'; DROP TABLE documents; --",
]

JSON_PAYLOADS: list[Any] = [
    {"$ne": None},
    {"$gt": ""},
    ["papers", "' OR 1=1 --"],
    1,
    True,
    "papers\u0000' OR 1=1",
]
"""Values of the wrong type or with a NUL: refused with 422, never reaching SQL."""


def table_checksums(runtime: Runtime) -> dict[str, tuple[int, str]]:
    """Returns each stored table's row count and a digest of all its rows."""
    with runtime.engine.connect() as connection:
        return {
            table: tuple(  # type: ignore[misc]
                connection.execute(
                    sa.text(
                        f"SELECT count(*), md5(coalesce(string_agg(md5(t::text), '' "
                        f"ORDER BY md5(t::text)), '')) FROM {table} t"
                    )
                ).one()
            )
            for table in STORED_TABLES
        }


@pytest.fixture(scope="module")
def client(robust_runtime: Runtime, sample_pdf: bytes) -> Iterator[TestClient]:
    """A client over a database holding one document, stored once for the whole module."""
    with client_for(robust_runtime) as test_client:
        assert upload(test_client, sample_pdf, collection="papers").status_code == 201
        yield test_client
    with robust_runtime.engine.begin() as connection:
        connection.execute(sa.text("TRUNCATE documents CASCADE"))


@pytest.fixture(scope="module")
def runtime(robust_runtime: Runtime, client: TestClient) -> Runtime:
    return robust_runtime


@pytest.fixture(scope="module")
def stored(runtime: Runtime) -> dict[str, tuple[int, str]]:
    return table_checksums(runtime)


def injected_bodies(payload: Any) -> list[dict[str, Any]]:
    """Returns query bodies carrying `payload` in every user string that reaches SQL."""
    return [
        {"query": "trace trees", "filters": {"collection": payload}},
        {"query": "trace trees", "filters": {"chapter": payload}},
        {"query": "trace trees", "filters": {"section": payload, "language": payload}},
        {"query": "trace trees", "filters": {"version": payload}, "search": "hybrid"},
        {"query": payload if isinstance(payload, str) else "x", "search": "hybrid"},
        {"query": "trace trees", "selected_text": {"text": "loops", "chapter": payload}},
    ]


@pytest.mark.parametrize("payload", SQL_PAYLOADS + JSON_PAYLOADS, ids=repr)
def test_query_filters_injection_changes_nothing(
    client: TestClient, runtime: Runtime, stored: dict[str, tuple[int, str]], payload: Any
) -> None:
    bodies = list(injected_bodies(payload))
    assert bodies
    for body in bodies:
        response = client.post("/api/v1/query", json=body)
        assert response.status_code in (200, 422), response.text
        assert_problem_or_success(response.status_code, response.headers, response.content)
        if response.status_code == 200 and "filters" in body:
            # The payload is compared as a value: it never matches, so nothing comes back.
            assert response.json()["chunks"] == [], body
    listed = client.get("/api/v1/documents", params={"collection": str(payload)})
    assert listed.status_code in (200, 422)
    assert_problem_or_success(listed.status_code, listed.headers, listed.content)
    assert table_checksums(runtime) == stored


@pytest.mark.parametrize(
    "body",
    [
        b'{"query": "x", "filters": {"collection": "papers", "collection": "x\' OR 1=1"}}',
        b'{"query": "x", "filters": "{\\"collection\\": \\"papers\\"}"}',
        b'{"query": "x", "filters": {"__proto__": {"collection": "papers"}}}',
        b'{"query": "x", "filters": {"collection": "papers"}, "filters.collection": "x"}',
        b'{"query": "x"} ; DROP TABLE chunks',
        b'{"query": "x", "top_k": "5; DROP TABLE chunks"}',
        b'{"query": {"$where": "1 == 1"}}',
    ],
)
def test_malformed_json_bodies_change_nothing(
    client: TestClient, runtime: Runtime, stored: dict[str, tuple[int, str]], body: bytes
) -> None:
    response = client.post(
        "/api/v1/query", content=body, headers={"content-type": "application/json"}
    )
    assert response.status_code in (200, 422), response.text
    assert_problem_or_success(response.status_code, response.headers, response.content)
    assert table_checksums(runtime) == stored


CLI_WHERES = [
    json.dumps({"collection": SQL_PAYLOADS[2], "chapter": SQL_PAYLOADS[3]}),
    json.dumps({"section": SQL_PAYLOADS[5], "language": SQL_PAYLOADS[6], "version": "%"}),
    json.dumps({"collection": {"$ne": None}}),
    '{"collection": "papers"} ; DROP TABLE chunks',
    "'; DROP TABLE documents; --",
]


@pytest.mark.parametrize("where", CLI_WHERES)
def test_cli_where_injection_changes_nothing(
    runtime: Runtime,
    stored: dict[str, tuple[int, str]],
    monkeypatch: pytest.MonkeyPatch,
    where: str,
) -> None:
    monkeypatch.setattr(cli, "get_settings", lambda: runtime.settings)
    result = CliRunner().invoke(cli.app, ["query", "trace trees", "--where", where, "--json"])
    # 0 with no results (the value matched nothing), or 2 for filters that are not valid.
    assert result.exit_code in (0, 2), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    if result.exit_code == 0:
        assert json.loads(result.stdout)["results"] == []
    assert table_checksums(runtime) == stored
