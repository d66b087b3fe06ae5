"""The API tests' ways in: a TestClient over a runtime, uploads, queries and the rows they leave."""

from __future__ import annotations

import re
from typing import Any

import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from app.main import create_app


def client_for(runtime: Runtime) -> TestClient:
    return TestClient(create_app(runtime.settings, runtime=runtime), raise_server_exceptions=False)


TABLES = ("documents", "document_files", "pages", "chunks", "document_terms", "chunk_terms")


def upload(client: TestClient, pdf: bytes, name: str = "sample.pdf", **form: str):  # type: ignore[no-untyped-def]
    return client.post(
        "/api/v1/documents", files={"file": (name, pdf, "application/pdf")}, data=form
    )


def row_counts(runtime: Runtime) -> dict[str, int]:
    with runtime.engine.connect() as connection:
        return {
            table: connection.execute(sa.text(f"SELECT count(*) FROM {table}")).scalar_one()
            for table in TABLES
        }


QUERY = "how does a tracing compiler speed up hot loops"
CLAIM = re.compile(r"(.+?) \[(\d+)\](?: |$)")


def claims_of(answer: str) -> list[tuple[str, int]]:
    """Returns the answer's claims and their source numbers, in order."""
    found = [(m.group(1), int(m.group(2))) for m in CLAIM.finditer(answer)]
    assert " ".join(f"{text} [{n}]" for text, n in found) == answer
    return found


def ask(client: TestClient, query: str = QUERY, **body: Any) -> dict[str, Any]:
    response = client.post("/api/v1/query", json={"query": query, **body})
    assert response.status_code == 200, response.text
    result: dict[str, Any] = response.json()
    return result


def page_texts(runtime: Runtime) -> dict[tuple[str, int], str]:
    with runtime.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT document_id, page_number, text FROM pages"))
        return {(str(row[0]), row[1]): row[2] for row in rows}


HIGHLIGHTED_PASSAGE_QUERY = "a JIT for JavaScript"
"""Found by experiment (each page's best chunk first, since retrieval spreads its results over
pages): without annotations a highlighted chunk ranks 5th, outside the top 3; with them it
rises into the top 3."""
