"""PyMuPDF at citelock's boundary: opening PDFs, reading pages and outlines, rendering pages,
adding highlight annotations.

The only module that imports pymupdf. Every PyMuPDF failure is translated into an
`app.core.errors` exception here, chained with `from` so MuPDF's own message stays in tracebacks.
Reading order (`app.pdf.layout`) and text assembly (`app.pdf.pagetext`) know nothing of it.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pymupdf

from app.core.errors import (
    CorruptPdf,
    EmptyFile,
    EncryptedPdf,
    InvalidRequest,
    NoPages,
    NotAPdf,
    NoTextLayer,
    PageNotFound,
)
from app.core.records import (
    ExtractedDocument,
    PageLines,
    PageT,
    PageText,
    PdfAnnotation,
    Rect,
    TocEntry,
)
from app.pdf.layout import Fragment, reading_order
from app.pdf.limits import Deadline, check_page_count
from app.pdf.ocr import OcrMode, OcrPolicy, ocr_page_text
from app.pdf.pagetext import compose_text, make_fragment

TEXT_FLAGS = pymupdf.TEXT_MEDIABOX_CLIP
"""Glyphs outside the page are dropped. Left out on purpose: TEXT_PRESERVE_LIGATURES (so "ﬁ"
becomes "f" + "i", each with its own box), TEXT_PRESERVE_WHITESPACE (MuPDF maps tabs and odd
spaces to " "), TEXT_INHIBIT_SPACES (MuPDF inserts the word spaces a PDF omits),
TEXT_DEHYPHENATE (citelock joins hyphenated lines itself, keeping the boxes aligned) and
TEXT_PRESERVE_IMAGES (image pixels are not needed, only where images sit)."""

HEADER_WINDOW = 1024
"""PDF readers accept the "%PDF" marker anywhere in the first kilobyte."""

MIN_PAGE_CHARS = 16
"""A page with fewer visible characters than this has, in practice, no text layer."""

SCANNED_COVERAGE = 0.5
"""Share of the page covered by images above which a page without text looks scanned."""

SPARSE_CHARS = 200
"""Visible characters a page wholly covered by images has at least when its text layer is the
text of those images. A scanned page of text holds thousands; the scanned Huckleberry Finn
page with a stamp of text has 77, the least text beside a figure on the shared corpus's
born-digital pages is 219 over half a page of image."""

GARBLED_SHARE = 0.25
"""Share of a text layer's glyphs that are control or replacement characters from which it is
garbage: a font whose encoding gives no Unicode for its letters, which every viewer shows as
gibberish too."""

MAX_OCR_SIDE = 2000
"""Pixels on the longer side of a page rendered for OCR: the engine shrinks larger images to
this before detection anyway, so rendering more would only cost memory."""

MAX_UNDERSCORE_HEIGHT = 1.0
MIN_UNDERSCORE_WIDTH = 1.0
MAX_UNDERSCORE_WIDTH = 8.0
"""Points: a rule TeX draws for an underscore ("tol_int", "asn1_write_value"), which the font
of its code lacks, is a short stroke at the baseline."""
RULE_SLACK = 0.5
"""Points a rule may stand past the box of the space it shows in, or from another rule."""
COVERAGE_GRID = 64
"""Cells per side of the grid on which image rectangles are unioned."""

MAX_RENDER_PIXELS = 50_000_000
"""The largest PNG rendered: a poster-sized page at a high scale would exhaust memory."""

_BOLD_FONT = re.compile(r"bold|black|heavy|demi|[-,]medi(?:um)?\b", re.IGNORECASE)
"""A font name that says its weight: "Arial-BoldMT", "NimbusRomNo9L-Medi"."""

_MUPDF_ERRORS = (RuntimeError, ValueError, pymupdf.mupdf.FzErrorBase)
"""What PyMuPDF raises on a broken file: FileDataError (a RuntimeError) when opening,
ValueError on impossible requests, and MuPDF's own FzError* from deeper down."""


