"""OCR of page images: PP-OCR's detection, direction and recognition models, as the
rapidocr-onnxruntime wheel ships them (on onnxruntime, nothing downloaded at run time).

The engine gives a box per line and, per character, where recognition placed it along the
line. Those lines become fragments like a text layer's (`app.pdf.pagetext.make_fragment`),
are put in reading order by the same XY-cut (`app.pdf.layout`) and composed into the same
`PageText`, so that everything downstream reads a scan like any PDF. No PyMuPDF here:
`app.pdf.reader` renders the page and decides when it is read by OCR.
"""

from __future__ import annotations

import itertools
import re
import threading
import unicodedata
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import cache
from typing import Any

import numpy as np
import numpy.typing as npt
import wordninja

from app.core.geometry import on_one_row
from app.core.records import PageText, Rect
from app.pdf.layout import Fragment, reading_order
from app.pdf.pagetext import compose_text, make_fragment


class OcrMode(StrEnum):
    auto = "auto"
    """Pages without a usable text layer: none, too little for their ink, or garbage."""
    off = "off"
    force = "force"
    """Every page, whatever its text layer."""


MIN_SCORE = 0.5
"""Lines recognised with a lower mean confidence are dropped: noise, not text."""

MIN_SPLIT_LETTERS = 4
"""Runs of fewer letters are never split into words: "ofa" is as likely a name as "of a"."""

MIN_JOINED_LETTERS = 6
"""Pieces are joined into a word only as long as this: "We s" is no cut "Wes"."""

LONG_LINE = 8
"""Widths, in heights, from which a line recognition gave up on is read again in halves."""

GLYPH_SIZE = 0.8
"""A detected line box's height, times this, is the font size its text is taken to have:
detection pads the box around the glyphs."""

BLOCK_GAP = 0.8
"""Line heights of empty space under a line below which the next line, overlapping it
horizontally, continues its paragraph."""

ROW_JOIN_GAP = 0.5
"""Line heights of horizontal gap within which two boxes on one row are one line's pieces:
detection cuts a line at a wide space. A column gutter is wider, and joining across it would
keep the columns from being read one after the other."""

_FULL_WIDTH_ASCII = {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)}
"""Full-width forms of ASCII (U+FF01 to U+FF5E) to ASCII: the recognition model, trained on
Chinese, writes full-width semicolons and brackets in English lines."""


@dataclass(frozen=True)
class OcrLine:
    """One recognised line, in image pixels: its text, one box per character, its box."""

    text: str
    char_boxes: list[Rect]
    box: Rect
    confidence: float


class OcrEngine:
    """PP-OCR on onnxruntime; one call at a time, each using the cores onnxruntime is given."""

    def __init__(self, threads: int = 0) -> None:
        # Imported here: it loads OpenCV, which a process that never meets a scan can do without.
        from rapidocr_onnxruntime import RapidOCR

        count = threads if threads > 0 else -1
        self._ocr = RapidOCR(
            intra_op_num_threads=count, inter_op_num_threads=count, print_verbose=False
        )
        self._lock = threading.Lock()

    def read(self, image: npt.NDArray[np.uint8]) -> list[OcrLine]:
        """Returns the lines found on the gray image, in the engine's order.

        A long line that recognition reads as nothing, or as noise, is read again in two
        halves: the model gives up on some full-width lines of dense text.
        """
        with self._lock:
            items = self._recognise(image, 0, 0)
            found = []
            for item in items:
                if float(item[2]) >= MIN_SCORE:
                    found.append(item)
                else:
                    found.extend(self._halves(image, _bounds(item[0])))
        return [line for item in found if (line := _line(item)) is not None]

    def _recognise(self, image: npt.NDArray[np.uint8], dx: float, dy: float) -> list[list[Any]]:
        """Returns RapidOCR's items for the image, moved by (dx, dy), low scores kept."""
        found, _ = self._ocr(image, return_word_box=True, text_score=0.0)
        return [_moved(item, dx, dy) for item in found or ()]

    def _halves(self, image: npt.NDArray[np.uint8], box: Rect) -> list[list[Any]]:
        """Returns what recognition reads on each half of a long line's box, cut at its
        lightest column near the middle, each half on a white margin as detection wants."""
        x0, y0, x1, y1 = (round(value) for value in box)
        x0, y0 = max(x0, 0), max(y0, 0)
        height = y1 - y0
        if height <= 0 or x1 - x0 < LONG_LINE * height:
            return []
        crop = image[y0:y1, x0:x1]
        width = crop.shape[1]
        middle = slice(int(0.4 * width), int(0.6 * width))
        cut = middle.start + int(np.argmax(crop[:, middle].astype(np.int32).sum(axis=0)))
        found = []
        for start, end in ((0, cut), (cut, width)):
            half = np.pad(crop[:, start:end], height, constant_values=255)
            items = self._recognise(half, x0 + start - height, y0 - height)
            found += [item for item in items if float(item[2]) >= MIN_SCORE]
        return found


