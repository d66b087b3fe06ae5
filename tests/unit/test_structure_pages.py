"""Which lines of a page are locators: a title and its page, not a statement's amounts."""

from __future__ import annotations

from app.chunking.structure import locators_of


def test_a_numbered_section_is_a_locator_and_an_amount_is_not() -> None:
    numbered = "2.7.9 Limiting download bandwidth for APT . . . . . . . . . . . . 72"
    statement = "Net interest income . . . . . . . . . . . . . . . . . 12.5"
    leaders, _ = locators_of([numbered, statement], page_count=233)
    assert leaders == [numbered]
