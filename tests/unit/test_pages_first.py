"""Results spread over pages: each page's best chunk before any page's second (pages_first),
duplicates dropped by rank before, on enough pages (without_duplicates)."""

from __future__ import annotations

import uuid
from dataclasses import replace

from app.core.chunks import Candidate
from app.retrieval.assemble import pages_first, without_duplicates
from tests.helpers.chunks import statement_chunk

OTHER_DOCUMENT = uuid.UUID(int=2)
PASSAGES = [
    "Revenue rose 12% on cloud services.",
    "Operating expenses fell as headcount was cut.",
    "The board declared a quarterly dividend.",
    "Inventories grew ahead of the holiday season.",
    "A new credit facility replaced the old one.",
    "Litigation reserves were unchanged in the quarter.",
]


def ranked(*pages: int) -> list[Candidate]:
    """Returns one chunk per page given, in that order, chunk ids numbering the ranks."""
    return [statement_chunk(n, PASSAGES[n - 1], page=page) for n, page in enumerate(pages, 1)]


def ranks(chunks: list[Candidate]) -> list[int]:
    return [chunk.chunk_id.int for chunk in chunks]


def test_a_page_second_chunk_follows_the_other_pages_best() -> None:
    # Page 3's three chunks led; page 2's best, ranked fourth, now comes second.
    assert ranks(pages_first(ranked(3, 3, 3, 2, 5, 2))) == [1, 4, 5, 2, 3, 6]


def test_chunks_of_distinct_pages_keep_their_order() -> None:
    assert ranks(pages_first(ranked(9, 1, 4, 7))) == [1, 2, 3, 4]


def test_the_same_page_number_in_another_document_is_another_page() -> None:
    chunks = ranked(4, 4, 6)
    chunks[1] = replace(chunks[1], document_id=OTHER_DOCUMENT)
    assert ranks(pages_first(chunks)) == [1, 2, 3]


def test_nothing_is_added_or_dropped() -> None:
    chunks = ranked(1, 1, 2, 1, 2, 3)
    assert sorted(ranks(pages_first(chunks))) == ranks(chunks)
    assert pages_first([]) == []


def test_duplicates_are_dropped_until_the_chunks_kept_stand_on_enough_pages() -> None:
    chunks = ranked(3, 3, 3, 2, 5, 2)
    chunks[2] = replace(chunks[2], content=chunks[0].content)  # an exact copy of the best
    assert ranks(without_duplicates(chunks, limit=2)) == [1, 2]
    # Two chunks, but on one page: the walk goes on to the second page's.
    assert ranks(without_duplicates(chunks, limit=2, pages=2)) == [1, 2, 4]
    assert ranks(without_duplicates(chunks, limit=2, pages=9)) == [1, 2, 4, 5, 6]
