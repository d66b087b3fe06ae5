"""Section headings read from how lines are set, for documents without an outline.

Most filings and many reports carry no outline, yet set their headings apart: a bold line
alone on its row ("PBNA", "Results of Operations"), or one in a larger type than the body.
A chunk under such a heading often never names what it is about ("Operating profit
increased 26%, ..." under "PBNA"), so the heading goes into its context header, where both
the query's words and its embedding meet it, and a chunk ends where one begins.
"""

from __future__ import annotations

import itertools
import re
from collections import Counter
from collections.abc import Mapping, Sequence

import numpy as np

from app.chunking.structure import RUNNING_PAGES
from app.core.geometry import on_one_row
from app.core.records import PageLines, Rect, TocEntry

SECTION_LEVEL = 2
"""The outline level detected headings take: sections, under no chapter."""
PROSE_WIDTH = 0.5
"""Lines this share of the page's text width or wider are prose, whose size is the body's."""
LARGER_THAN_BODY = 1.1
"""A line set in a smaller type than the body's on a page of tables or footnotes stands out
by its size only this many times the document's body size or larger."""
CAPITALS_LARGER = 1.05
"""A line in capitals stands out set this many times the body size or larger."""
BOLD_BODY = 0.5
"""The share of a page's prose in the body size set bold past which bold sets nothing apart
(a filing's exhibit set all in bold)."""
BOLD_BODY_GLYPHS = 1000
"""Bold glyphs of prose a page set in bold holds at the least: a title page holds fewer."""
LARGER_TYPE = 1.2
"""A line set this many times the body size or larger stands out without being bold."""
SIZE_SLACK = 0.25
"""Points a bold heading may be set below the body size (rounding in the font's scaling)."""
MAX_WORDS = 20
"""Words a heading line may hold at the most; more is a sentence set in bold."""
MIN_LETTER_SHARE = 0.5
"""Letters a heading needs among its visible characters (two at the least, a figure's label
has one): figures are no heading."""
RECURRING_SHARE = 0.2
"""A heading written on more than this share of the pages (and on more than RUNNING_PAGES) is a
running one."""
CELL_GAP = 2.0
"""Font sizes of blank within a line that part a table row's cells: no heading has one."""
WRAPPED_WIDTH = 0.6
"""A line this share of the page's text width or wider wraps on to the next one."""
MAX_JOINED = 3
"""Lines at most that one heading runs over; more in one style is a paragraph set in bold."""
UPRIGHT_HEIGHT = 2.0
"""A line box this many times taller than the line and than its own width is set upright."""
COLUMN_LINES = 5
"""Lines of prose a column of a page holds at the least; fewer beside a gap are a table's."""
COLUMN_SHARE = 0.25
"""A column's prose lines run this share of the page's text width or wider (a cell seldom
does; a third of a three-column page does)."""

_SENTENCE_END = re.compile(r"[,;:\-\u2010]$|\w{2,}\.$")
"""How a heading never ends: in a comma, a colon (a table's group of rows), a hyphen or a
sentence's full stop ("Item 7." and "U.S." may)."""
_CUT_SHORT = re.compile(r"(?:\b[a-z]+|[,&\-\u2010\u2013\u2014])$")
_LETTER = re.compile(r"[^\W\d_]")
_CAPTION = re.compile(r"(?:Figure|FIGURE|Fig\.|Table|TABLE)\s*\d+[.:]")
"""How a figure's or a table's caption opens: it names no section, however it is set."""


