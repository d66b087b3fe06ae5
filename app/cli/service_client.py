"""The CLI's client for a running citelock service (`--url`): the HTTP API, nothing else."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx

from app.core.errors import CitelockError
from app.flows.ingest import DocumentMeta

JOB_POLL_SECONDS = 0.5
PAGE_SIZE = 1000


class ServiceError(CitelockError):
    """The service answered with a problem; its code and detail are kept."""

    def __init__(self, response: httpx.Response) -> None:
        try:
            problem = response.json()
        except ValueError:
            problem = {}
        super().__init__(str(problem.get("detail") or response.text[:200]))
        self.status = response.status_code
        self.code = str(problem.get("code") or "http_error")


class ServiceClient:
    def __init__(self, url: str, *, api_key: str | None = None, timeout: float = 600.0) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = httpx.Client(base_url=url.rstrip("/"), headers=headers, timeout=timeout)

    def close(self) -> None:
        self._http.close()

    def _checked(self, response: httpx.Response) -> Any:
        if response.is_error:
            raise ServiceError(response)
        return response.json()

    def documents(self, collection: str | None) -> Iterator[dict[str, Any]]:
        """Yields every listed document of `collection` (all, for None), a page at a time."""
        offset = 0
        while True:
            params: dict[str, Any] = {"limit": PAGE_SIZE, "offset": offset}
            if collection is not None:
                params["collection"] = collection
            page = self._checked(self._http.get("/api/v1/documents", params=params))
            yield from page["data"]
            offset += len(page["data"])
            if not page["data"] or offset >= page["count"]:
                return

    def query(self, body: dict[str, Any]) -> dict[str, Any]:
        """Returns the service's QueryResponse to the QueryRequest `body`."""
        answer: dict[str, Any] = self._checked(self._http.post("/api/v1/query", json=body))
        return answer

    def response(self, response_id: str) -> dict[str, Any]:
        """Returns the stored evidence of a response (404 `response_not_found` once expired)."""
        stored: dict[str, Any] = self._checked(self._http.get(f"/api/v1/responses/{response_id}"))
        return stored

    def upload(self, path: Path, meta: DocumentMeta) -> tuple[int, dict[str, Any]]:
        """Returns the upload's status code (201, 200 or 202) and body; `meta`'s fields left
        unsaid (None) take the service's defaults."""
        form = {k: v for k, v in vars(meta).items() if k != "filename" and v is not None}
        form["is_my_copy"] = str(meta.is_my_copy).lower()
        with path.open("rb") as stream:
            response = self._http.post(
                "/api/v1/documents",
                files={"file": (meta.filename, stream, "application/pdf")},
                data=form,
            )
        return response.status_code, self._checked(response)

    def wait_for_job(
        self, job_url: str, on_progress: Callable[[dict[str, Any]], None]
    ) -> dict[str, Any]:
        """Returns the job's final state, reporting each state seen on the way."""
        while True:
            job: dict[str, Any] = self._checked(self._http.get(job_url))
            on_progress(job)
            if job["status"] != "processing":
                return job
            time.sleep(JOB_POLL_SECONDS)
