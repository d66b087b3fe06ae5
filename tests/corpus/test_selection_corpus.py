"""Selection mode on the shared corpus: selections are found, and nothing from outside the
selection's pages reaches the answer, ever.

Selections as viewers send them are sampled from PyMuPDF's own reading of the pages, in two
orders: PyMuPDF's text, and a text layer's (words in content-stream order joined by spaces,
hyphens kept); a sentence across a page turn takes in the footer, footnotes and running
header between. At least MIN_LOCATED of them must be found on their pages.

The property test draws a document, a range of one to three pages, a passage of those pages
(whole words, possibly across a page break) and a question, and checks that every chunk,
source, highlighted source and rectangle of the response stands in that document and on
those pages, and that the answer's quoted text is text of those pages. Most examples call
the service function the route calls (`answer_query`); a few go through HTTP.
"""

from __future__ import annotations

import itertools
import random
import re
import uuid
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymupdf
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from app.answer.claims import shown_text
from app.contract.schemas import QueryRequest, QueryResponse
from app.core.records import PAGE_BREAK
from app.core.sentences import split_sentences
from app.db.documents import delete_document
from app.db.models import Page
from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.query import answer_query
from app.flows.runtime import Runtime
from app.retrieval import selection_scope
from app.retrieval.filters import SearchFilters
from app.retrieval.selection import Selection, normalize
from app.retrieval.selection_scope import Located, document_scope, page_texts, resolve_selection
from tests.helpers.clients import client_for
from tests.helpers.corpus import IngestedCorpus, corpus_path
from tests.helpers.embedding import RememberingEmbedder

pytestmark = pytest.mark.corpus

QUERIES = [
    "how are hot loops compiled",
    "what does the function return",
    "which security risks are described",
    "how many parameters does the model have",
    "what are the results of the evaluation",
    "explain the main idea",
    "who is responsible for the costs",
    "how do I install it",
    "what happens on an error",
    "capital city and population",
]
"""The questions of the property test: embedded once each (RememberingEmbedder), so an example
costs a search, not a model run."""

MAX_WORDS = 80
"""The longest selection drawn, in words."""

_WORD = re.compile(r"\w+")
_SOURCE = re.compile(r"(?P<name>.+), pp?\. (?P<first>\d+)(?:-(?P<last>\d+))?")
_MARKER = re.compile(r" \[\d+\](?= |$)")


@dataclass(frozen=True)
class StoredDocument:
    id: uuid.UUID
    filename: str
    pages: tuple[str, ...]
    """Page texts as stored; page n is pages[n - 1]."""

    def text(self, first: int, last: int) -> str:
        return PAGE_BREAK.join(self.pages[first - 1 : last])


@dataclass(frozen=True)
class Drawn:
    document: StoredDocument
    first: int
    last: int
    text: str
    query: str
    named: str
    """What the selection names: "pages" (document and pages), "document" or "nothing"."""

    def selected(self) -> dict[str, Any]:
        selected: dict[str, Any] = {"text": self.text}
        if self.named != "nothing":
            selected["document_id"] = str(self.document.id)
        if self.named == "pages":
            selected |= {"start_page": self.first, "end_page": self.last}
        return selected


def stored_documents(corpus: IngestedCorpus) -> list[StoredDocument]:
    documents = []
    with corpus.runtime.sessions.begin() as session:
        for name, result in sorted(corpus.documents.items()):
            texts = session.scalars(
                select(Page.text)
                .where(Page.document_id == result.document.id)
                .order_by(Page.page_number)
            ).all()
            documents.append(StoredDocument(result.document.id, name, tuple(texts)))
    return documents


@pytest.fixture(scope="module")
def documents(ingested_docs: IngestedCorpus) -> list[StoredDocument]:
    return stored_documents(ingested_docs)


@pytest.fixture(scope="module")
def embedder(ingested_docs: IngestedCorpus) -> RememberingEmbedder:
    embedder = ingested_docs.runtime.embedder
    assert isinstance(embedder, RememberingEmbedder)
    return embedder


