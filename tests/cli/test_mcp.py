"""`citelock mcp` spawned as the MCP host would start it, driven by the SDK's own client: over
stdio on the test database, over streamable HTTP, and in front of a running service (`--url`).
Its answers are compared with POST /api/v1/query's on the same database."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from fastapi.testclient import TestClient
from mcp import Client, StdioServerParameters, stdio_client
from mcp.types import CallToolResult

from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime
from tests.helpers.clients import client_for
from tests.helpers.pdfs import make_pdf
from tests.helpers.service import free_port, serve

REPOSITORY = Path(__file__).resolve().parents[2]
CITELOCK = [sys.executable, "-c", "from app.cli import main; main()"]
QUESTION = "What does citation locking tie every claim to?"
START_TIMEOUT_S = 120.0


@pytest.fixture(scope="module")
def mcp_runtime(
    open_test_runtime: Callable[[str], Runtime], tmp_path_factory: pytest.TempPathFactory
) -> Runtime:
    """A database holding the two-page sample PDF, and nothing else."""
    runtime = open_test_runtime("citelock_mcp")
    path = tmp_path_factory.mktemp("mcp") / "sample.pdf"
    path.write_bytes(make_pdf())
    ingest_file(path, DocumentMeta(filename=path.name, collection="papers"), runtime=runtime)
    return runtime


@pytest.fixture(scope="module")
def api(mcp_runtime: Runtime) -> Iterator[TestClient]:
    with client_for(mcp_runtime) as client:
        yield client


@pytest.fixture(scope="module")
def service_url(mcp_runtime: Runtime) -> Iterator[str]:
    service, url = serve(mcp_runtime)
    yield url
    service.stop()


def environment(runtime: Runtime, data_dir: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(REPOSITORY),
        "DATABASE_URL": runtime.settings.database_url,
        "CITELOCK_DATA_DIR": str(data_dir),
    }


def over_stdio(env: dict[str, str], *args: str) -> StdioServerParameters:
    return StdioServerParameters(command=CITELOCK[0], args=[*CITELOCK[1:], "mcp", *args], env=env)


def with_client(server: Any, scenario: Callable[[Client], Awaitable[None]]) -> None:
    """Runs `scenario` with a client connected to `server` (what `mcp.Client` takes)."""

    async def run() -> None:
        async with Client(server, read_timeout_seconds=START_TIMEOUT_S) as client:
            await scenario(client)

    anyio.run(run)


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    """Returns the tool's structured content, which its text repeats as JSON."""
    result: CallToolResult = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    assert result.structured_content is not None
    [text] = result.content
    assert json.loads(text.text) == result.structured_content  # type: ignore[union-attr]
    return result.structured_content


def api_answer(api: TestClient, question: str = QUESTION) -> dict[str, Any]:
    response = api.post("/api/v1/query", json={"query": question, "top_k": 5})
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def assert_same_answer(ask: dict[str, Any], body: dict[str, Any]) -> None:
    assert body["status"] == "ok" and body["citations"]
    for field in ("answer", "status", "sources", "citations", "confidence"):
        assert ask[field] == body[field], field


def test_tools_are_listed_with_their_schemas(mcp_runtime: Runtime, tmp_path: Path) -> None:
    async def scenario(client: Client) -> None:
        tools = {tool.name: tool for tool in (await client.list_tools()).tools}
        assert set(tools) == {"ask", "search", "get_evidence", "list_documents"}
        assert tools["ask"].input_schema["required"] == ["question"]
        assert tools["search"].input_schema["required"] == ["query"]
        assert tools["get_evidence"].input_schema["required"] == ["response_id"]
        for tool in tools.values():
            assert tool.output_schema is not None and tool.description
        assert {"citations", "viewer_url", "answer"} <= set(
            tools["ask"].output_schema["properties"]
        )

    with_client(over_stdio(environment(mcp_runtime, tmp_path)), scenario)


