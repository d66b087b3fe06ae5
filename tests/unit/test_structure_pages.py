"""Which lines of a page are locators: a title and its page, not a statement's amounts."""

from __future__ import annotations

import numpy as np

from app.chunking.structure import locators_of, structure_pages
from app.core.chunks import TOC
from app.core.records import PageLines


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


def page_of(number: int, lines: list[str]) -> PageLines:
    text = "\n".join(lines)
    starts = np.array([sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))])
    ends = starts + np.array([len(line) for line in lines])
    boxes = np.array([[72, 72 + 14 * i, 500, 84 + 14 * i] for i in range(len(lines))])
    return PageLines(
        number=number,
        text=text,
        width=612.0,
        height=792.0,
        line_starts=starts.astype(np.int32),
        line_ends=ends.astype(np.int32),
        line_glyphs=(ends - starts).astype(np.int32),
        line_boxes=boxes.astype(np.float32),
    )


def test_contents_go_on_over_the_next_page_without_their_heading() -> None:
    entries = [f"{n} Why does my UPS driver number {n} stop? {n // 4 + 1}" for n in range(1, 23)]
    pages = [
        page_of(1, ["Network UPS Tools FAQ"]),
        page_of(2, ["Contents", *entries[:14]]),
        page_of(3, entries[14:]),
        page_of(4, ["1 Why does my UPS driver stop?", "Because it was told to stop.", "2"]),
    ]
    assert structure_pages(pages) == {2: TOC, 3: TOC}