@st.composite
def drawn_selections(draw: st.DrawFn, documents: list[StoredDocument]) -> Drawn:
    document = draw(st.sampled_from(documents))
    worded = [n for n, text in enumerate(document.pages, 1) if _WORD.search(text)]
    first = draw(st.sampled_from(worded))
    last = draw(st.integers(first, min(first + 2, len(document.pages))))
    words = [found.span() for found in _WORD.finditer(document.text(first, last))]
    start = draw(st.integers(0, len(words) - 1))
    end = draw(st.integers(start, min(start + MAX_WORDS, len(words)) - 1))
    text = document.text(first, last)[words[start][0] : words[end][1]]
    # Mostly what a viewer sends (document and pages); sometimes less, to be searched for.
    named = draw(st.sampled_from(["pages"] * 6 + ["document"] * 3 + ["nothing"]))
    return Drawn(document, first, last, text, draw(st.sampled_from(QUERIES)), named)


def check_confined(body: QueryResponse, drawn: Drawn, documents: list[StoredDocument]) -> None:
    """Fails when anything in the response stands outside the selection's document and pages.

    With pages named, those are the range; otherwise the pages the selection was found on,
    which must hold the selection's text.
    """
    assert body.query_type == "selected_text", body.scope_note
    assert body.selection is not None
    found = body.selection
    if drawn.named != "nothing":
        assert found.document_id == drawn.document.id
    if drawn.named == "pages":
        assert drawn.first <= found.start_page <= found.end_page <= drawn.last
    document = next(d for d in documents if d.id == found.document_id)
    first, last = found.start_page, found.end_page
    allowed = range(first, last + 1)
    assert normalize(drawn.text).text in normalize(document.text(first, last)).text

    for chunk in body.chunks:
        assert chunk.document_id == document.id
        assert chunk.page_start in allowed and chunk.page_end in allowed
    for source in body.sources:
        parsed = _SOURCE.fullmatch(source)
        assert parsed is not None, source
        assert parsed["name"] == document.filename
        assert int(parsed["first"]) in allowed and int(parsed["last"] or first) in allowed
    for item in body.highlighted_sources or []:
        assert item.document_id == document.id
        assert item.page_number in allowed
        page_text = document.pages[item.page_number - 1]
        # The rectangles are those of these page characters: the spans must be of this page.
        for (start, end), (page_start, page_end) in zip(
            item.highlight_spans, item.page_spans, strict=True
        ):
            assert item.text_snippet[start:end] == page_text[page_start:page_end]
        assert len(item.rects) >= 1 or item.bbox is None
    # Every quoted claim is text of the allowed pages (read as claims show their text: spaces
    # collapsed, none between CJK characters, the text's own bracketed numbers left out), in
    # one piece or, for a row with its headers or a sentence joined across a figure or a
    # page's furniture, in a few.
    allowed_text = document.text(first, last)
    pages_text = normalize(shown_text(allowed_text, [(0, len(allowed_text))])).text
    for quoted in _MARKER.split(body.answer):
        assert pieced_from(normalize(quoted).text, pages_text), quoted


def pieced_from(claim: str, text: str, most: int = 4) -> bool:
    """Whether `claim` is at most `most` pieces of `text` joined by spaces."""
    words = claim.split(" ")
    start = 0
    for _ in range(most):
        end = len(words)
        while end > start and " ".join(words[start:end]) not in text:
            end -= 1
        if end == start:
            return False
        start = end
        if start == len(words):
            return True
    return False


def library_response(corpus: IngestedCorpus, embedder: RememberingEmbedder, drawn: Drawn) -> Any:
    request = QueryRequest(query=drawn.query, selected_text=drawn.selected())
    runtime = corpus.runtime
    with runtime.sessions.begin() as session:
        return answer_query(request, session=session, embedder=embedder, settings=runtime.settings)


@settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(data=st.data())
def test_selection_answers_stay_in_the_selection(
    ingested_docs: IngestedCorpus,
    documents: list[StoredDocument],
    embedder: RememberingEmbedder,
    data: st.DataObject,
) -> None:
    drawn = data.draw(drawn_selections(documents))
    check_confined(library_response(ingested_docs, embedder, drawn), drawn, documents)


@pytest.fixture(scope="module")
def corpus_client(ingested_docs: IngestedCorpus) -> Iterator[TestClient]:
    with client_for(ingested_docs.runtime) as client:
        yield client


