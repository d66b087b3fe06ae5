"""Scans whose text is known: born-digital pages rendered to image-only pages of the same
size, so that what OCR reads on them can be held against their text layer, word for word and
box for box. Used by the OCR tests and by bench/ocr.py."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf
from rapidfuzz.distance import Levenshtein


def image_only_pdf(source: Path | bytes, pages: Sequence[int], dpi: int) -> bytes:
    """Returns a PDF of the source's `pages` (numbered from 1), each page an image of it
    rendered at `dpi`, of the same size and so the same coordinates, with no text layer."""
    scan = pymupdf.open()
    opened = pymupdf.open(stream=source) if isinstance(source, bytes) else pymupdf.open(source)
    with opened as doc:
        for number in pages:
            page = doc[number - 1]
            pixmap = page.get_pixmap(dpi=dpi, colorspace=pymupdf.csGRAY, alpha=False)
            image = scan.new_page(width=page.rect.width, height=page.rect.height)
            image.insert_image(image.rect, pixmap=pixmap)
    return bytes(scan.tobytes(deflate=True))


def words(text: str) -> list[str]:
    return text.split()


def word_accuracy(read: str, truth: str) -> float:
    """Returns 1 - the word error rate of `read` against `truth` (edits over truth's words)."""
    expected = words(truth)
    return 1.0 - Levenshtein.distance(words(read), expected) / max(len(expected), 1)


def character_error_rate(read: str, truth: str) -> float:
    """Returns the character edits from `read` to `truth`, whitespace collapsed, over its length."""
    got, expected = " ".join(words(read)), " ".join(words(truth))
    return Levenshtein.distance(got, expected) / max(len(expected), 1)
