"""Text PDFs made with PyMuPDF for the tests: a page per text."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import pymupdf

TEXT_BOX = pymupdf.Rect(72, 72, 523, 770)
"""Where each page's text is set: an A4 page less a one-inch margin."""


def text_pdf(page_texts: Iterable[str], *, toc: list[list[Any]] | None = None) -> bytes:
    """Returns a PDF with one page per text, set in 11 pt, with the outline `toc` if given."""
    document = pymupdf.open()
    for text in page_texts:
        document.new_page().insert_textbox(TEXT_BOX, text, fontsize=11)
    if toc:
        document.set_toc(toc)
    pdf: bytes = document.tobytes()
    document.close()
    return pdf
