"""`AsyncClient`: the service's operations as coroutines, for asyncio."""

from __future__ import annotations

import asyncio
import os
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

__all__ = ["AsyncClient"]

T = TypeVar("T")


class AsyncClient(BaseClient):
    """A citelock service at `base_url`, with `api_key` when it has keys: `Client`'s methods,
    each a coroutine (`aclose`, and `async with`), documented there.

    `timeout` is per request, in seconds. A 503 or a failed connection is retried `retries`
    times, `backoff` seconds apart and doubling; a 4xx never is. Errors are `CitelockError`s.
    Use it in an `async with` block, or `await aclose()` it.
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
        self._http = httpx.AsyncClient(
            base_url=self.base_url, headers=self.headers, timeout=self.timeout
        )

    async def aclose(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncClient:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def _send(self, call: Call[T]) -> T:
        """Returns the call's answer, sending it again after a 503 or a failed connection for
        as long as the retry policy allows."""
        attempt = 0
        while True:
            answer: httpx.Response | TransportError
            try:
                with translate_transport_errors():
                    answer = await self._http.request(
                        call.method, call.path, **call.request_arguments()
                    )
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
            await asyncio.sleep(delay)
            attempt += 1

    # Documents

    @overload
    async def upload(
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
    async def upload(
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

    async def upload(
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
        file = Path(path)
        with file.open("rb") as stream:
            stored = await self._send(
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
            await self.wait_for_job(stored)
            return await self.get_document(stored.id)
        return stored

    async def get_job(self, job: Id | DocumentQueued) -> Job:
        return await self._send(operations.get_job(job))

    async def wait_for_job(
        self, job: Id | DocumentQueued, *, poll_interval: float = JOB_POLL_SECONDS
    ) -> Job:
        while not finished_job(state := await self.get_job(job)):
            await asyncio.sleep(poll_interval)
        return state

    async def list_documents(
        self, *, collection: str | None = None, limit: int | None = None, offset: int = 0
    ) -> DocumentList:
        return await self._send(
            operations.list_documents(collection=collection, limit=limit, offset=offset)
        )

    async def get_document(self, document_id: Id) -> Document:
        return await self._send(operations.get_document(document_id))

    async def delete_document(self, document_id: Id) -> None:
        await self._send(operations.delete_document(document_id))

    async def get_chunks(self, document_id: Id, *, page: int) -> list[Chunk]:
        return await self._send(operations.get_chunks(document_id, page=page))

    async def get_page_image(
        self, document_id: Id, page: int, *, scale: float | None = None
    ) -> bytes:
        return await self._send(operations.get_page_image(document_id, page, scale=scale))

    # Answers

    async def query(
        self,
        query: str,
        *,
        top_k: int | None = None,
        filters: QueryFilters | Mapping[str, Any] | None = None,
        selected_text: SelectedText | Mapping[str, Any] | None = None,
        search: Literal["vector", "hybrid"] | None = None,
        use_annotations: bool | None = None,
    ) -> QueryResponse:
        return await self._send(
            operations.query(
                query,
                top_k=top_k,
                filters=filters,
                selected_text=selected_text,
                search=search,
                use_annotations=use_annotations,
            )
        )

    async def get_response(self, response_id: Id) -> StoredResponse:
        return await self._send(operations.get_response(response_id))

    async def get_viewer(self, response_id: Id) -> str:
        return await self._send(operations.get_viewer(response_id))

    async def get_annotated_pdf(self, document_id: Id, *, response_id: Id) -> bytes:
        return await self._send(operations.get_annotated_pdf(document_id, response_id=response_id))

    # The reader's annotations

    async def list_annotations(self, document_id: Id) -> list[Annotation]:
        return await self._send(operations.list_annotations(document_id))

    async def add_annotation(
        self, document_id: Id, *, page: int, text: str, comment: str = ""
    ) -> Annotation:
        return await self._send(
            operations.add_annotation(document_id, page=page, text=text, comment=comment)
        )

    async def replace_annotations(
        self, document_id: Id, path: str | os.PathLike[str], *, password: str | None = None
    ) -> list[Annotation]:
        file = Path(path)
        with file.open("rb") as stream:
            call = operations.replace_annotations(
                document_id, stream, filename=file.name, password=password
            )
            return await self._send(call)
