"""Section headings read from how lines are set, for documents without an outline.

Most filings and many reports carry no outline, yet set their headings apart: a bold line
alone on its row ("PBNA", "Results of Operations"), or one in a larger type than the body.
A chunk under such a heading often never names what it is about ("Operating profit
increased 26%, ..." under "PBNA"), so the heading goes into its context header, where both
the query's words and its embedding meet it, and a chunk ends where one begins.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence

from app.chunking.structure import RUNNING_PAGES
from app.core.geometry import on_one_row
from app.core.records import PageLines, Rect, TocEntry

SECTION_LEVEL = 2
"""The outline level detected headings take: sections, under no chapter."""
PROSE_WIDTH = 0.5
"""Lines this share of the page's text width or wider are prose, whose size is the body's."""
LARGER_TYPE = 1.2
"""A line set this many times the body size or larger stands out without being bold."""
SIZE_SLACK = 0.25
"""Points a bold heading may be set below the body size (rounding in the font's scaling)."""
MAX_WORDS = 20
"""Words a heading line may hold at the most; more is a sentence set in bold."""
MIN_LETTER_SHARE = 0.5
"""Letters a heading needs among its visible characters: figures are no heading."""
RECURRING_SHARE = 0.2
"""A heading written on more than this share of the pages (and on more than RUNNING_PAGES) is a
running one."""
CELL_GAP = 2.0
"""Font sizes of blank within a line that part a table row's cells: no heading has one."""
WRAPPED_WIDTH = 0.6
"""A line this share of the page's text width or wider wraps on to the next one."""
MAX_JOINED = 3
"""Lines at most that one heading runs over; more in one style is a paragraph set in bold."""

_SENTENCE_END = re.compile(r"[,;:\-\u2010]$|\w{2,}\.$")
"""How a heading never ends: in a comma, a colon (a table's group of rows), a hyphen or a
sentence's full stop ("Item 7." and "U.S." may)."""
_CUT_SHORT = re.compile(r"(?:\b[a-z]+|[,&\-\u2010\u2013\u2014])$")
_LETTER = re.compile(r"[^\W\d_]")


def detected_headings(
    pages: Sequence[PageLines], furniture: Mapping[int, Sequence[tuple[int, int]]]
) -> list[TocEntry]:
    """Returns the headings of the document's text-layer pages, in reading order, as outline
    entries at SECTION_LEVEL that know where their text starts: lines set bold or in a larger
    type than the body, alone on their row, short, mostly letters, not a sentence, neither
    furniture nor running, and not the first lines of a paragraph set all in bold."""
    prose = [(page, _prose_sizes(page)) for page in pages if page.line_styles]
    document_sizes: Counter[float] = Counter()
    for _, sizes in prose:
        document_sizes.update(sizes)
    document_body = _most_common(document_sizes)
    found: list[tuple[PageLines, list[str], list[int]]] = []
    for page, sizes in prose:
        # A filing's exhibits or a report's appendix may be set larger than its body: each
        # page's prose says what stands out on it.
        body = _most_common(sizes) or document_body
        if body is None:
            continue
        texts = page.line_texts()
        spans = furniture.get(page.number, ())
        boxes: list[Rect] = [tuple(box) for box in page.line_boxes.tolist()]
        width = _text_width(page)
        runs: list[list[int]] = []
        for index, text in enumerate(texts):
            if not _stands_out(page, boxes, index, text, body, spans):
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


def _prose_sizes(page: PageLines) -> Counter[float]:
    """Returns the glyphs the page's prose sets in each font size (to the half point): those
    on lines running across half the text's width or more (a table's cells are narrower). The
    size of most is the body's."""
    widths = page.line_boxes[:, 2] - page.line_boxes[:, 0]
    wide = widths >= PROSE_WIDTH * _text_width(page)
    sizes: Counter[float] = Counter()
    for style, glyphs, is_wide in zip(
        page.line_styles, page.line_glyphs.tolist(), wide.tolist(), strict=True
    ):
        if is_wide:
            sizes[round(style.size * 2) / 2] += glyphs
    return sizes


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
    body: float,
    furniture: Sequence[tuple[int, int]],
) -> bool:
    style = page.line_styles[index]
    if not ((style.bold and style.size >= body - SIZE_SLACK) or style.size >= body * LARGER_TYPE):
        return False
    visible = text.replace(" ", "")
    if (
        not visible
        or len(text.split()) > MAX_WORDS
        or len(_LETTER.findall(visible)) < MIN_LETTER_SHARE * len(visible)
    ):
        return False
    start = int(page.line_starts[index])
    if style.widest_gap > CELL_GAP * style.size or any(a <= start < b for a, b in furniture):
        return False
    return _alone_on_row(boxes, index)


def _alone_on_row(boxes: Sequence[Rect], index: int) -> bool:
    """Says whether no other of the page's line boxes shares the line's row: a table's cells,
    when PyMuPDF reads them as lines of their own, do."""
    return not any(
        other != index and on_one_row(boxes[index], box) for other, box in enumerate(boxes)
    )


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
