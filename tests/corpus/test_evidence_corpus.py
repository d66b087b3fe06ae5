"""Evidence on the shared corpus: each cited line's rectangle holds that line's text in the PDF,
and so does each line of the highlight annotations in the annotated PDF.

Render-free: a rectangle from the stored character boxes is handed back to PyMuPDF's
`page.get_textbox` on the original file, whose text must contain the cited part of that line.
Texts are compared with whitespace, hyphens and compatibility forms (ligatures) normalised:
citelock joins line-end hyphenation and expands ligatures, the raw PDF text does neither.
"""

from __future__ import annotations

import unicodedata
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

import numpy as np
import pymupdf
import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from app.contract.schemas import QueryRequest, QueryResponse
from app.core.records import NO_LINE, PageText
from app.db.models import Page
from app.flows.query import answer_query
from app.flows.responses import annotated_pdf
from tests.helpers.corpus import SHARED_CORPUS, IngestedCorpus

pytestmark = pytest.mark.corpus

QWEN = "test_4751_Qwen2_tech_report.pdf"

RECTS_PER_QUERY = 4
"""get_textbox is slow (it extracts the page's text): only a few rectangles per query."""

QUERIES = [
    ("tracemonkey.pdf", "How does TraceMonkey record and compile hot loops into traces?"),
    ("R-intro.pdf", "How do I read data from a file into a data frame?"),
    ("multicolumn.pdf", "Which sample document has two columns filled with Lorem Ipsum?"),
    ("federal-register-2020-17221.pdf", "By when must the FAA receive comments on this AD?"),
    (QWEN, "What hidden size does the Qwen2-72B model use?"),
]


def normalised(text: str) -> str:
    folded = unicodedata.normalize("NFKC", text)
    return "".join(c for c in folded if not c.isspace() and c not in "-\u00ad\u2010\u2011")


def load_page(session: Session, document_id: uuid.UUID, number: int) -> PageText:
    page = session.scalars(
        select(Page).where(Page.document_id == document_id, Page.page_number == number)
    ).one()
    return PageText(
        number=number,
        text=page.text,
        width=page.width,
        height=page.height,
        char_boxes=np.frombuffer(page.char_boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.frombuffer(page.line_ids, dtype=np.int32),
    )


@cache
def pdf(name: str) -> pymupdf.Document:
    return pymupdf.open(SHARED_CORPUS / "docs" / name)


def line_texts(page: PageText, start: int, end: int) -> list[str]:
    """Returns the span's text line by line, as geometry.line_rects groups its characters."""
    ids = page.line_ids[start:end]
    drawn = (ids != NO_LINE) & ~np.isnan(page.char_boxes[start:end]).any(axis=1)
    lines: dict[int, list[str]] = {}
    for offset in np.flatnonzero(drawn).tolist():
        lines.setdefault(int(ids[offset]), []).append(page.text[start + offset])
    return ["".join(chars) for chars in lines.values()]


@contextmanager
def answered(
    ingested_docs: IngestedCorpus, document: str, question: str
) -> Iterator[tuple[Session, uuid.UUID, QueryResponse]]:
    """Yields the answer to `question` asked of `document` alone, in the session it ran in."""
    if document not in ingested_docs.documents:
        pytest.skip(f"{document} was not ingested")
    runtime = ingested_docs.runtime
    document_id = ingested_docs.documents[document].document.id
    request = QueryRequest.model_validate(
        {"query": question, "filters": {"document_ids": [str(document_id)]}}
    )
    with runtime.sessions.begin() as session:
        yield (
            session,
            document_id,
            answer_query(
                request, session=session, embedder=runtime.embedder, settings=runtime.settings
            ),
        )


@pytest.mark.parametrize(("document", "question"), QUERIES)
def test_cited_rects_hold_the_cited_lines(
    ingested_docs: IngestedCorpus, document: str, question: str
) -> None:
    with answered(ingested_docs, document, question) as (session, _, response):
        items = response.highlighted_sources or []
        assert response.answer and items
        pages = {
            (item.document_id, item.page_number): load_page(
                session, item.document_id, item.page_number
            )
            for item in items
        }
    checked = 0
    for item in items:
        page = pages[(item.document_id, item.page_number)]
        [(start, end)] = item.page_spans
        [(snippet_start, snippet_end)] = item.highlight_spans
        assert page.text[start:end] == item.text_snippet[snippet_start:snippet_end]
        lines = line_texts(page, start, end)
        assert len(lines) == len(item.rects)
        for rect, line in zip(item.rects, lines, strict=True):
            if checked == RECTS_PER_QUERY:
                break
            found = pdf(document)[item.page_number - 1].get_textbox(pymupdf.Rect(rect))
            assert normalised(line) in normalised(found), (line, found)
            checked += 1
    assert checked


@pytest.mark.parametrize(("document", "question"), QUERIES)
def test_annotated_pdf_highlights_hold_the_cited_lines(
    ingested_docs: IngestedCorpus, document: str, question: str
) -> None:
    with answered(ingested_docs, document, question) as (session, document_id, response):
        assert response.response_id is not None
        pdf_bytes = annotated_pdf(
            session=session, document_id=document_id, response_id=uuid.UUID(response.response_id)
        ).content
        items = response.highlighted_sources or []
        lines = {
            (item.page_number, index): line_texts(
                load_page(session, item.document_id, item.page_number), *item.page_spans[0]
            )
            for index, item in enumerate(items)
        }
    with pymupdf.open(stream=pdf_bytes, filetype="pdf") as annotated:
        highlights = [
            (page.number + 1, annot.vertices)
            for page in annotated
            for annot in page.annots(types=[pymupdf.PDF_ANNOT_HIGHLIGHT])
        ]
        # One annotation per item, pages in order; items on one page keep their order.
        expected = sorted(lines, key=lambda key: key[0])
        assert highlights
        assert [page for page, _ in highlights] == [page for page, _ in expected]
        for (number, vertices), key in zip(highlights, expected, strict=True):
            page = annotated[number - 1]
            quads = [pymupdf.Quad(vertices[i : i + 4]) for i in range(0, len(vertices), 4)]
            assert len(quads) == len(lines[key])
            for quad, line in zip(quads, lines[key], strict=True):
                found = page.get_textbox(quad.rect)
                assert normalised(line) in normalised(found), (line, found)


def test_a_table_row_is_cited_with_its_tables_header(ingested_docs: IngestedCorpus) -> None:
    """The row that answers is marked, and so are the lines that head its table (caption and
    column heads), though they stand in another chunk."""
    question = "What hidden size does the Qwen2-72B model use?"
    with answered(ingested_docs, QWEN, question) as (_, _, response):
        items = response.highlighted_sources or []
    marked = [item.text_snippet[slice(*item.highlight_spans[0])] for item in items]
    row = next(i for i, text in enumerate(marked) if text.startswith("Hidden Size 896"))
    assert marked[row - 1].startswith("Table 1: Architecture of Qwen2")
    assert marked[row - 1].endswith("Configuration 0.5B 1.5B 7B 72B 57B-A14B")
    assert items[row - 1].citation == items[row].citation
    assert items[row - 1].page_number == items[row].page_number == 5
    assert "Hidden Size 896" in response.answer and "Configuration 0.5B" in response.answer
