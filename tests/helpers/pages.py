"""Pages made by hand, every character's box known, for the geometry and annotation tests."""

from __future__ import annotations

import math

import numpy as np

from app.core.records import NO_LINE, LineStyle, PageLines, PageText

NAN = (math.nan,) * 4
"""The box of a character that has none: a separator between lines."""


def page_of(lines: list[str], block_breaks: frozenset[int] = frozenset()) -> PageText:
    """Returns a page with one 10-point line per entry, each character 5 points wide.

    Lines are joined by "\\n" (or "\\n\\n" before a line listed in `block_breaks`),
    separators carry NaN boxes and NO_LINE, as extraction makes them.
    """
    text, boxes, ids = "", [], []
    for number, line in enumerate(lines):
        if number:
            separator = "\n\n" if number in block_breaks else "\n"
            text += separator
            boxes += [NAN] * len(separator)
            ids += [NO_LINE] * len(separator)
        top = 100.0 + 20 * number
        text += line
        boxes += [(72 + 5 * k, top, 77 + 5 * k, top + 10) for k in range(len(line))]
        ids += [number] * len(line)
    return PageText(
        number=1,
        text=text,
        width=612,
        height=792,
        char_boxes=np.array(boxes, dtype=np.float32).reshape(-1, 4),
        line_ids=np.array(ids, dtype=np.int32),
    )


def lines_page(
    lines: list[str],
    *,
    number: int = 1,
    heights: list[float] | None = None,
    sizes: list[float] | None = None,
) -> PageLines:
    """Returns a page's lines as the whole-document detectors read them: one per entry, each
    `heights[i]` points tall (12 unless given) under the one before, set in `sizes[i]` points
    (no styles unless given)."""
    starts = np.array([sum(len(line) + 1 for line in lines[:i]) for i in range(len(lines))])
    ends = starts + np.array([len(line) for line in lines], dtype=np.int64)
    tall = heights or [12.0] * len(lines)
    tops = 72 + np.cumsum([0.0, *tall[:-1]])
    return PageLines(
        number=number,
        text="\n".join(lines),
        width=612.0,
        height=792.0,
        line_starts=starts.astype(np.int32),
        line_ends=ends.astype(np.int32),
        line_glyphs=(ends - starts).astype(np.int32),
        line_boxes=np.array(
            [[72, top, 500, top + h] for top, h in zip(tops, tall, strict=True)],
            dtype=np.float32,
        ).reshape(-1, 4),
        line_styles=tuple(LineStyle(size, bold=False) for size in sizes or ()),
    )
