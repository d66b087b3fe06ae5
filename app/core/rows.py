"""Table rows as a page's text gives them: what chunking packs whole and what an answer quotes.

A statement table reads, line by line, as a label and its figures ("Products $ 60,584 $ 63,355
$ 230,901"), under a few short lines that head its columns ("Three Months Ended", "July 1,
2023", "(In millions)"). These tests read one line's text; where a table stands on a page is
app.chunking.tables's to say, which rows an answer quotes app.answer.units's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

MAX_LABEL_WORDS = 12
"""A row's own label is short: a line of more words before its figures is prose."""

MAX_TABLE_LINE_CHARS = 90
"""Lines longer than this, or ending a sentence, are prose: they end a table upwards."""

NUMERIC_CELL = re.compile(
    r"^[$\u20ac\u00a3(]*[-\u2212+]?\d[\d,.]*"
    r"(?:[%)xX]|pt|em|ex|cm|mm|px|bp|ms|ns|us|[kKMG]B|[kMG]?Hz)?[KMBT]?\)?$"
)
"""A figure: an amount, a share, a multiple, or a size, length or time with its unit ("3em",
"0pt", "16MB", "250ms")."""
_CURRENCY = re.compile(r"^[$\u20ac\u00a3%]$")
_NIL = re.compile(r"^[$(]*[\u2014\u2013-]{1,2}\)?$")
"""A cell that says nothing there: "—", "-", "$ —"."""
_OPTION = re.compile(r"^\s*-{1,2}[A-Za-z][\w-]*(?:[, ]+--?[A-Za-z][\w-]*)*(?:[ =]\S+)?\s{1,}\w")
"""A command-line option and its description: "-s, --strict use strict DER decoding"."""
FUNCTION_WORDS = frozenset(
    "the a an of in on at to for by with as that which this was were is are be and or from".split()  # noqa: SIM905
)
MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?"
)
"""A month's name, whole or cut short, as tables and questions write it."""
_DATE_OR_YEAR = re.compile(rf"\b{MONTH}\s+\d{{1,2}},?(?:\s+(?:19|20)\d\d)?|\b(?:19|20)\d\d\b")
_FULL_DATE_TEXT = rf"\b({MONTH})\s+(\d{{1,2}}),?\s+((?:19|20)\d\d)\b"
_FULL_DATE = re.compile(_FULL_DATE_TEXT)
_FULL_DATE_ANY_CASE = re.compile(_FULL_DATE_TEXT, re.IGNORECASE)
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_UNIT_LINE = re.compile(
    r"^\(?\s*(?:\$|\b(?:dollars|amounts|in)\b).{0,20}\b(?:(?:thousand|million|billion)s?|except)\b",
    re.IGNORECASE,
)
"""A table's unit line: "(In millions, except per share amounts)", "($ in thousands)",
"$ million"."""

RowKind = Literal["figures", "loose", "option"]


def row_kind(line: str) -> RowKind | None:
    """Returns how a line is a table row, None when it is not one: "figures" when it ends in
    two or more figures or nil cells ("—"; currency signs between them) after a short label;
    "loose" when it holds two or more figures among a few words that are not prose (no
    sentence end, hardly a function word), which counts only beside another row; "option"
    for a command-line option and its description. A line of dates and years heads columns:
    it is no row."""
    if _OPTION.match(line):
        return "option"
    if is_period_line(line):
        return None
    cells = line.split()
    figures = 0
    while cells and (
        NUMERIC_CELL.match(cells[-1]) or _NIL.match(cells[-1]) or _CURRENCY.match(cells[-1])
    ):
        figures += not _CURRENCY.match(cells.pop())
    if figures >= 2:
        return "figures" if len(cells) <= MAX_LABEL_WORDS else None
    words = [cell for cell in cells if not NUMERIC_CELL.match(cell)]
    figures += len(cells) - len(words)
    loose = figures >= 2 and len(words) <= MAX_LABEL_WORDS and table_like(line)
    return "loose" if loose else None


_FOOTNOTE_MARK = re.compile(r"^\(\d\)$")
_YEAR = re.compile(r"^(?:19|20)\d\d$")
ONE_FIGURE_FUNCTION_WORDS = 2
"""A one-figure row's label may say "Due in one to five years"; a line of prose says more."""


