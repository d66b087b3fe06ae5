"""Rectangles from offsets: line_rects against hand-made pages and a plain per-character loop."""

from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from app.core.geometry import line_rects, union_rect
from app.core.records import NO_LINE, PageText, Rect
from tests.helpers.pages import page_of

PAGE = page_of(["first line", "second", "third line here"], block_breaks=frozenset({2}))


def test_span_inside_one_line() -> None:
    start = PAGE.text.index("line")
    assert line_rects(PAGE, start, start + 4) == [(102.0, 100.0, 122.0, 110.0)]


def test_span_over_lines_gives_one_rect_per_line_in_order() -> None:
    start = PAGE.text.index("line")
    end = PAGE.text.index("here")
    assert line_rects(PAGE, start, end) == [
        (102.0, 100.0, 122.0, 110.0),
        (72.0, 120.0, 102.0, 130.0),
        (72.0, 140.0, 127.0, 150.0),
    ]


def test_separators_alone_give_no_rect() -> None:
    start = PAGE.text.index("\n\n")
    assert line_rects(PAGE, start, start + 2) == []
    assert line_rects(PAGE, 5, 5) == []


def test_span_is_clamped_to_the_page() -> None:
    assert line_rects(PAGE, -10, 10_000) == line_rects(PAGE, 0, len(PAGE.text))


def test_union_rect() -> None:
    assert union_rect([]) is None
    assert union_rect([(1, 2, 3, 4), (0, 3, 2, 9)]) == (0.0, 2.0, 3.0, 9.0)


def naive_line_rects(page: PageText, start: int, end: int) -> list[Rect]:
    """Returns what line_rects should, by a loop over characters."""
    found: dict[int, list[float]] = {}
    for index in range(max(start, 0), min(end, len(page.text))):
        line, box = int(page.line_ids[index]), page.char_boxes[index].tolist()
        if line == NO_LINE or any(math.isnan(v) for v in box):
            continue
        if line in found:
            seen = found[line]
            found[line] = [min(seen[0], box[0]), min(seen[1], box[1]),
                           max(seen[2], box[2]), max(seen[3], box[3])]  # fmt: skip
        else:
            found[line] = box
    return [(r[0], r[1], r[2], r[3]) for r in found.values()]


@given(
    lines=st.lists(st.text(alphabet="ab c", min_size=1, max_size=12), min_size=1, max_size=6),
    start=st.integers(-3, 90),
    length=st.integers(0, 90),
)
def test_line_rects_matches_a_per_character_loop(lines: list[str], start: int, length: int) -> None:
    page = page_of(lines, block_breaks=frozenset(range(0, len(lines), 2)))
    assert line_rects(page, start, start + length) == naive_line_rects(page, start, start + length)
