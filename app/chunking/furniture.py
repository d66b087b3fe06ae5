"""Page furniture: running headers, footers, page numbers and margin stamps, found by repetition.

A line is furniture when it lies in a margin band of the page and the same text (digits
aside: page numbers change) recurs at about the same height on several pages. Odd and even
pages may carry different headers: each variant recurs on its own. A header that changes with
every chapter is caught by its place: where recurring furniture stands on a good share of the
pages, a line standing apart at the page's edge is furniture too. So is a lone page number
("7", "iv", "Page 3 of 9", "第2页共6页") standing apart at the top or bottom edge.
"""

from __future__ import annotations

import itertools
import re
import unicodedata
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from app.core.records import PageLines

FURNITURE = "furniture"
"""The flag of a chunk made of page furniture."""

EDGE_BAND = 0.2
"""Share of the page height, at the top and at the bottom, where headers and footers may sit.
LaTeX's default margins put page numbers 17% above an A4 page's bottom edge."""

SIDE_BAND = 0.1
"""Share of the page width, left and right, where stamps running up or down may sit."""

MIN_STAMP_CHARS = 4
"""Characters a line running up or down must have to be a stamp, not a tall lone glyph."""

MIN_REPEATS = 3
"""Pages on which a line must recur to be furniture. Two are too few: the two pages of a
form or a handout often repeat their layout, and a two-page document's page numbers are
found as page numbers anyway."""

REPEAT_TOLERANCE = 0.012
"""Share of the page height by which a recurring line may move: OCR layers drift a little."""

SLOT_TOLERANCE = 1.5
"""Points by which a line's top and bottom may differ from a furniture slot's to stand in it."""

SLOT_SHARE = 0.3
"""Share of the pages on which recurring furniture must stand in a place to make it a slot."""

Edge = Literal["top", "bottom", "side"]
Slot = tuple[float, float]
"""The top and bottom of a place at the page's edge where furniture stands."""

_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")
_ROMAN = r"(?=[ivxl])(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
"""A lower-case roman numeral up to 89, as front matter is numbered; an upper-case "C" or
"I" alone is an index letter or a label far more often than a page number."""
_PAGE_NUMBER = re.compile(
    rf"(?:(?i:page|p\.|pg\.?)\s*)?(?:[-\u2013\u2014]\s*)?(?:\d{{1,4}}|{_ROMAN})"
    r"(?:\s*[-\u2013\u2014])?(?:\s*(?:/|(?i:of))\s*\d{1,4})?"
    r"|\u7b2c\s*\d{1,4}\s*\u9875\s*(?:[,\uff0c]?\s*\u5171\s*\d{1,4}\s*\u9875)?"
)
"""A line that is only a page number: "7", "- 7 -", "iv", "Page 3 of 9", "3/9", "第2页共6页"."""


@dataclass(frozen=True)
class _Line:
    """A visual line in a margin band: where it is in the page text and on the page."""

    page: int
    """The page's index in the document."""
    row: int
    """The line's index among the page's lines (`_Layout`'s arrays)."""
    start: int
    end: int
    top: float
    bottom: float
    edge: Edge
    key: str
    """The line's text in lower case, spaces collapsed and digit runs read as "#"."""


@dataclass(frozen=True)
class _Layout:
    """A page's visual lines: their vertical extents, and those lying in a margin band."""

    tops: npt.NDArray[np.float32]
    bottoms: npt.NDArray[np.float32]
    side: npt.NDArray[np.bool_]
    """Whether each line is a stamp running up or down a side margin."""
    margin: list[_Line]


def find_furniture(pages: Sequence[PageLines]) -> dict[int, list[tuple[int, int]]]:
    """Returns, by page number, the sorted half-open spans of page text that are page furniture.

    Furniture lines with only whitespace between them make one span; pages without
    furniture are left out.
    """
    layouts = [_layout(index, page) for index, page in enumerate(pages)]
    lines = [line for layout in layouts for line in layout.margin]
    found = _recurring(lines, pages, layouts)
    held = _held(found, layouts)
    slots = _slots(found, len(pages))
    for line in lines:
        if line in found or line.edge == "side":
            continue
        if not _stands_apart(line, layouts[line.page], held[line.page]):
            continue
        text = unicodedata.normalize("NFKC", pages[line.page].text[line.start : line.end])
        if _PAGE_NUMBER.fullmatch(text.strip()) or any(
            _in_slot(line, slot) for slot in slots[line.edge]
        ):
            found.add(line)
    by_page: dict[int, list[_Line]] = defaultdict(list)
    for line in found:
        by_page[line.page].append(line)
    return {
        pages[index].number: _merge(pages[index].text, by_page[index]) for index in sorted(by_page)
    }


def _layout(index: int, page: PageLines) -> _Layout:
    """Returns the page's visual lines, those in a margin band picked out."""
    lefts, tops, rights, bottoms = page.line_boxes.T
    # Only upright-reading stamps count in the side margins: a narrow layout sets table
    # labels and footnote marks there too, and those recur at the same height by chance.
    upright = (bottoms - tops > 2 * (rights - lefts)) & (page.line_glyphs >= MIN_STAMP_CHARS)
    side = upright & ((rights <= SIDE_BAND * page.width) | (lefts >= (1 - SIDE_BAND) * page.width))
    top = bottoms <= EDGE_BAND * page.height
    bottom = tops >= (1 - EDGE_BAND) * page.height
    margin: list[_Line] = []
    for row in np.flatnonzero(side | top | bottom).tolist():
        start, end = int(page.line_starts[row]), int(page.line_ends[row])
        key = _key(page.text[start:end])
        # A line of punctuation ("}", "—") recurs in code and tables, and says nothing.
        if any(char.isalnum() or char == "#" for char in key):
            edge: Edge = "top" if top[row] else "bottom" if bottom[row] else "side"
            y0, y1 = float(tops[row]), float(bottoms[row])
            margin.append(_Line(index, row, start, end, y0, y1, edge, key))
    return _Layout(tops, bottoms, side, margin)