def open_pdf(path: Path, password: str | None = None) -> pymupdf.Document:
    """Returns the opened, unlocked document, or raises the upload error that explains why not.

    MuPDF repairs what it can (a missing trailer, a broken xref), and PDFs restricted by an
    owner password only open without one: both are accepted like any other PDF.
    """
    with path.open("rb") as stream:
        head = stream.read(HEADER_WINDOW)
    return _open(head, path, password)


def count_pages(path: Path, password: str | None = None) -> int:
    """Returns the PDF's page count, or raises the upload error that explains why not."""
    with open_pdf(path, password) as doc:
        return page_count(doc)


def _open(head: bytes, source: Path | bytes, password: str | None) -> pymupdf.Document:
    """Returns the opened, unlocked document from a path or bytes that start with `head`."""
    if not head:
        raise EmptyFile("the file is empty")
    if b"%PDF" not in head:
        raise NotAPdf("the file does not start like a PDF (no %PDF marker in its first kilobyte)")
    try:
        doc = _load(source)
    except _MUPDF_ERRORS as exc:
        # MuPDF's message names the file's path on the server: it stays in the traceback only.
        raise CorruptPdf("the file cannot be read as a PDF, even after repair") from exc
    try:
        _unlock(doc, password)
        if page_count(doc) == 0:
            raise NoPages("the PDF has no pages")
    except Exception:
        doc.close()  # type: ignore[no-untyped-call]
        raise
    return doc


def _load(source: Path | bytes) -> pymupdf.Document:
    # PyMuPDF leaves a few methods unannotated: each such call is marked where it is made.
    path, stream = (None, source) if isinstance(source, bytes) else (source, None)
    return pymupdf.Document(path, stream=stream, filetype="pdf")  # type: ignore[no-untyped-call]


def _unlock(doc: pymupdf.Document, password: str | None) -> None:
    if not doc.needs_pass:
        return
    if password is None:
        raise EncryptedPdf("the PDF is encrypted and no password was given")
    if not doc.authenticate(password):  # type: ignore[no-untyped-call]
        raise EncryptedPdf("the PDF is encrypted and the password given is wrong")


def decrypted_copy(doc: pymupdf.Document) -> bytes | None:
    """Returns the unlocked PDF saved without its encryption when it needed a password, else
    None. Its text is stored in the clear anyway; this copy lets its pages be rendered and
    annotated later without the password, which is never kept."""
    if not doc.needs_pass:
        return None
    try:
        return bytes(doc.tobytes())  # type: ignore[no-untyped-call]
    except _MUPDF_ERRORS as exc:
        raise CorruptPdf(f"the PDF cannot be saved decrypted: {exc}") from exc


def page_count(doc: pymupdf.Document) -> int:
    try:
        return int(doc.page_count)
    except _MUPDF_ERRORS as exc:
        raise CorruptPdf(f"the PDF's page tree cannot be read: {exc}") from exc


def extract_document(
    doc: pymupdf.Document,
    *,
    max_pages: int | None = None,
    deadline: Deadline | None = None,
    ocr: OcrPolicy | None = None,
) -> ExtractedDocument[PageText]:
    """Returns every page's text (numbered from 1), the outline and the metadata title."""
    return extract_document_as(
        doc, lambda page: page, max_pages=max_pages, deadline=deadline, ocr=ocr
    )


def extract_document_as(
    doc: pymupdf.Document,
    keep: Callable[[PageText], PageT],
    *,
    max_pages: int | None = None,
    deadline: Deadline | None = None,
    ocr: OcrPolicy | None = None,
) -> ExtractedDocument[PageT]:
    """Returns what `keep` makes of every page's text, the outline and the metadata title.

    Each page is handed to `keep` as soon as it is read, so only what `keep` returns is
    held for the whole document. Raises TooManyPages past `max_pages` before reading any
    page, and IngestTimeout when `deadline` passes between two pages. Pages are read by OCR
    as `ocr` says; without it, only their text layers are read.
    """
    if max_pages is not None:
        check_page_count(page_count(doc), max_pages)
    try:
        pages = _extract_pages(doc, keep, deadline, ocr)
    except _MUPDF_ERRORS as exc:
        raise CorruptPdf(f"the PDF's content cannot be read: {exc}") from exc
    try:
        toc = _outline(doc)
    except (*_MUPDF_ERRORS, IndexError):
        toc = []  # a broken outline costs the chapter titles, not the document
    title = (doc.metadata or {}).get("title") or ""
    return ExtractedDocument(
        pages=pages,
        toc=toc,
        title=title.strip() or None,
        annotations=read_annotations(doc, deadline=deadline),
    )


