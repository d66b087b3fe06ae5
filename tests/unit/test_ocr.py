"""OCR's lines made into page text, and the pages `OCR=auto` reads by OCR: a text layer in a
font whose codes are control characters is garbage, read again from the rendered page."""

from __future__ import annotations

import numpy as np
import pymupdf
from rapidfuzz import fuzz

from app.core.records import NO_LINE, Rect
from app.pdf.ocr import OcrLine, OcrMode, OcrPolicy, ocr_page_text
from app.pdf.reader import extract_page

HIDDEN = "Broken fonts hide their letters"


def garbled_pdf(text: str) -> bytes:
    """Returns a one-page PDF showing `text` in Helvetica through a Type 3 font whose character
    codes are 1, 2, 3...: no Unicode is known for them, so the text layer reads as controls,
    as a real paper's broken font encoding does in every viewer."""
    letters = sorted(set(text))
    codes = {char: index + 1 for index, char in enumerate(letters)}
    doc = pymupdf.open()
    page = doc.new_page(width=420, height=100)
    helvetica = doc.get_new_xref()
    doc.update_object(helvetica, "<</Type/Font/Subtype/Type1/BaseFont/Helvetica>>")
    widths = {char: round(pymupdf.get_text_length(char, "helv", 1000)) for char in letters}
    procs = []
    for char in letters:
        proc = doc.get_new_xref()
        doc.update_object(proc, "<<>>")
        shown = "" if char == " " else f"BT /H 1000 Tf 0 0 Td ({char}) Tj ET"
        doc.update_stream(proc, f"{widths[char]} 0 d0 {shown}".encode())
        procs.append(f"/x{codes[char]} {proc} 0 R")
    names = " ".join(f"/x{codes[char]}" for char in letters)
    font = doc.get_new_xref()
    doc.update_object(
        font,
        "<</Type/Font/Subtype/Type3/FontBBox[0 -200 1000 1000]/FontMatrix[0.001 0 0 0.001 0 0]"
        f"/CharProcs<<{' '.join(procs)}>>/Encoding<</Differences[1 {names}]>>"
        f"/FirstChar 1/LastChar {len(letters)}/Widths[{' '.join(str(widths[c]) for c in letters)}]"
        f"/Resources<</Font<</H {helvetica} 0 R>>>>>>",
    )
    doc.xref_set_key(page.xref, "Resources", f"<</Font<</T3 {font} 0 R>>>>")
    shown = "".join(f"{codes[char]:02x}" for char in text)
    content = doc.get_new_xref()
    doc.update_object(content, "<<>>")
    doc.update_stream(content, f"BT /T3 24 Tf 20 55 Td <{shown}> Tj ET".encode())
    doc.xref_set_key(page.xref, "Contents", f"{content} 0 R")
    return bytes(doc.tobytes())


def test_a_garbled_text_layer_is_read_by_ocr_in_auto() -> None:
    with pymupdf.open(stream=garbled_pdf(HIDDEN), filetype="pdf") as doc:
        layer = extract_page(doc[0])
        auto = extract_page(doc[0], OcrPolicy(mode=OcrMode.auto))
        off = extract_page(doc[0], OcrPolicy(mode=OcrMode.off))
    assert fuzz.ratio(layer.text, HIDDEN) < 50 and layer.ocr_confidence is None
    assert off.text == layer.text and off.ocr_confidence is None
    assert auto.ocr_confidence is not None and auto.ocr_confidence > 0.8
    assert fuzz.ratio(auto.text, HIDDEN) >= 90, auto.text
    assert len(auto.char_boxes) == len(auto.line_ids) == len(auto.text)


def line(text: str, x0: float, y0: float, *, width: float = 5.0, height: float = 10.0) -> OcrLine:
    boxes: list[Rect] = [
        (x0 + width * k, y0, x0 + width * (k + 1), y0 + height) for k in range(len(text))
    ]
    return OcrLine(text, boxes, (x0, y0, x0 + width * len(text), y0 + height), 0.9)


def test_ocr_lines_are_read_column_by_column_each_character_on_its_box() -> None:
    # Two columns, detection's order row by row (as the engine sorts its boxes), in pixels
    # of a 2x rendering.
    lines = [
        line("Left column, first line", 40, 40),
        line("Right column, first line", 400, 40),
        line("left column, second line", 40, 54),
        line("right column, second line", 400, 54),
    ]
    page = ocr_page_text(lines, number=3, width=306, height=396, scale=0.5, image_coverage=1.0)
    assert page.text == (
        "Left column, first line\nleft column, second line\n\n"
        "Right column, first line\nright column, second line"
    )
    assert page.number == 3 and page.ocr_confidence == 0.9
    drawn = page.line_ids != NO_LINE
    assert len(page.char_boxes) == len(page.text)
    assert np.unique(page.line_ids[drawn]).tolist() == [0, 1, 2, 3]
    first_right = page.text.index("Right")
    assert page.char_boxes[first_right].tolist() == [200.0, 20.0, 202.5, 25.0]
