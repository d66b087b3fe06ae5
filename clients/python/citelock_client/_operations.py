"""Each operation of the HTTP contract as a `Call`: what to send and how to read the answer.

Both clients send the same calls, one blocking and one awaiting, so an operation is written
once, here.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import IO, Any, Generic, TypeVar

import httpx
from pydantic import TypeAdapter

from citelock_client._models import (
    Annotation,
    AnnotationCreate,
    Chunk,
    Document,
    DocumentList,
    DocumentQueued,
    Job,
    QueryFilters,
    QueryRequest,
    QueryResponse,
    SelectedText,
    StoredResponse,
)

T = TypeVar("T")

Id = str | uuid.UUID
API = "/api/v1"


@dataclass(frozen=True)
class FileField:
    """A file sent as a multipart field: read again from the start on each attempt."""

    name: str
    filename: str
    stream: IO[bytes]


@dataclass(frozen=True)
class Call(Generic[T]):
    method: str
    path: str
    read: Callable[[httpx.Response], T]
    params: Mapping[str, str | int | float] = field(default_factory=dict)
    json: Any = None
    form: Mapping[str, str] = field(default_factory=dict)
    file: FileField | None = None
    idempotent: bool = True
    """Whether sending it twice does no harm, so a broken connection may be retried."""

    def request_arguments(self) -> dict[str, Any]:
        """Returns httpx's `request` arguments for one attempt."""
        arguments: dict[str, Any] = {"params": self.params, "json": self.json}
        if self.file is not None:
            self.file.stream.seek(0)
            arguments["data"] = self.form
            arguments["files"] = {
                self.file.name: (self.file.filename, self.file.stream, "application/pdf")
            }
        return arguments


def model(model_type: type[T]) -> Callable[[httpx.Response], T]:
    adapter = TypeAdapter(model_type)
    return lambda response: adapter.validate_json(response.content)


def models(item_type: type[T]) -> Callable[[httpx.Response], list[T]]:
    adapter = TypeAdapter(list[item_type])  # type: ignore[valid-type]
    return lambda response: adapter.validate_json(response.content)


def nothing(_response: httpx.Response) -> None:
    return None


def upload_answer(response: httpx.Response) -> Document | DocumentQueued:
    if response.status_code == httpx.codes.ACCEPTED:
        return DocumentQueued.model_validate_json(response.content)
    return Document.model_validate_json(response.content)


def form_fields(**values: str | bool | None) -> dict[str, str]:
    """Returns the given form fields as multipart sends them; None ones are left to the
    service's defaults."""
    return {
        name: ("true" if value else "false") if isinstance(value, bool) else value
        for name, value in values.items()
        if value is not None
    }


def upload_document(
    stream: IO[bytes],
    *,
    filename: str,
    collection: str,
    title: str | None,
    language: str | None,
    version: str | None,
    is_my_copy: bool | None,
    password: str | None,
) -> Call[Document | DocumentQueued]:
    # Sending the same bytes again is harmless: the service answers with the stored document.
    return Call(
        "POST",
        f"{API}/documents",
        upload_answer,
        form=form_fields(
            collection=collection,
            title=title,
            language=language,
            version=version,
            is_my_copy=is_my_copy,
            password=password,
        ),
        file=FileField("file", filename, stream),
    )


def get_job(job: Id | DocumentQueued) -> Call[Job]:
    path = job.job_url if isinstance(job, DocumentQueued) else f"{API}/jobs/{job}"
    return Call("GET", path, model(Job))


def list_documents(*, collection: str | None, limit: int | None, offset: int) -> Call[DocumentList]:
    params: dict[str, str | int] = {"offset": offset}
    if collection is not None:
        params["collection"] = collection
    if limit is not None:
        params["limit"] = limit
    return Call("GET", f"{API}/documents", model(DocumentList), params=params)


def get_document(document_id: Id) -> Call[Document]:
    return Call("GET", f"{API}/documents/{document_id}", model(Document))


def delete_document(document_id: Id) -> Call[None]:
    return Call("DELETE", f"{API}/documents/{document_id}", nothing)


def get_chunks(document_id: Id, *, page: int) -> Call[list[Chunk]]:
    path = f"{API}/documents/{document_id}/chunks"
    return Call("GET", path, models(Chunk), params={"page": page})


def get_page_image(document_id: Id, page: int, *, scale: float | None) -> Call[bytes]:
    params = {} if scale is None else {"scale": scale}
    path = f"{API}/documents/{document_id}/pages/{page}.png"
    return Call("GET", path, lambda response: response.content, params=params)


def get_annotated_pdf(document_id: Id, *, response_id: Id) -> Call[bytes]:
    path = f"{API}/documents/{document_id}/annotated.pdf"
    params = {"response_id": str(response_id)}
    return Call("GET", path, lambda response: response.content, params=params)


def query(
    text: str,
    *,
    top_k: int | None,
    filters: QueryFilters | Mapping[str, Any] | None,
    selected_text: SelectedText | Mapping[str, Any] | None,
    search: str | None,
    use_annotations: bool | None,
) -> Call[QueryResponse]:
    given = {
        "top_k": top_k,
        "filters": filters,
        "selected_text": selected_text,
        "search": search,
        "use_annotations": use_annotations,
    }
    # Only what was given is sent: the service's own defaults hold for the rest (top_k is 5,
    # but 3 in selection mode, when not sent).
    request = QueryRequest.model_validate(
        {"query": text, **{name: value for name, value in given.items() if value is not None}}
    )
    body = request.model_dump(mode="json", exclude_unset=True)
    return Call("POST", f"{API}/query", model(QueryResponse), json=body)


def get_response(response_id: Id) -> Call[StoredResponse]:
    return Call("GET", f"{API}/responses/{response_id}", model(StoredResponse))


def get_viewer(response_id: Id) -> Call[str]:
    params = {"response_id": str(response_id)}
    return Call("GET", f"{API}/viewer", lambda response: response.text, params=params)


def list_annotations(document_id: Id) -> Call[list[Annotation]]:
    path = f"{API}/documents/{document_id}/annotations"
    return Call("GET", path, models(Annotation))


def add_annotation(document_id: Id, *, page: int, text: str, comment: str) -> Call[Annotation]:
    body = AnnotationCreate(page=page, text=text, comment=comment).model_dump(mode="json")
    path = f"{API}/documents/{document_id}/annotations"
    # Each POST adds a highlight: a second copy after a broken connection would add two.
    return Call("POST", path, model(Annotation), json=body, idempotent=False)


def replace_annotations(
    document_id: Id, stream: IO[bytes], *, filename: str, password: str | None
) -> Call[list[Annotation]]:
    path = f"{API}/documents/{document_id}/annotations"
    return Call(
        "PUT",
        path,
        models(Annotation),
        form=form_fields(password=password),
        file=FileField("file", filename, stream),
    )