def _extract_pages(
    doc: pymupdf.Document,
    keep: Callable[[PageText], PageT],
    deadline: Deadline | None,
    ocr: OcrPolicy | None,
) -> list[PageT]:
    # A function of its own so that no page object outlives it: reading the annotations
    # later reloads pages, which PyMuPDF refuses while another reference holds one.
    pages = []
    for page in doc.pages():
        if deadline is not None:
            deadline.check(f"reading page {page.number + 1}")
        pages.append(keep(extract_page(page, ocr)))
    return pages


def extract_page(page: pymupdf.Page, ocr: OcrPolicy | None = None) -> PageText:
    """Returns the page's text in reading order with one box and one line id per character:
    its text layer's, or what OCR reads on it when `ocr` wants it read so and finds text."""
    raw = page.get_textpage(flags=TEXT_FLAGS).extractRAWDICT()
    layer = _text_layer(page, raw)
    if ocr is None or not _wants_ocr(layer, raw, ocr):
        return layer
    read = _read_by_ocr(page, ocr, layer.image_coverage)
    if not _visible_chars(read):
        return layer
    if ocr.on_page is not None:
        ocr.on_page(read.number)
    return read


def _wants_ocr(layer: PageText, raw: dict[str, Any], ocr: OcrPolicy) -> bool:
    """Says whether the page is to be read by OCR: always when forced; in auto, when it is
    mostly image with too little text for it, when its text layer is garbage (control
    characters for letters), or when a scanner's text layer over the image reads as noise."""
    if ocr.mode is not OcrMode.auto:
        return ocr.mode is OcrMode.force
    scanned = layer.image_coverage >= SCANNED_COVERAGE
    if scanned and _visible_chars(layer) < SPARSE_CHARS * layer.image_coverage:
        return True
    return _garbled_share(raw) >= GARBLED_SHARE or (scanned and ocr.is_noise(layer.text))


def _garbled_share(raw: dict[str, Any]) -> float:
    """Returns the share of the page's visible glyphs that are control or replacement
    characters: glyphs whose font says nothing of the letters they are."""
    glyphs: list[str] = [
        char["c"]
        for block in raw["blocks"]
        for line in block.get("lines", ())
        for span in line["spans"]
        for char in span["chars"]
        if not char["c"].isspace()
    ]
    if len(glyphs) < MIN_PAGE_CHARS:
        return 0.0
    unknown = sum(char == "\ufffd" or unicodedata.category(char) == "Cc" for char in glyphs)
    return unknown / len(glyphs)


def _read_by_ocr(page: pymupdf.Page, ocr: OcrPolicy, image_coverage: float) -> PageText:
    """Returns the page as OCR reads it on a rendering at `ocr.dpi` (less for a large page)."""
    width, height = page.rect.width, page.rect.height
    zoom = min(ocr.dpi / 72, MAX_OCR_SIDE / max(width, height, 1.0))
    pixmap = page.get_pixmap(
        matrix=(zoom, 0, 0, zoom, 0, 0), colorspace=pymupdf.csGRAY, alpha=False
    )
    image = np.frombuffer(pixmap.samples_mv, dtype=np.uint8).reshape(pixmap.height, pixmap.stride)[
        :, : pixmap.width
    ]
    lines = ocr.engine().read(np.ascontiguousarray(image))
    return ocr_page_text(
        lines,
        number=page.number + 1,
        width=width,
        height=height,
        scale=width / pixmap.width,
        image_coverage=image_coverage,
    )


