"""Which lines of a page are locators: a title and its page, not a statement's amounts."""

from __future__ import annotations

from app.chunking.flags import flag_structure
from app.chunking.structure import locators_of, reads_as_prose, structure_pages
from app.core.chunks import TOC, ChunkDraft
from tests.helpers.pages import lines_page


def test_a_numbered_section_is_a_locator_and_an_amount_is_not() -> None:
    numbered = "2.7.9 Limiting download bandwidth for APT . . . . . . . . . . . . 72"
    statement = "Net interest income . . . . . . . . . . . . . . . . . 12.5"
    leaders, _ = locators_of([numbered, statement], page_count=233)
    assert leaders == [numbered]


def test_a_numbered_question_with_its_page_is_a_locator() -> None:
    entry = "10 Why isn't upssched part of upsmon? 3"
    prose = "Either find the pid of the background process and send it a SIGHUP."
    _, trailing = locators_of([entry, prose], page_count=21)
    assert trailing == [entry]


def test_contents_go_on_over_the_next_page_without_their_heading() -> None:
    entries = [f"{n} Why does my UPS driver number {n} stop? {n // 4 + 1}" for n in range(1, 23)]
    pages = [
        lines_page(["Network UPS Tools FAQ"], number=1),
        lines_page(["Contents", *entries[:14]], number=2),
        lines_page(entries[14:], number=3),
        lines_page(
            ["1 Why does my UPS driver stop?", "Because it was told to stop.", "2"], number=4
        ),
    ]
    assert structure_pages(pages) == {2: TOC, 3: TOC}


def test_a_chunk_of_prose_under_contents_that_end_mid_page_is_not_flagged() -> None:
    # LaTeX's font guide: the contents run onto page 2 and "1 Introduction" opens below them.
    entries = [
        f"{n}.1 Selecting fonts by attribute {n} . . . . . . . . . {n + 2}" for n in range(8)
    ]
    introduction = (
        "1 Introduction\n\nThe LaTeX2e font selection system was first released as the New "
        "Font Selection Scheme (NFSS) in 1989, and then in release 2 in 1993."
    )
    pages = [
        lines_page(["Contents", *entries[:4]], number=1),
        lines_page([*entries[4:], *introduction.splitlines()], number=2),
    ]
    structure = structure_pages(pages)
    text = pages[1].text
    opening = text.index("1 Introduction")
    chunks = [
        ChunkDraft(
            ordinal=ordinal,
            page_start=2,
            page_end=2,
            page_span_start=start,
            page_span_end=end,
            document_span_start=start,
            document_span_end=end,
            content=text[start:end],
            token_count=len(text[start:end].split()),
        )
        for ordinal, (start, end) in enumerate(((0, opening), (opening, len(text))))
    ]
    assert [chunk.flags for chunk in flag_structure(chunks, structure)] == [(TOC,), ()]
    # A line of the contents the locators miss is no sentence of prose.
    assert not reads_as_prose("PART II. OTHER INFORMATION\nItem 1. Legal Proceedings 46")
