"""A page's reading order: fragments of text in, the same fragments in the order they are read.

A deterministic recursive XY-cut on the fragments' boxes. Empty horizontal stripes cut a
region into bands (so full-width titles and running heads stand alone); empty vertical
stripes cut a band into columns, read left to right, each top to bottom. No PyMuPDF here:
`app.pdf.reader` makes the fragments, `app.pdf.pagetext` writes the text.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from math import inf

from app.core.geometry import ROW_OVERLAP, on_one_row, overlap
from app.core.records import Rect
from app.core.rows import NUMERIC_CELL

Box = Rect | None
"""A character's box, or None for a separator citelock inserted (it has no glyph)."""

Span = tuple[float, float]
"""Where a group of lines starts and ends along x."""

RowLink = tuple[float, float]
"""A line's left edge, and the leftmost left edge of the lines of its block on its row."""

COLUMN_GAP = 4.0
"""Points of empty width that separate columns. Federal Register gutters are about 6.5 pt."""

MIN_COLUMN_SHARE = 0.15
"""A column narrower than this share of the page is a table cell or a label, not a column."""

MIN_FIGURE_ROWS = 1
LABELLED_SHARE = 0.6
"""A group of lines is a table's figures, and the group left of it their labels, when at least
MIN_FIGURE_ROWS of its lines, and half of them, are figures, and this share of those figures
sit on a row of a line to their left."""

_LETTER = re.compile(r"[^\W\d_]")
_NIL_OR_SIGN = re.compile(r"^[$\u20ac\u00a3%(\u2014\u2013-]{1,2}\)?$")


@dataclass(frozen=True, eq=False)
class Fragment:
    """A run of glyphs on one baseline as PyMuPDF grouped it (a rawdict line), cleaned.

    `boxes` has one entry per character of `text`; `bbox` is their union, `size` the
    largest font size, `block` PyMuPDF's block number (blocks are paragraphs, roughly);
    `bold` says whether its every glyph is set in a bold font.
    """

    block: int
    text: str
    boxes: list[Box]
    size: float
    bbox: Rect
    bold: bool = False


def union(boxes: Iterable[Rect]) -> Rect:
    """Returns the smallest rectangle that holds all of `boxes` (at least one)."""
    x0s, y0s, x1s, y1s = zip(*boxes, strict=True)
    return (min(x0s), min(y0s), max(x1s), max(y1s))


def reading_order(fragments: Sequence[Fragment], page_width: float) -> list[Fragment]:
    """Returns the fragments in reading order by a deterministic recursive XY-cut.

    `page_width` scales the narrowest group of lines still taken for a column.
    """
    return _cut(list(fragments), MIN_COLUMN_SHARE * page_width)


def _cut(fragments: list[Fragment], min_width: float) -> list[Fragment]:
    """Returns a region's fragments in reading order: columns first, then bands, then rows."""
    if len(fragments) < 2:
        return fragments
    columns = _columns(fragments, min_width)
    if len(columns) > 1:
        return [f for column in columns for f in _cut(column, min_width)]
    bands = _split_on_gaps(fragments, axis=1, min_gap=0.0)
    bands = _merge_columnar_bands(bands, min_width)
    if len(bands) > 1:
        return [f for band in bands for f in _cut(band, min_width)]
    return _rows(fragments)


def _split_on_gaps(fragments: list[Fragment], *, axis: int, min_gap: float) -> list[list[Fragment]]:
    """Returns the groups of fragments separated by empty stripes wider than `min_gap`.

    `axis` 0 cuts along x (columns), 1 along y (bands); groups come in coordinate order.
    """
    ordered = sorted(fragments, key=lambda f: (f.bbox[axis], f.bbox[axis + 2]))
    groups = [[ordered[0]]]
    reach = ordered[0].bbox[axis + 2]
    for fragment in ordered[1:]:
        if fragment.bbox[axis] - reach > min_gap:
            groups.append([])
        groups[-1].append(fragment)
        reach = max(reach, fragment.bbox[axis + 2])
    return groups


def _columns(fragments: list[Fragment], min_width: float) -> list[list[Fragment]]:
    """Returns the columns of a region left to right, or the region alone when it has none.

    Not every vertical gap is a gutter. A gap that cuts one block's row in two is none.
    Nor is a gap beside a group narrower than a column: in a one-column manual, the gap
    between a definition's label and its text, between table cells or after margin line
    numbers would otherwise read as one. Such a narrow group joins its nearer neighbour.
    """
    groups = _split_on_gaps(fragments, axis=0, min_gap=COLUMN_GAP)
    if len(groups) < 2 or _is_one_row(fragments):
        return groups
    joined = [groups[0]]
    for group in groups[1:]:
        if _splits_a_line(joined[-1], group):
            joined[-1] = joined[-1] + group
        else:
            joined.append(group)
    while len(joined) > 1 and (gap := _gap_beside_narrow(joined, min_width)) is not None:
        joined[gap : gap + 2] = [joined[gap] + joined[gap + 1]]
    return _tables_joined(joined)