def detected_headings(
    pages: Sequence[PageLines], furniture: Mapping[int, Sequence[tuple[int, int]]]
) -> list[TocEntry]:
    """Returns the headings of the document's text-layer pages, in reading order, as outline
    entries at SECTION_LEVEL that know where their text starts: lines set bold or in a larger
    type than the body, alone on their row, short, mostly letters, not a sentence, neither
    furniture nor running, and not the first lines of a paragraph set all in bold."""
    prose = [
        (page, texts, _prose_glyphs(page, width), width)
        for page in pages
        if page.line_styles
        for texts in [page.line_texts()]
        for width in [_column_width(page, texts) or _text_width(page)]
    ]
    document_sizes: Counter[float] = Counter()
    for _, _, glyphs, _ in prose:
        document_sizes.update(_sizes(glyphs))
    document_body = _most_common(document_sizes)
    found: list[tuple[PageLines, list[str], list[int]]] = []
    for page, texts, glyphs, width in prose:
        # A filing's exhibits or a report's appendix may be set larger than its body: each
        # page's prose says what stands out on it. A page of tables or of long footnotes in
        # a smaller type may set its headings bold in that type, but its paragraphs in the
        # document's body type do not stand out.
        body = _most_common(_sizes(glyphs)) or document_body
        if body is None:
            continue
        sizes_from = (
            None if _set_in_bold(glyphs, body) else body - SIZE_SLACK,
            max(body * LARGER_TYPE, (document_body or body) * LARGER_THAN_BODY),
            max(body, document_body or body) * CAPITALS_LARGER,
        )
        spans = furniture.get(page.number, ())
        boxes: list[Rect] = [tuple(box) for box in page.line_boxes.tolist()]
        runs: list[list[int]] = []
        for index, text in enumerate(texts):
            if not _stands_out(page, boxes, index, text, spans, *sizes_from):
                continue
            if runs and _continues(page, boxes, width, texts, runs[-1][-1], index):
                runs[-1].append(index)
            else:
                runs.append([index])
        found += [
            (page, texts, run)
            for run in runs
            if len(run) <= MAX_JOINED
            and not _SENTENCE_END.search(texts[run[-1]])
            and not (
                run[-1] + 1 < len(texts)
                and _continues(page, boxes, width, texts, run[-1], run[-1] + 1)
            )
        ]
    titles = [" ".join(texts[index] for index in run) for _, texts, run in found]
    counts = Counter(title.lower() for title in titles)
    running = max(RUNNING_PAGES, RECURRING_SHARE * len(pages))
    return [
        TocEntry(
            level=SECTION_LEVEL,
            title=title,
            page=page.number,
            y=float(page.line_boxes[run[0], 1]),
            offset=int(page.line_starts[run[0]]),
        )
        for (page, _, run), title in zip(found, titles, strict=True)
        if counts[title.lower()] <= running
    ]


def _prose_glyphs(page: PageLines, width: float) -> Counter[tuple[float, bool]]:
    """Returns the glyphs the page's prose sets in each font size (to the half point), bold
    or not: those on lines running across half the `width` of its text or of its columns or
    more (a table's cells are narrower)."""
    wide = page.line_boxes[:, 2] - page.line_boxes[:, 0] >= PROSE_WIDTH * width
    glyphs: Counter[tuple[float, bool]] = Counter()
    for style, count, is_wide in zip(
        page.line_styles, page.line_glyphs.tolist(), wide.tolist(), strict=True
    ):
        if is_wide:
            glyphs[round(style.size * 2) / 2, style.bold] += count
    return glyphs


def _sizes(glyphs: Counter[tuple[float, bool]]) -> Counter[float]:
    """Returns the prose's glyphs in each size, bold or not: the size of most is the body's."""
    sizes: Counter[float] = Counter()
    for (size, _), count in glyphs.items():
        sizes[size] += count
    return sizes


def _column_width(page: PageLines, texts: Sequence[str]) -> float | None:
    """Returns the width of the widest column of a page whose prose runs in columns side by
    side, None for any other page (`texts` are its lines'). In columns, at each of two left
    edges start COLUMN_LINES or more lines of words as wide as a column's prose, and those at
    the first edge end, most of them, before the second; a paragraph's indented first lines
    end at the margin, and a table's cells are narrower or figures."""
    boxes = page.line_boxes
    widths = boxes[:, 2] - boxes[:, 0]
    width = _text_width(page)
    worded = np.array([_worded(text) for text in texts], dtype=bool)
    in_column = worded & (widths >= COLUMN_SHARE * width) & (widths < PROSE_WIDTH * width)
    column = boxes[in_column]
    edges = Counter(round(x0) for x0 in column[:, 0].tolist())
    starts = sorted(edge for edge, lines in edges.items() if lines >= COLUMN_LINES)
    if any(
        float(np.median(column[np.abs(column[:, 0] - first) <= 0.5, 2])) <= second
        for first, second in itertools.pairwise(starts)
    ):
        return float(widths[in_column].max())
    return None


def _worded(text: str) -> bool:
    """Says whether letters are at least MIN_LETTER_SHARE of the text's visible characters
    (two at the least)."""
    visible = text.replace(" ", "")
    return len(_LETTER.findall(visible)) >= max(2, MIN_LETTER_SHARE * len(visible))