def _text_layer(page: pymupdf.Page, raw: dict[str, Any]) -> PageText:
    """Returns the page's text layer in reading order."""
    # PyMuPDF reads text on the unrotated page; citelock reads it as shown, like the renders.
    turn = page.rotation_matrix if page.rotation else None
    upright, rotated = _fragments(raw["blocks"], turn, _underscore_rules(page))
    # Rotated lines are margin stamps (arXiv ids, print-shop slugs): read them last.
    composed = compose_text(reading_order(upright, page.rect.width) + rotated)
    width, height = page.rect.width, page.rect.height
    # A glyph only partly off the page is kept: cut its box to the page, where rects belong.
    boxes = composed.char_boxes
    boxes[:, 0::2] = np.clip(boxes[:, 0::2], 0.0, width)
    boxes[:, 1::2] = np.clip(boxes[:, 1::2], 0.0, height)
    return PageText(
        number=page.number + 1,
        text=composed.text,
        width=width,
        height=height,
        char_boxes=boxes,
        line_ids=composed.line_ids,
        image_coverage=_image_coverage(page),
        line_styles=composed.line_styles,
    )


def _fragments(
    blocks: list[dict[str, Any]],
    turn: pymupdf.Matrix | None,
    underscores: Mapping[int, list[Rect]],
) -> tuple[list[Fragment], list[Fragment]]:
    """Returns the text lines of rawdict blocks as fragments: upright ones, then rotated ones.

    With `turn` (a page's rotation matrix), boxes and directions are turned as displayed.
    A space over one of the `underscores` (_underscore_rules) is the underscore it shows.
    """
    upright: list[Fragment] = []
    rotated: list[Fragment] = []
    for number, block in enumerate(blocks):
        for line in block.get("lines", ()):
            spans = line["spans"]
            chars = [char for span in spans for char in span["chars"]]
            glyphs: Iterable[tuple[str, Rect]] = (
                (_drawn(chars, index, underscores), char["bbox"])
                for index, char in enumerate(chars)
            )
            if any(char["c"] in _REDRAWN for char in chars):
                glyphs = _accented(_spelled(list(glyphs)))
            if turn is not None:
                glyphs = ((char, _turn_box(box, turn)) for char, box in glyphs)
            size = max((span["size"] for span in spans), default=0.0)
            fragment = make_fragment(number, glyphs, size, bold=_all_bold(spans))
            if fragment is None:
                continue
            cos, sin = line["dir"]
            if turn is not None:
                cos, sin = cos * turn.a + sin * turn.c, cos * turn.b + sin * turn.d
            (upright if cos > 0.99 and abs(sin) < 0.01 else rotated).append(fragment)
    return upright, rotated


def _underscore_rules(page: pymupdf.Page) -> dict[int, list[Rect]]:
    """Returns the page's underscores drawn as rules, by the point their y rounds down to: where
    TeX draws an underscore as a rule (its typewriter fonts and texinfo's code lack the glyph),
    PyMuPDF reads a space, and "asn1_write_value" reads "asn1 write value". Such a rule is short
    and stands alone: a link's underline, drawn word by word, runs on into the next rule ("Table
    of Contents" in a filing)."""
    thin = sorted(
        (y0, x0, x1)
        for x0, y0, x1, y1 in (
            drawing["rect"]
            for drawing in page.get_cdrawings()  # type: ignore[no-untyped-call]
        )
        if y1 - y0 <= MAX_UNDERSCORE_HEIGHT and x1 > x0
    )
    heights = [y for y, _, _ in thin]
    rules: dict[int, list[Rect]] = {}
    for index, (y, x0, x1) in enumerate(thin):
        if not MIN_UNDERSCORE_WIDTH <= x1 - x0 <= MAX_UNDERSCORE_WIDTH:
            continue
        row = range(bisect_left(heights, y - RULE_SLACK), bisect_right(heights, y + RULE_SLACK))
        if not any(
            thin[other][1] <= x1 + RULE_SLACK and thin[other][2] >= x0 - RULE_SLACK
            for other in row
            if other != index
        ):
            rules.setdefault(int(y), []).append((x0, y, x1, y))
    return rules


TEX_LIGATURES = {"\x1b": "ff", "\x1c": "fi", "\x1d": "fl", "\x1e": "ffi", "\x1f": "ffl"}
"""The ligatures at the codes TeX's T1 encoding gives them, which MuPDF passes on as control
characters when a font names no Unicode for its glyphs (the bitmap Type3 fonts dvips embeds):
KiNG's manual writes "scienti\x1cc" for "scientific", "\x1crst" for "first"."""


