"""A chunk's context header: whose it is and where it stands, said in words the question uses.

A chunk of a filing's table ("Net income 2,117 1,701") says neither the company, nor the
period, nor the statement it belongs to; a question names all three. The header (the
document's title, for a filing its registrant, form and period, and the chapter and section
path) is embedded and keyword-indexed with the chunk's text, and stored beside it: `content`
stays exactly the page slice, so offsets, spans and rectangles do not change.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from app.core.records import PageLines

HEADER_MAX_CHARS = 240
"""A header's length at most: some 50 tokens, so that header and chunk stay within the
embedding model's window (EMBEDDING_MAX_TOKENS 256, CHUNK_MAX_TOKENS 200)."""

TITLE_MAX_CHARS = 160
FIRST_PAGE_LINES = 25
"""Lines of the first page among which its heading is looked for."""
HEADING_SCALE = 1.15
"""How much taller than the page's typical line a heading's lines are at the least."""
HEADING_MAX_LINES = 3

_JUNK_TITLE = re.compile(
    r"^(microsoft (word|powerpoint|excel)\s*-|untitled|document\d*$|title$|slide \d+$)"
    r"|\.(docx?|pdf|tex|dvi|ps|rtf|odt|pptx?|xlsx?|indd|qxd)\s*$"
    r"|^[\d\W_]+$"
    r"|^\d{10}-\d{2}-\d{6}$"
    r"|^united states securities and exchange commission$|^form [\w-]+$",
    re.IGNORECASE,
)
"""Titles that name a file, a template, a filing's accession number or the heading every
filing's cover has, not the work."""
_REGISTRANT = re.compile(r"exact name of (the )?registrant", re.IGNORECASE)
_NOT_A_NAME = re.compile(
    r"commission file|file number|\(mark one\)|transition period|jurisdiction|incorporation"
    r"|organization\)|^\(|\)$|^\d|^[\W_]*$"
    r"|report pursuant|exchange act|fiscal year|quarterly period|^form\b|^or$",
    re.IGNORECASE,
)
_COMPANY = re.compile(
    r"\b(inc|incorporated|corp|corporation|company|co|ltd|limited|llc|plc|group|holdings|"
    r"international|n\.v|s\.a|ag|se)\b\.?\s*$",
    re.IGNORECASE,
)
_SPACED_CAPITAL = re.compile(r"\b([A-Z]) (?=[A-Z]{2,}\b)")
"""A name set in small capitals, each word's larger first letter apart ("MGM R ESORTS")."""
COVER_PAGES = 2
"""The pages a filing's cover may fill: its registrant, form and period are read there only."""
REGISTRANT_WINDOW = 8
"""Lines before the "exact name of registrant" caption among which the name stands: the
cover's columns (state, address) may come between them in reading order."""
_FORM = re.compile(r"\bFORM\s+(10-K|10-Q|8-K|20-F|40-F|6-K|S-1)\b")
_PERIOD = re.compile(
    r"for the (fiscal year|quarterly period|year|quarter|transition period)\s+ended\s+"
    r"([A-Z][a-z]+\.?\s+\d{1,2},\s*\d{4})",
    re.IGNORECASE,
)
_FILE_WORDS = re.compile(r"[_\s]+")


def document_title(metadata_title: str | None, pages: Sequence[PageLines], fallback: str) -> str:
    """Returns the document's title: a filing's registrant, else the PDF's metadata title when
    it is a real one, else the first page's heading, else `fallback` (the file's name).

    A filing's metadata names a ticker ("ADBE 10K FY15"), the SEC's heading or the form
    ("Form 10-Q for Microsoft Corp filed 10/24/2022"); its cover names the company."""
    if company := registrant(pages):
        return company[:TITLE_MAX_CHARS]
    if metadata_title and is_real_title(metadata_title):
        return metadata_title.strip()[:TITLE_MAX_CHARS]
    found = first_page_heading(pages[0]) if pages else None
    return (found or fallback)[:TITLE_MAX_CHARS]