def _key(text: str) -> str:
    """Returns what recurring lines share: lower case, spaces collapsed, digit runs as "#"."""
    normal = unicodedata.normalize("NFKC", text).lower()
    return _SPACES.sub(" ", _DIGITS.sub("#", normal)).strip()


def _recurring(
    lines: Sequence[_Line], pages: Sequence[PageLines], layouts: Sequence[_Layout]
) -> set[_Line]:
    """Returns the lines that recur at about the same height, each at its page's edge.

    Recurring lines deeper in a page (the column heads of a table continued over pages)
    are not furniture: a line counts only when no line but furniture lies beyond it, and
    dropping one can leave another recurring on too few pages, so both are re-checked.
    """
    found = set(lines)
    while True:
        held = _held(found, layouts)
        outer = [line for line in found if line.edge == "side" or _is_outer(line, layouts, held)]
        kept = _repeated(outer, pages, MIN_REPEATS)
        if kept == found:
            return found
        found = kept


def _repeated(lines: Iterable[_Line], pages: Sequence[PageLines], repeats: int) -> set[_Line]:
    """Returns the lines whose key recurs at about the same height on `repeats` pages or more."""
    by_key: dict[tuple[str, Edge], list[_Line]] = defaultdict(list)
    for line in lines:
        by_key[line.key, line.edge].append(line)
    found: set[_Line] = set()
    for group in by_key.values():
        if len({line.page for line in group}) < repeats:
            continue
        for cluster in _clusters(group, pages):
            if len({line.page for line in cluster}) >= repeats:
                found.update(cluster)
    return found


def _held(found: Iterable[_Line], layouts: Sequence[_Layout]) -> list[npt.NDArray[np.bool_]]:
    """Returns, for each page, whether each of its lines is among the `found` ones."""
    held = [np.zeros(len(layout.tops), dtype=bool) for layout in layouts]
    for line in found:
        held[line.page][line.row] = True
    return held


def _clusters(lines: list[_Line], pages: Sequence[PageLines]) -> list[list[_Line]]:
    """Returns the lines grouped by height, each within the tolerance of the one before."""
    ordered = sorted(lines, key=_middle)
    clusters: list[list[_Line]] = [[ordered[0]]]
    for before, line in itertools.pairwise(ordered):
        if _middle(line) - _middle(before) > REPEAT_TOLERANCE * pages[line.page].height:
            clusters.append([])
        clusters[-1].append(line)
    return clusters


def _middle(line: _Line) -> float:
    return (line.top + line.bottom) / 2


def _slots(found: Iterable[_Line], page_count: int) -> dict[Edge, list[Slot]]:
    """Returns, by edge, the places where recurring furniture stands on a share of the pages."""
    slots: dict[Edge, list[Slot]] = {"top": [], "bottom": [], "side": []}
    for edge in ("top", "bottom"):
        groups: list[list[_Line]] = []
        for line in sorted((line for line in found if line.edge == edge), key=_middle):
            if not groups or not _in_slot(line, (groups[-1][0].top, groups[-1][0].bottom)):
                groups.append([])
            groups[-1].append(line)
        slots[edge] = [
            (float(np.median([line.top for line in group])),
             float(np.median([line.bottom for line in group])))
            for group in groups
            if len({line.page for line in group}) >= SLOT_SHARE * page_count
        ]  # fmt: skip
    return slots


def _in_slot(line: _Line, slot: Slot) -> bool:
    top, bottom = slot
    return abs(line.top - top) <= SLOT_TOLERANCE and abs(line.bottom - bottom) <= SLOT_TOLERANCE


def _beyond(line: _Line, layout: _Layout) -> npt.NDArray[np.bool_]:
    """Returns, for each of the page's lines, whether it lies between `line` and its edge."""
    middles = (layout.tops + layout.bottoms) / 2
    return middles < line.top if line.edge == "top" else middles > line.bottom


def _is_outer(
    line: _Line, layouts: Sequence[_Layout], held: Sequence[npt.NDArray[np.bool_]]
) -> bool:
    """Says whether only furniture (or a side stamp) lies between the line and its edge."""
    layout = layouts[line.page]
    return not (_beyond(line, layout) & ~held[line.page] & ~layout.side).any()


def _stands_apart(line: _Line, layout: _Layout, held: npt.NDArray[np.bool_]) -> bool:
    """Says whether only furniture lies between the line and its edge of the page, and a gap
    at least the line's height parts it from the lines on the body's side.

    The gap keeps a figure's axis label or an index letter, set close to the lines they
    belong to, in the body. Side stamps count for neither: they run beside the body.
    """
    others = ~held & ~layout.side
    others[line.row] = False
    beyond = _beyond(line, layout)
    if (others & beyond).any():
        return False
    gaps = layout.tops - line.bottom if line.edge == "top" else line.top - layout.bottoms
    return not (gaps[others & ~beyond] < line.bottom - line.top).any()


def _merge(text: str, lines: Iterable[_Line]) -> list[tuple[int, int]]:
    """Returns the lines' spans in order, those with only whitespace between them joined."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted((line.start, line.end) for line in lines):
        if merged and not text[merged[-1][1] : start].strip():
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged
