"""Page furniture on hand-made pages: recurring headers and footers, page numbers, slots,
stamps, and chunks that keep furniture to themselves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from app.chunking.chunker import chunk_pages
from app.chunking.furniture import FURNITURE, find_furniture
from app.core.geometry import page_lines
from app.core.records import NO_LINE, PageText
from tests.helpers.chunks import count_words

Line = tuple[float, str]
"""A line's top in points and its text."""

WORDS = [
    "alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa",
    "lambda", "mu", "nu",
]  # fmt: skip


def body(n: int) -> list[Line]:
    """Returns two body lines that differ from page to page, as body text does."""
    return [(300.0, f"The {WORDS[n]} page opens here."), (314.0, f"It tells of {WORDS[-n]}.")]


def make_page(number: int, lines: list[Line], *, height: float = 792.0) -> PageText:
    """Returns a page of 10-point lines at the given tops, blocks apart, 5 points a glyph."""
    text, boxes, ids = "", [], []
    for line_id, (top, line) in enumerate(lines):
        if text:
            text += "\n\n"
            boxes += [(math.nan,) * 4] * 2
            ids += [NO_LINE] * 2
        text += line
        boxes += [(72.0 + 5 * k, top, 77.0 + 5 * k, top + 10) for k in range(len(line))]
        ids += [line_id] * len(line)
    return PageText(
        number=number,
        text=text,
        width=612,
        height=height,
        char_boxes=np.array(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.array(ids, dtype=np.int32),
    )


def furniture_of(pages: list[PageText]) -> dict[int, list[tuple[int, int]]]:
    return find_furniture([page_lines(page) for page in pages])


def furniture_text(pages: list[PageText]) -> dict[int, list[str]]:
    found = furniture_of(pages)
    return {page.number: [page.text[a:b] for a, b in found.get(page.number, [])] for page in pages}


def test_running_header_and_page_numbers_are_furniture() -> None:
    pages = [
        make_page(n, [(40.0, "A Study of Things"), *body(n), (750.0, str(n))]) for n in range(1, 6)
    ]
    assert furniture_text(pages) == {n: ["A Study of Things", str(n)] for n in range(1, 6)}


def test_odd_and_even_headers_each_recur() -> None:
    pages = [
        make_page(
            n, [(40.0, f"{n} Journal of Things" if n % 2 else f"Smith and Jones {n}"), *body(n)]
        )
        for n in range(1, 7)
    ]
    assert furniture_text(pages) == {n: [pages[n - 1].text.split("\n")[0]] for n in range(1, 7)}


def test_header_changing_by_chapter_is_caught_by_its_slot() -> None:
    titles = ["Chapter 1: Setup"] * 4 + ["Chapter 2: Use"] * 2 + ["Chapter 3: End"]
    pages = [make_page(n, [(40.0, f"{title} {n}"), *body(n)]) for n, title in enumerate(titles, 1)]
    assert furniture_text(pages) == {n: [f"{title} {n}"] for n, title in enumerate(titles, 1)}


def test_lone_page_numbers_are_furniture_even_once() -> None:
    pages = [
        make_page(1, [*body(1), (750.0, "iv")]),
        make_page(2, [*body(2), (750.0, "Page 2 of 3")]),
        make_page(3, [*body(3), (750.0, "- 3 -")]),
    ]
    assert furniture_text(pages) == {1: ["iv"], 2: ["Page 2 of 3"], 3: ["- 3 -"]}


@pytest.mark.parametrize(
    "lines",
    [
        [*body(1), (690.0, "0 10 20 30"), (701.0, "x")],  # an axis label close under its ticks
        [(40.0, "Index"), (80.0, "C"), (92.0, "cat, 4"), (104.0, "cow, 7")],  # an index letter
        [*body(1), (750.0, "(3)")],  # an equation number
        [*body(1), (400.0, "12")],  # a number in the middle of the page
    ],
)
def test_lines_that_only_look_like_page_numbers_stay(lines: list[Line]) -> None:
    assert furniture_of([make_page(1, lines)]) == {}


def test_recurring_line_below_body_text_is_not_furniture() -> None:
    # A table continued over pages repeats its column heads under a title that changes.
    pages = [
        make_page(n, [(40.0, f"Statement of {WORDS[n]}"), (60.0, "Three Months Ended"), *body(n)])
        for n in range(1, 5)
    ]
    assert furniture_of(pages) == {}


def test_line_on_too_few_pages_is_not_furniture() -> None:
    heads = {n: "Draft" if n in (4, 8) else f"Heading on {WORDS[n]}" for n in range(1, 11)}
    pages = [make_page(n, [(40.0, heads[n]), *body(n)]) for n in range(1, 11)]
    assert furniture_of(pages) == {}


def test_stamp_running_up_the_margin_recurs() -> None:
    pages = []
    for n in range(1, 4):
        page = make_page(n, [*body(n), (500.0, "stamp 1234 on file")])
        stamp = slice(page.text.index("stamp"), len(page.text))
        # Turned upright: one glyph above the other in a 6-point strip by the left edge.
        count = stamp.stop - stamp.start
        page.char_boxes[stamp] = [(20.0, 500.0 + 6 * k, 26.0, 506.0 + 6 * k) for k in range(count)]
        pages.append(page)
    assert furniture_text(pages) == {n: ["stamp 1234 on file"] for n in range(1, 4)}


def test_neighbouring_furniture_lines_make_one_span() -> None:
    pages = [
        make_page(n, [(30.0, "Report 7"), (42.0, "March 2024"), *body(n), (750.0, f"{n}")])
        for n in range(1, 4)
    ]
    found = furniture_of(pages)
    assert [pages[0].text[a:b] for a, b in found[1]] == ["Report 7\n\nMarch 2024", "1"]
    assert furniture_of([]) == {} and furniture_of([make_page(1, [])]) == {}
    assert furniture_of(pages) == found


def paged(body: list[str]) -> list[PageText]:
    """Returns pages that each carry a running head, the body lines given, and a number."""
    return [
        make_page(n, [(40.0, "Running Head"), *((100.0 + 14 * k, line) for k, line in
                      enumerate(text.split("\n"))), (750.0, str(n))])
        for n, text in enumerate(body, 1)
    ]  # fmt: skip


def test_chunks_keep_furniture_to_itself() -> None:
    texts = ["One sentence here. Two sentence here.", "Three here. Four here.", "Five here."]
    pages = paged(texts)
    chunks = chunk_pages(
        pages, [], max_tokens=50, overlap_tokens=10, count_tokens=count_words,
        furniture=furniture_of(pages),
    )  # fmt: skip
    assert [(c.content, c.flags) for c in chunks] == [
        part
        for number, text in enumerate(texts, 1)
        for part in [("Running Head", (FURNITURE,)), (text, ()), (str(number), (FURNITURE,))]
    ]
    for chunk in chunks:
        page = pages[chunk.page_start - 1]
        assert chunk.content == page.text[chunk.page_span_start : chunk.page_span_end]


def test_sentence_over_a_page_break_splits_at_furniture() -> None:
    texts = ["A sentence that runs over the", "page break ends here.", "Closing words."]
    pages = [
        make_page(n, [(40.0, "Running Head"), (300.0, text)]) for n, text in enumerate(texts, 1)
    ]
    plain = chunk_pages(pages, [], max_tokens=50, overlap_tokens=0, count_tokens=count_words)
    assert any("Running Head\n\npage break" in c.content for c in plain)
    chunks = chunk_pages(
        pages, [], max_tokens=50, overlap_tokens=0, count_tokens=count_words,
        furniture=furniture_of(pages),
    )  # fmt: skip
    assert [c.content for c in chunks if FURNITURE not in c.flags] == texts
    assert all(c.page_start == c.page_end for c in chunks)


def test_long_furniture_is_cut_to_the_budget() -> None:
    head = "Running " * 12
    pages = [make_page(n, [(40.0, head.strip()), *body(n)]) for n in range(1, 4)]
    chunks = chunk_pages(
        pages, [], max_tokens=5, overlap_tokens=2, count_tokens=count_words,
        furniture=furniture_of(pages),
    )  # fmt: skip
    furniture = [c for c in chunks if FURNITURE in c.flags]
    assert all(c.token_count <= 5 for c in chunks) and len(furniture) > 3
    assert " ".join(c.content for c in furniture if c.page_start == 1) == head.strip()