def _spelled(glyphs: list[tuple[str, Rect]]) -> list[tuple[str, Rect]]:
    """Returns a line's glyphs with each T1 ligature (TEX_LIGATURES) beside a lower-case letter
    as its letters, as MuPDF gives a ligature it knows: the whole box to the first letter and an
    empty one at its right edge to each other (app.pdf.pagetext shares the box out). A math
    font's big delimiter at those codes stands beside no lower-case letter of a word."""
    spelled: list[tuple[str, Rect]] = []
    for index, (char, box) in enumerate(glyphs):
        letters = TEX_LIGATURES.get(char)
        beside = glyphs[max(index - 1, 0) : index + 2]
        if letters is None or not any(other.islower() for other, _ in beside):
            spelled.append((char, box))
            continue
        _, y0, x1, y1 = box
        spelled += [(letters[0], box), *((letter, (x1, y0, x1, y1)) for letter in letters[1:])]
    return spelled


SPACING_ACCENTS = {
    "\u00a8": "\u0308",  # diaeresis
    "\u00b4": "\u0301",  # acute
    "`": "\u0300",  # grave
    "\u02c6": "\u0302",  # circumflex
    "\u02dc": "\u0303",  # tilde
    "\u00af": "\u0304",  # macron
    "\u02d8": "\u0306",  # breve
    "\u02d9": "\u0307",  # dot above
    "\u02da": "\u030a",  # ring above
    "\u02dd": "\u030b",  # double acute
    "\u02c7": "\u030c",  # caron
    "\u00b8": "\u0327",  # cedilla
}
"""Accents TeX sets as glyphs of their own over (or under) a letter, where its fonts have no
accented letters (OT1): MuPDF reads "B\u00a8arenreiter", "Sch\u00a8olkopf", "Erd\u02ddos",
the accent's box over the letter's. Mapped to the combining marks they compose with."""

SPACING_TILDE = "~"
"""What a small tilde over no letter stands for: groff and TeX's typewriter fonts draw "~" with
the accent's glyph, which MuPDF reads as "\u02dc" ("\u02dc/.bashrc", "\u02dcftp")."""

_REDRAWN = frozenset(TEX_LIGATURES) | frozenset(SPACING_ACCENTS)


def _accented(glyphs: list[tuple[str, Rect]]) -> list[tuple[str, Rect]]:
    """Returns a line's glyphs with each spacing accent (SPACING_ACCENTS) that stands over the
    letter before or after it composed with that letter, in the letter's box: "\u00a8" and
    "a" drawn at one place are "\u00e4". An accent beside a letter, not over it (a grave as a
    quote mark), or one that composes with it to no single character stays as it is, but for
    a tilde (SPACING_TILDE)."""
    accented: list[tuple[str, Rect]] = []
    index = 0
    while index < len(glyphs):
        char, box = glyphs[index]
        mark = SPACING_ACCENTS.get(char)
        if mark is not None:
            after = glyphs[index + 1] if index + 1 < len(glyphs) else None
            if after is not None and (letter := _composed(after, box, mark)) is not None:
                accented.append(letter)
                index += 2
                continue
            if accented and (letter := _composed(accented[-1], box, mark)) is not None:
                accented[-1] = letter
                index += 1
                continue
        accented.append((SPACING_TILDE if char == "\u02dc" else char, box))
        index += 1
    return accented


def _composed(glyph: tuple[str, Rect], accent: Rect, mark: str) -> tuple[str, Rect] | None:
    """Returns the glyph's letter with `mark` as one character in the letter's box, if the
    accent's middle stands within the letter's width and they compose; else None."""
    letter, box = glyph
    middle = (accent[0] + accent[2]) / 2
    if not letter.isalpha() or not box[0] <= middle <= box[2]:
        return None
    # A dotless i takes the accent where an i's dot was: "Lo\u00a8\u0131c" is "Lo\u00efc".
    composed = unicodedata.normalize("NFC", ("i" if letter == "\u0131" else letter) + mark)
    return (composed, box) if len(composed) == 1 else None