@cache
def load_engine(threads: int = 0) -> OcrEngine:
    """Returns the process's engine, its models loaded at the first call."""
    return OcrEngine(threads)


@dataclass(frozen=True)
class OcrPolicy:
    """When and how pages are read by OCR at ingestion."""

    mode: OcrMode = OcrMode.auto
    dpi: int = 200
    engine: Callable[[], OcrEngine] = load_engine
    is_noise: Callable[[str], bool] = lambda text: False
    """Says whether a page's text reads like a poor OCR layer (app.chunking.flags)."""
    on_page: Callable[[int], None] | None = None
    """Told the number of each page read by OCR, as it is read."""


def _moved(item: list[Any], dx: float, dy: float) -> list[Any]:
    """Returns a RapidOCR item, its line quad and character quads moved by (dx, dy)."""

    def move(quad: Sequence[Sequence[float]]) -> list[list[float]]:
        return [[float(point[0]) + dx, float(point[1]) + dy] for point in quad]

    moved = [move(item[0]), *item[1:]]
    if len(moved) > 3:
        moved[3] = [move(quad) for quad in moved[3]]
    return moved


def _line(item: list[Any]) -> OcrLine | None:
    """Returns RapidOCR's [quad, text, score, char boxes, chars, char scores] as a line."""
    quad, text, score = item[0], item[1], float(item[2])
    box = _bounds(quad)
    chars: list[str] = list(item[4]) if len(item) > 4 else []
    quads: list[Any] = list(item[3]) if len(item) > 3 else []
    if "".join(chars) != text or len(quads) != len(chars):
        chars, boxes = list(text), _spread(text, box)
    else:
        boxes = [(b[0], box[1], b[2], box[3]) for b in map(_bounds, quads)]
    if not text.strip():
        return None
    if not any(_is_cjk(char) for char in text):
        chars, boxes = _spaced([char.translate(_FULL_WIDTH_ASCII) for char in chars], boxes)
    return OcrLine("".join(chars), boxes, box, score)


def _spaced(chars: list[str], boxes: list[Rect]) -> tuple[list[str], list[Rect]]:
    """Returns a Latin line's characters with its word spaces mended: the spaces the
    recogniser left out put back, each with the box of the gap it fills, and those it put
    inside a word taken out.

    The model, trained mostly on Chinese, runs words together on justified lines
    ("makesastepinthedirection") and after punctuation ("bananas.This", "Jim,was"), and cuts
    some long words ("re velat ions"). A run of letters splits where an English word list
    says it is several words (wordninja, by word frequencies); punctuation is followed by a
    space when a word ends before it and another starts after it; two to four pieces join
    when together they are a word and one of them is none.
    """
    chars, boxes = _joined(chars, boxes)
    text = "".join(chars)
    breaks: set[int] = set()
    for run in _LETTERS.finditer(text):
        parts = _split_words(run.group())
        for end in itertools.accumulate(len(part) for part in parts[:-1]):
            breaks.add(run.start() + end)
    breaks.update(match.start() + 1 for match in _RUN_ON_PUNCTUATION.finditer(text))
    spaced_chars: list[str] = []
    spaced_boxes: list[Rect] = []
    for index, (char, box) in enumerate(zip(chars, boxes, strict=True)):
        if index in breaks:
            left = spaced_boxes[-1]
            spaced_chars.append(" ")
            spaced_boxes.append((left[2], box[1], max(left[2], box[0]), box[3]))
        spaced_chars.append(char)
        spaced_boxes.append(box)
    return spaced_chars, spaced_boxes


_LETTERS = re.compile(r"[A-Za-z]{2,}")
_RUN_ON_PUNCTUATION = re.compile(
    r"(?<=[a-z]{2})[,;:](?=[A-Za-z])|(?<=[a-z]{2})[.!?](?=[A-Z][a-z])|(?<=\b\d)\.(?=[A-Z][a-z])"
)
"""Punctuation after a word of two letters or more, or after a list number, with a word right
after it: "Jim,was", "bananas.This", "2.The". Abbreviations ("e.g.", "U.S.") and numbers
("3.14") are left alone."""


def _joined(chars: list[str], boxes: list[Rect]) -> tuple[list[str], list[Rect]]:
    """Returns the characters without the spaces that cut a word in pieces."""
    text = "".join(chars)
    pieces = list(_PIECE.finditer(text))
    cuts: set[int] = set()
    index = 0
    while index < len(pieces):
        for count in (4, 3, 2):
            group = pieces[index : index + count]
            if len(group) == count and _cut_word(group):
                cuts.update(piece.end() for piece in group[:-1])
                index += count - 1
                break
        index += 1
    kept = [k for k in range(len(chars)) if k not in cuts]
    return [chars[k] for k in kept], [boxes[k] for k in kept]


def _cut_word(group: list[re.Match[str]]) -> bool:
    """Says whether these pieces, one space apart, are one word cut by a space."""
    if any(b.start() != a.end() + 1 for a, b in itertools.pairwise(group)):
        return False
    words = [piece.group().lower() for piece in group]
    joined = "".join(words)
    if joined not in _WORDS or len(joined) < MIN_JOINED_LETTERS:
        return False
    return any(word not in _WORDS or (len(word) == 1 and word != "a") for word in words)


