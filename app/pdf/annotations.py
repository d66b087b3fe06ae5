"""The reader's annotations placed on the page text: marks with offsets, and the chunks under them.

A text markup's text is read from its /QuadPoints character by character: a character is
marked when the centre of its box lies in one of the quads. Its /Rect is never used for
that, since on a mark over several lines it spans whole lines the reader did not mark.
Offsets into the page text come with the characters, so a mark maps onto chunks by page
and span overlap, exactly, with no text search.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from app.core.geometry import line_rects
from app.core.records import Mark, PageText, PdfAnnotation, Rect

MARKUP_TYPES = {
    "Highlight": "highlight",
    "Underline": "underline",
    "Squiggly": "squiggly",
    "StrikeOut": "strikeout",
}
NOTE_TYPES = {"Text": "note", "FreeText": "freetext"}
COMMENT_SUBTYPES = frozenset(
    {"Caret", "Ink", "Square", "Circle", "Line", "Polygon", "PolyLine", "Stamp"}
)
"""Drawings and edit marks: kept as notes when the reader wrote a comment on them, since the
comment is what they meant; without one they carry nothing to read (links, widgets and
popups are not the reader's annotations at all)."""


def locate_marks(annotations: Iterable[PdfAnnotation], pages: Sequence[PageText]) -> list[Mark]:
    """Returns the reader's annotations as marks on their pages' text, in reading order per page.

    Annotations of other kinds (links, form fields, uncommented drawings) are left out.
    """
    by_number = {page.number: page for page in pages}
    marks = [
        mark
        for annotation in annotations
        if annotation.page in by_number
        and (mark := locate_mark(annotation, by_number[annotation.page])) is not None
    ]
    return sorted(marks, key=reading_position)


def reading_position(mark: Mark) -> tuple[int, int, int]:
    """Orders marks by page, then where they lie in the text (marks on no text last)."""
    if mark.page_span_start is None or mark.page_span_end is None:
        return (mark.page, 1, 0)
    return (mark.page, 0, mark.page_span_start)


def locate_mark(annotation: PdfAnnotation, page: PageText) -> Mark | None:
    """Returns the annotation placed on the page's text, or None when it is not the reader's."""
    if annotation.subtype in MARKUP_TYPES:
        kind = MARKUP_TYPES[annotation.subtype]
        runs = marked_runs(page, annotation.quads)
        text = " ".join(collapse(page.text[start:end]) for start, end in runs)
        start, end = (runs[0][0], runs[-1][1]) if runs else (None, None)
        rects = annotation.quads
    elif annotation.subtype in NOTE_TYPES or (
        annotation.subtype in COMMENT_SUBTYPES and annotation.comment.strip()
    ):
        kind = NOTE_TYPES.get(annotation.subtype, "note")
        text = ""
        start = end = char_under(page, annotation.rect)
        rects = (annotation.rect,)
    else:
        return None
    return Mark(
        page=annotation.page,
        type=kind,
        text=text,
        comment=annotation.comment,
        author=annotation.author,
        colour=annotation.colour,
        rects=rects,
        page_span_start=start,
        page_span_end=end,
    )


def collapse(text: str) -> str:
    return " ".join(text.split())


def glyph_centres(page: PageText) -> tuple[npt.NDArray[np.floating], npt.NDArray[np.floating]]:
    """Returns each character's box centre; NaN for the separators citelock inserted."""
    boxes = page.char_boxes
    return (boxes[:, 0] + boxes[:, 2]) / 2, (boxes[:, 1] + boxes[:, 3]) / 2


def marked_runs(page: PageText, quads: Sequence[Rect]) -> list[tuple[int, int]]:
    """Returns the half-open runs of page text under the quads, in text order.

    A character is under a quad when its box centre is. Whitespace and separators between
    two marked characters belong to the run (a mark over two lines is one run); any other
    unmarked character ends it, so a mark that skips text gives several runs.
    """
    if not quads or len(page.text) == 0:
        return []
    x, y = glyph_centres(page)
    marked = np.zeros(len(page.text), dtype=bool)
    for x0, y0, x1, y1 in quads:
        marked |= (x >= x0) & (x <= x1) & (y >= y0) & (y <= y1)
    blank = np.array([char.isspace() for char in page.text], dtype=bool)
    marked &= ~blank
    runs: list[tuple[int, int]] = []
    for index in np.flatnonzero(marked).tolist():
        if runs and blank[runs[-1][1] : index].all():
            runs[-1] = (runs[-1][0], index + 1)
        else:
            runs.append((index, index + 1))
    return runs


def char_under(page: PageText, rect: Rect) -> int | None:
    """Returns the offset of the character nearest the centre of `rect` (the first of equals),
    or None on a page without glyphs: where a note without text stands in the text."""
    boxes = page.char_boxes
    drawn = ~np.isnan(boxes).any(axis=1)
    if not drawn.any():
        return None
    px, py = (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2
    dx = np.maximum(np.maximum(boxes[:, 0] - px, px - boxes[:, 2]), 0)
    dy = np.maximum(np.maximum(boxes[:, 1] - py, py - boxes[:, 3]), 0)
    distance = np.where(drawn, np.hypot(dx, dy), np.inf)
    return int(np.argmin(distance))


def locate_text(page: PageText, text: str) -> tuple[int, int] | None:
    """Returns the first span of the page text that reads `text`, whitespace aside, or None.

    A selection made in a viewer joins lines with spaces or newlines as it likes; the page
    text joins them with "\\n", so any run of whitespace matches any other.
    """
    words = text.split()
    if not words:
        return None
    found = re.search(r"\s+".join(re.escape(word) for word in words), page.text)
    return (found.start(), found.end()) if found else None


def highlight_mark(page: PageText, span: tuple[int, int], comment: str) -> Mark:
    """Returns a highlight over `span` of the page text, drawn line by line."""
    start, end = span
    return Mark(
        page=page.number,
        type="highlight",
        text=collapse(page.text[start:end]),
        comment=comment,
        author="",
        colour=None,
        rects=tuple(line_rects(page, start, end)),
        page_span_start=start,
        page_span_end=end,
    )