def test_ask_over_stdio_cites_as_the_query_endpoint_does(
    mcp_runtime: Runtime, api: TestClient, tmp_path: Path
) -> None:
    body = api_answer(api)
    log_path = tmp_path / "mcp.log"

    async def scenario(client: Client) -> None:
        ask = await call(client, "ask", question=QUESTION)
        assert_same_answer(ask, body)
        assert ask["viewer_url"] == f"/api/v1/viewer?response_id={ask['response_id']}"

        evidence = await call(client, "get_evidence", response_id=ask["response_id"])
        stored = api.get(f"/api/v1/responses/{ask['response_id']}").json()
        assert evidence["highlighted_sources"] == stored["highlighted_sources"]
        assert {item["citation"] for item in evidence["highlighted_sources"]} <= {
            citation["n"] for citation in ask["citations"]
        }

        found = await call(client, "search", query=QUESTION)
        assert found["status"] == "ok"
        assert [c["chunk_id"] for c in found["chunks"]] == [c["chunk_id"] for c in body["chunks"]]
        assert found["chunks"][0]["document_name"] == "sample.pdf"

        [document] = (await call(client, "list_documents"))["documents"]
        assert (document["filename"], document["page_count"]) == ("sample.pdf", 2)
        assert (await call(client, "list_documents", collection="other"))["documents"] == []

    with log_path.open("w") as log:
        with_client(stdio_client(over_stdio(environment(mcp_runtime, tmp_path)), log), scenario)
    # What the server logs (its stderr) never holds the question.
    assert "citation locking" not in log_path.read_text().lower()


def test_refusals_are_tool_errors_with_their_codes(mcp_runtime: Runtime, tmp_path: Path) -> None:
    async def scenario(client: Client) -> None:
        missing = await client.call_tool("get_evidence", {"response_id": str(uuid.uuid4())})
        assert missing.is_error and "response_not_found" in missing.content[0].text  # type: ignore[union-attr]
        too_long = await client.call_tool("ask", {"question": "why " * 300})
        assert too_long.is_error
        hostile = await client.call_tool("search", {"query": "why", "collection": "a\u202eb"})
        assert hostile.is_error
        assert hostile.content[0].text.endswith(  # type: ignore[union-attr]
            "invalid_query: filters.collection: Value error, must not contain control or "
            "text-direction characters"
        )

    with_client(over_stdio(environment(mcp_runtime, tmp_path)), scenario)


def test_ask_through_a_running_service(
    mcp_runtime: Runtime, api: TestClient, service_url: str, tmp_path: Path
) -> None:
    body = api_answer(api)
    env = environment(mcp_runtime, tmp_path)
    # No database in reach: everything goes through the service.
    env["DATABASE_URL"] = "postgresql://nobody@127.0.0.1:1/none"

    async def scenario(client: Client) -> None:
        ask = await call(client, "ask", question=QUESTION)
        assert_same_answer(ask, body)
        assert ask["viewer_url"] == f"{service_url}/api/v1/viewer?response_id={ask['response_id']}"
        evidence = await call(client, "get_evidence", response_id=ask["response_id"])
        assert evidence["citations"] == ask["citations"]
        found = await call(client, "search", query=QUESTION, collection="papers")
        assert [c["chunk_id"] for c in found["chunks"]] == [c["chunk_id"] for c in body["chunks"]]
        [document] = (await call(client, "list_documents", collection="papers"))["documents"]
        assert document["filename"] == "sample.pdf"

    with_client(over_stdio(env, "--url", service_url), scenario)


def test_ask_over_streamable_http(
    mcp_runtime: Runtime, api: TestClient, service_url: str, tmp_path: Path
) -> None:
    port = free_port()
    command = [*CITELOCK, "mcp", "--http", "--port", str(port), "--url", service_url]
    process = subprocess.Popen(command, env=environment(mcp_runtime, tmp_path))
    try:
        wait_for_port(port, process)
        body = api_answer(api)

        async def scenario(client: Client) -> None:
            assert_same_answer(await call(client, "ask", question=QUESTION), body)

        with_client(f"http://127.0.0.1:{port}/mcp", scenario)
    finally:
        process.terminate()
        process.wait(timeout=30)


def wait_for_port(port: int, process: subprocess.Popen[bytes]) -> None:
    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        assert process.poll() is None, "citelock mcp --http exited"
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"citelock mcp --http did not listen on {port}")