def _drawn(chars: list[dict[str, Any]], index: int, underscores: Mapping[int, list[Rect]]) -> str:
    """Returns the character at `index` of a line's rawdict `chars`: "_" for a space between
    two letters or digits with an underscore's rule inside its box, in its lower half (not a
    form's blank after "(408)"). Half a surrogate pair (a font's ToUnicode map giving a glyph
    D80C alone) is U+FFFD: no tokenizer, JSON or PostgreSQL takes it, and one character in its
    place keeps every offset after it."""
    char = chars[index]["c"]
    if "\ud800" <= char <= "\udfff":
        return "\ufffd"
    if (
        char != " "
        or not underscores
        or index == 0
        or index + 1 == len(chars)
        or not all(_in_name(chars[at]["c"]) for at in (index - 1, index + 1))
    ):
        return str(char)
    x0, y0, x1, y1 = chars[index]["bbox"]
    low = y0 + (y1 - y0) / 2
    for row in range(int(low), int(y1) + 1):
        for rx0, ry0, rx1, _ in underscores.get(row, ()):
            if rx0 >= x0 - RULE_SLACK and rx1 <= x1 + RULE_SLACK and low <= ry0 <= y1 + RULE_SLACK:
                return "_"
    return str(char)


def _in_name(char: str) -> bool:
    return char.isalnum() or char == "_"


def _all_bold(spans: list[dict[str, Any]]) -> bool:
    """Says whether every span with a visible glyph is set bold, as its flags or its font's
    name say (a subset font's flags often leave the weight out)."""
    inked = [span for span in spans if any(not char["c"].isspace() for char in span["chars"])]
    return bool(inked) and all(
        span["flags"] & pymupdf.TEXT_FONT_BOLD or _BOLD_FONT.search(span["font"]) for span in inked
    )


def read_annotations(
    doc: pymupdf.Document, *, deadline: Deadline | None = None
) -> list[PdfAnnotation]:
    """Returns the annotations of every page, in the order of each page's /Annots.

    A page whose annotations cannot be read loses them, never the document: they are the
    reader's additions, not its text.
    """
    found: list[PdfAnnotation] = []
    for page in doc.pages():
        if deadline is not None:
            deadline.check(f"reading the annotations of page {page.number + 1}")
        try:
            found.extend(_page_annotations(doc, page))
        except _MUPDF_ERRORS:
            continue
    return found


def _page_annotations(doc: pymupdf.Document, page: pymupdf.Page) -> list[PdfAnnotation]:
    if _promote_direct_annotations(doc, page):
        page = doc.reload_page(page)
    turn = page.rotation_matrix if page.rotation else None
    found = []
    for annot in page.annots():  # type: ignore[no-untyped-call]
        subtype = annot.type[1]
        # Text markups only: an Ink annotation's vertices are strokes, not marked lines.
        points = annot.vertices if subtype in TEXT_MARKUPS else None
        quads = tuple(_turn_box(box, turn) if turn else box for box in _quad_boxes(points))
        rect = tuple(annot.rect)
        info = annot.info
        found.append(
            PdfAnnotation(
                page=page.number + 1,
                subtype=subtype,
                rect=_turn_box(rect, turn) if turn else (rect[0], rect[1], rect[2], rect[3]),
                quads=quads,
                comment=(info.get("content") or "").replace("\r\n", "\n").replace("\r", "\n"),
                author=info.get("title") or "",
                colour=_hex_colour(annot.colors.get("stroke") or annot.colors.get("fill")),
            )
        )
    return found


TEXT_MARKUPS = frozenset({"Highlight", "Underline", "Squiggly", "StrikeOut"})


def _promote_direct_annotations(doc: pymupdf.Document, page: pymupdf.Page) -> bool:
    """Makes every annotation written inline in the page's /Annots an object of its own;
    returns whether there was any.

    MuPDF loads only annotations that /Annots refers to, yet some writers (fpdf2) put the
    dictionaries in the array itself. The change stays in memory: the file is never saved.
    """
    mupdf = pymupdf.mupdf
    pdf = mupdf.pdf_document_from_fz_document(doc.this)
    annots = mupdf.pdf_dict_get(mupdf.pdf_load_object(pdf, page.xref), mupdf.PDF_ENUM_NAME_Annots)
    promoted = False
    for index in range(mupdf.pdf_array_len(annots)):
        item = mupdf.pdf_array_get(annots, index)
        if mupdf.pdf_is_dict(item) and not mupdf.pdf_is_indirect(item):
            mupdf.pdf_array_put(annots, index, mupdf.pdf_add_object(pdf, item))
            promoted = True
    return promoted


