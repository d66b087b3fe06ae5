"""The records that pass between ingestion stages: pages as read, outline entries, chunk drafts.

Offsets are the truth. A page's `text` is what citelock reads on that page, and every
chunk, span and rectangle is derived from half-open character offsets into it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, NamedTuple, TypeVar

import numpy as np
import numpy.typing as npt

from app.core.chunks import ChunkDraft

Rect = tuple[float, float, float, float]
"""x0, y0, x1, y1 in PDF points, origin top-left (PyMuPDF's page coordinates)."""

PAGE_BREAK = "\n\n"
"""What stands between two pages in a document's text, and so inside a chunk that crosses pages."""

NO_LINE = -1
"""`PageText.line_ids` for a character with no glyph (a separator citelock inserted)."""


class LineStyle(NamedTuple):
    """How a visual line is set: its largest font size, whether every glyph is bold, and the
    widest blank between two of its glyphs (points; a table row's cells leave wide ones)."""

    size: float
    bold: bool
    widest_gap: float = 0.0


@dataclass(frozen=True, eq=False)
class PageText:
    """One page as citelock reads it.

    `text` is in reading order (columns read one after another), ligatures expanded and
    line-end hyphenation joined. Lines are separated by "\\n", blocks by "\\n\\n".
    `char_boxes[i]` is the box of `text[i]` (NaN for inserted separators) and
    `line_ids[i]` the index of the visual line it sits on (`NO_LINE` for separators).
    """

    number: int
    text: str
    width: float
    height: float
    char_boxes: npt.NDArray[np.float32]
    line_ids: npt.NDArray[np.int32]
    image_coverage: float = 0.0
    ocr_confidence: float | None = None
    """The mean recognition confidence of a page read by OCR; None for a text layer's page."""
    line_styles: tuple[LineStyle, ...] = ()
    """The style of each visual line, by line id; empty where the page does not say (OCR)."""


@dataclass(frozen=True, eq=False)
class PageLines:
    """One page as the whole-document detectors read it: its text and one box per visual line.

    A page's character boxes and line ids take twenty bytes a character, its lines' boxes
    under one: the lines of a whole document can be held, its boxes not.
    Line i runs from `text[line_starts[i]]` to `text[line_ends[i] - 1]`, its first and last
    glyph; `line_glyphs[i]` counts its glyphs and `line_boxes[i]` is the union of their boxes.
    Lines are in text order, as `PageText.line_ids` numbers them.
    """

    number: int
    text: str
    width: float
    height: float
    line_starts: npt.NDArray[np.int32]
    line_ends: npt.NDArray[np.int32]
    line_glyphs: npt.NDArray[np.int32]
    line_boxes: npt.NDArray[np.float32]
    image_coverage: float = 0.0
    ocr_confidence: float | None = None
    line_styles: tuple[LineStyle, ...] = ()
    """Line i's style at `line_styles[i]`, as `PageText.line_styles`."""

    def line_texts(self) -> list[str]:
        """Returns the text of each line, its whitespace collapsed."""
        return [
            " ".join(self.text[start:end].split())
            for start, end in zip(self.line_starts.tolist(), self.line_ends.tolist(), strict=True)
        ]


@dataclass(frozen=True)
class PageWindow:
    """Pages `first` to `last` of a document with their character boxes, and beside them the
    page before `first` and the page after `last` where the document has them: a sentence may
    run over a page break, so what is made of a window's pages can depend on its neighbours."""

    pages: list[PageText]
    first: int
    last: int

    @property
    def own_pages(self) -> list[PageText]:
        """Returns pages `first` to `last`, the neighbours left out."""
        return [page for page in self.pages if self.first <= page.number <= self.last]


@dataclass(frozen=True)
class TocEntry:
    level: int
    title: str
    page: int
    y: float | None = None
    """Where on the page the entry points, when the outline says; None means the page top."""
    offset: int | None = None
    """Where in the page text the heading starts, for one read off the page itself
    (app.chunking.sections); None for an outline's entry."""


PageT = TypeVar("PageT")


@dataclass(frozen=True)
class ExtractedDocument(Generic[PageT]):
    """A PDF as read: its pages (whole, or only what a caller kept of each), outline, title
    and the reader's annotations."""

    pages: list[PageT]
    toc: list[TocEntry]
    title: str | None = None
    annotations: list[PdfAnnotation] = field(default_factory=list)


@dataclass(frozen=True)
class PdfAnnotation:
    """A reader's annotation as the PDF holds it, before it is placed on the page's text.

    `quads` are the marked line rectangles of a text markup (from /QuadPoints, never /Rect,
    which over-captures on multi-line marks); empty for notes. Coordinates are as the page
    is shown, like the character boxes.
    """

    page: int
    subtype: str
    """The PDF /Subtype: Highlight, Underline, Squiggly, StrikeOut, Text, FreeText, Caret..."""
    rect: Rect
    quads: tuple[Rect, ...]
    comment: str
    author: str
    colour: str | None
    """"#rrggbb", or None when the PDF gives no colour."""


@dataclass(frozen=True)
class Mark:
    """A reader's annotation placed on its page's text.

    `text` is the page text under the marks, whitespace collapsed (line-end hyphenation is
    already joined in the page text). `page_span_start:page_span_end` is where it lies in
    the page text: the first to the last marked character; for a note without text, an empty
    span at the character under the note; None when no text lies under it at all.
    """

    page: int
    type: str
    text: str
    comment: str
    author: str
    colour: str | None
    rects: tuple[Rect, ...]
    page_span_start: int | None
    page_span_end: int | None


BOOSTING_TYPES = frozenset({"highlight", "underline", "squiggly", "note", "freetext"})
"""The types that count toward a chunk's hl_count. A strike-out is left out: it marks text
the reader rejected, and a rejected passage should not rise in their results."""


@dataclass(frozen=True)
class PlacedChunk:
    """A chunk draft with one rectangle per line of it, on each page it covers: all it needs
    of its pages' character boxes, taken while they are at hand."""

    draft: ChunkDraft
    line_rects: tuple[tuple[int, Rect], ...]
    """(page number, rectangle) pairs, in reading order."""


@dataclass(frozen=True)
class PageBatch:
    """Pages `first` to `last` ready to store, with the reader's marks on them and the chunks
    embedded by then: over a document's batches, each chunk comes once, in order."""

    first: int
    last: int
    pages: list[PageText]
    chunks: list[PlacedChunk]
    vectors: npt.NDArray[np.float32]
    embedding_model: str
    """The model the vectors come from."""
    marks: list[Mark]
