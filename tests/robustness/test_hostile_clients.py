"""Hostile clients: bodies refused from their headers before a byte is read, bodies over
their limit or too slow, signed links that open one response only, the viewer's security
headers, and an annotated.pdf without scripts."""

from __future__ import annotations

import dataclasses
import re
import socket
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import psutil
import pymupdf
import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.core.links import response_scope, sign_link
from app.flows.runtime import Runtime
from app.pdf.active_content import ACTIVE_TYPES
from tests.helpers.clients import client_for
from tests.helpers.pdfs import PARAGRAPHS, text_pdf
from tests.helpers.service import serve

READ_WRITE, READ_ONLY = "abuse-rw-key-0123", "abuse-ro-key-0123"
FRONTEND = "https://reader.example"
QUESTION = {"query": "how do tracing compilers record hot loops?"}


def keyed(runtime: Runtime, **settings: object) -> Runtime:
    update = {
        "api_keys": SecretStr(f"{READ_WRITE}:rw,{READ_ONLY}:ro"),
        "cors_origins": FRONTEND,
        **settings,
    }
    return dataclasses.replace(runtime, settings=runtime.settings.model_copy(update=update))


@pytest.fixture
def keyed_client(runtime: Runtime) -> Iterator[TestClient]:
    with client_for(keyed(runtime)) as client:
        yield client


