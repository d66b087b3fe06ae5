"""A page's text from fragments in reading order, with one box and one line id per character.

The arrays are built alongside the text, character by character, so every offset into the
text keeps pointing at its glyph through whitespace clean-up and hyphen joining.
"""

from __future__ import annotations

import itertools
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from app.core.geometry import on_one_row
from app.core.records import NO_LINE, LineStyle, Rect
from app.pdf.layout import Box, Fragment, union

WORD_GAP = 0.3
"""A gap wider than this many font sizes between two glyphs is a word space PyMuPDF left out."""

HYPHENS = frozenset("-\u00ad\u2010")

EMPTY_WIDTH = 1e-3
"""Points below which a glyph box has no width: how MuPDF marks a ligature's later letters."""


def make_fragment(
    block: int,
    glyphs: Iterable[tuple[str, Rect]],
    size: float,
    *,
    fill_gaps: bool = True,
    bold: bool = False,
) -> Fragment | None:
    """Returns the fragment of these glyphs, or None when no visible character is left.

    Control and format characters are dropped (a soft hyphen survives: it may end a line),
    every kind of whitespace becomes one " ", and, with `fill_gaps`, a space with no box is
    inserted where the glyphs leave a word-wide gap that PyMuPDF did not fill.
    """
    chars: list[str] = []
    boxes: list[Box] = []
    word_gap = WORD_GAP * size if fill_gaps else float("inf")
    right = 0.0
    empty_boxes = False
    for char, box in glyphs:
        if char.isspace():
            if chars and chars[-1] != " ":
                chars.append(" ")
                boxes.append(box)
            continue
        if not char.isprintable() and _is_invisible(char):
            continue
        if chars and chars[-1] != " " and box[0] - right > word_gap and not _is_wide(char):
            chars.append(" ")
            boxes.append(None)
        chars.append(char)
        boxes.append(box)
        empty_boxes = empty_boxes or box[2] - box[0] < EMPTY_WIDTH
        right = box[2]
    if chars and chars[-1] == " ":
        chars.pop()
        boxes.pop()
    if not chars:
        return None
    if empty_boxes:
        _share_ligature_boxes(boxes)
    return Fragment(
        block, "".join(chars), boxes, size, union(b for b in boxes if b is not None), bold
    )


def _share_ligature_boxes(boxes: list[Box]) -> None:
    """Splits a ligature's box evenly between the letters MuPDF expanded it into.

    MuPDF gives the whole glyph's box to the first letter of "ﬁ" and an empty box at
    its right edge to the others; even shares let a span end inside the ligature.
    """
    index = 0
    while index < len(boxes):
        first = boxes[index]
        end = index + 1
        while first is not None and end < len(boxes) and _is_empty_at(boxes[end], first[2]):
            end += 1
        if first is not None and end - index > 1:
            x0, y0, x1, y1 = first
            step = (x1 - x0) / (end - index)
            for k in range(index, end):
                boxes[k] = (x0 + step * (k - index), y0, x0 + step * (k - index + 1), y1)
        index = end


def _is_empty_at(box: Box, x: float) -> bool:
    return box is not None and box[2] - box[0] < EMPTY_WIDTH and abs(box[0] - x) < EMPTY_WIDTH


def _is_invisible(char: str) -> bool:
    return unicodedata.category(char) in ("Cc", "Cf") and char != "\u00ad"


def _is_wide(char: str) -> bool:
    """Says whether `char` is a CJK or full-width character: such scripts put no word spaces."""
    return unicodedata.east_asian_width(char) in ("W", "F")


@dataclass
class _Line:
    """One visual line being assembled: fragments of one block that share a row."""

    block: int
    chars: list[str]
    boxes: list[Box]
    last: Fragment
    size: float
    bold: bool

    def continues_with(self, fragment: Fragment) -> bool:
        """Says whether `fragment` sits on this line, to its right, in the same block."""
        return (
            fragment.block == self.block
            and on_one_row(fragment.bbox, self.last.bbox)
            and fragment.bbox[0] >= self.last.bbox[2] - 0.5 * fragment.size
        )

    def append(self, fragment: Fragment) -> None:
        if fragment.bbox[0] - self.last.bbox[2] > WORD_GAP * fragment.size:
            self.chars.append(" ")
            self.boxes.append(None)
        self.chars.extend(fragment.text)
        self.boxes.extend(fragment.boxes)
        self.last = fragment
        self.size = max(self.size, fragment.size)
        self.bold = self.bold and fragment.bold

    def style(self) -> LineStyle:
        drawn = [box for box in self.boxes if box is not None]
        gaps = (right[0] - left[2] for left, right in itertools.pairwise(drawn))
        return LineStyle(self.size, self.bold, max(gaps, default=0.0))


def _visual_lines(ordered: Sequence[Fragment]) -> list[_Line]:
    """Returns the visual lines of fragments already in reading order."""
    lines: list[_Line] = []
    for fragment in ordered:
        if lines and lines[-1].continues_with(fragment):
            lines[-1].append(fragment)
        else:
            lines.append(
                _Line(
                    fragment.block,
                    list(fragment.text),
                    list(fragment.boxes),
                    fragment,
                    fragment.size,
                    fragment.bold,
                )
            )
    return lines


@dataclass(frozen=True, eq=False)
class ComposedText:
    """A page's text with, per character, its box (NaN for separators) and visual line id,
    and the style of each visual line."""

    text: str
    char_boxes: npt.NDArray[np.float32]
    line_ids: npt.NDArray[np.int32]
    line_styles: tuple[LineStyle, ...]


def compose_text(fragments: Sequence[Fragment]) -> ComposedText:
    """Returns the page text of these fragments, lines joined by "\\n" and blocks by "\\n\\n".

    A line ending in a hyphen after a letter, followed by a line starting in lower case,
    is joined without the hyphen ("exam-" + "ple" reads "example"): the hyphen's box goes
    with it, so the arrays stay aligned with the text.
    """
    chars: list[str] = []
    boxes: list[Box] = []
    ids: list[int] = []
    previous: _Line | None = None
    lines = _visual_lines(fragments)
    for line_id, line in enumerate(lines):
        if previous is not None:
            if _joins_hyphenated(chars, line.chars[0]):
                chars.pop()
                boxes.pop()
                ids.pop()
            else:
                separator = "\n" if line.block == previous.block else "\n\n"
                chars.extend(separator)
                boxes.extend([None] * len(separator))
                ids.extend([NO_LINE] * len(separator))
        chars.extend(line.chars)
        boxes.extend(line.boxes)
        ids.extend(NO_LINE if box is None else line_id for box in line.boxes)
        previous = line
    return ComposedText(
        "".join(chars),
        _box_array(boxes),
        np.array(ids, dtype=np.int32),
        tuple(line.style() for line in lines),
    )


def _joins_hyphenated(chars: list[str], next_char: str) -> bool:
    return len(chars) >= 2 and chars[-1] in HYPHENS and chars[-2].isalpha() and next_char.islower()


def _box_array(boxes: list[Box]) -> npt.NDArray[np.float32]:
    nan: Rect = (np.nan, np.nan, np.nan, np.nan)
    array = np.array([nan if box is None else box for box in boxes], dtype=np.float32)
    return array.reshape(len(boxes), 4)
