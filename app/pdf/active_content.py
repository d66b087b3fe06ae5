"""PDFs we serve go out without active content: scripts, launch and URI actions, form
submissions, and the actions a viewer runs on opening a file or a page.

An uploaded PDF is the uploader's, but the annotated copy is served by us, to other readers
perhaps: a `/OpenAction` with JavaScript or a `/Launch` in it would run under our name.
"""

from __future__ import annotations

import re
from typing import Any

import pymupdf

ACTIVE_TYPES = frozenset(
    {
        *("JavaScript", "Launch", "URI", "SubmitForm", "ImportData", "GoToR", "GoToE"),
        *("ResetForm", "Rendition", "Sound", "Movie", "RichMediaExecute", "Hide"),
        *("SetOCGState", "Trans", "GoTo3DView"),
    }
)
"""Action types that run code, open files or addresses, or change the document; GoTo (a
jump within the document) and Named (next page...) stay."""

ACTIVE_ACTION = re.compile(rf"/S\s*/({'|'.join(sorted(ACTIVE_TYPES))})\b")

TRIGGER_KEYS = ("OpenAction", "AA")
"""Actions run without a click: on opening the document, or on a page, field or annotation
event (`/AA`, additional actions)."""


def strip_active_content(document: pymupdf.Document) -> None:
    """Removes, in place, every trigger, every active action, the document's named scripts and
    XFA forms (which carry scripts of their own)."""
    pdf: Any = document  # PyMuPDF's xref functions are untyped
    catalog = pdf.pdf_catalog()
    remove_inner_key(pdf, catalog, "Names", "JavaScript")
    remove_inner_key(pdf, catalog, "AcroForm", "XFA")
    for xref in range(1, pdf.xref_length()):
        try:
            neutralise_object(pdf, xref)
        except pymupdf.mupdf.FzErrorBase:
            continue  # a free or broken entry (MuPDF repaired the file): nothing to run


def neutralise_object(pdf: Any, xref: int) -> None:
    """Empties the object if it is an active action, else removes its triggers and its
    inline active action."""
    kind, value = pdf.xref_get_key(xref, "S")
    if kind == "name" and value.removeprefix("/") in ACTIVE_TYPES:
        # An action object of its own (reached from /A, /Next or a name tree): emptied.
        pdf.update_object(xref, "<<>>")
        return
    for key in TRIGGER_KEYS:
        if pdf.xref_get_key(xref, key)[0] != "null":
            pdf.xref_set_key(xref, key, "null")
    kind, value = pdf.xref_get_key(xref, "A")
    if kind == "dict" and ACTIVE_ACTION.search(value):
        pdf.xref_set_key(xref, "A", "null")


def remove_inner_key(pdf: Any, xref: int, outer: str, inner: str) -> None:
    """Removes `inner` from the dictionary under `outer` in object `xref`, whether that
    dictionary is written inline or is an object of its own."""
    kind, value = pdf.xref_get_key(xref, outer)
    if kind == "xref":
        pdf.xref_set_key(int(value.split()[0]), inner, "null")
    elif kind == "dict":
        pdf.xref_set_key(xref, f"{outer}/{inner}", "null")


def without_active_content(pdf_bytes: bytes) -> bytes:
    """Returns the PDF with its active content removed (see `strip_active_content`), the
    emptied action objects dropped."""
    pdf: Any = pymupdf.Document(stream=pdf_bytes, filetype="pdf")  # type: ignore[no-untyped-call]
    try:
        strip_active_content(pdf)
        return bytes(pdf.tobytes(garbage=1, deflate=True))
    finally:
        pdf.close()