def raw_request(url: str, head: str, body: bytes = b"", *, wait: float = 30.0) -> bytes:
    """Returns the raw answer to `head` (and the first `body` bytes) sent on a new connection;
    the rest of a declared body is never sent."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=wait) as connection:
        connection.sendall(head.encode() + b"\r\n" + body)
        answer = b""
        while b"\r\n\r\n" not in answer or not re.search(rb"\}\s*$", answer):
            block = connection.recv(65536)
            if not block:
                break
            answer += block
    return answer


def files_under(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file()) if folder.exists() else []


@pytest.mark.parametrize(
    ("authorization", "status"), [("", 401), (f"Authorization: Bearer {READ_ONLY}\r\n", 403)]
)
def test_a_100_mb_upload_is_refused_from_its_headers_without_reading_the_body(
    runtime: Runtime, authorization: str, status: int, record_property: pytest.RecordProperty
) -> None:
    service, url = serve(keyed(runtime))
    process = psutil.Process()
    try:
        rss_before = process.memory_info().rss
        head = (
            "POST /api/v1/documents HTTP/1.1\r\nHost: x\r\n"
            f"{authorization}Content-Type: multipart/form-data; boundary=b\r\n"
            f"Content-Length: {100 * 2**20}\r\n"
        )
        started = time.perf_counter()
        answer = raw_request(url, head)  # not one byte of the body is sent
        seconds = time.perf_counter() - started
        rss_growth = process.memory_info().rss - rss_before
    finally:
        service.stop()
    record_property("refusal_ms", round(seconds * 1000, 1))
    record_property("rss_growth_bytes", rss_growth)
    assert answer.startswith(f"HTTP/1.1 {status} ".encode()), answer[:200]
    assert b'"code":"unauthorized"' in answer or b'"code":"forbidden"' in answer
    assert files_under(runtime.settings.uploads_dir) == []
    assert rss_growth < 20 * 2**20


def test_a_json_body_over_its_limit_is_413(client: TestClient) -> None:
    padding = "x" * (300 * 1024)
    response = client.post("/api/v1/query", json={**QUESTION, "padding": padding})
    assert response.status_code == 413
    assert response.json()["code"] == "request_too_large"


def test_a_body_that_trickles_in_is_cut(runtime: Runtime) -> None:
    slow = dataclasses.replace(
        runtime,
        settings=runtime.settings.model_copy(update={"request_body_timeout_seconds": 0.5}),
    )
    service, url = serve(slow)
    try:
        head = (
            "POST /api/v1/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
            "Content-Length: 1000\r\n"
        )
        answer = raw_request(url, head, b'{"query": "trick')
    finally:
        service.stop()
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b'"code":"request_timeout"' in answer


def hostile_pdf() -> bytes:
    """Returns a text PDF that runs JavaScript on opening and links out, and launches a file."""
    with pymupdf.open(stream=text_pdf(["\n\n".join(PARAGRAPHS)])) as pdf:
        script = pdf.get_new_xref()
        pdf.update_object(script, "<</S/JavaScript/JS(app.alert('opened'))>>")
        pdf.xref_set_key(pdf.pdf_catalog(), "OpenAction", f"{script} 0 R")
        page = pdf[0]
        pdf.xref_set_key(page.xref, "AA", "<</O<</S/JavaScript/JS(app.alert(1))>>>>")
        page.insert_link(
            {
                "kind": pymupdf.LINK_URI,
                "from": pymupdf.Rect(72, 700, 200, 720),
                "uri": "https://evil.example/",
            }
        )
        page.insert_link(
            {
                "kind": pymupdf.LINK_LAUNCH,
                "from": pymupdf.Rect(72, 730, 200, 750),
                "file": "calc.exe",
            }
        )
        return pdf.tobytes()


def active_content(pdf_bytes: bytes) -> list[str]:
    """Returns every object of the PDF that names an active action or a trigger."""
    pattern = re.compile(rf"/(OpenAction|AA)\s*[<\d]|/S\s*/({'|'.join(ACTIVE_TYPES)})\b")
    with pymupdf.open(stream=pdf_bytes) as pdf:
        objects = [pdf.xref_object(x) for x in range(1, pdf.xref_length())]
    return [o for o in objects if pattern.search(o)]


def ask(client: TestClient, headers: dict[str, str]) -> dict[str, object]:
    upload = client.post(
        "/api/v1/documents", files={"file": ("hostile.pdf", hostile_pdf())}, headers=headers
    )
    assert upload.status_code == 201, upload.text
    answer = client.post("/api/v1/query", json=QUESTION, headers=headers).json()
    assert answer["status"] == "ok"
    return answer


def test_annotated_pdf_carries_no_script_launch_or_uri_action(client: TestClient) -> None:
    assert active_content(hostile_pdf())
    answer = ask(client, {})
    document_id = answer["highlighted_sources"][0]["document_id"]
    served = client.get(
        f"/api/v1/documents/{document_id}/annotated.pdf?response_id={answer['response_id']}"
    )
    assert served.status_code == 200
    assert active_content(served.content) == []
    with pymupdf.open(stream=served.content) as pdf:
        assert "tracing compiler" in pdf[0].get_text()
        assert [a.type[1] for a in pdf[0].annots()] == ["Highlight"] * len(list(pdf[0].annots()))


def test_signed_links_open_their_response_without_a_key_and_nothing_else(
    keyed_client: TestClient, runtime: Runtime
) -> None:
    key = {"Authorization": f"Bearer {READ_WRITE}"}
    answer = ask(keyed_client, key)
    viewer_url = str(answer["viewer_url"])
    assert "token=" in viewer_url
    viewer = keyed_client.get(viewer_url)  # no key: a browser following the link
    assert viewer.status_code == 200
    pdf_link = re.search(r'href="(documents/[^"]+annotated\.pdf[^"]+)"', viewer.text)
    assert pdf_link is not None and "token=" in pdf_link.group(1)
    annotated = keyed_client.get("/api/v1/" + pdf_link.group(1).replace("&amp;", "&"))
    assert annotated.status_code == 200
    assert annotated.headers["content-type"] == "application/pdf"
    document_id = answer["highlighted_sources"][0]["document_id"]
    token = viewer_url.split("token=")[1]
    linked = f"response_id={answer['response_id']}&token={token}"
    page = keyed_client.get(f"/api/v1/documents/{document_id}/pages/1.png?{linked}")
    assert page.status_code == 200

    # The same token opens nothing else: another response, another document, other routes.
    other = uuid.uuid4()
    refused = [
        f"/api/v1/viewer?response_id={other}&token={token}",
        f"/api/v1/documents/{other}/pages/1.png?{linked}",
        f"/api/v1/responses/{answer['response_id']}?token={token}",
        f"/api/v1/documents?token={token}",
        f"/api/v1/documents/{document_id}/chunks?page=1&{linked}",
    ]
    statuses = [keyed_client.get(path).status_code for path in refused]
    assert statuses == [401, 404, 401, 401, 401]
    assert keyed_client.delete(f"/api/v1/documents/{document_id}?{linked}").status_code == 401

    # Expired: signed a TTL and a second ago.
    settings = keyed(runtime).settings
    stale = sign_link(
        settings,
        response_scope(answer["response_id"]),
        now=time.time() - settings.link_ttl_seconds - 1,
    )
    expired = keyed_client.get(f"/api/v1/viewer?response_id={answer['response_id']}&token={stale}")
    assert expired.status_code == 401


def test_the_viewer_may_be_framed_by_the_frontends_only_and_runs_nothing(
    keyed_client: TestClient,
) -> None:
    answer = ask(keyed_client, {"Authorization": f"Bearer {READ_WRITE}"})
    viewer = keyed_client.get(str(answer["viewer_url"]))
    policy = viewer.headers["content-security-policy"]
    assert f"frame-ancestors 'self' {FRONTEND}" in policy
    assert "default-src 'none'" in policy
    assert "script-src" not in policy
    assert viewer.headers["x-content-type-options"] == "nosniff"
    assert viewer.headers["referrer-policy"] == "no-referrer"
    assert keyed_client.get("/healthz").headers["x-content-type-options"] == "nosniff"
