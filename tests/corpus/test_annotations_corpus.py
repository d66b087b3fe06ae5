"""The reader's annotations in ../shared/corpus/annotated/ against independent expectations:
EXPECTED.md (the pdfannots authors' texts) and annotations.json (a raw QuadPoints listing)."""

from __future__ import annotations

import json
import re
import unicodedata
from pathlib import Path
from typing import Any

import pytest

from app.flows.annotations import read_marks
from app.pdf.annotations import COMMENT_SUBTYPES, MARKUP_TYPES, NOTE_TYPES
from tests.helpers.corpus import SHARED_CORPUS, corpus_path

QUOTES = str.maketrans({"\u201c": '"', "\u201d": '"', "\u2018": "'", "\u2019": "'"})
LINE_END_HYPHEN = re.compile(r"(\w)[-\u00ad\u2010] (\w)")
"""A hyphen that ended a line, as listings that join lines with a space show it."""


def comparable(text: str) -> str:
    """Returns text as both sides can agree on it: ligatures expanded (NFKC), typographic
    quotes straight (EXPECTED.md's tables use straight ones), whitespace collapsed."""
    return " ".join(unicodedata.normalize("NFKC", text).translate(QUOTES).split())


def without_line_end_hyphens(text: str) -> str:
    """Returns a space-joined listing's text with hyphenation undone, as citelock's page text
    reads: "com- pile" is "compile", and a mark ending at a line's hyphen ends before it."""
    return re.sub(r"[-\u00ad\u2010]$", "", LINE_END_HYPHEN.sub(r"\1\2", text.strip()))


def expected_tables(markdown: str) -> dict[str, list[dict[str, Any]]]:
    """Returns EXPECTED.md's rows per file: page (1 when the table has none), type, comment,
    text."""
    tables: dict[str, list[dict[str, Any]]] = {}
    current: list[dict[str, Any]] | None = None
    header: list[str] = []
    for line in markdown.splitlines():
        if line.startswith("## "):
            current = tables.setdefault(line[3:].split()[0], [])
            header = []
        elif line.startswith("|") and current is not None:
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if not header:
                header = cells
            elif not set(line) <= set("|- "):
                row = dict(zip(header, cells, strict=True))
                current.append(
                    {
                        "page": int(row.get("page", 1)),
                        "type": row["type"],
                        "comment": row.get("comment", "").replace("\\n", "\n"),
                        "text": row["text"],
                    }
                )
    return tables


EXPECTED_FILES = ["pdfannots__hotos17.pdf", "pdfannots__pr24.pdf", "pdfannots__issue13.pdf"]


@pytest.mark.parametrize("name", EXPECTED_FILES)
def test_extracted_annotations_match_expected_md(name: str) -> None:
    expected = expected_tables(corpus_path("annotated", "EXPECTED.md").read_text())[name]
    found = read_marks(corpus_path("annotated", name))
    assert [(mark.page, mark.type, mark.comment, comparable(mark.text)) for mark in found] == [
        (row["page"], row["type"], row["comment"], comparable(row["text"])) for row in expected
    ]


def test_direct_annotation_dictionaries_are_read() -> None:
    """pysf's annotations sit inline in /Annots, where PyMuPDF's page.annots() sees none;
    its highlight's /Rect lies off the page, and only its QuadPoints cover the lines."""
    found = read_marks(corpus_path("annotated", "pysf__annotated_pdf.pdf"))
    assert [(mark.type, mark.text, mark.comment) for mark in found] == [
        ("note", "", "This is a text annotation."),
        ("highlight", "Line 1 Line 2", "Highlight comment"),
        ("note", "", "Hello world!"),
    ]


LISTING_FIXES = {
    "pdfplumber__annotations.pdf": ("Dummy PDF file PDF fil", "Dummy PDF file fil"),
    "pdfjs__highlights.pdf": ("are pop ular", "are popular"),
}
"""Where the listing's text differs from citelock's page text, and why.

pdfplumber__annotations.pdf: a second, larger "file" overlaps the title (a stamp-like line);
the listing takes characters in content-stream order and reads "Dummy PDF file PDF fil",
while the page text, in reading order, has "PDF" once: "Dummy PDF file" then "file".
pdfjs__highlights.pdf: "pop-" ends a line, its hyphen outside the quads, so the listing,
joining lines with a space, reads "pop ular"; the page text joins the hyphenation."""


def fixed_listing_text(name: str, text: str) -> str:
    wrong, right = LISTING_FIXES.get(name, ("", ""))
    return text.replace(wrong, right) if wrong else text


def listed_files() -> dict[str, Any]:
    listing = json.loads(corpus_path("annotated", "annotations.json").read_text())
    return {Path(key).name: record for key, record in listing["files"].items()}


def test_every_annotated_file_is_in_the_listing() -> None:
    on_disk = {path.name for path in corpus_path("annotated").glob("*.pdf")}
    assert on_disk == set(listed_files())


ANNOTATED_FILES = sorted(path.name for path in (SHARED_CORPUS / "annotated").glob("*.pdf"))
"""Empty when the corpus is absent: pytest then skips the test, saying the set is empty."""


@pytest.mark.parametrize("name", ANNOTATED_FILES)
def test_extracted_annotations_match_the_listing(name: str) -> None:
    record = listed_files()[name]
    kept = [
        item
        for item in record["annotations"]
        if item["type"] in MARKUP_TYPES
        or item["type"] in NOTE_TYPES
        or (item["type"] in COMMENT_SUBTYPES and item["content"].strip())
    ]
    found = sorted(read_marks(corpus_path("annotated", name)), key=lambda mark: mark.page)
    # The listing is in /Annots order and citelock's in reading order: compare as multisets.
    listed = sorted(
        (
            item["page"],
            MARKUP_TYPES.get(item["type"]) or NOTE_TYPES.get(item["type"], "note"),
            item["content"].replace("\r\n", "\n"),
            comparable(
                without_line_end_hyphens(fixed_listing_text(name, item.get("text_under_quads", "")))
            ),
        )
        for item in kept
    )
    # A mark may end on a hyphen the page text keeps ("dynamically-" before "typed" on the
    # next line is a real compound): the listing's rule drops it, so both sides drop it.
    assert (
        sorted(
            (mark.page, mark.type, mark.comment, comparable(without_line_end_hyphens(mark.text)))
            for mark in found
        )
        == listed
    )
