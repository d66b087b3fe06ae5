"""Tables on a page, found in the lines it already has: runs of figure rows under their headers.

A statement table reads line by line as rows ("Products $ 60,584 $ 63,355"), with short label
lines between them ("Cost of sales:") and, above the first row, the lines that head it: its
caption, its unit ("(In millions)"), its periods ("Three Months Ended", "July 1, 2023"). No
cell detection runs (PyMuPDF's `find_tables` costs tens of milliseconds a page, more than
the rest of reading it): the page's lines tell rows from prose.
Chunking packs a table's rows whole and gives each of its chunks the header's text
(app.chunking.chunker); an answer cites a row with the header's span.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from app.core.records import PageLines
from app.core.rows import (
    FUNCTION_WORDS,
    MAX_TABLE_LINE_CHARS,
    is_period_line,
    is_unit_line,
    one_figure_row_at,
    row_kind,
    table_like,
)

MIN_ROWS = 2
"""Rows a run of lines needs to be a table."""

HEADER_MAX_LINES = 16
"""Lines above a table's first row that may head it: column heads wrap, a line a word."""

HEADER_MAX_CHARS = 360
"""The header's text at most: caption, unit, periods and column heads of a statement."""

MAX_FUNCTION_WORDS = 3
"""A label ("Change in unrealized gains/losses on derivative instruments, net of tax:") has a
few function words; the lines of a sentence leading into a table have more."""

CAPTION_LOOKBACK = 4
"""Lines of prose above a table among which its caption ("Table 1: ...") may start."""

_SENTENCE_END = re.compile(r"[.!?;]$")
_PARAGRAPH_BREAK = "\n\n"
_LEAD_IN = re.compile(r"\b(?:as follows|following|below)\b", re.IGNORECASE)
_CAPTION = re.compile(r"^(?:Table|TABLE|Exhibit)\s*[A-Z]?\d+[.:]")
_STATEMENT_TITLE = re.compile(r"^[A-Z][A-Z0-9 ,&'()\u2014-]{6,}$")
"""A statement's title in capitals: "CONDENSED CONSOLIDATED BALANCE SHEETS (Unaudited)"."""

_RUNNING_LINE = re.compile(r"^table of contents$", re.IGNORECASE)
_NOT_A_TITLE = re.compile(r"\d|^\(|:$|\b(ended|as of)\b", re.IGNORECASE)
TITLE_MAX_LINES = 2

LineKind = Literal["row", "table", "prose"]


@dataclass(frozen=True)
class Table:
    """A table on one page, as offsets into its text.

    `start:end` holds the table, its header lines and caption first; `header` is the span of
    the lines that head it (None when it has none) and `header_text` that span's text,
    whitespace collapsed. `row_ends` are where its rows end, in order: a chunk of the table
    ends at one.
    """

    start: int
    end: int
    header: tuple[int, int] | None
    header_text: str
    row_ends: tuple[int, ...]
    title: str = ""
    """The header's opening lines that name the table ("THE COCA-COLA COMPANY AND
    SUBSIDIARIES", "CONSOLIDATED BALANCE SHEETS"), before its periods, units and columns."""


def find_tables(page: PageLines) -> list[Table]:
    """Returns the page's tables in text order, none overlapping another."""
    texts = page.line_texts()
    kinds = _line_kinds(texts)
    tables: list[Table] = []
    index = 0
    while index < len(kinds):
        if kinds[index] == "prose":
            index += 1
            continue
        end = index
        while end < len(kinds) and kinds[end] != "prose":
            end += 1
        rows = [i for i in range(index, end) if kinds[i] == "row"]
        floor = tables[-1].end if tables else 0
        if len(rows) >= MIN_ROWS:
            tables.append(_table(page, texts, kinds, index, rows, floor))
        index = end
    return tables


def _line_kinds(texts: list[str]) -> list[LineKind]:
    """Returns per line whether it is a table's row, a line a table may hold, or prose.

    A "loose" row (figures among words) counts as one only beside another row; a label and
    one figure ("Total $ 21,540" under a column of commitments by year) only under one, or
    where a few such lines stand one under another (a table of one column); a label that
    wraps ("Total change in unrealized gains/losses on marketable debt" over "securities
    (282) (3,055)") is the table's where the row under it goes on in lower case.
    """
    rows = [row_kind(text) for text in texts]
    kinds: list[LineKind] = []
    for index, (text, row) in enumerate(zip(texts, rows, strict=True)):
        neighbours = [rows[j] for j in (index - 1, index + 1) if 0 <= j < len(rows)]
        below = texts[index + 1] if index + 1 < len(texts) else ""
        wraps = rows[index + 1 :][:1] == ["figures"] and below[:1].islower()
        beside_row = any(n in ("figures", "loose") for n in neighbours)
        if (
            row == "figures"
            or (row == "loose" and beside_row)
            or (row is None and one_figure_row_at(texts, index, under_row=kinds[-1:] == ["row"]))
        ):
            kinds.append("row")
        elif _may_stand_in_table(text) or (wraps and not _SENTENCE_END.search(text)):
            kinds.append("table")
        else:
            kinds.append("prose")
    return kinds


