"""Rectangles from offsets: the one place that turns a span of page text into boxes on the page.

Offsets are the truth and rectangles are derived, never stored twice: whatever needs to draw
a chunk, a highlight or a piece of evidence asks this module. It runs per query on many
spans, so it stays in numpy, with no Python loop per character.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np

from app.core.chunks import ChunkDraft, ChunkPlace, ChunkText
from app.core.records import NO_LINE, PAGE_BREAK, Mark, PageLines, PageText, Rect

ROW_OVERLAP = 0.5
"""Share of the shorter height two boxes must overlap vertically to sit on one row."""


def on_one_row(a: Rect, b: Rect) -> bool:
    """Says whether two boxes overlap vertically enough to sit on one row."""
    return overlap(a, b[1], b[3]) >= ROW_OVERLAP * min(a[3] - a[1], b[3] - b[1])


def overlap(box: Rect, top: float, bottom: float) -> float:
    """Returns how far `box` overlaps the stripe from `top` to `bottom` (negative: a gap)."""
    return min(box[3], bottom) - max(box[1], top)


def line_rects(page: PageText, start: int, end: int) -> list[Rect]:
    """Returns one rectangle per visual line that `page.text[start:end]` touches, in reading order.

    Each is the union of the boxes of the span's characters on that line; separators
    citelock inserted (no glyph, NaN box) add nothing.
    """
    start, end = max(start, 0), min(end, len(page.text))
    if start >= end:
        return []
    ids = page.line_ids[start:end]
    boxes = page.char_boxes[start:end]
    drawn = (ids != NO_LINE) & ~np.isnan(boxes).any(axis=1)
    ids, boxes = ids[drawn], boxes[drawn]
    if len(ids) == 0:
        return []
    # Line ids rise along the text, so each line is one run of equal ids.
    starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])
    rects = np.column_stack(
        (
            np.minimum.reduceat(boxes[:, 0], starts),
            np.minimum.reduceat(boxes[:, 1], starts),
            np.maximum.reduceat(boxes[:, 2], starts),
            np.maximum.reduceat(boxes[:, 3], starts),
        )
    )
    return [(x0, y0, x1, y1) for x0, y0, x1, y1 in rects.astype(float).tolist()]


def chunk_rects(draft: ChunkDraft, pages: Mapping[int, PageText]) -> tuple[tuple[int, Rect], ...]:
    """Returns one rectangle per line of the chunk with its page number, on each page it
    covers, in reading order."""
    rects: list[tuple[int, Rect]] = []
    for number in range(draft.page_start, draft.page_end + 1):
        page = pages[number]
        start = draft.page_span_start if number == draft.page_start else 0
        end = draft.page_span_end if number == draft.page_end else len(page.text)
        rects.extend((number, rect) for rect in line_rects(page, start, end))
    return tuple(rects)


def union_rect(rects: Iterable[Rect]) -> Rect | None:
    """Returns the smallest rectangle holding all of `rects`, or None when there are none."""
    array = np.asarray(list(rects), dtype=float).reshape(-1, 4)
    if len(array) == 0:
        return None
    x0, y0 = array[:, :2].min(axis=0).tolist()
    x1, y1 = array[:, 2:].max(axis=0).tolist()
    return (x0, y0, x1, y1)


def page_lines(page: PageText) -> PageLines:
    """Returns the page with one box per visual line in place of one per character."""
    drawn = np.flatnonzero(page.line_ids != NO_LINE)
    ids = page.line_ids[drawn]
    # Line ids rise along the text, so each line is one run of equal ids (NO_LINE, beyond
    # both ends, opens the first run and closes the last).
    first = np.flatnonzero(np.diff(ids, prepend=NO_LINE))
    last = np.flatnonzero(np.diff(ids, append=NO_LINE))
    boxes = page.char_boxes[drawn]
    return PageLines(
        number=page.number,
        text=page.text,
        width=page.width,
        height=page.height,
        line_starts=drawn[first].astype(np.int32),
        line_ends=(drawn[last] + 1).astype(np.int32),
        line_glyphs=(last - first + 1).astype(np.int32),
        line_boxes=np.column_stack(
            (
                np.minimum.reduceat(boxes[:, 0], first),
                np.minimum.reduceat(boxes[:, 1], first),
                np.maximum.reduceat(boxes[:, 2], first),
                np.maximum.reduceat(boxes[:, 3], first),
            )
        ).astype(np.float32),
        image_coverage=page.image_coverage,
        line_styles=page.line_styles,
        ocr_confidence=page.ocr_confidence,
    )


def page_break_at(chunk: ChunkText) -> int | None:
    """Returns where the last page break starts in the chunk's content, None on one page.

    The chunk's text on its last page is the last `page_span_end` characters of its content
    (records.ChunkDraft), so the break stands just before them.
    """
    if chunk.page_end == chunk.page_start:
        return None
    return len(chunk.content) - chunk.page_span_end - len(PAGE_BREAK)


@dataclass(frozen=True)
class Segment:
    """A chunk's text on one page: content[start:end] == page text[page_offset:...]."""

    page_number: int
    start: int
    end: int
    page_offset: int


def chunk_segments(chunk: ChunkText) -> list[Segment]:
    """Returns the pieces of the chunk's content page by page, in order.

    Content runs from `page_span_start` on the first page to `page_span_end` on the last,
    pages joined with PAGE_BREAK. Chunking makes chunks of one or two pages only; a longer
    one gives no segments (its middle pages' lengths are not in the chunk), so no evidence.
    """
    brk = page_break_at(chunk)
    if brk is None:
        return [Segment(chunk.page_start, 0, len(chunk.content), chunk.page_span_start)]
    if chunk.page_end - chunk.page_start != 1:
        return []
    return [
        Segment(chunk.page_start, 0, brk, chunk.page_span_start),
        Segment(chunk.page_end, brk + len(PAGE_BREAK), len(chunk.content), 0),
    ]


@dataclass(frozen=True, kw_only=True)
class ChunkSpan(ChunkPlace):
    """Where a stored chunk lies, for placing the reader's marks on it."""

    chunk_id: uuid.UUID

    def covers(self, mark: Mark) -> bool:
        """Says whether the mark's text overlaps this chunk, or, for a note, whether the
        character under it is in this chunk."""
        start, end = mark.page_span_start, mark.page_span_end
        if start is None or end is None or not self.page_start <= mark.page <= self.page_end:
            return False
        first = self.page_span_start if mark.page == self.page_start else 0
        last = self.page_span_end if mark.page == self.page_end else None
        if start == end:
            return first <= start and (last is None or start < last)
        return (last is None or start < last) and first < end


def chunks_under(mark: Mark, chunks: Iterable[ChunkSpan]) -> list[uuid.UUID]:
    """Returns the chunks the mark lies on (overlapping chunks may share it), sorted by id."""
    return sorted(chunk.chunk_id for chunk in chunks if chunk.covers(mark))
