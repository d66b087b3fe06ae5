"""What both clients share beside the calls themselves: settings, headers, the retry loop's
decisions and its log."""

from __future__ import annotations

import logging
import uuid
from typing import Any
from urllib.parse import urlencode

import httpx

from citelock_client._exceptions import IngestFailed, TransportError
from citelock_client._models import Job
from citelock_client._operations import Call
from citelock_client._retry import RetryPolicy
from citelock_client._version import __version__

logger = logging.getLogger("citelock_client")

DEFAULT_TIMEOUT_SECONDS = 120.0
"""Long enough for an upload ingested while the request waits (up to the service's
BACKGROUND_PAGE_THRESHOLD pages); longer ones come back at once with a job."""

JOB_POLL_SECONDS = 0.5


class BaseClient:
    def __init__(
        self,
        base_url: str,
        api_key: str | None,
        *,
        timeout: float,
        retries: int,
        backoff: float,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.retry = RetryPolicy(retries=retries, backoff=backoff)
        self.timeout = httpx.Timeout(timeout)
        self.headers = {"User-Agent": f"citelock-client/{__version__}"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"

    def viewer_url(self, response_id: str | uuid.UUID) -> str:
        """Returns the address of the viewer page of a stored response (open it with the API
        key when the service has keys: the page holds its images, so one request shows it)."""
        return f"{self.base_url}/api/v1/viewer?{urlencode({'response_id': str(response_id)})}"

    def retry_delay(
        self, call: Call[Any], attempt: int, answer: httpx.Response | TransportError
    ) -> float | None:
        """Returns how long to wait before sending `call` again, or None to give up; logs the
        retry."""
        if isinstance(answer, TransportError):
            delay = self.retry.after_error(attempt, answer, idempotent=call.idempotent)
            reason = str(answer)
        else:
            delay = self.retry.after_response(attempt, answer)
            reason = f"status {answer.status_code}"
        if delay is not None:
            logger.warning(
                "%s %s: %s; attempt %d of %d in %.2f s",
                call.method,
                call.path,
                reason,
                attempt + 2,
                self.retry.retries + 1,
                delay,
            )
        return delay


def finished_job(job: Job) -> bool:
    """Returns whether the job is done, raising `IngestFailed` when it failed. Any other
    status, one a newer service may add included, means it is still going."""
    if job.status == "failed":
        raise IngestFailed(job.error or "the ingestion failed", job=job)
    return job.status == "ready"