def _may_stand_in_table(text: str) -> bool:
    """Says whether a line that is no row may stand in a table: a short line, a label ending
    in a colon, a unit line, or a line of periods; never prose that leads into a table
    ("... were as follows (dollars in millions):", "... nine-month periods ended July 1,")."""
    if _LEAD_IN.search(text) or _function_words(text) > MAX_FUNCTION_WORDS:
        return False
    label = text.endswith(":") and len(text) <= MAX_TABLE_LINE_CHARS
    return table_like(text) or label or is_unit_line(text) or is_period_line(text)


def _function_words(text: str) -> int:
    return sum(word.lower() in FUNCTION_WORDS for word in text.split())


def _table(
    page: PageLines,
    texts: list[str],
    kinds: list[LineKind],
    run_start: int,
    rows: list[int],
    floor: int,
) -> Table:
    """Returns the table whose rows are lines `rows` of a run of table lines from `run_start`.

    Its header: the run's lines before the first row, nearest first, and the caption that
    starts a few lines above the run.
    """
    heads = _heads(page, texts, run_start, rows[0], floor, HEADER_MAX_CHARS)
    if not heads and len(rows) > MIN_ROWS:
        # A table without lines above its rows is headed by its first row.
        heads, rows = [rows[0]], rows[1:]
    header_lines = heads
    caption = _caption_above(texts, kinds, run_start, page, floor)
    if caption is not None and (not heads or heads[0] == run_start):
        with_caption = [*range(caption, run_start), *heads]
        if sum(len(texts[i]) + 1 for i in with_caption) <= HEADER_MAX_CHARS:
            header_lines = with_caption
    starts, ends = page.line_starts, page.line_ends
    first = header_lines[0] if header_lines else rows[0]
    header = (int(starts[header_lines[0]]), int(ends[header_lines[-1]])) if header_lines else None
    return Table(
        start=int(starts[first]),
        end=int(ends[rows[-1]]),
        header=header,
        header_text=" ".join(page.text[header[0] : header[1]].split()) if header else "",
        row_ends=tuple(int(ends[i]) for i in rows),
        title=table_title(page.text[header[0] : header[1]]) if header else "",
    )


def table_title(header: str) -> str:
    """Returns the opening lines of a table's header that name it, up to TITLE_MAX_LINES:
    those before the first that holds a figure, names a period ("Three Months Ended"), opens
    with a parenthesis ("(In millions)") or leads into what follows ("Current assets:"); a
    running "Table of Contents" is passed over."""
    names: list[str] = []
    for line in (line.strip() for line in header.splitlines()):
        if not line or _RUNNING_LINE.match(line):
            continue
        if _NOT_A_TITLE.search(line) or len(names) == TITLE_MAX_LINES:
            break
        names.append(" ".join(line.split()))
    return "; ".join(names)


def _heads(
    page: PageLines, texts: list[str], run_start: int, first_row: int, floor: int, room: int
) -> list[int]:
    """Returns the lines of a run before its first row that head the table, in order: those
    from the row up, while their text fits in `room`. Where a table's labels are read before
    its figures (a column read whole), the labels before the first row are among them."""
    heads: list[int] = []
    length = 0
    for line in range(first_row - 1, max(run_start, first_row - HEADER_MAX_LINES) - 1, -1):
        length += len(texts[line]) + 1
        if page.line_starts[line] < floor or length > room:
            break
        heads.insert(0, line)
    return heads


def _caption_above(
    texts: list[str], kinds: list[LineKind], run_start: int, page: PageLines, floor: int
) -> int | None:
    """Returns the line that starts the caption or title of a table whose lines start at
    `run_start`: a "Table 1:" a few lines of prose above, the line right above in capitals, or
    the paragraph right above that leads into the table ("Operating expenses for the ...
    periods ended ... were as follows (dollars in millions):")."""
    leads_in = run_start > 0 and texts[run_start - 1].endswith(":")
    for line in range(run_start - 1, max(run_start - CAPTION_LOOKBACK, 0) - 1, -1):
        if page.line_starts[line] < floor or kinds[line] == "row":
            return None
        if _CAPTION.match(texts[line]) or (
            line == run_start - 1 and _STATEMENT_TITLE.match(texts[line])
        ):
            return line
        if leads_in and (line == 0 or _PARAGRAPH_BREAK in _between(page, line - 1, line)):
            return line
    return None


def _between(page: PageLines, line: int, next_line: int) -> str:
    """Returns the page text between the end of one line and the start of the next."""
    return page.text[int(page.line_ends[line]) : int(page.line_starts[next_line])]
