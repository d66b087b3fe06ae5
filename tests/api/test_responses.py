"""Stored responses: GET /api/v1/responses/{id}, the viewer page and annotated.pdf."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
import uuid
from typing import Any

import pymupdf
import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import QUERY, ask, client_for, upload
from tests.helpers.pdfs import text_pdf


def stored_rows(runtime: Runtime) -> list[tuple[uuid.UUID, str]]:
    with runtime.engine.connect() as connection:
        rows = connection.execute(sa.text("SELECT response_id, evidence::text FROM responses"))
        return [(row[0], row[1]) for row in rows]


def normalised(text: str) -> str:
    """Returns `text` without whitespace and hyphens, ligatures and other forms folded."""
    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if not c.isspace() and c not in "-\u00ad")


def test_query_response_is_stored_without_the_query(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    upload(client, sample_pdf)
    body = ask(client)
    response_id = body["response_id"]
    assert body["viewer_url"] == f"/api/v1/viewer?response_id={response_id}"
    stored = client.get(f"/api/v1/responses/{response_id}")
    assert stored.status_code == 200
    evidence = stored.json()
    assert evidence["response_id"] == response_id
    for field in ("answer", "sources", "citations", "synthesis", "highlighted_sources"):
        assert evidence[field] == body[field]
    assert evidence["chunk_ids"] == [chunk["chunk_id"] for chunk in body["chunks"]]
    assert evidence["expires_at"] > evidence["created_at"]
    [(row_id, row_text)] = stored_rows(runtime)
    assert str(row_id) == response_id
    assert QUERY not in row_text and "query" not in evidence


def test_expired_response_is_not_found_and_purged(
    client: TestClient, runtime: Runtime, sample_pdf: bytes
) -> None:
    upload(client, sample_pdf)
    expired = ask(client)["response_id"]
    with runtime.engine.begin() as connection:
        connection.execute(sa.text("UPDATE responses SET expires_at = now() - interval '1 s'"))
    for path in (
        f"/api/v1/responses/{expired}",
        f"/api/v1/viewer?response_id={expired}",
    ):
        response = client.get(path)
        assert response.status_code == 404
        assert response.json()["code"] == "response_not_found"
    fresh = ask(client)["response_id"]
    assert [str(row_id) for row_id, _ in stored_rows(runtime)] == [fresh]


def test_response_ttl_comes_from_settings(runtime: Runtime, sample_pdf: bytes) -> None:
    settings = runtime.settings.model_copy(update={"response_ttl_seconds": 3600})
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        upload(client, sample_pdf)
        response_id = ask(client)["response_id"]
    with runtime.engine.connect() as connection:
        seconds = connection.execute(
            sa.text("SELECT extract(epoch FROM expires_at - created_at) FROM responses")
        ).scalar_one()
    assert response_id and round(seconds) == 3600


@pytest.mark.parametrize(
    ("path", "status", "code"),
    [
        (f"/api/v1/responses/{uuid.UUID(int=7)}", 404, "response_not_found"),
        ("/api/v1/responses/not-a-uuid", 422, "invalid_request"),
        (f"/api/v1/viewer?response_id={uuid.UUID(int=7)}", 404, "response_not_found"),
        ("/api/v1/viewer", 422, "invalid_request"),
        (
            f"/api/v1/documents/{uuid.UUID(int=1)}/annotated.pdf?response_id={uuid.UUID(int=7)}",
            404,
            "response_not_found",
        ),
    ],
)
def test_response_routes_refuse(client: TestClient, path: str, status: int, code: str) -> None:
    response = client.get(path)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == code


def test_highlights_off_stores_the_answer_without_evidence(
    runtime: Runtime, sample_pdf: bytes
) -> None:
    settings = runtime.settings.model_copy(update={"enable_highlights": False})
    with client_for(dataclasses.replace(runtime, settings=settings)) as client:
        upload(client, sample_pdf)
        body = ask(client)
        stored = client.get(f"/api/v1/responses/{body['response_id']}").json()
        viewer = client.get(f"/api/v1/viewer?response_id={body['response_id']}")
    assert body["viewer_url"] is None
    assert stored["answer"] == body["answer"] and stored["highlighted_sources"] is None
    assert viewer.status_code == 200 and "No highlighted lines were recorded" in viewer.text


def highlight_texts(pdf: bytes) -> dict[int, list[str]]:
    """Returns, page by page, the text under each highlight annotation's quads, in order."""
    texts: dict[int, list[str]] = {}
    with pymupdf.open(stream=pdf, filetype="pdf") as document:
        for page in document:
            for annot in page.annots(types=[pymupdf.PDF_ANNOT_HIGHLIGHT]):
                vertices = annot.vertices
                quads = [pymupdf.Quad(vertices[i : i + 4]) for i in range(0, len(vertices), 4)]
                text = " ".join(page.get_textbox(quad.rect) for quad in quads)
                texts.setdefault(page.number + 1, []).append(text)
    return texts


def cited_texts(body: dict[str, Any], document_id: str) -> dict[int, list[str]]:
    """Returns, page by page, the cited text of each highlighted source of the document."""
    texts: dict[int, list[str]] = {}
    for item in body["highlighted_sources"]:
        if item["document_id"] == document_id:
            [(start, end)] = item["highlight_spans"]
            texts.setdefault(item["page_number"], []).append(item["text_snippet"][start:end])
    return texts