def _tables_joined(groups: list[list[Fragment]]) -> list[list[Fragment]]:
    """Returns the groups with a table's label column and its figures, and whatever stands
    between them (a title centred over the figures), made one region: read by rows."""
    index = 0
    while index < len(groups) - 1:
        figures = [(j, _figures(groups[j])) for j in range(len(groups) - 1, index, -1)]
        last = next((j for j, found in figures if found and _labels(groups[index], found)), None)
        if last is None:
            index += 1
        else:
            groups[index : last + 1] = [[f for group in groups[index : last + 1] for f in group]]
    return groups


def _is_one_row(fragments: list[Fragment]) -> bool:
    """Says whether all fragments share one row, where left to right is the only order."""
    return min(f.bbox[3] for f in fragments) > max(f.bbox[1] for f in fragments)


def _gap_beside_narrow(groups: list[list[Fragment]], min_width: float) -> int | None:
    """Returns the index of the gap that joins the first narrow group to its nearer neighbour."""
    spans = [union(f.bbox for f in group) for group in groups]
    for index, span in enumerate(spans):
        if span[2] - span[0] >= min_width:
            continue
        if index == 0:
            return 0
        if index == len(spans) - 1:
            return index - 1
        left_gap = span[0] - spans[index - 1][2]
        right_gap = spans[index + 1][0] - span[2]
        return index - 1 if left_gap <= right_gap else index
    return None


def _splits_a_line(left: list[Fragment], right: list[Fragment]) -> bool:
    """Says whether two groups share a block on one row: a gutter never cuts through a line."""
    shared = {f.block for f in left} & {f.block for f in right}
    if not shared:
        return False
    rows: dict[int, list[Rect]] = {}
    for fragment in left:
        if fragment.block in shared:
            rows.setdefault(fragment.block, []).append(fragment.bbox)
    return any(
        on_one_row(fragment.bbox, other)
        for fragment in right
        for other in rows.get(fragment.block, ())
    )


def _figures(group: list[Fragment]) -> list[Fragment]:
    """Returns the group's lines of figures when it is mostly figures, else []."""
    figures = [f for f in group if _is_figures(f.text)]
    if len(figures) < MIN_FIGURE_ROWS or 2 * len(figures) < len(group):
        return []
    return figures


def _labels(left: list[Fragment], figures: list[Fragment]) -> bool:
    """Says whether the row labels (words) of `figures` stand in `left`: a statement's label
    column is no column of text, and read apart from its figures, "Total net sales" would
    lose "65,984 67,044 65,398" to another part of the page."""
    rows = sorted((f.bbox for f in left if _LETTER.search(f.text)), key=lambda box: box[1])
    tops = [box[1] for box in rows]
    labelled = 0
    for figure in figures:
        box = figure.bbox
        start = bisect.bisect_left(tops, box[1] - (box[3] - box[1]))
        stop = bisect.bisect_right(tops, box[3])
        labelled += any(on_one_row(box, other) for other in rows[start:stop])
    return labelled >= LABELLED_SHARE * len(figures)


@lru_cache(maxsize=1 << 16)
def _is_figures(text: str) -> bool:
    cells = text.split()
    return (
        bool(cells)
        and all(NUMERIC_CELL.match(cell) or _NIL_OR_SIGN.match(cell) for cell in cells)
        and any(NUMERIC_CELL.match(cell) for cell in cells)
    )


def _merge_columnar_bands(bands: list[list[Fragment]], min_width: float) -> list[list[Fragment]]:
    """Returns the bands with runs of neighbours merged where, together, they have columns.

    Horizontal gaps that happen to line up across columns (paragraph breaks at the same
    height) would otherwise slice a multi-column region into rows read across the gutter.
    From each band, the longest run of following bands that has columns as a whole is
    merged: judged one band at a time, a narrow heading atop a column would stop its
    column forming.

    A table's rows chain on (their cells leave empty stripes between them) and each row's
    label and figures share a line, so from each of n rows some n runs are tried and none
    has columns. Runs whose every gutter a line crosses are known to have none from the
    spans of the chain and the lines that share a row, without sorting their lines again.
    """
    links = _row_links(bands)
    merged: list[list[Fragment]] = []
    start = 0
    while start < len(bands):
        chain = _chain_spans(bands, start)
        end = start + len(chain)
        crossed = (
            [False] * len(chain) if links is None else _gutters_crossed(chain, links[start:end])
        )
        run = [f for band in bands[start:end] for f in band]
        while end > start + 1 and (crossed[end - start - 1] or len(_columns(run, min_width)) < 2):
            end -= 1
            run = run[: len(run) - len(bands[end])]
        merged.append(run)
        start = end
    return merged


