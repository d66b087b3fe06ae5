"""A table's cell: the figure of the column a question names in the row it names.

"What score did the Qwen2-72B base model get on C-Eval?" is answered by one cell of a
results table, its column headed "Qwen2-72B" among other models and its row labelled
"C-Eval" among other benchmarks: no sentence states it, and the row alone holds five scores.
The table is read whole from any of its chunks (a chunk of the table holding the caption
ranks first, the row's own chunk far below). Only what can be read without guessing is
answered: a header line whose last words head as many columns as the rows hold figures,
each column's name one word, one column the question names and one row whose label's words
it holds all of.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from app.answer.claims import STOPWORDS, Answer, Quote, shown_text, worked_out
from app.core.chunks import Candidate
from app.core.rows import MONTH

CELL_CONFIDENCE = 0.7
"""A cell found under the column and in the row the question names is what it asked for."""

_LINE = re.compile(r"[^\n]+")
_FIGURE = re.compile(r"[\-\u2013\u2014]|[+\-\u2212]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?")
"""A cell of figures: a number, or a dash for none."""
_EDGE_PUNCTUATION = re.compile(r"^[^\w]+|[^\w]+$")
_POSSESSIVE = re.compile(r"['\u2019]s$")
_PROSE_END = re.compile(r"[,.;:]$")
_MONTH = re.compile(MONTH, re.IGNORECASE)


@dataclass(frozen=True)
class TableRow:
    chunk: Candidate
    line: tuple[int, int]
    """The row's line in the chunk's content."""
    label: str
    figures: tuple[str, ...]


def table_rows(chunk: Candidate) -> list[TableRow]:
    """Returns the lines of `chunk` below its table's header that are a label, with a letter,
    and then figures only ("31, 2022" is a date's end, no row)."""
    rows = []
    header_end = chunk.table_header[1] - chunk.page_span_start if chunk.table_header else 0
    for match in _LINE.finditer(chunk.content, max(header_end, 0)):
        words = match.group().split()
        count = 0
        while count < len(words) and _FIGURE.fullmatch(words[len(words) - 1 - count]):
            count += 1
        label = " ".join(words[: len(words) - count])
        figures = words[len(words) - count :]
        if any(c.isalpha() for c in label) and any(c.isdigit() for c in "".join(figures)):
            rows.append(TableRow(chunk, match.span(), label, tuple(figures)))
    return rows


def header_lines(table: Sequence[Candidate]) -> list[str]:
    """Returns the lines of the table's header, from the chunk of `table` whose content holds
    it whole; none when no chunk does."""
    for chunk in table:
        if chunk.table_header is None:
            continue
        start, end = (offset - chunk.page_span_start for offset in chunk.table_header)
        if 0 <= start < end <= len(chunk.content):
            return [line for line in chunk.content[start:end].splitlines() if line.strip()]
    return []


def column_names(lines: Sequence[str], count: int) -> list[tuple[str, ...]]:
    """Returns the names the header's lines can give the last `count` columns, the line
    nearest the rows first: a line's last `count` words, when it has `count` words or one more
    (the labels' own heading), none ending as prose does or a word of grammar written small
    ("Revenue by business" titles the labels). Columns of years or dates ("December" over "31,
    2022") are a statement's periods (app.answer.metrics), not names."""
    named = []
    for line in reversed(lines):
        words = line.split()
        if len(words) in (count, count + 1) and not any(
            _PROSE_END.search(word) or word in STOPWORDS for word in words
        ):
            names = tuple(words[-count:])
            if all(_is_name(name) for name in names):
                named.append(names)
    return named


def _is_name(word: str) -> bool:
    return any(c.isalpha() for c in word) and not _MONTH.fullmatch(word)


def written_words(text: str) -> set[str]:
    """Returns the words of `text` as written, edge punctuation and possessives trimmed."""
    return {_POSSESSIVE.sub("", _EDGE_PUNCTUATION.sub("", word)) for word in text.split()}


def cell_answer(question: str, table: Sequence[Candidate]) -> Answer | None:
    """Returns the answer quoting the row of `table` (the chunks of one table, in order) whose
    label the question names, with the figure of the one column it names; None unless both
    are named, once each."""
    # A column is named as its header writes it ("Qwen2-72B"): "ended" in a question is not the
    # "Ended" of "Three Months Ended". A row's label may open a sentence, or not.
    written = written_words(question)
    asked = {word.lower() for word in written}
    rows = [row for chunk in table for row in table_rows(chunk)]
    lines = header_lines(table)
    # The company's own words name no column ("Resorts" of "MGM Resorts'" over a column of
    # "Las Vegas Strip Resorts").
    titled = {word.lower() for chunk in table[:1] for word in written_words(chunk.document_title)}
    found = []
    for count in sorted({len(row.figures) for row in rows}):
        heads = (
            (
                names,
                [
                    index
                    for index, name in enumerate(names)
                    if name in written
                    and name.lower() not in STOPWORDS
                    and name.lower() not in titled
                ],
            )
            for names in column_names(lines, count)
        )
        names, named = next(((names, named) for names, named in heads if len(named) == 1), ((), []))
        if not named:
            continue
        column_word = names[named[0]].lower()
        for row in rows:
            label_words = {word.lower() for word in written_words(row.label)}
            # One word of the question naming both ("income" over "income 703 320") names
            # neither: a label's last word left alone on its line.
            named_apart = column_word not in label_words
            if len(row.figures) == count and label_words <= asked and named_apart and label_words:
                found.append((len(label_words), names[named[0]], named[0], row))
    if not found:
        return None
    best = max(each[0] for each in found)
    ties = [each for each in found if each[0] == best]
    if len({(column, row.label) for _, column, _, row in ties}) != 1:
        return None
    _, column, index, row = ties[0]
    figure = row.figures[index]
    shown = shown_text(row.chunk.content, (row.line,))
    quote = Quote(
        row.chunk,
        (row.line,),
        f"{row.chunk.table_header_text} {shown}",
        CELL_CONFIDENCE,
        row.chunk.table_header,
    )
    return worked_out(f"{row.label}, {column}: {figure}", [quote])
