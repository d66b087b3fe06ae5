"""`citelock mcp`: citelock's cited answers as Model Context Protocol tools, for a chatbot's host.

Each tool is one call to a `Backend` (the database, or a running service with `--url`), so a
tool answers the same whichever it talks to. Results are the tools' output schemas as
structured content (the citations as fields a host can show), with the same JSON as text for
hosts that read text only.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from typing import Annotated

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from app.cli.backends import Backend, SearchStatus
from app.contract.schemas import (
    AnswerStatus,
    ChunkHit,
    Citation,
    DocumentOut,
    HighlightedSource,
    QueryRequest,
)
from app.core.errors import CitelockError

INSTRUCTIONS = (
    "citelock holds the user's PDFs and answers questions about them with citations: every "
    "sentence of an answer is quoted from a document and ends with a marker [n] naming its "
    "document and pages. Use `ask` for questions about the documents' content and show its "
    "answer with the markers and sources; say so when it finds no answer rather than answering "
    "from memory. `list_documents` says what is stored."
)

Question = Annotated[
    str, Field(min_length=1, max_length=1000, description="The question, in the user's words.")
]
TopK = Annotated[
    int, Field(ge=1, le=20, description="How many passages to draw on, 1 to 20 (default 5).")
]
SearchText = Annotated[
    str, Field(min_length=1, max_length=1000, description="A question or a topic.")
]
CollectionFilter = Annotated[
    str | None,
    Field(description="Only the documents of this collection (names from list_documents)."),
]
DocumentFilter = Annotated[
    list[uuid.UUID] | None,
    Field(description="Only these documents (ids from list_documents)."),
]


class AskResult(BaseModel):
    """A citation-locked answer, as POST /api/v1/query gives it."""

    answer: str = Field(
        description="Sentences quoted from the documents, each ending with its marker [n]; "
        "empty when status is not ok."
    )
    status: AnswerStatus = Field(
        description="ok; no_answer (passages matched, none answers well enough); no_matches "
        "(nothing relevant); empty_database (nothing stored under the filters)."
    )
    confidence: float = Field(description="How likely the answer states what was asked, 0-1.")
    citations: list[Citation] = Field(
        description="citations[n-1] is what marker [n] cites: document, pages and chunk."
    )
    sources: list[str] = Field(description='sources[n-1] says it in words: "file.pdf, p. 3".')
    viewer_url: str | None = Field(
        description="A page showing the cited lines highlighted on the PDF pages; null "
        "without an answer."
    )
    response_id: str | None = Field(description="The id get_evidence takes.")


class SearchResult(BaseModel):
    """The passages closest to a query, best first."""

    status: SearchStatus
    chunks: list[ChunkHit] = Field(
        description="Each passage's text, its document and pages, and its scores "
        "(relevance_score: similarity to the query, higher is closer)."
    )


class EvidenceResult(BaseModel):
    """Where each cited sentence of a stored answer stands on its page."""

    response_id: uuid.UUID
    answer: str
    sources: list[str]
    citations: list[Citation]
    highlighted_sources: list[HighlightedSource] = Field(
        description="One per cited sentence and page: the snippet, the sentence's spans in "
        "it and in the page's text, and one rectangle per line (PDF points, origin top-left); "
        "`citation` is the marker [n] it supports."
    )
    expires_at: datetime


class DocumentSummary(BaseModel):
    id: uuid.UUID
    title: str
    filename: str
    collection: str
    language: str
    version: str
    page_count: int
    chunk_count: int
    created_at: datetime


class DocumentsResult(BaseModel):
    documents: list[DocumentSummary] = Field(description="Oldest first.")

    @classmethod
    def of(cls, documents: list[DocumentOut]) -> DocumentsResult:
        return cls(documents=[DocumentSummary.model_validate(d.model_dump()) for d in documents])


@contextmanager
def tool_errors() -> Iterator[None]:
    """Turns citelock's errors into tool errors the model reads: the stable code and what was
    wrong (never the caller's text: a refused query is not echoed into the logs)."""
    try:
        yield
    except ValidationError as error:
        reasons = "; ".join(
            f"{'.'.join(str(part) for part in item['loc'])}: {item['msg']}"
            for item in error.errors()
        )
        raise ToolError(f"invalid_query: {reasons}") from error
    except CitelockError as error:
        raise ToolError(f"{error.code}: {error.detail}") from error


def query_request(
    text: str, *, top_k: int, collection: str | None, document_ids: list[uuid.UUID] | None
) -> QueryRequest:
    filters = {"collection": collection, "document_ids": document_ids or []}
    return QueryRequest.model_validate({"query": text, "top_k": top_k, "filters": filters})


READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)


