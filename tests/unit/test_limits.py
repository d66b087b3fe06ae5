"""Ingestion limits: the page limit and the deadline."""

from __future__ import annotations

import pytest

from app.core.errors import IngestTimeout, TooManyPages
from app.pdf.limits import Deadline, check_page_count


def test_check_page_count_refuses_only_past_the_limit() -> None:
    check_page_count(2000, 2000)
    with pytest.raises(TooManyPages, match="2001 pages; the limit is 2000"):
        check_page_count(2001, 2000)


def test_deadline_passes_before_and_refuses_after() -> None:
    Deadline(3600).check("reading page 1")
    with pytest.raises(IngestTimeout, match="reading page 7"):
        Deadline(1e-9).check("reading page 7")