def _set_in_bold(glyphs: Counter[tuple[float, bool]], body: float) -> bool:
    """Says whether the page's prose in the `body` size (`glyphs`, _prose_glyphs) is set bold,
    most of it and more than a title page's worth (BOLD_BODY_GLYPHS)."""
    bold = glyphs[body, True]
    return bold > max(BOLD_BODY * (bold + glyphs[body, False]), BOLD_BODY_GLYPHS)


def _most_common(sizes: Counter[float]) -> float | None:
    return sizes.most_common(1)[0][0] if sizes else None


def _text_width(page: PageLines) -> float:
    """Returns the width from the page's leftmost line edge to its rightmost."""
    return float(page.line_boxes[:, 2].max() - page.line_boxes[:, 0].min())


def _stands_out(
    page: PageLines,
    boxes: Sequence[Rect],
    index: int,
    text: str,
    furniture: Sequence[tuple[int, int]],
    bold_from: float | None,
    larger_from: float,
    capitals_from: float,
) -> bool:
    """Says whether the line is set apart as a heading: bold in a size of `bold_from` or more
    (None: bold sets nothing apart) or in a size of `larger_from` or more (`capitals_from`
    for a line in capitals: "ESTIMATED COSTS" one point over the body), short, of words,
    no caption, no row of cells, no furniture, and alone on its row."""
    style = page.line_styles[index]
    bold = style.bold and bold_from is not None and style.size >= bold_from
    larger = style.size >= (capitals_from if text.isupper() else larger_from)
    if not (bold or larger):
        return False
    if len(text.split()) > MAX_WORDS or not _worded(text) or _CAPTION.match(text):
        return False
    start = int(page.line_starts[index])
    if style.widest_gap > CELL_GAP * style.size or any(a <= start < b for a, b in furniture):
        return False
    return _alone_on_row(page, boxes, index)


def _alone_on_row(page: PageLines, boxes: Sequence[Rect], index: int) -> bool:
    """Says whether no other of the page's line boxes shares the line's row but across a
    column's gutter: a table's cells, when PyMuPDF reads them as lines of their own, do; the
    lines of a two-column paper's other column do not count, nor a line set upright in the
    margin (a register's printing stamp, a preprint's identifier), which stands beside every
    row it spans."""
    height = boxes[index][3] - boxes[index][1]
    return not any(
        other != index
        and on_one_row(boxes[index], box)
        and box[3] - box[1] <= UPRIGHT_HEIGHT * max(height, box[2] - box[0])
        and not _across_gutter(page, boxes[index], box)
        for other, box in enumerate(boxes)
    )


def _across_gutter(page: PageLines, box: Rect, other: Rect) -> bool:
    """Says whether a gutter between columns of prose parts two boxes on one row: under or
    over each box stand at least COLUMN_LINES of the page's lines as wide as prose that stop
    short of the other box, more than the lines (a title, a figure across the page) that
    reach from one box to the other. Under a table's cell stand cells, narrower than prose,
    or the prose that runs across the whole table."""
    if box[0] > other[0]:
        box, other = other, box
    if box[2] > other[0]:
        return False
    lines = page.line_boxes
    wide = lines[:, 2] - lines[:, 0] >= COLUMN_SHARE * _text_width(page)
    across = int(np.count_nonzero((lines[:, 0] < box[2]) & (lines[:, 2] > other[0])))
    under_left = wide & (lines[:, 0] < box[2]) & (lines[:, 2] <= other[0])
    under_right = wide & (lines[:, 2] > other[0]) & (lines[:, 0] >= box[2])
    columns = min(int(np.count_nonzero(under_left)), int(np.count_nonzero(under_right)))
    return columns >= max(COLUMN_LINES, across + 1)


def _continues(
    page: PageLines,
    boxes: Sequence[Rect],
    width: float,
    texts: Sequence[str],
    above: int,
    below: int,
) -> bool:
    """Says whether line `below` carries on the text of line `above`: the next line, in the
    same style, no more than a line's height below, where `above` reads as cut short (it
    ends in a lower-case word or a joining mark, or runs across most of the text's `width`)."""
    x0, top, x1, bottom = boxes[above]
    if not (
        below == above + 1
        and page.line_styles[above] == page.line_styles[below]
        and 0 <= boxes[below][1] - bottom < bottom - top
    ):
        return False
    return bool(_CUT_SHORT.search(texts[above])) or x1 - x0 >= WRAPPED_WIDTH * width