def build_server(backend: Backend) -> MCPServer:
    """Returns the MCP server whose tools answer from `backend`."""
    server = MCPServer("citelock", instructions=INSTRUCTIONS)

    @server.tool(
        annotations=ToolAnnotations(
            read_only_hint=False, destructive_hint=False, open_world_hint=False
        )
    )
    def ask(
        question: Question,
        top_k: TopK = 5,
        collection: CollectionFilter = None,
        document_ids: DocumentFilter = None,
    ) -> AskResult:
        """Answer a question from the user's documents, every sentence cited.

        Use it first for any question about what the documents say. `answer` is made of
        sentences quoted from the documents, each ending with a marker [n]; `citations[n-1]`
        and `sources[n-1]` give the document and pages of [n], and `viewer_url` opens the
        cited lines highlighted on their pages. Show the answer with its markers and its
        sources. A status other than ok means the documents do not answer the question:
        say so, do not answer from memory as if it were cited.
        """
        with tool_errors():
            request = query_request(
                question, top_k=top_k, collection=collection, document_ids=document_ids
            )
            response = backend.query(request)
        return AskResult(
            answer=response.answer,
            status=response.status,
            confidence=response.confidence,
            citations=response.citations,
            sources=response.sources,
            viewer_url=backend.link(response.viewer_url) if response.viewer_url else None,
            response_id=response.response_id,
        )

    @server.tool(annotations=READS)
    def search(
        query: SearchText,
        top_k: TopK = 5,
        collection: CollectionFilter = None,
        document_ids: DocumentFilter = None,
    ) -> SearchResult:
        """Find the passages of the user's documents closest to a query, best first, without
        writing an answer: each with its text, document, pages and scores.

        Use it to explore what the documents hold on a topic, to read more around a cited
        passage, or when ask found no answer and the nearest passages may still help. The
        same passages ask draws on for the same query.
        """
        with tool_errors():
            request = query_request(
                query, top_k=top_k, collection=collection, document_ids=document_ids
            )
            found = backend.search(request)
        return SearchResult(status=found.status, chunks=found.chunks)

    @server.tool(annotations=READS)
    def get_evidence(response_id: uuid.UUID) -> EvidenceResult:
        """Return where each cited sentence of an earlier ask answer stands: its document,
        page, snippet and line rectangles on the page.

        Use it to show or check exactly which lines support a marker [n], by the
        response_id ask returned. Answers are kept for days, then expire
        (response_not_found).
        """
        with tool_errors():
            stored = backend.response(response_id)
        return EvidenceResult(
            response_id=stored.response_id,
            answer=stored.answer,
            sources=stored.sources,
            citations=stored.citations,
            highlighted_sources=stored.highlighted_sources or [],
            expires_at=stored.expires_at,
        )

    @server.tool(annotations=READS)
    def list_documents(collection: CollectionFilter = None) -> DocumentsResult:
        """List the documents stored in citelock: id, title, file name, collection and size.

        Use it to learn what can be asked about, or to find the collection or document ids
        that ask and search can be limited to.
        """
        with tool_errors():
            return DocumentsResult.of(backend.documents(collection))

    return server