def _quad_boxes(points: list[tuple[float, float]] | None) -> list[Rect]:
    """Returns the bounding box of each quadrilateral of /QuadPoints (four points apiece)."""
    boxes: list[Rect] = []
    for start in range(0, len(points or ()) - 3, 4):
        xs, ys = zip(*points[start : start + 4], strict=True)  # type: ignore[index]
        boxes.append((min(xs), min(ys), max(xs), max(ys)))
    return boxes


def _hex_colour(components: list[float] | None) -> str | None:
    """Returns "#rrggbb" for a gray, RGB or CMYK PDF colour, None for none."""
    if not components:
        return None
    if len(components) == 1:
        components = components * 3
    elif len(components) == 4:
        c, m, y, k = components
        components = [(1 - c) * (1 - k), (1 - m) * (1 - k), (1 - y) * (1 - k)]
    elif len(components) != 3:
        return None
    return "#" + "".join(f"{round(min(max(v, 0.0), 1.0) * 255):02x}" for v in components)


def _turn_box(box: Rect, turn: pymupdf.Matrix) -> Rect:
    """Returns `box` moved by the page rotation `turn` (a multiple of 90 degrees)."""
    x0, y0 = _turn_point(box[0], box[1], turn)
    x1, y1 = _turn_point(box[2], box[3], turn)
    return (min(x0, x1), min(y0, y1), max(x0, x1), max(y0, y1))


def _turn_point(x: float, y: float, turn: pymupdf.Matrix) -> tuple[float, float]:
    return (x * turn.a + y * turn.c + turn.e, x * turn.b + y * turn.d + turn.f)


def _image_coverage(page: pymupdf.Page) -> float:
    """Returns the share of the page covered by images, overlaps counted once (on a grid)."""
    width, height = page.rect.width, page.rect.height
    if width <= 0 or height <= 0:
        return 0.0
    grid = np.zeros((COVERAGE_GRID, COVERAGE_GRID), dtype=bool)
    for info in page.get_image_info():
        x0, y0, x1, y1 = info["bbox"]
        cols = _grid_span(x0 / width, x1 / width)
        rows = _grid_span(y0 / height, y1 / height)
        grid[rows, cols] = True
    return float(grid.mean())


def _grid_span(start: float, end: float) -> slice:
    """Returns the grid cells between two shares of the page's side, clipped to the page."""
    first, last = (round(min(max(share, 0.0), 1.0) * COVERAGE_GRID) for share in (start, end))
    return slice(first, last)


def _outline(doc: pymupdf.Document) -> list[TocEntry]:
    """Returns the outline entries that point into this document, with their y when known."""
    entries: list[TocEntry] = []
    frames: dict[int, tuple[pymupdf.Matrix, float]] = {}
    for level, title, number, dest in doc.get_toc(simple=False):
        if not title.strip() or not 1 <= number <= doc.page_count:
            continue
        if number not in frames:
            page = doc[number - 1]
            frames[number] = (page.transformation_matrix * page.rotation_matrix, page.rect.height)
        matrix, height = frames[number]
        y = _destination_y(dest, matrix)
        if y is not None:
            y = min(max(y, 0.0), height)
        entries.append(TocEntry(level=level, title=title.strip(), page=number, y=y))
    return entries


def _destination_y(dest: dict[str, Any], matrix: pymupdf.Matrix) -> float | None:
    """Returns where on its page an outline entry points, in top-left page coordinates.

    PyMuPDF gives a direct destination's point in page coordinates already, but a named
    destination's point in PDF coordinates (origin bottom-left, page unrotated: `matrix`
    maps those to the page as shown), with y == 0 standing for "no top given".
    """
    to = dest.get("to")
    if to is None:
        return None
    if dest.get("kind") == pymupdf.LINK_GOTO:
        return float(to.y)
    if dest.get("kind") == pymupdf.LINK_NAMED and to.y != 0:
        return float((to * matrix).y)
    return None