def one_figure_row(line: str) -> bool:
    """Says whether a line may be a row of a table with one column of figures: a short label
    of words and one figure ("Total $ 21,540", "Due in one to five years 2,250", "Cash
    payments (487)"). A year, a footnote mark ("Liabilities (2)") or a figure ending a
    sentence is no such figure, nor is a line of periods. Prose and a contents page write
    such lines too, so callers find it among others of its kind or under a row."""
    cells = line.split()
    if len(cells) < 2 or len(line.strip()) > MAX_TABLE_LINE_CHARS or is_period_line(line):
        return False
    figure = cells[-1]
    if (
        not NUMERIC_CELL.match(figure)
        or figure.endswith(".")
        or _FOOTNOTE_MARK.match(figure)
        or _YEAR.match(figure)
    ):
        return False
    label = [cell for cell in cells[:-1] if not _CURRENCY.match(cell)]
    function_words = sum(word.lower() in FUNCTION_WORDS for word in label)
    return (
        0 < len(label) <= MAX_LABEL_WORDS
        and function_words <= ONE_FIGURE_FUNCTION_WORDS
        and not any(NUMERIC_CELL.match(cell) for cell in label)
    )


ONE_FIGURE_RUN = 3
"""Lines of a label and one figure, one under another, that make a table of one column
("Due in one year $ 1,250" over "Due in one to five years 2,250" ...); fewer may be prose's."""


def one_figure_row_at(lines: Sequence[str], index: int, *, under_row: bool) -> bool:
    """Says whether `lines[index]`, a line with no row's figures, is a table's one-figure row
    (one_figure_row): under another row (`under_row`), or opening a column of them, it and
    the lines under it up to ONE_FIGURE_RUN each a label and one figure, nothing more."""
    if not one_figure_row(lines[index]):
        return False
    run = lines[index : index + ONE_FIGURE_RUN]
    return under_row or (
        len(run) == ONE_FIGURE_RUN
        and all(row_kind(line) is None and one_figure_row(line) for line in run)
    )


def row_label(row: str) -> str:
    """Returns a row's label, the words before its first figure: "Operating income" of
    "Operating income $ 22,352 $ 20,364 10%"; the whole text of a row with no figure. The
    figures of an aside the label opens are the label's: "Pennsylvania (effective January 28,
    2021)" of "Pennsylvania (effective January 28, 2021) 70 — —", unless it never closes."""
    cells = row.split()
    with_asides = _label_cells(cells, asides=True)
    if with_asides is not None:
        return " ".join(with_asides)
    return " ".join(_label_cells(cells, asides=False) or [])


def _label_cells(cells: list[str], *, asides: bool) -> list[str] | None:
    """Returns the cells before the first figure, past those within parentheses when `asides`;
    None when an aside is still open where the row ends."""
    label: list[str] = []
    opened = 0
    for cell in cells:
        if not opened and (NUMERIC_CELL.match(cell) or _NIL.match(cell) or _CURRENCY.match(cell)):
            break
        label.append(cell)
        if asides:
            opened = max(opened + cell.count("(") - cell.count(")"), 0)
    return None if opened else label


def is_period_line(line: str) -> bool:
    """Says whether a line holds dates or years and no other figure: "July 1, 2023 June 25,
    2022", "2023 2022 2023 2022", "Three Months Ended March 31, 2023"."""
    if not _DATE_OR_YEAR.search(line):
        return False
    rest = _DATE_OR_YEAR.sub(" ", line)
    return not any(NUMERIC_CELL.match(cell) for cell in rest.split())


def is_unit_line(line: str) -> bool:
    """Says whether a line gives a table's unit: "(In millions, except per share amounts)"."""
    return _UNIT_LINE.match(line.strip()) is not None


def table_like(line: str) -> bool:
    """Says whether a line may stand in a table: short, no sentence end, hardly a function word."""
    stripped = line.strip()
    prose = sum(word.lower() in FUNCTION_WORDS for word in stripped.split())
    return (
        len(stripped) <= MAX_TABLE_LINE_CHARS
        and prose <= 1
        and not re.search(r"[.!?:;]$", stripped)
    )


def full_dates(text: str) -> frozenset[tuple[int, int, int]]:
    """Returns the dates `text` writes whole, month, day and year, as (year, month, day):
    "July 15, 2022" and "Jul. 15 2022" alike."""
    return frozenset(dates_written(text))


def dates_written(text: str, *, any_case: bool = False) -> list[tuple[int, int, int]]:
    """Returns the dates `text` writes whole (full_dates), in the order it writes them; with
    `any_case`, a month in any case ("june 25, 2022", as a reader may type it)."""
    found = (_FULL_DATE_ANY_CASE if any_case else _FULL_DATE).findall(text)
    return [(int(year), month_number(month), int(day)) for month, day, year in found]


def month_number(name: str) -> int:
    """Returns the number (1 to 12) of a month's name as MONTH matches it ("Sept.", "June")."""
    return _MONTHS.index(name[:3].lower()) + 1
