"""Rectangles from offsets: the one place that turns a span of page text into boxes on the page.

Offsets are the truth and rectangles are derived, never stored twice: whatever needs to draw
a chunk, a highlight or a piece of evidence asks this module. It runs per query on many
spans, so it stays in numpy, with no Python loop per character.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import numpy as np

from app.ingest.records import NO_LINE, ChunkDraft, PageLines, PageText, Rect


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
    )
