"""Which lines of a page are locators: a title and its page, not a statement's amounts."""

from __future__ import annotations

from app.chunking.structure import locators_of, structure_pages
from app.core.chunks import TOC
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