def test_annotated_pdf_highlights_the_cited_lines(client: TestClient, sample_pdf: bytes) -> None:
    document_id = upload(client, sample_pdf).json()["id"]
    body = ask(client)
    response = client.get(
        f"/api/v1/documents/{document_id}/annotated.pdf",
        params={"response_id": body["response_id"]},
    )
    assert response.status_code == 200
    assert response.headers["content-type"] == "application/pdf"
    found = highlight_texts(response.content)
    expected = cited_texts(body, document_id)
    assert expected and found.keys() == expected.keys()
    for page, texts in expected.items():
        assert [normalised(t) for t in found[page]] == [normalised(t) for t in texts]


def test_annotated_pdf_of_an_uncited_document(client: TestClient, sample_pdf: bytes) -> None:
    upload(client, sample_pdf)
    other = upload(client, sample_pdf, collection="other").json()["id"]
    body = ask(client, filters={"collection": "default"})
    response = client.get(
        f"/api/v1/documents/{other}/annotated.pdf", params={"response_id": body["response_id"]}
    )
    assert response.status_code == 404
    assert response.json()["code"] == "response_not_found"


def test_viewer_marks_every_cited_line(client: TestClient, sample_pdf: bytes) -> None:
    document_id = upload(client, sample_pdf).json()["id"]
    body = ask(client)
    page = client.get(body["viewer_url"])
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    html = page.text
    total_rects = sum(len(item["rects"]) for item in body["highlighted_sources"])
    assert html.count('class="line-mark"') == total_rects > 0
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", html)  # nothing off the service
    cited_pages = {
        (item["document_id"], item["page_number"]) for item in body["highlighted_sources"]
    }
    assert html.count('src="data:image/png;base64,') == len(cited_pages)
    assert 'href="#page-' in html
    assert f"documents/{document_id}/annotated.pdf?response_id={body['response_id']}" in html


def hostile_pdf() -> bytes:
    """Returns a one-page PDF whose text is markup, as a hostile or careless author writes."""
    return text_pdf(
        [
            "Tracing compilers speed up hot loops <script>alert('x')</script> by recording "
            "them. The recorded loops become fast native code & run again."
        ]
    )


def test_viewer_escapes_the_pdf_text(client: TestClient) -> None:
    upload(client, hostile_pdf(), name="<img src=x>.pdf")
    body = ask(client)
    assert "<script>" in body["answer"]
    html = client.get(body["viewer_url"]).text
    assert "<script>" not in html and "<img src=x>" not in html
    assert "&lt;script&gt;" in html and "&lt;img src=x&gt;.pdf" in html


def test_annotated_pdf_names_the_file_answers_head_and_numbers_its_highlights(
    client: TestClient, sample_pdf: bytes
) -> None:
    document_id = upload(client, sample_pdf, name="Résumé notes.pdf").json()["id"]
    body = ask(client)
    path = f"/api/v1/documents/{document_id}/annotated.pdf"
    response = client.get(path, params={"response_id": body["response_id"]})
    assert response.headers["content-disposition"] == (
        'inline; filename="R?sum? notes (cited).pdf"; '
        "filename*=UTF-8''R%C3%A9sum%C3%A9%20notes%20%28cited%29.pdf"
    )
    head = client.head(path, params={"response_id": body["response_id"]})
    assert head.status_code == 200 and head.content == b""
    assert head.headers["content-type"] == "application/pdf"
    assert head.headers["content-disposition"] == response.headers["content-disposition"]
    with pymupdf.open(stream=response.content, filetype="pdf") as document:
        notes = [annot.info["content"] for page in document for annot in page.annots()]
    sources = body["sources"]
    assert notes and all(re.fullmatch(r"\[(\d+)\] .+", note) for note in notes)
    for note in notes:
        number = int(note[1 : note.index("]")])
        assert note == f"[{number}] {sources[number - 1]}"
    assert len(notes) == len(body["highlighted_sources"])


def test_nothing_to_show_has_no_viewer_url(client: TestClient, sample_pdf: bytes) -> None:
    upload(client, sample_pdf, collection="papers")
    empty = ask(client, filters={"collection": "none"})
    assert empty["status"] == "empty_database" and empty["viewer_url"] is None
    assert ask(client)["viewer_url"] is not None


@pytest.mark.parametrize(
    "path", [f"/api/v1/viewer?response_id={uuid.UUID(int=7)}", "/api/v1/viewer?response_id=x"]
)
def test_a_missing_viewer_link_answers_a_browser_with_a_page(client: TestClient, path: str) -> None:
    browser = client.get(path, headers={"accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert browser.status_code in (404, 422)
    assert browser.headers["content-type"].startswith("text/html")
    assert "<h1>" in browser.text and "{" not in browser.text.split("<body>")[1]
    assert client.get(path).headers["content-type"] == "application/problem+json"


def test_neighbouring_sentences_share_one_excerpt_that_links_to_their_marks(
    client: TestClient, sample_pdf: bytes
) -> None:
    upload(client, sample_pdf)
    body = ask(client)
    items = body["highlighted_sources"]
    by_passage: dict[tuple[int, str], int] = {}
    for item in items:
        key = (item["page_number"], item["text_snippet"])
        by_passage[key] = by_passage.get(key, 0) + 1
    assert max(by_passage.values()) >= 2, "the sample answer quotes neighbouring sentences"
    html = client.get(body["viewer_url"]).text
    assert html.count("<blockquote>") == len(by_passage)
    anchors = re.findall(r'<a href="#(mark-\d+)">', html)
    assert len(anchors) == len(items)
    for anchor in anchors:
        assert html.count(f'id="{anchor}"') == 1