def page_needs_ocr(page: PageLines) -> bool:
    """Returns True when the page is an image with (next to) no text: a scan without OCR."""
    return _visible_chars(page) < MIN_PAGE_CHARS and page.image_coverage >= SCANNED_COVERAGE


def check_text_layer(pages: Sequence[PageLines]) -> None:
    """Returns nothing, or raises NoTextLayer when more than half the pages carry no text."""
    sparse = [page for page in pages if _visible_chars(page) < MIN_PAGE_CHARS]
    if 2 * len(sparse) > len(pages):
        scanned = sum(page_needs_ocr(page) for page in sparse)
        raise NoTextLayer(
            f"{len(sparse)} of {len(pages)} pages have no text layer "
            f"({scanned} look scanned) and OCR, unless it is off, read none on them"
        )


def pages_without_text(doc: pymupdf.Document) -> int:
    """Returns how many pages have next to no text layer: a quick count, before reading."""
    try:
        return sum(
            len("".join(page.get_text(flags=TEXT_FLAGS).split()))  # type: ignore[no-untyped-call]
            < MIN_PAGE_CHARS
            for page in doc.pages()
        )
    except _MUPDF_ERRORS as exc:
        raise CorruptPdf(f"the PDF's content cannot be read: {exc}") from exc


def _visible_chars(page: PageLines | PageText) -> int:
    return len("".join(page.text.split()))


def render_page_png(
    pdf_bytes: bytes, page_number: int, scale: float, *, password: str | None = None
) -> bytes:
    """Returns a PNG of page `page_number` (from 1) at `scale` times 72 dpi."""
    doc = _open(pdf_bytes[:HEADER_WINDOW], pdf_bytes, password)
    with doc:
        if not 1 <= page_number <= doc.page_count:
            raise PageNotFound(f"page {page_number} is not in this {doc.page_count}-page PDF")
        page = doc[page_number - 1]
        pixels = page.rect.width * page.rect.height * scale * scale
        if scale <= 0 or pixels > MAX_RENDER_PIXELS:
            raise InvalidRequest(f"scale {scale} is out of range for this page")
        try:
            pixmap = page.get_pixmap(matrix=(scale, 0, 0, scale, 0, 0), alpha=False)
        except _MUPDF_ERRORS as exc:
            raise CorruptPdf(f"page {page_number} cannot be rendered: {exc}") from exc
        return bytes(pixmap.tobytes("png"))  # type: ignore[no-untyped-call]


def highlight_lines(
    pdf_bytes: bytes, highlights: Sequence[tuple[int, Sequence[Rect], str]]
) -> bytes:
    """Returns the PDF with a highlight annotation per (page number, line rectangles, note)
    added, the note as its comment (a reader shows it beside the highlight).

    Rectangles are in the page's coordinates as shown, as extraction gives them; PyMuPDF
    places annotations on the unrotated page, so they are turned back first. Each line is
    one quad of the annotation, so a reader highlights exactly the cited lines.
    """
    doc = _open(pdf_bytes[:HEADER_WINDOW], pdf_bytes, None)
    with doc:
        try:
            for page_number, rects, note in highlights:
                if not 1 <= page_number <= doc.page_count:
                    raise PageNotFound(f"page {page_number} is not in this PDF")
                page = doc[page_number - 1]
                unrotate = page.derotation_matrix
                boxes = [pymupdf.Rect(rect) for rect in rects]  # type: ignore[no-untyped-call]
                quads = [(box * unrotate).quad for box in boxes]
                if quads:
                    annotation = page.add_highlight_annot(quads=quads)
                    annotation.set_info(content=note, title="citelock")  # type: ignore[no-untyped-call]
                    annotation.update()
            return bytes(doc.tobytes(garbage=1, deflate=True))  # type: ignore[no-untyped-call]
        except _MUPDF_ERRORS as exc:
            raise CorruptPdf(f"the PDF cannot be annotated: {exc}") from exc