@settings(max_examples=8, deadline=None, derandomize=True)
@given(data=st.data())
def test_selection_answers_stay_in_the_selection_over_http(
    corpus_client: TestClient, documents: list[StoredDocument], data: st.DataObject
) -> None:
    drawn = data.draw(drawn_selections(documents))
    response = corpus_client.post(
        "/api/v1/query", json={"query": drawn.query, "selected_text": drawn.selected()}
    )
    assert response.status_code == 200, response.text
    check_confined(QueryResponse.model_validate(response.json()), drawn, documents)


MORE_DOCUMENTS = [
    # The selections' own text, in other documents: the same PDF in other collections,
    # and single pages of the TraceMonkey paper annotated by readers.
    ("docs", "multicolumn.pdf", "copy-1"),
    ("docs", "multicolumn.pdf", "copy-2"),
    ("docs", "multicolumn.pdf", "copy-3"),
    ("annotated", "pdfjs__bug1885505.pdf", "extra"),
    ("annotated", "pdfjs__issue7014.pdf", "extra"),
    ("annotated", "pdfjs__quadpoints.pdf", "extra"),
    ("annotated", "pdfannots__caret.pdf", "extra"),
    ("annotated", "pdfannots__pr24.pdf", "extra"),
    ("annotated", "pdfannots__FreeText-annotation.pdf", "extra"),
    ("annotated", "pdfjs__annotation-squiggly-without-appearance.pdf", "extra"),
    ("annotated", "pysf__annotated_pdf.pdf", "extra"),
]


def comparable(body: QueryResponse) -> dict[str, Any]:
    """Returns the response without what differs between two identical requests."""
    return body.model_dump(exclude={"request_id", "response_id", "viewer_url", "timings_ms"})


def across_the_break(document: StoredDocument, page: int, words: int) -> str:
    """Returns the last `words` words of `page` and the first `words` of the next page."""
    text = document.text(page, page + 1)
    spans = [found.span() for found in _WORD.finditer(text)]
    ends = len(_WORD.findall(document.pages[page - 1]))
    return text[spans[ends - words][0] : spans[ends + words - 1][1]]


def test_selection_answer_is_unchanged_by_ten_more_documents(
    ingested_docs: IngestedCorpus, documents: list[StoredDocument]
) -> None:
    runtime: Runtime = ingested_docs.runtime
    by_name = {document.filename: document for document in documents}
    tracemonkey, multicolumn = by_name["tracemonkey.pdf"], by_name["multicolumn.pdf"]
    requests = [
        QueryRequest(
            query="how does the tracing JIT find and compile hot loops",
            selected_text={
                "text": tracemonkey.pages[0][400:1400].rsplit(" ", 1)[0].split(" ", 1)[1],
                "document_id": str(tracemonkey.id),
                "start_page": 1,
                "end_page": 1,
            },
        ),
        QueryRequest(
            query="lorem ipsum dolor sit amet",
            top_k=10,
            selected_text={
                "text": across_the_break(multicolumn, 2, 25),
                "document_id": str(multicolumn.id),
            },
        ),
    ]

    def responses() -> list[dict[str, Any]]:
        with runtime.sessions.begin() as session:
            return [
                comparable(
                    answer_query(
                        request,
                        session=session,
                        embedder=runtime.embedder,
                        settings=runtime.settings,
                    )
                )
                for request in requests
            ]

    before = responses()
    assert before
    assert all(body["query_type"] == "selected_text" and body["chunks"] for body in before)
    added: list[uuid.UUID] = []
    try:
        for folder, name, collection in MORE_DOCUMENTS:
            meta = DocumentMeta(filename=name, collection=collection)
            result = ingest_file(corpus_path(folder, name), meta, runtime=runtime)
            added.append(result.document.id)
        assert len(set(added)) >= 10
        assert responses() == before
    finally:
        with runtime.sessions.begin() as session:
            for document_id in set(added):
                delete_document(session=session, document_id=document_id)


MIN_LOCATED = 0.97
BORN_DIGITAL_SKIPPED = {"scan_huckfinn_multipage.pdf", "ocrnoisy_zh_pr-136-example.pdf"}
"""A scan (no text layer) and a noisy OCR layer: their text is no viewer's selection."""
SAMPLED_PER_ORDER = {"within a page": 14, "across a page turn": 12}
"""Sentences sampled from each document in each order (fewer where it has fewer)."""


@dataclass(frozen=True)
class ViewerSelection:
    filename: str
    order: str
    text: str
    first: int
    last: int


