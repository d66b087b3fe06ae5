"""Character boxes parked in a temporary file between reading a document and storing it.

Page furniture and reference sections are found over the whole document, so every page is
read before the first chunk is made; but a page's character boxes and line ids take twenty
bytes a character, where its text takes one. Held for every page until the last chunk is
stored, they made memory grow with the page count. They wait on disk instead, and come back
a window of pages at a time.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO

import numpy as np

from app.core.geometry import page_lines
from app.core.records import PageLines, PageText, PageWindow

BOX_BYTES = 4 * np.dtype(np.float32).itemsize
LINE_ID_BYTES = np.dtype(np.int32).itemsize


@contextmanager
def box_spill(directory: Path) -> Iterator[BoxSpill]:
    """Yields an empty spill whose unnamed file lies in `directory`, gone on exit whatever
    happens."""
    directory.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryFile(dir=directory) as file:
        yield BoxSpill(file)


class BoxSpill:
    """Pages' character boxes and line ids in an unnamed temporary file."""

    def __init__(self, file: BinaryIO) -> None:
        self._file = file
        self._places: dict[int, tuple[int, int]] = {}
        """Where each page's arrays start in the file, and its character count, by page number."""

    def keep(self, page: PageText) -> PageLines:
        """Returns the page's lines, after writing its character boxes and line ids here."""
        self._places[page.number] = (self._file.seek(0, os.SEEK_END), len(page.line_ids))
        self._file.write(page.char_boxes.astype(np.float32).tobytes())
        self._file.write(page.line_ids.astype(np.int32).tobytes())
        return page_lines(page)

    def page(self, lines: PageLines) -> PageText:
        """Returns the page whose lines these are, its character boxes and line ids read back."""
        place, count = self._places[lines.number]
        self._file.seek(place)
        data = self._file.read(count * (BOX_BYTES + LINE_ID_BYTES))
        return PageText(
            number=lines.number,
            text=lines.text,
            width=lines.width,
            height=lines.height,
            char_boxes=np.frombuffer(data, np.float32, count * 4).reshape(count, 4),
            line_ids=np.frombuffer(data, np.int32, count, offset=count * BOX_BYTES),
            image_coverage=lines.image_coverage,
            ocr_confidence=lines.ocr_confidence,
            line_styles=lines.line_styles,
        )

    def window(self, pages: Sequence[PageLines], *, first: int, last: int) -> PageWindow:
        """Returns pages `first` to `last` (numbered from 1) of the document whose lines are
        `pages`, and their neighbours, with their character boxes."""
        with_neighbours = pages[max(first - 2, 0) : last + 1]
        return PageWindow([self.page(lines) for lines in with_neighbours], first=first, last=last)
