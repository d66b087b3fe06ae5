"""POST /api/v1/query with `selected_text`: answers confined to the selection's pages.

The sample PDF has the same three paragraphs on both of its pages, under a different heading
(and chapter) each: anything taken from the wrong page would show in the page numbers.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

import pytest
from fastapi.testclient import TestClient

from tests.helpers.clients import upload
from tests.helpers.pdfs import HEADINGS, PARAGRAPHS, text_pdf

QUERY = "how does a tracing compiler speed up hot loops"
SELECTED = "A tracing compiler turns those recorded loops into fast native code"
ACROSS_THE_BREAK = f"even when they share few words with it. {HEADINGS[1]}"
"""The end of page 1 and the start of page 2."""


@pytest.fixture
def document_id(client: TestClient, sample_pdf: bytes) -> str:
    identifier: str = upload(client, sample_pdf).json()["id"]
    return identifier


def ask(client: TestClient, selected: dict[str, Any], **body: Any) -> Any:
    response = client.post(
        "/api/v1/query", json={"query": QUERY, "selected_text": selected, **body}
    )
    return response


def cited_pages(body: dict[str, Any]) -> set[int]:
    """Returns every page the response's chunks, sources and highlights name."""
    pages: set[int] = set()
    for chunk in body["chunks"]:
        pages.update(range(chunk["page_start"], chunk["page_end"] + 1))
    for source in body["sources"]:
        found = re.fullmatch(r".*, pp?\. (\d+)(?:-(\d+))?", source)
        assert found, source
        first = int(found.group(1))
        pages.update(range(first, int(found.group(2) or first) + 1))
    pages.update(item["page_number"] for item in body["highlighted_sources"] or [])
    return pages


@pytest.mark.parametrize("page", [1, 2])
def test_selection_answers_from_its_page_only(
    client: TestClient, document_id: str, page: int
) -> None:
    selected = {"text": SELECTED, "document_id": document_id, "start_page": page, "end_page": page}
    body = ask(client, selected).json()
    assert body["query_type"] == "selected_text"
    assert body["status"] == "ok"
    assert body["selection"] == {
        "document_id": document_id,
        "start_page": page,
        "end_page": page,
        "match": "exact",
        "score": 100.0,
    }
    assert body["scope_note"] is None
    assert "tracing compiler" in body["answer"]
    assert cited_pages(body) == {page}
    assert {chunk["document_id"] for chunk in body["chunks"]} == {document_id}
    assert len(body["chunks"]) <= 3
    assert body["highlighted_sources"]
    assert all(item["rects"] for item in body["highlighted_sources"])


def test_selection_without_pages_is_found_on_its_first_page(
    client: TestClient, document_id: str
) -> None:
    body = ask(client, {"text": SELECTED, "document_id": document_id}).json()
    assert (body["selection"]["start_page"], body["selection"]["end_page"]) == (1, 1)
    assert cited_pages(body) == {1}


def test_selection_with_no_document_is_found_in_the_collection(
    client: TestClient, document_id: str
) -> None:
    body = ask(client, {"text": HEADINGS[1] + "\n" + PARAGRAPHS[0][:40]}).json()
    assert body["selection"]["document_id"] == document_id
    assert (body["selection"]["start_page"], body["selection"]["end_page"]) == (2, 2)
    assert cited_pages(body) <= {2}


def test_selection_across_a_page_break_and_two_chapters(
    client: TestClient, document_id: str
) -> None:
    selected = {"text": ACROSS_THE_BREAK, "document_id": document_id}
    body = ask(client, selected, top_k=10).json()
    assert (body["selection"]["start_page"], body["selection"]["end_page"]) == (1, 2)
    assert cited_pages(body) <= {1, 2}
    in_first_chapter = ask(client, {**selected, "chapter": HEADINGS[0].upper()}, top_k=10).json()
    assert in_first_chapter["chunks"]
    assert all(chunk["chapter"] == HEADINGS[0] for chunk in in_first_chapter["chunks"])