def is_real_title(title: str) -> bool:
    title = title.strip()
    letters = sum(c.isalpha() for c in title)
    return len(title) >= 4 and letters >= len(title) / 2 and not _JUNK_TITLE.search(title)


def registrant(pages: Sequence[PageLines]) -> str | None:
    """Returns the company a filing's cover page names ("Exact name of registrant as specified
    in its charter" stands under it: the nearest name above that caption), or None for a
    document that is no filing or whose name is only a logo."""
    for page in pages[:COVER_PAGES]:
        lines = page.line_texts()
        for index, line in enumerate(lines):
            if _REGISTRANT.search(line):
                window = lines[max(index - REGISTRANT_WINDOW, 0) : index][::-1]
                names = [
                    _SPACED_CAPITAL.sub(r"\1", name)
                    for name in window
                    if not _NOT_A_NAME.search(name)
                ]
                companies = [name for name in names if _COMPANY.search(name)]
                found = companies or names
                return found[0] if found else None
    return None


def first_page_heading(page: PageLines) -> str | None:
    """Returns the text set larger than the rest among the first lines of the page, its
    lines joined: the title of a paper, a report or a manual; None when nothing stands out."""
    count = min(len(page.line_starts), FIRST_PAGE_LINES)
    if count == 0:
        return None
    all_heights = line_heights(page)
    heights = all_heights[:count]
    tallest = float(heights.max())
    if tallest < HEADING_SCALE * float(np.median(all_heights)):
        return None
    tall = np.flatnonzero(heights >= tallest * 0.9)
    # The tallest line and those right after it as tall: a title set over several lines.
    run = [int(tall[0])]
    for index in tall[1:]:
        if index != run[-1] + 1 or len(run) == HEADING_MAX_LINES:
            break
        run.append(int(index))
    text = " ".join(page.text[page.line_starts[i] : page.line_ends[i]].strip() for i in run)
    text = " ".join(text.split())
    return text if is_real_title(text) else None


def line_heights(page: PageLines) -> npt.NDArray[np.float32]:
    """Returns how large each line of the page is set: its font size where the page says it,
    else (a page read by OCR) its box's height, which a footnote's mark set above a line of
    prose makes taller than a heading ("Specifically, UNIX1 kernel development ...")."""
    if page.line_styles:
        return np.array([style.size for style in page.line_styles], dtype=np.float32)
    heights: npt.NDArray[np.float32] = page.line_boxes[:, 3] - page.line_boxes[:, 1]
    return heights


def filing_facts(pages: Sequence[PageLines]) -> str:
    """Returns a filing's form and period ("Form 10-K, fiscal year ended November 27, 2015"),
    read off its cover page; "" for a document that says neither."""
    cover = " ".join(" ".join(page.text.split()) for page in pages[:COVER_PAGES])
    facts = []
    if form := _FORM.search(cover):
        facts.append(f"Form {form.group(1)}")
    if period := _PERIOD.search(cover):
        facts.append(f"{period.group(1).lower()} ended {period.group(2)}")
    return ", ".join(facts)


def document_label(title: str, pages: Sequence[PageLines], filename: str) -> str:
    """Returns what every chunk of the document says of it: its title, and for a filing its
    form, its period and the file's name (a ticker, a quarter)."""
    facts = filing_facts(pages)
    if not facts:
        return title
    # A filing's file is often named for its ticker and period ("2023_Q3_AAPL").
    stem = _FILE_WORDS.sub(" ", Path(filename).stem).strip()
    parts = [title, facts]
    if stem and stem.lower() not in _FILE_WORDS.sub(" ", title).lower():
        parts.append(stem)
    return "; ".join(parts)


def context_header(
    label: str, chapter: str | None, section: str | None, table_title: str = ""
) -> str:
    """Returns a chunk's header: the document's label, its chapter and section path and, for
    a chunk of a table, the table's title (app.chunking.tables.table_title)."""
    path: list[str] = []
    for heading in (chapter, section, table_title):
        if heading and not any(heading.lower() in part.lower() for part in path):
            path.append(heading)
    return " > ".join(part for part in (label, *path) if part)[:HEADER_MAX_CHARS]
