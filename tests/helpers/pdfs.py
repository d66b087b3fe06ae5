"""Text PDFs made with PyMuPDF for the tests: a page per text; the sample and long PDFs."""

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


PARAGRAPHS = [
    "Citation locking ties every claim in an answer to the page it came from. "
    "The reader can open the page and see the very lines that were quoted.",
    "Trace trees record hot loops in a dynamic language. A tracing compiler "
    "turns those recorded loops into fast native code for later iterations.",
    "Vector search finds passages whose meaning is close to the question, "
    "even when they share few words with it.",
]
HEADINGS = ["Why citations matter", "How the pieces fit together"]


def make_pdf() -> bytes:
    """Returns a two-page text PDF, a heading and a few paragraphs a page, with an outline."""
    return text_pdf(
        (heading + "\n\n" + "\n\n".join(PARAGRAPHS) for heading in HEADINGS),
        toc=[[1, heading, number] for number, heading in enumerate(HEADINGS, 1)],
    )


def long_pdf(pages: int, *, tag: str = "") -> bytes:
    """Returns a text PDF of `pages` pages, a paragraph a page, each page's text its own."""
    return text_pdf(
        f"Chapter {number} {tag}. Page {number} describes how citation locking ties each "
        f"claim to its page. The reader of page {number} can open it and see the quoted "
        "lines. Tracing compilers record hot loops; vector search finds passages close "
        "in meaning to a question."
        for number in range(1, pages + 1)
    )


def make_text_pdf(title: str, pages: int) -> bytes:
    return text_pdf(
        f"{title}, page {number}. Citation locking ties every claim to the page it came "
        f"from, so a reader can open page {number} and see the very lines quoted."
        for number in range(1, pages + 1)
    )


def type3_pdf(text: bytes, to_unicode: dict[int, str] | None = None) -> bytes:
    """Returns a one-page PDF that sets `text` in a Type3 font whose glyph names ("/a28") say
    no Unicode, as dvips embeds TeX's bitmap fonts: MuPDF reads each glyph as its code. With
    `to_unicode` (code -> UTF-16 hex), the font's ToUnicode map says what the codes are."""
    codes = sorted(set(text) - {ord(" ")})
    glyph = b"60 0 0 0 50 60 d1 0 0 50 60 re f"
    shown = text.replace(b"\\", b"\\\\").replace(b"(", b"\\(").replace(b")", b"\\)")
    content = b"BT /F1 12 Tf 72 700 Td (" + shown + b") Tj ET"
    names = " ".join(f"{code} /a{code}" for code in codes)
    first_glyph = 7 if to_unicode else 6
    procs = " ".join(f"/a{code} {first_glyph + index} 0 R" for index, code in enumerate(codes))
    mapped = "/ToUnicode 6 0 R" if to_unicode else ""
    bodies = [
        b"<</Type/Catalog/Pages 2 0 R>>",
        b"<</Type/Pages/Kids[3 0 R]/Count 1>>",
        b"<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Contents 4 0 R"
        b"/Resources<</Font<</F1 5 0 R>>>>>>",
        _stream(content),
        (
            "<</Type/Font/Subtype/Type3/FontMatrix[0.01 0 0 0.01 0 0]/FontBBox[0 0 60 70]"
            f"/Resources<<>>/FirstChar 0/LastChar 255/Widths[{' '.join(['60'] * 256)}]"
            f"/Encoding<</Type/Encoding/Differences[{names}]>>/CharProcs<<{procs}>>{mapped}>>"
        ).encode(),
        *([_stream(_unicode_map(to_unicode))] if to_unicode else []),
        *(_stream(glyph) for _ in codes),
    ]
    pdf = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(bodies, 1):
        offsets.append(len(pdf))
        pdf += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(pdf)
    pdf += b"xref\n0 %d\n0000000000 65535 f \n" % (len(bodies) + 1)
    pdf += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    pdf += b"trailer<</Size %d/Root 1 0 R>>\nstartxref\n%d\n%%%%EOF\n" % (len(bodies) + 1, xref)
    return bytes(pdf)


def _unicode_map(to_unicode: dict[int, str]) -> bytes:
    """Returns a ToUnicode CMap of one-byte codes, each to its UTF-16 hex."""
    chars = "".join(f"<{code:02X}> <{value}>\n" for code, value in sorted(to_unicode.items()))
    return (
        "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /U def "
        "1 begincodespacerange <00> <FF> endcodespacerange "
        f"{len(to_unicode)} beginbfchar\n{chars}endbfchar "
        "endcmap CMapName currentdict /CMap defineresource pop end end"
    ).encode()


def _stream(data: bytes) -> bytes:
    return b"<</Length %d>>stream\n" % len(data) + data + b"\nendstream"