def _chain_spans(bands: list[list[Fragment]], start: int) -> list[list[Span]]:
    """Returns the x-intervals covered by each run of bands from `start` that keeps an
    empty vertical stripe, shortest run first: the spans of the groups its lines make."""
    chain: list[list[Span]] = []
    covered: list[Span] = []
    for end in range(start, len(bands)):
        covered = _covered_spans(covered + [(f.bbox[0], f.bbox[2]) for f in bands[end]])
        if len(covered) < 2 and end > start:
            break
        chain.append(covered)
    return chain


def _covered_spans(spans: list[Span]) -> list[Span]:
    """Returns the x-intervals these spans cover, merged across gaps narrower than a gutter."""
    merged: list[Span] = []
    for start, end in sorted(spans):
        if merged and start - merged[-1][1] <= COLUMN_GAP:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def _row_links(bands: list[list[Fragment]]) -> list[list[RowLink]] | None:
    """Returns, for each band, its lines that share a row with another line of their block,
    as row links; None when some box has its edges out of order (or not numbers).

    `_columns` joins two groups where such lines stand (a gutter never cuts through a line).
    Lines on one row overlap vertically, so no empty horizontal stripe parts them: they are
    in one band. The spans a chain covers are those of the groups `_columns` makes, and a
    line stands in the group whose span holds its left edge. All of this holds for boxes
    whose edges are in order, as PyMuPDF's are.
    """
    if not all(f.bbox[0] <= f.bbox[2] and f.bbox[1] <= f.bbox[3] for band in bands for f in band):
        return None
    links = []
    for band in bands:
        leftmost: dict[Fragment, float] = {}
        ordered = sorted(band, key=lambda f: (f.block, f.bbox[1]))
        for index, fragment in enumerate(ordered):
            for other in ordered[index + 1 :]:
                if other.block != fragment.block or other.bbox[1] > fragment.bbox[3]:
                    break
                if on_one_row(fragment.bbox, other.bbox):
                    leftmost[fragment] = min(leftmost.get(fragment, other.bbox[0]), other.bbox[0])
                    leftmost[other] = min(leftmost.get(other, fragment.bbox[0]), fragment.bbox[0])
        links.append([(fragment.bbox[0], left) for fragment, left in leftmost.items()])
    return links


def _gutters_crossed(chain: list[list[Span]], links: list[list[RowLink]]) -> list[bool]:
    """Says, for each run of the chain, whether every group but the first shares a line with
    a group on its left: then `_columns` joins them all, and the run has no columns.

    The runs grow by a band at a time, so their row links are kept sorted by left edge as
    they come: a group's links are then one slice, whatever the run's spans."""
    edges: list[float] = []
    lefts: list[float] = []
    crossed = []
    for spans, band in zip(chain, links, strict=True):
        for edge, left in band:
            at = bisect.bisect_right(edges, edge)
            edges.insert(at, edge)
            lefts.insert(at, left)
        starts = [span[0] for span in spans]
        bounds = [bisect.bisect_left(edges, start) for start in starts] + [len(edges)]
        crossed.append(
            all(
                min(lefts[bounds[group] : bounds[group + 1]], default=inf) < starts[group]
                for group in range(1, len(spans))
            )
        )
    return crossed


def _rows(fragments: list[Fragment]) -> list[Fragment]:
    """Returns the fragments of a region that admits no cut row by row, each left to right."""
    rows: list[list[Fragment]] = []
    top = bottom = 0.0
    for fragment in sorted(fragments, key=lambda f: (f.bbox[1], f.bbox[0])):
        if rows and overlap(fragment.bbox, top, bottom) >= ROW_OVERLAP * min(
            fragment.bbox[3] - fragment.bbox[1], bottom - top
        ):
            rows[-1].append(fragment)
            top, bottom = min(top, fragment.bbox[1]), max(bottom, fragment.bbox[3])
        else:
            rows.append([fragment])
            top, bottom = fragment.bbox[1], fragment.bbox[3]
    return [f for row in rows for f in sorted(row, key=lambda f: f.bbox[0])]
