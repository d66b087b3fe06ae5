"""Answers over the shared corpus, as properties: every `[n]` in an answer names an existing
source and citation, every claim is its chunk's text with only whitespace and the quoted text's
own bracketed numbers changed, and every highlighted source names a citation that exists.

The questions are a sample of bench/data/questions_docs.jsonl's (those over docs/, which the
corpus fixture ingests) and of its off-topic ones, so both answers and no answers are checked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from app.answer import synthesize
from app.contract.schemas import QueryRequest
from app.flows.query import answer_query, retrieval_params, worked_out_answer
from app.retrieval.pipeline import retrieve_context
from app.retrieval.statements import following_chunk
from tests.helpers.corpus import IngestedCorpus

pytestmark = pytest.mark.corpus

DATA = Path(__file__).resolve().parents[2] / "bench" / "data"
SAMPLE_EVERY = 4
MARKER = re.compile(r"(?<=\s)\[(\d+)\]")
BRACKET_NUMBERS = re.compile(r"\[\d+(?:[,\u2013-]\d+)*\]")
"""A bracketed number as it reads with whitespace removed: `[21]`, `[4,5]`, `[3-7]`."""


def questions() -> list[str]:
    rows = [json.loads(line) for line in (DATA / "questions_docs.jsonl").read_text().splitlines()]
    docs = [row["question"] for row in rows if row["file"].startswith("docs/")]
    offtopic = [
        json.loads(line)["question"] for line in (DATA / "offtopic.jsonl").read_text().splitlines()
    ]
    return docs[::SAMPLE_EVERY] + offtopic[:: SAMPLE_EVERY * 2]


def only_whitespace_and_markers_changed(quoted: str, shown: str) -> bool:
    """Whether `shown` is `quoted` with whitespace changed and bracketed numbers left out."""
    source, target = "".join(quoted.split()), "".join(shown.split())
    i = j = 0
    while i < len(source):
        if j < len(target) and source[i] == target[j]:
            i, j = i + 1, j + 1
            continue
        dropped = BRACKET_NUMBERS.match(source, i)
        if dropped is None:
            return False
        i = dropped.end()
    return j == len(target)


@pytest.mark.parametrize("question", questions())
def test_answers_cite_what_they_quote(ingested_docs: IngestedCorpus, question: str) -> None:
    runtime = ingested_docs.runtime
    request = QueryRequest.model_validate({"query": question, "filters": {"collection": "docs"}})
    with runtime.sessions.begin() as session:
        response = answer_query(
            request, session=session, embedder=runtime.embedder, settings=runtime.settings
        )
        params = retrieval_params(request, runtime.settings)
        bundle = retrieve_context(question, params, session=session, embedder=runtime.embedder)
        # What the flow works out from a table comes first, as it does there; both read the
        # chunks by score.
        answer = worked_out_answer(question, bundle.by_score, session) or synthesize(
            question,
            bundle.by_score,
            bundle.context.chunks,
            runtime.embedder,
            following=lambda chunk: following_chunk(session, chunk, params.filters.exclude_flags),
        )
    assert response.answer == answer.text
    if response.status != "ok":
        assert response.status in ("no_answer", "no_matches")
        assert response.answer == "" and response.sources == response.citations == []
        if response.status == "no_answer":
            assert response.chunks and response.viewer_url is None
        return
    assert answer.claims
    numbers = [int(n) for n in MARKER.findall(response.answer)]
    # Each claim is followed by its marker; a figure worked out from a table before its quote.
    assert all(f"{claim.text} [{claim.source}]" in response.answer for claim in answer.claims)
    assert set(numbers) == set(range(1, len(response.sources) + 1))
    assert [citation.n for citation in response.citations] == list(
        range(1, len(response.sources) + 1)
    )
    for claim in answer.claims:
        # A table's row is quoted after the lines that head its table.
        header = claim.chunk.table_header_text if claim.header else ""
        quoted = header + "".join(claim.chunk.content[start:end] for start, end in claim.parts)
        assert only_whitespace_and_markers_changed(quoted, claim.text), (quoted, claim.text)
        citation = response.citations[claim.source - 1]
        assert citation.document_id == claim.chunk.document_id
        assert (citation.page_start, citation.page_end) == (claim.first_page, claim.last_page)
    items = response.highlighted_sources or []
    assert items
    for item in items:
        citation = response.citations[item.citation - 1]
        assert item.citation >= 1 and citation.document_id == item.document_id
        assert citation.page_start <= item.page_number <= citation.page_end
