"""The reader's annotations as a rerank signal, on the TraceMonkey paper highlighted in Preview
(pdfjs__highlights.pdf: six highlights on page 1), through the query endpoint.

Each invariant of the signal is one test: the candidate set does not change, responses with
the signal off are those of a corpus without annotations, no chunk passes one better by more
than alpha * cap, and the order is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
import sqlalchemy as sa
from fastapi.testclient import TestClient

from app.flows.runtime import Runtime
from tests.helpers.clients import HIGHLIGHTED_PASSAGE_QUERY, client_for
from tests.helpers.corpus import corpus_path

QUERIES = [
    HIGHLIGHTED_PASSAGE_QUERY,
    "tracing JIT compiler for JavaScript",
    "type specialization in dynamic languages",
    "popular dynamic languages deployment",
    "JavaScript interpreter performance",
    "trace trees nested loops",
]
MODES = ["vector", "hybrid"]


@pytest.fixture(scope="module")
def client(highlighted: Runtime) -> Iterator[TestClient]:
    with client_for(highlighted) as test_client:
        yield test_client


def ask(
    client: TestClient, query: str, *, use_annotations: bool, mode: str = "vector", top_k: int = 5
) -> dict[str, Any]:
    response = client.post(
        "/api/v1/query",
        json={"query": query, "top_k": top_k, "search": mode, "use_annotations": use_annotations},
    )
    assert response.status_code == 200, response.text
    body: dict[str, Any] = response.json()
    return body


def ids(response: dict[str, Any]) -> list[str]:
    return [chunk["chunk_id"] for chunk in response["chunks"]]


def diff_table(without: dict[str, Any], with_: dict[str, Any]) -> str:
    """Returns the two rankings side by side, as `citelock annotations diff` prints them."""
    lines = ["rank  without annotations (distance)  |  with annotations (hl_count, final_score)"]
    for rank, (old, new) in enumerate(zip(without["chunks"], with_["chunks"], strict=True), 1):
        lines.append(
            f"{rank:>4}  {old['chunk_id'][:8]} p.{old['page_start']} ({old['distance']:.4f})"
            f"  |  {new['chunk_id'][:8]} p.{new['page_start']}"
            f" ({new['hl_count']}, {new['final_score']:.4f})"
        )
    return "\n".join(lines)


def test_a_highlighted_passage_rises_into_the_top_3(client: TestClient) -> None:
    without = ask(client, HIGHLIGHTED_PASSAGE_QUERY, use_annotations=False)
    with_ = ask(client, HIGHLIGHTED_PASSAGE_QUERY, use_annotations=True)
    table = diff_table(without, with_)
    print(table)  # shown with pytest -s or -rA: the diff this test is about
    marked = {chunk["chunk_id"] for chunk in with_["chunks"] if chunk["hl_count"] > 0}
    below_top_3 = [chunk_id for chunk_id in ids(without)[3:] if chunk_id in marked]
    assert below_top_3, table
    assert ids(with_).index(below_top_3[0]) < 3, table
    assert without["chunks"]
    assert all(chunk["hl_count"] == 0 and chunk["boost"] == 0 for chunk in without["chunks"])


@pytest.mark.parametrize("mode", MODES)
def test_hits_report_marks_boost_and_final_score(client: TestClient, mode: str) -> None:
    found = ask(client, HIGHLIGHTED_PASSAGE_QUERY, use_annotations=True, mode=mode)
    plain = ask(client, HIGHLIGHTED_PASSAGE_QUERY, use_annotations=False, mode=mode)
    unboosted = {chunk["chunk_id"]: chunk["final_score"] for chunk in plain["chunks"]}
    assert any(chunk["hl_count"] > 0 for chunk in found["chunks"])
    for chunk in found["chunks"]:
        assert chunk["boost"] == pytest.approx(0.02 * min(chunk["hl_count"], 5))
        # The same bounded boost comes off the mode's own score: the distance in "vector",
        # the scaled fused score in "hybrid".
        base = unboosted[chunk["chunk_id"]]
        assert chunk["final_score"] == pytest.approx(base - chunk["boost"], abs=1e-6)
    keys = [(c["final_score"], c["distance"], c["chunk_id"]) for c in found["chunks"]]
    assert keys == sorted(keys)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("query", QUERIES)
def test_the_candidate_set_is_the_same_with_and_without(
    client: TestClient, query: str, mode: str
) -> None:
    without = ask(client, query, use_annotations=False, mode=mode)
    with_ = ask(client, query, use_annotations=True, mode=mode)
    assert sorted(ids(with_)) == sorted(ids(without))
    assert with_["status"] == without["status"]


@pytest.mark.parametrize("query", QUERIES)
def test_no_chunk_passes_one_better_by_more_than_alpha_times_cap(
    client: TestClient, query: str
) -> None:
    chunks = ask(client, query, use_annotations=True, top_k=20)["chunks"]
    limit = 0.02 * 5 + 1e-6
    assert len(chunks) > 1
    for position, chunk in enumerate(chunks):
        for later in chunks[position + 1 :]:
            assert chunk["distance"] - later["distance"] <= limit, (chunk, later)


@pytest.mark.parametrize("mode", MODES)
def test_the_reranked_order_is_deterministic(client: TestClient, mode: str) -> None:
    runs = [
        ask(client, HIGHLIGHTED_PASSAGE_QUERY, use_annotations=True, mode=mode, top_k=10)
        for _ in range(3)
    ]
    assert all(run["chunks"] == runs[0]["chunks"] for run in runs)


def stable(response: dict[str, Any]) -> bytes:
    """Returns the response's bytes less what differs per call (ids, timings)."""
    varying = ("request_id", "response_id", "viewer_url", "timings_ms")
    kept = {k: v for k, v in response.items() if k not in varying}
    return json.dumps(kept, ensure_ascii=False).encode()


def test_signal_off_is_byte_identical_to_a_corpus_without_annotations(
    client: TestClient, highlighted: Runtime
) -> None:
    asked = [(query, mode) for query in QUERIES for mode in MODES]
    off = [stable(ask(client, q, use_annotations=False, mode=m)) for q, m in asked]
    assert any(
        stable(ask(client, q, use_annotations=True, mode=m)) != before
        for (q, m), before in zip(asked, off, strict=True)
    ), "the annotations should change something, or this test shows nothing"
    with highlighted.engine.begin() as connection:
        connection.execute(sa.text("DELETE FROM annotations"))
    try:
        for (query, mode), before in zip(asked, off, strict=True):
            assert stable(ask(client, query, use_annotations=False, mode=mode)) == before
            assert stable(ask(client, query, use_annotations=True, mode=mode)) == before
    finally:
        (document_id,) = client.get("/api/v1/documents").json()["data"]
        path = corpus_path("annotated", "pdfjs__highlights.pdf")
        restored = client.put(
            f"/api/v1/documents/{document_id['id']}/annotations",
            files={"file": (path.name, path.read_bytes(), "application/pdf")},
        )
        assert restored.status_code == 200, restored.text
