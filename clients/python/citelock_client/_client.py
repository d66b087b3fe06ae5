"""`Client`: the service's operations as blocking calls."""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar, overload

import httpx

from citelock_client import _operations as operations
from citelock_client._base_client import (
    DEFAULT_TIMEOUT_SECONDS,
    JOB_POLL_SECONDS,
    BaseClient,
    finished_job,
)
from citelock_client._exceptions import (
    TransportError,
    error_from_response,
    translate_transport_errors,
)
from citelock_client._models import (
    Annotation,
    Chunk,
    Document,
    DocumentList,
    DocumentQueued,
    Job,
    QueryFilters,
    QueryResponse,
    SelectedText,
    StoredResponse,
)
from citelock_client._operations import Call, Id

__all__ = ["Client"]

T = TypeVar("T")


class Client(BaseClient):
    """A citelock service at `base_url`, with `api_key` when it has keys.

    `timeout` is per request, in seconds. A 503 or a failed connection is retried `retries`
    times, `backoff` seconds apart and doubling; a 4xx never is. Errors are `CitelockError`s.
    Use it in a `with` block, or `close()` it.
    """

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        api_key: str | None = None,
        *,
        timeout: float = DEFAULT_TIMEOUT_SECONDS,
        retries: int = 3,
        backoff: float = 0.5,
    ) -> None:
        super().__init__(base_url, api_key, timeout=timeout, retries=retries, backoff=backoff)
        self._http = httpx.Client(
            base_url=self.base_url, headers=self.headers, timeout=self.timeout
        )

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def _send(self, call: Call[T]) -> T:
        """Returns the call's answer, sending it again after a 503 or a failed connection for
        as long as the retry policy allows."""
        attempt = 0
        while True:
            answer: httpx.Response | TransportError
            try:
                with translate_transport_errors():
                    answer = self._http.request(call.method, call.path, **call.request_arguments())
            except TransportError as error:
                answer = error
            else:
                if not answer.is_error:
                    return call.read(answer)
            delay = self.retry_delay(call, attempt, answer)
            if delay is None:
                if isinstance(answer, TransportError):
                    raise answer
                raise error_from_response(answer)
            time.sleep(delay)
            attempt += 1

    # Documents

    @overload
    def upload(
        self,
        path: str | os.PathLike[str],
        *,
        collection: str,
        title: str | None = None,
        password: str | None = None,
        language: str | None = None,
        version: str | None = None,
        is_my_copy: bool | None = None,
        wait: Literal[True] = True,
    ) -> Document: ...

    @overload
    def upload(
        self,
        path: str | os.PathLike[str],
        *,
        collection: str,
        title: str | None = None,
        password: str | None = None,
        language: str | None = None,
        version: str | None = None,
        is_my_copy: bool | None = None,
        wait: bool,
    ) -> Document | DocumentQueued: ...

    def upload(
        self,
        path: str | os.PathLike[str],
        *,
        collection: str,
        title: str | None = None,
        password: str | None = None,
        language: str | None = None,
        version: str | None = None,
        is_my_copy: bool | None = None,
        wait: bool = True,
    ) -> Document | DocumentQueued:
        """Returns the stored document: new, or the one with the same bytes in `collection`.

        A long PDF is ingested in the background: with `wait` this waits for its job and
        returns the document once ready (raising `IngestFailed` if it fails); without, it
        returns the `DocumentQueued` to pass to `wait_for_job`. Options left None take the
        service's defaults.
        """
        file = Path(path)
        with file.open("rb") as stream:
            stored = self._send(
                operations.upload_document(
                    stream,
                    filename=file.name,
                    collection=collection,
                    title=title,
                    language=language,
                    version=version,
                    is_my_copy=is_my_copy,
                    password=password,
                )
            )
        if isinstance(stored, DocumentQueued) and wait:
            self.wait_for_job(stored)
            return self.get_document(stored.id)
        return stored

    def get_job(self, job: Id | DocumentQueued) -> Job:
        """Returns a background ingestion's progress."""
        return self._send(operations.get_job(job))

    def wait_for_job(
        self, job: Id | DocumentQueued, *, poll_interval: float = JOB_POLL_SECONDS
    ) -> Job:
        """Returns the job once ready, asking every `poll_interval` seconds; raises
        `IngestFailed` if it fails."""
        while not finished_job(state := self.get_job(job)):
            time.sleep(poll_interval)
        return state

    def list_documents(
        self, *, collection: str | None = None, limit: int | None = None, offset: int = 0
    ) -> DocumentList:
        """Returns a page of the stored documents (`data`) and how many there are (`count`)."""
        return self._send(
            operations.list_documents(collection=collection, limit=limit, offset=offset)
        )

    def get_document(self, document_id: Id) -> Document:
        return self._send(operations.get_document(document_id))

    def delete_document(self, document_id: Id) -> None:
        """Removes the document with its chunks, annotations and everything else."""
        self._send(operations.delete_document(document_id))

    def get_chunks(self, document_id: Id, *, page: int) -> list[Chunk]:
        """Returns the chunks touching `page`, with their spans and one rectangle per line."""
        return self._send(operations.get_chunks(document_id, page=page))

    def get_page_image(self, document_id: Id, page: int, *, scale: float | None = None) -> bytes:
        """Returns the page rendered as PNG (`scale` 1 is 72 dpi)."""
        return self._send(operations.get_page_image(document_id, page, scale=scale))

    # Answers

    def query(
        self,
        query: str,
        *,
        top_k: int | None = None,
        filters: QueryFilters | Mapping[str, Any] | None = None,
        selected_text: SelectedText | Mapping[str, Any] | None = None,
        search: Literal["vector", "hybrid"] | None = None,
        use_annotations: bool | None = None,
    ) -> QueryResponse:
        """Returns the citation-locked answer to `query`, with its sources and chunks.

        Arguments left None take the service's defaults: `top_k` 5 (3 in selection mode),
        `search` "vector", `use_annotations` as the service is set.
        """
        return self._send(
            operations.query(
                query,
                top_k=top_k,
                filters=filters,
                selected_text=selected_text,
                search=search,
                use_annotations=use_annotations,
            )
        )

    def get_response(self, response_id: Id) -> StoredResponse:
        """Returns a stored response's evidence (never its query text)."""
        return self._send(operations.get_response(response_id))

    def get_viewer(self, response_id: Id) -> str:
        """Returns the viewer's HTML page for a stored response, images inside."""
        return self._send(operations.get_viewer(response_id))

    def get_annotated_pdf(self, document_id: Id, *, response_id: Id) -> bytes:
        """Returns the document's PDF with the response's cited lines as highlight annotations."""
        return self._send(operations.get_annotated_pdf(document_id, response_id=response_id))

    # The reader's annotations

    def list_annotations(self, document_id: Id) -> list[Annotation]:
        return self._send(operations.list_annotations(document_id))

    def add_annotation(
        self, document_id: Id, *, page: int, text: str, comment: str = ""
    ) -> Annotation:
        """Returns the highlight made over `text` as it stands on `page`."""
        return self._send(
            operations.add_annotation(document_id, page=page, text=text, comment=comment)
        )

    def replace_annotations(
        self, document_id: Id, path: str | os.PathLike[str], *, password: str | None = None
    ) -> list[Annotation]:
        """Returns the annotations read from `path`, an annotated copy of the document, which
        replace those read before (highlights added through `add_annotation` stay)."""
        file = Path(path)
        with file.open("rb") as stream:
            call = operations.replace_annotations(
                document_id, stream, filename=file.name, password=password
            )
            return self._send(call)
