"""How much one ingestion may take on: pages, and seconds from start to stored rows.

A hostile PDF (a page tree of thousands of pages, megabytes of text behind a small file)
would otherwise hold a worker and its memory for as long as it likes.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from app.core.errors import IngestTimeout, TooManyPages


@dataclass(frozen=True)
class IngestLimits:
    max_pages: int
    timeout_seconds: float


@dataclass(frozen=True)
class Deadline:
    """The moment by which an ingestion must be done; `check` refuses the PDF after it.

    Checked between pages, between batches of pages and between embedding groups: the work
    is cut where it can be left cleanly, since nothing is committed before the last batch.
    """

    seconds: float
    expires: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "expires", time.monotonic() + self.seconds)

    def check(self, stage: str) -> None:
        if time.monotonic() > self.expires:
            raise IngestTimeout(
                f"the PDF could not be processed within the limit of {self.seconds:g} s "
                f"(stopped while {stage})"
            )


def check_page_count(page_count: int, max_pages: int) -> None:
    """Returns nothing, or raises TooManyPages for a document over the page limit."""
    if page_count > max_pages:
        raise TooManyPages(f"the PDF has {page_count} pages; the limit is {max_pages}")
