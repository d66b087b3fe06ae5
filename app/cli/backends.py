"""What the CLI's commands and the MCP server read: the database through the flows, or a running
service through its HTTP API (`--url`). Both give the contract's models, so a command or a tool
has one code path whatever it talks to."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal, Protocol

from app.cli.service_client import ServiceClient
from app.contract.schemas import ChunkHit, DocumentOut, QueryRequest, QueryResponse, ResponseOut
from app.core.config import get_settings
from app.db.documents import iter_documents
from app.flows.query import answer_query, chunk_hit, retrieval_params
from app.flows.responses import stored_response
from app.flows.runtime import Runtime, open_runtime
from app.retrieval.pipeline import retrieve_context

SearchStatus = Literal["ok", "no_matches", "empty_database"]
"""no_matches: nothing above the similarity threshold; empty_database: nothing stored under
the filters."""


@dataclass(frozen=True)
class Search:
    status: SearchStatus
    chunks: list[ChunkHit]
    """Best first, as `chunks` in the query endpoint's response."""


class Backend(Protocol):
    def query(self, request: QueryRequest) -> QueryResponse:
        """Returns what POST /api/v1/query answers to `request` (its evidence stored)."""
        ...

    def search(self, request: QueryRequest) -> Search:
        """Returns the chunks POST /api/v1/query would rank for `request`."""
        ...

    def documents(self, collection: str | None) -> list[DocumentOut]:
        """Returns the ready documents of `collection` (all, for None), oldest first."""
        ...

    def response(self, response_id: uuid.UUID) -> ResponseOut:
        """Returns a stored response's evidence; `ResponseNotFound` once it expired."""
        ...

    def link(self, path: str) -> str:
        """Returns the address a reader opens for one of the service's paths (a viewer_url)."""
        ...

    def close(self) -> None: ...


class DatabaseBackend:
    """The database this process opened, read through the flows the routes call."""

    def __init__(self, runtime: Runtime, *, public_url: str | None = None) -> None:
        self.runtime = runtime
        self.public_url = public_url

    def query(self, request: QueryRequest) -> QueryResponse:
        # As the query route does: each statement commits on its own, the evidence included.
        with self.runtime.autocommit_sessions() as session:
            return answer_query(
                request,
                session=session,
                embedder=self.runtime.embedder,
                settings=self.runtime.settings,
            )

    def search(self, request: QueryRequest) -> Search:
        params = retrieval_params(request, self.runtime.settings)
        with self.runtime.autocommit_sessions() as session:
            bundle = retrieve_context(
                request.query, params, session=session, embedder=self.runtime.embedder
            )
        status: SearchStatus = "ok" if bundle.status == "scope_fallback" else bundle.status
        return Search(status, [chunk_hit(chunk, params) for chunk in bundle.chunks])

    def documents(self, collection: str | None) -> list[DocumentOut]:
        with self.runtime.sessions() as session:
            return [
                DocumentOut.of(document)
                for document in iter_documents(session=session, collection=collection)
            ]

    def response(self, response_id: uuid.UUID) -> ResponseOut:
        with self.runtime.sessions() as session:
            return stored_response(session=session, response_id=response_id)

    def link(self, path: str) -> str:
        # Without a service's address the path is all there is: it opens on any citelock
        # serving this database.
        return f"{self.public_url.rstrip('/')}{path}" if self.public_url else path

    def close(self) -> None:
        self.runtime.close()


class ServiceBackend:
    """A running citelock service, through its HTTP API."""

    def __init__(
        self, url: str, *, api_key: str | None = None, public_url: str | None = None
    ) -> None:
        self.client = ServiceClient(url, api_key=api_key)
        self.public_url = (public_url or url).rstrip("/")

    def query(self, request: QueryRequest) -> QueryResponse:
        body = self.client.query(request.model_dump(mode="json", exclude_none=True))
        return QueryResponse.model_validate(body)

    def search(self, request: QueryRequest) -> Search:
        # The service ranks only as part of an answer; its chunks are the search's.
        response = self.query(request)
        status = response.status if response.status in ("no_matches", "empty_database") else "ok"
        return Search(status, response.chunks)

    def documents(self, collection: str | None) -> list[DocumentOut]:
        return [DocumentOut.model_validate(row) for row in self.client.documents(collection)]

    def response(self, response_id: uuid.UUID) -> ResponseOut:
        return ResponseOut.model_validate(self.client.response(str(response_id)))

    def link(self, path: str) -> str:
        return f"{self.public_url}{path}"

    def close(self) -> None:
        self.client.close()


def open_backend(
    url: str | None, *, api_key: str | None = None, public_url: str | None = None
) -> Backend:
    """Returns the service at `url` when given, else the database of the settings (migrated,
    the model loaded)."""
    if url:
        return ServiceBackend(url, api_key=api_key, public_url=public_url)
    return DatabaseBackend(open_runtime(get_settings()), public_url=public_url)