def test_selection_on_the_wrong_pages_is_found_where_it_is(
    client: TestClient, document_id: str
) -> None:
    selected = {"text": ACROSS_THE_BREAK, "document_id": document_id, "start_page": 2}
    body = ask(client, selected).json()
    assert body["status"] == "ok"
    assert (body["selection"]["start_page"], body["selection"]["end_page"]) == (1, 2)
    assert "not on the pages given" in body["scope_note"]


def test_fuzzy_selection(client: TestClient, document_id: str) -> None:
    typo = SELECTED.replace("compiler", "compilr").replace("native", "nativ")
    selected = {"text": typo, "document_id": document_id, "start_page": 2, "end_page": 2}
    body = ask(client, selected).json()
    assert body["selection"]["match"] == "fuzzy"
    assert 90 <= body["selection"]["score"] < 100
    assert cited_pages(body) == {2}


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "the selection is empty"),
        ("  \n\t ", "the selection is empty"),
        ("Nothing like this sentence stands anywhere in the sample", "not found"),
    ],
)
def test_selection_falls_back_to_standard_mode(
    client: TestClient, document_id: str, text: str, reason: str
) -> None:
    body = ask(client, {"text": text, "document_id": document_id}).json()
    assert body["status"] == "scope_fallback"
    assert body["query_type"] == "standard"
    assert body["selection"] is None
    assert reason in body["scope_note"]
    assert body["chunks"]


@pytest.mark.parametrize(
    ("selected", "status", "code"),
    [
        ({"document_id": str(uuid.UUID(int=1))}, 404, "document_not_found"),
        ({"start_page": 2, "end_page": 1}, 422, "invalid_selection"),
        ({"start_page": 3}, 422, "invalid_selection"),
        ({"start_page": 1, "end_page": 3}, 422, "invalid_selection"),
        ({"start_page": 0}, 422, "invalid_selection"),
        ({"text": "x" * 5001}, 422, "invalid_query"),
        ({"text": "nul \x00"}, 422, "invalid_query"),
        ({"page": 1}, 422, "invalid_query"),
        ({"text": None}, 422, "invalid_query"),
    ],
)
def test_selection_errors(
    client: TestClient, document_id: str, selected: dict[str, Any], status: int, code: str
) -> None:
    body = {"text": SELECTED, "document_id": document_id, **selected}
    response = ask(client, body)
    assert response.status_code == status
    assert response.headers["content-type"] == "application/problem+json"
    assert response.json()["code"] == code


def test_selection_is_deterministic(client: TestClient, document_id: str) -> None:
    selected = {"text": ACROSS_THE_BREAK, "document_id": document_id}
    first, second = ask(client, selected).json(), ask(client, selected).json()
    for body in (first, second):
        for varying in ("timings_ms", "request_id", "response_id", "viewer_url"):
            body.pop(varying)
    assert first == second


EXPLAINED = [
    "Trace trees record the hot loops of a program as it runs. "
    "A tracing compiler turns those recorded loops into fast native code for later "
    "iterations. Guards in the compiled code check that the types seen while recording "
    "still hold, and leave the trace when they do not.",
    "Side exits return control to the interpreter, which may record a branch trace there.",
]
"""A page whose sentences share no word with "what does this mean?", so only the place of a
passage, never its words, can decide what answers it."""


def test_what_does_this_mean_quotes_the_selection_with_the_chunks_around_it(
    client: TestClient,
) -> None:
    document_id = upload(client, text_pdf(EXPLAINED), name="explained.pdf").json()["id"]
    selected = {
        "text": "tracing compiler turns those recorded loops into fast native code",
        "document_id": document_id,
        "start_page": 1,
        "end_page": 1,
    }
    body = client.post(
        "/api/v1/query", json={"query": "what does this mean?", "selected_text": selected}
    ).json()
    assert body["status"] == "ok" and body["selection"]["match"] == "exact"
    assert body["chunks"], "the chunks around the selection"
    assert {(c["page_start"], c["page_end"]) for c in body["chunks"]} == {(1, 1)}
    # The selection's own sentence, whole, quoted and cited on its page.
    assert body["answer"].startswith(
        "A tracing compiler turns those recorded loops into fast native code for later "
        "iterations. [1]"
    )
    assert body["sources"] == ["explained.pdf, p. 1"]