def viewer_pages(path: Path, order: str) -> list[str]:
    """Returns the document's pages as a viewer reads them: PyMuPDF's text, or a text
    layer's words in content-stream order joined by spaces (hyphens kept)."""
    with pymupdf.open(path) as pdf:
        if order == "pymupdf":
            return [page.get_text() for page in pdf]
        return [" ".join(word[4] for word in page.get_text("words", sort=False)) for page in pdf]


def viewer_selections(path: Path, order: str, rng: random.Random) -> list[ViewerSelection]:
    """Returns sentences of 5 to 120 words of the document read in `order`, some within a
    page and some across a page turn (with what the pages put between)."""
    pages = viewer_pages(path, order)
    joiner = "\n" if order == "pymupdf" else " "
    starts = list(itertools.accumulate((len(page) + len(joiner) for page in pages), initial=0))
    text = joiner.join(pages)
    kinds: dict[str, list[ViewerSelection]] = {kind: [] for kind in SAMPLED_PER_ORDER}
    for start, end in split_sentences(text):
        if 5 <= len(_WORD.findall(text[start:end])) <= 120:
            first, last = bisect_right(starts, start), bisect_right(starts, end - 1)
            kind = "within a page" if first == last else "across a page turn"
            kinds[kind].append(ViewerSelection(path.name, order, text[start:end], first, last))
    return [
        selection
        for kind, found in kinds.items()
        for selection in rng.sample(found, min(SAMPLED_PER_ORDER[kind], len(found)))
    ]


def test_viewer_selections_are_located(
    ingested_docs: IngestedCorpus, documents: list[StoredDocument]
) -> None:
    rng = random.Random(18)
    by_name = {document.filename: document for document in documents}
    selections = [
        selection
        for name in sorted(by_name.keys() - BORN_DIGITAL_SKIPPED)
        for order in ("pymupdf", "text layer")
        for selection in viewer_selections(corpus_path("docs", name), order, rng)
    ]
    assert len(selections) >= 300
    assert sum(s.first != s.last for s in selections) >= 60
    missed = []
    with ingested_docs.runtime.sessions.begin() as session:
        for number, selection in enumerate(selections):
            # Mostly with its pages, as a viewer sends it; every third with its document only.
            pages = (None, None) if number % 3 == 0 else (selection.first, selection.last)
            wanted = Selection(selection.text, by_name[selection.filename].id, *pages)
            found = resolve_selection(session, wanted, SearchFilters())
            if not (
                isinstance(found, Located)
                and selection.first <= found.match.start_page <= found.match.end_page
                and found.match.end_page <= selection.last
            ):
                missed.append(selection)
    located = 1 - len(missed) / len(selections)
    assert located >= MIN_LOCATED, "\n".join(repr(s) for s in missed)


@pytest.mark.parametrize("words", [1, 3])
def test_a_running_header_and_the_words_under_it_are_located_on_their_page(
    ingested_docs: IngestedCorpus, documents: list[StoredDocument], words: int
) -> None:
    document = next(d for d in documents if d.filename == "test_3842_NIST_SP800-223.pdf")
    page = document.pages[33]
    header = "NIST SP 800-223\nFebruary 2024\nHigh-Performance Computing Security\n\n"
    assert page.startswith(header)
    under = _WORD.findall(page[len(header) :])[:words]
    text = page[: page.index(under[-1], len(header)) + len(under[-1])]
    with ingested_docs.runtime.sessions.begin() as session:
        found = resolve_selection(session, Selection(text, document.id), SearchFilters())
    assert isinstance(found, Located), found
    assert found.match.start_page == found.match.end_page == 34


def test_every_page_in_scope_is_read_once_in_order_however_few_at_a_time(
    ingested_docs: IngestedCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    scope = document_scope(SearchFilters())
    with ingested_docs.runtime.sessions.begin() as session:
        places = session.execute(
            select(Page.document_id, Page.page_number)
            .where(*scope)
            .order_by(Page.document_id, Page.page_number)
        ).all()
        monkeypatch.setattr(selection_scope, "PAGES_READ_AT_ONCE", 7)
        read = [(document, page) for document, page, _ in page_texts(session, scope)]
    assert len(places) > 7
    assert read == [tuple(place) for place in places]