_PIECE = re.compile(r"(?<![A-Za-z])[A-Za-z][a-z]*(?![A-Za-z])")
"""A word of letters, lower-case but for its first."""
_WORDS: dict[str, float] = wordninja.DEFAULT_LANGUAGE_MODEL._wordcost
"""wordninja's English word list (with each word's cost): the words it splits into."""


def _split_words(run: str) -> list[str]:
    """Returns a run of letters as the words it is made of, itself when it is one word.

    Only lower-case runs, or capitalised ones, are split: "CNNs" and "DeepDream" are names."""
    if len(run) < MIN_SPLIT_LETTERS or not run[1:].islower():
        return [run]
    parts: list[str] = wordninja.split(run)
    return parts if "".join(parts) == run else [run]


def _bounds(quad: Sequence[Sequence[float]]) -> Rect:
    xs = [float(point[0]) for point in quad]
    ys = [float(point[1]) for point in quad]
    return (min(xs), min(ys), max(xs), max(ys))


def _spread(text: str, box: Rect) -> list[Rect]:
    """Returns the line's box cut in equal parts, one per character."""
    x0, y0, x1, y1 = box
    step = (x1 - x0) / max(len(text), 1)
    return [(x0 + step * k, y0, x0 + step * (k + 1), y1) for k in range(len(text))]


def _is_cjk(char: str) -> bool:
    return unicodedata.east_asian_width(char) in ("W", "F") and char.isalpha()


def ocr_page_text(
    lines: Sequence[OcrLine],
    *,
    number: int,
    width: float,
    height: float,
    scale: float,
    image_coverage: float,
) -> PageText:
    """Returns the page as the OCR lines read it, boxes in page points (`scale` points per
    pixel), in reading order, its `ocr_confidence` the characters' mean line confidence."""
    placed = [_scaled(line, scale) for line in lines]
    blocks = _blocks([line.box for line in placed])
    fragments: list[Fragment] = []
    weights: list[tuple[float, int]] = []
    for line, block in zip(placed, blocks, strict=True):
        size = GLYPH_SIZE * (line.box[3] - line.box[1])
        # The recogniser writes its own word spaces, and its character boxes are centred
        # guesses of one width: a gap between them says little ("fro m").
        glyphs = zip(line.text, line.char_boxes, strict=True)
        fragment = make_fragment(block, glyphs, size, fill_gaps=False)
        if fragment is not None:
            fragments.append(fragment)
            weights.append((line.confidence, len(fragment.text)))
    composed = compose_text(reading_order(fragments, width))
    boxes = composed.char_boxes
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0.0, width)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0.0, height)
    return PageText(
        number=number,
        text=composed.text,
        width=width,
        height=height,
        char_boxes=boxes,
        line_ids=composed.line_ids,
        image_coverage=image_coverage,
        ocr_confidence=_mean_confidence(weights),
    )


def _scaled(line: OcrLine, scale: float) -> OcrLine:
    def points(box: Rect) -> Rect:
        return (box[0] * scale, box[1] * scale, box[2] * scale, box[3] * scale)

    return OcrLine(line.text, [points(box) for box in line.char_boxes], points(line.box),
                   line.confidence)  # fmt: skip


def _mean_confidence(weights: Iterable[tuple[float, int]]) -> float:
    total = sum(count for _, count in weights)
    if not total:
        return 0.0
    return round(sum(score * count for score, count in weights) / total, 4)


def _blocks(boxes: Sequence[Rect]) -> list[int]:
    """Returns a block number per line box: lines of one paragraph share one.

    A line continues the block of a line just above it that it overlaps horizontally, or of
    a line beside it on its row (detection cuts a line at a wide gap). Numbers follow the
    first line of each block from the top, so they are the same for the same boxes.
    """
    order = sorted(range(len(boxes)), key=lambda k: (boxes[k][1], boxes[k][0]))
    parent = list(range(len(boxes)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    for position, k in enumerate(order):
        box = boxes[k]
        height = box[3] - box[1]
        for j in order[:position]:
            other = boxes[j]
            if _continues(other, box, height):
                parent[root(k)] = root(j)
    firsts: dict[int, int] = {}
    for k in order:
        firsts.setdefault(root(k), len(firsts))
    return [firsts[root(k)] for k in range(len(boxes))]


def _continues(above: Rect, box: Rect, height: float) -> bool:
    """Says whether `box` continues the paragraph of `above` (a box that starts higher)."""
    if on_one_row(above, box):
        gap = max(box[0] - above[2], above[0] - box[2])
        return gap <= ROW_JOIN_GAP * height
    gap = box[1] - above[3]
    overlap = min(above[2], box[2]) - max(above[0], box[0])
    narrower = min(above[2] - above[0], box[2] - box[0])
    return -0.5 * height <= gap <= BLOCK_GAP * height and overlap >= 0.5 * narrower
