"""Which of a table's rows holds the highest or the lowest figure, worked out from the rows.

"Among all of the derivative instruments that Verizon used ..., which one had the highest
notional value in FY 2021?" is answered by a table of the instruments' notional amounts, one
row each, that no sentence compares: a quote of its first rows names the wrong one. When a
question asks which has the highest (or lowest) of something in a year, the rows of the
best-ranked chunk whose table is titled with that something (its header, or the page's lines
just above it) are compared in the year's column, totals aside; where the things compared head
groups of columns instead (JPMorgan's segments, each over "2021 2020 Change"), the figures
under each group are read from where they stand on the page. The answer names the one that
holds the extreme and every figure compared, then quotes the rows, cited like any claim.
"""

from __future__ import annotations

import re
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import date
from functools import partial
from typing import NamedTuple

from app.answer.cells import written_words
from app.answer.claims import STOPWORDS, Answer, Quote, shown_text, terms, worked_out
from app.answer.kinds import measures_named, names_rate
from app.answer.metrics import (
    COMPUTED_CONFIDENCE,
    MONTHS_SPANNED,
    SPANNED,
    Period,
    Row,
    asked_period,
    asks_part_of_year,
    chunk_rows,
    figure_value,
    headed,
    in_period,
    quoted_row,
    shown_figure,
)
from app.answer.units import Span
from app.core.chunks import Candidate
from app.core.records import PageText
from app.core.rows import (
    MONTH,
    is_period_line,
    is_unit_line,
    row_kind,
    row_label,
    table_like,
)

_EXTREME = re.compile(
    r"\bwhich\b[^?]*?\b(?P<extreme>highest|largest|biggest|greatest|most|fastest|strongest"
    r"|lowest|smallest|least|slowest|weakest)"
    r"\s+(?P<measure>(?:(?:number|amount|value|level|total|share|portion|proportion)\s+of\s+)?"
    r"[^?,]+?)"
    r"(?=\s+(?:in|during|of|at|as of|among|between)\b|\s+for\s+(?:the\s+|its\s+)?"
    r"(?:fiscal|years?|quarters?|period|months|three|six|nine|twelve|first|second|third|fourth|"
    r"full|FY|Q\d|\d)|\s+(?:to|from|for)\s+(?-i:[A-Z])|\s*[?,]|$)",
    re.I,
)
"""Which of several holds an extreme of a measure. A name the measure is "to", "from" or "for"
ends it ("the most revenue to NVIDIA", "the most net sales for Kraft Heinz"), and a period it
is "for" ("for fiscal 2022"); other words go on
with it ("the highest sales to external customers", "the largest provision for credit losses"),
and "of" after a word that names no measure ("the highest number of traces per tree")."""
_PART_EXTREME = re.compile(
    r"\bwhich\s+(?:component|part|category|item|element|source|type|kind)s?\s+of\s+"
    r"(?P<measure>[^?,]+?)\s+(?:was|were|is|are)\s+(?:the\s+)?"
    r"(?P<extreme>highest|largest|biggest|greatest|lowest|smallest)\b",
    re.I,
)
"""Which part of a measure is the largest, the measure named before the extreme: "Which
component of American Water Works' Regulated Businesses operation and maintenance expense was
the largest in 2022?" compares the parts of operation and maintenance expense."""
_LOWEST = ("lowest", "smallest", "least", "slowest", "weakest")
_GROWTH = frozenset({"growth", "grow", "increas", "rise", "gain"})
"""Terms of a measure that ask how fast a figure grew ("the fastest net sales growth"), read
from the year before's column."""
_LOSS = re.compile(
    r"\bwhich\b[^?]*?\b(?:report\w*|record\w*|had|has|have|post\w*|incurr?\w*|show\w*"
    r"|operat\w*\s+at|was|were|ran)\s+(?:an?\s+|any\s+)?"
    r"(?P<measure>(?:(?P<income>operating|net|segment)\s+)?loss(?:es)?)\b",
    re.I,
)
"""Which of the things compared lost money ("Which of Intel's operating segments reported an
operating loss", "which segment was still operating at a loss"): those whose income is below
zero, an operating income's where the question names none."""
_DECLINED = re.compile(
    r"\bwhich\b[^?]*?\b(?:whose|its|their)\s+(?P<measure>[^?,]+?)\s+"
    r"(?:declin|decreas|fell|fall|dropp|shr[aiu]nk)\w*\b",
    re.I,
)
"""Which of them saw a measure fall from a year before ("Which segment was the only one whose
operating profit declined in 2020?", "Which segment saw its EBIT decline?")."""
_PARTS = (
    r"(?:segments?|offerings?|lines?|divisions?|businesses|regions?|categories|markets?"
    r"|platforms?|units?|products?|brands?)"
)
_MOVED = re.compile(
    rf"\bwhich\b[^?]*?\b{_PARTS}\b[^?]*?\b(?:"
    r"(?P<verb>(?:increas|decreas|declin)\w*|grew|rose|fell)\s+(?:in\s+)?"
    r"|(?:posted|had|saw|reported|recorded|showed)\s+(?P<level>higher|lower)\s+)"
    r"(?P<measure>[^?,]+?)\s+(?=(?:year|in|from|compared|than|over|versus|during|for)\b)",
    re.I,
)
"""Which of the parts saw a measure move one way from a year before ("Which of Intel's
operating segments increased revenue year over year", "Which of Microsoft's offerings posted
lower revenue in its fiscal 2023 third quarter than a year earlier")."""
_MOVED_MOST = re.compile(r"\s+(?:the\s+)?(?P<extreme>fastest|most|slowest|least)$", re.I)
"""A move asked of its extreme ("Which of NVIDIA's market platforms grew revenue fastest year
over year", "grew net sales the fastest in the quarter")."""
_WHEN_NOT_WHAT = re.compile(r"(?:in|during|over)\b|year[\s-]+over[\s-]+year$", re.I)
"""What follows an extreme and names when, not the measure ("fastest in the quarter ended June
25", "fastest year over year"): the measure is written before it."""
_DOWN = re.compile(r"decreas|declin|fell|lower", re.I)
_LEADING_PREPOSITION = re.compile(r"^(?:by|in|of|to|for)\s+", re.I)
"""What leads the measure asked and is no part of it ("largest by net revenue")."""
_YEAR = re.compile(r"\b(?:FY\s?)?((?:19|20)\d\d)\b", re.I)
_SPELLED_OUT = re.compile(r"\s*\([^)]*\)")
"""What a measure adds in parentheses, mostly its abbreviation ("return on equity (ROE)"): a
row's label may leave it out ("Return on equity"), as its terms do (_label_terms)."""
_GENERIC = frozenset({"value", "amount", "total", "figure", "number", "level", "balance"})
"""Words of a measure that any table's title may leave unsaid ("notional value" of a table of
"notional amounts"), nor a row's label ("Total net revenue")."""
TITLE_LINES = 2
"""The page's lines just above a chunk, periods and units aside, that may title its first
block of rows ("The following table sets forth the notional amounts of our outstanding
derivative instruments:")."""

_LINE = re.compile(r"[^\n]+")
_LEADERS = re.compile(r"\s*\.{3,}$")
_SENTENCE_END = re.compile(r"[a-z%)]\.\s+[A-Z]")
_WORD = re.compile(r"\S+")
_NOT_COMPARED = re.compile(
    r"(?:total|consolidated|reconciling|eliminations?|adjustments?|(?:all\s+)?others?)\b"
    r"|.*\bunallocated\b|(?:average|mean|median)$",
    re.I,
)
"""What is never one of the things compared: a total, reconciling items, what no segment
holds ("Corporate unallocated expenses"), the rest of them ("All other", "Other countries"),
their average."""


def _compared(label: str, chunk: Candidate) -> bool:
    """Says whether a row's label may name one of the things compared: no total (_NOT_COMPARED),
    nor the company whose document it is (Kraft Heinz's regions summed on a row "Kraft
    Heinz")."""
    held = _label_terms(label)
    return not _NOT_COMPARED.match(label) and not (held and held <= terms(chunk.document_title))


_CORPORATE = re.compile(r"corporate(?:\s+(?:and|&)\s+other)?", re.I)
"""The part of a company that is no business of it: JPMorgan Chase's "Corporate" column beside
its four lines of business, one of its segments all the same."""
_COUNTED = re.compile(
    r"\b(?i:which\s+of)\s+(?:(?:the|its|their|[A-Z][\w&.-]*(?:['\u2019]s?)?)\s+)*"
    r"(?P<count>two|three|four|five|six|seven|eight|nine|\d)\b",
)
_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9}

_RECONCILING = re.compile(r"(?:add|less|plus|deduct)\s*:", re.I)
"""A row that adds or takes off an item ("Add: Income tax expense") makes its block a
reconciliation of one figure to another, whose rows are no parts of anything: NIKE's "Net
income ... Add: Interest expense ... Earnings before interest and taxes" is no answer to which
of its segments saw its EBIT decline."""


@dataclass(frozen=True)
class ExtremeQuestion:
    """Which row holds the highest (or lowest) figure of a measure, in a year or of a table
    with no years."""

    highest: bool
    measure: frozenset[str]
    """The measure's terms (app.answer.claims.terms), generic words ("value") left out."""
    year: int | None
    """The year asked; None when the question writes none (only a column that the measure
    heads, of no year, is compared then)."""
    named: str
    """The measure as the question writes it ("net revenue"), as the answer names it."""
    period: Period | None = None
    """The period the question writes out ("the quarter ended March 31, 2023"): its column is
    compared where a quarterly report's header tells it (app.answer.metrics.column_periods)."""
    quarterly: bool = False
    """It asks of part of a year: only `period`'s column holds its figures."""
    sign: int = 0
    """It asks which hold a figure below zero (-1: an income's, a loss, or a growth's, a
    decline) or above it (+1: a growth's, a rise), not the extreme (0)."""
    growth: bool = False
    """It asks how fast the measure grew: each row's change over its figure of a year before,
    in percent."""
    written: frozenset[str] = frozenset()
    """The question's words as it writes them: the one of them that heads a column names the
    column compared where the measure heads none ("In which language did Qwen2-72B-Instruct
    get its highest score?")."""
    counted: int | None = None
    """How many things it says are compared ("Which of JPMorgan Chase's four lines of
    business"): a "Corporate" beyond them is none of them."""
    of_rates: bool = True
    """A row of percentages holds the measure: it is a rate ("operating margin"), or the row is
    read by the label the question names. Of an amount ("net sales"), such a row holds its
    shares or changes."""

    def rows_of(self, rows: Sequence[Row], year: int) -> list[Row]:
        """Returns the rows with a figure for what is asked, as `year`'s: of `period`'s column
        where the row's header tells it, else (unless a quarter is asked) of the year's."""
        kept = []
        for row in rows:
            if row.rate and not self.of_rates:
                continue
            dated = in_period(row, self.period, year) if self.period else None
            if self.growth:
                pair = _year_apart(row, dated, self.period, year, quarterly=self.quarterly)
                if pair is not None:
                    kept.append(replace(row, figures={year: pair[0], year - 1: pair[1]}))
            elif dated is not None:
                kept.append(dated)
            elif not self.quarterly and row.figures:
                kept.append(row)
        return kept


def _year_apart(
    row: Row, dated: Row | None, period: Period | None, year: int, *, quarterly: bool
) -> tuple[float, float] | None:
    """Returns the row's figure and its figure of a year before: of `period`'s column (`dated`)
    and the column of as many months ended a year earlier, else of `year`'s column and the year
    before's; None when it has no such two figures, or the earlier is 0 (no growth from it)."""
    if dated is not None and period is not None:
        now = dated.figures[year]
        ended = date(*period.ended)
        before = [
            figure
            for column, figure in row.periods.items()
            if column.months == period.months
            and abs((ended - date(*column.ended)).days - 365) <= YEAR_SLACK_DAYS
        ]
        past = before[0] if len(before) == 1 else None
    elif not quarterly and year in row.figures and year - 1 in row.figures:
        now, past = row.figures[year], row.figures[year - 1]
    else:
        return None
    return None if not past else (now, past)


YEAR_SLACK_DAYS = 10
"""How far from a year apart two quarters' last days may fall: a 52- or 53-week fiscal year
ends its quarters on a Saturday ("December 31, 2022" against "December 25, 2021")."""


def asked_extremes(question: str) -> list[ExtremeQuestion]:
    """Returns the comparisons `question` asks for, in its order ("Which of PepsiCo's divisions
    was the largest by net revenue in FY2021, and which earned the most operating profit?"
    asks two, of the same year); none of an ask that names nothing it compares."""
    years = _YEAR.findall(question)
    period = asked_period(question)
    asked = partial(
        ExtremeQuestion,
        year=period.ended[0] if period else int(years[-1]) if years else None,
        period=period,
        # "In 2021 Q1" writes out no period: its year's columns are read as before (a table
        # whose column groups are the things compared reads the quarter's first).
        quarterly=period is not None and asks_part_of_year(question),
        written=frozenset(written_words(question)),
        counted=_counted(question),
    )
    asks = []
    for found in [*_EXTREME.finditer(question), *_PART_EXTREME.finditer(question)]:
        named = _part_of_whole(found.group("measure"), found.re is _PART_EXTREME)
        measure = terms(_SPELLED_OUT.sub(" ", named)) - _GENERIC
        if measure - _GROWTH and not _WHEN_NOT_WHAT.match(named):
            asks.append(
                asked(
                    highest=found.group("extreme").lower() not in _LOWEST,
                    measure=frozenset(measure - _GROWTH),
                    named=_LEADING_PREPOSITION.sub("", named),
                    growth=bool(measure & _GROWTH),
                    of_rates=names_rate(named) and not measure & _GROWTH,
                )
            )
    for found in _LOSS.finditer(question):
        income = f"{found.group('income') or 'operating'} income"
        asks.append(
            asked(
                highest=False,
                measure=frozenset(terms(income)),
                named=found.group("measure"),
                sign=-1,
                of_rates=False,
            )
        )
    moves = [(found, -1) for found in _DECLINED.finditer(question)] + [
        (found, -1 if _DOWN.match(found.group("verb") or found.group("level")) else 1)
        for found in _MOVED.finditer(question)
    ]
    for found, sign in moves:
        named = found.group("measure")
        # "grew revenue fastest": which grew most, not which grew.
        fastest = _MOVED_MOST.search(named)
        named = named[: fastest.start()] if fastest else named
        measure = terms(named) - _GENERIC
        if measure:
            asks.append(
                asked(
                    highest=fastest is not None and fastest.group("extreme") not in _LOWEST,
                    measure=frozenset(measure),
                    named=f"{named} growth" if fastest else named,
                    sign=0 if fastest else sign,
                    growth=True,
                    of_rates=False,
                )
            )
    return asks


def _counted(question: str) -> int | None:
    found = _COUNTED.search(question)
    if found is None:
        return None
    count = found.group("count").lower()
    return int(count) if count.isdigit() else _COUNTS[count]


_SHARE_OF = re.compile(r"(?:share|portion|proportion)\s+of\s+", re.I)


def _part_of_whole(measure: str, whole_named: bool = False) -> str:
    """Returns the measure whose parts a "largest share of" (or "which component of", when
    `whole_named`) compares, its owner's name left out: "share of Walmart's U.S. capital
    expenditures" compares parts of capital expenditures, by their amounts. Names alone are
    the measure where it has no other words ("share of Adjusted EBITDA")."""
    share = _SHARE_OF.match(measure)
    if share is None and not whole_named:
        return measure
    whole = measure[share.end() :] if share else measure
    words = [word for word in whole.split() if not word[:1].isupper()]
    return " ".join(words) if words else whole


def table_extreme(
    asked: ExtremeQuestion, table: Sequence[tuple[Candidate, str]], page_before: str = ""
) -> Comparison | None:
    """Returns the comparison naming the row of the block of rows of `table` (the chunks of one
    table, or one chunk, in their order, each with its page's text above it) titled with the
    measure asked that holds two rows or more with a figure for the year (or the period the
    question writes out), totals aside: of several, the one the measure titles most nearly
    alone, the first of equals; None when no block is. `page_before` is the end of the
    previous page's text, which titles a table that opens its page untitled."""
    year = asked.year
    if year is None:
        return None
    blocks = _blocks(table, asked, year, page_before)
    summed = _groups_summed(asked, blocks, year)
    if summed is not None:
        return _comparison(asked, summed)
    titled = []
    for title_lines, block in blocks:
        # A part's own results ("Space's operating results included the following") are rows
        # of measures, not of things that hold one (part_rows reads them).
        if any(_RECONCILING.match(row.label) for row in block) or _PART_RESULTS.search(
            " ".join(title_lines[-TITLE_LINES:])
        ):
            continue
        title = " ".join(title_lines)
        # A row labelled with the measure itself ("Net revenue" beside "Operating profit") is
        # the measure, not one of the things that hold it.
        rows = [
            row
            for row in block
            if year in row.figures
            and _compared(row.label, row.chunk)
            and not asked.measure <= terms(row.label)
        ]
        title_terms = terms(title)
        if len(rows) >= 2 and asked.measure <= title_terms:
            titled.append((len(asked.measure) / len(title_terms), rows))
    if not titled:
        return None
    # Of the blocks the measure titles, the one it titles most nearly alone: the table's header
    # "Segment results: Revenue ... Operating income" titles its first block (revenue) too,
    # where the line "Operating income" titles its own.
    rows = max(titled, key=lambda each: each[0])[1]
    return _comparison(asked, [_row_compared(row, year, growth=asked.growth) for row in rows])


def _groups_summed(
    asked: ExtremeQuestion, blocks: Sequence[tuple[list[str], list[Row]]], year: int
) -> list[Compared] | None:
    """Returns the things compared in a table titled with the measure whose rows stand in
    groups, each under a line that names it and summed by its total, beside rows that stand
    alone (Adobe's revenue: "Americas:" over "United States", "Other" and "Total Americas",
    then "EMEA", then "APAC:" over "Japan", "Other" and "Total APAC"): a group by its total's
    figure, a lone row by its own; None when fewer than two groups are summed so."""
    title = " ".join(blocks[0][0]) if blocks else ""
    if not asked.measure <= terms(title) or any(
        _RECONCILING.match(row.label) for _, block in blocks for row in block
    ):
        return None
    compared: list[Compared] = []
    summed = 0
    for title_lines, block in blocks:
        rows = [row for row in block if year in row.figures]
        heading = title_lines[-1].strip() if title_lines else ""
        last = rows[-1] if rows else None
        if (
            last is not None
            and heading.endswith(":")
            and _TOTAL.match(last.label)
            and _label_terms(_TOTAL.sub("", last.label)) == _label_terms(heading)
        ):
            if asked.measure <= _label_terms(heading):
                return None  # a group of the measure ("Net sales:"): its rows are the parts
            total = _row_compared(last, year, growth=asked.growth)
            compared.append(replace(total, name=heading.rstrip(":").strip()))
            summed += 1
            continue
        compared += [
            _row_compared(row, year, growth=asked.growth)
            for row in rows
            if _compared(row.label, row.chunk) and not asked.measure <= terms(row.label)
        ]
    # One group summed is a statement's ("Operating expenses:" ... "Total operating
    # expenses"), beside rows of other measures.
    return compared if summed >= 2 else None


@dataclass(frozen=True)
class PartRow:
    """A row of the measure asked in a block of rows, or a table, that one part heads."""

    part: str
    row: Row
    label: str
    """The row's label as the page writes it ("Backlog at year-end")."""
    table: uuid.UUID
    """The table's first chunk: the blocks of one table are parts of one whole."""


def part_rows(
    asked: ExtremeQuestion, table: Sequence[tuple[Candidate, str]], page_before: str = ""
) -> list[PartRow]:
    """Returns the rows of the measure asked in the blocks of `table` that a part heads rather
    than a measure: a block under a short line naming the part (MGM Resorts' "Las Vegas Strip
    Resorts", "Regional Operations" and "MGM China", each over "Casino", "Rooms", ... rows), or
    a table titled by the part's results ("Aeronautics' operating results included the
    following", over "Net sales" ... "Backlog at year-end"). A block's row of the measure is
    one whose label writes some of its words, the titles above it the rest ("Casino" under
    "Net Revenues" is casino revenue), the fewest other words of such rows; none where two
    labels hold as few."""
    year = asked.year
    if year is None:
        return []
    found = []
    titled: set[str] = set()
    for title_lines, block in _blocks(table, asked, year, page_before):
        titled |= terms(" ".join(title_lines))
        part = _part_heading(title_lines, asked)
        labelled = [(_label_terms(row.label), row) for row in block if year in row.figures]
        rows = [
            (len(held - asked.measure), row)
            for held, row in labelled
            if held & asked.measure
            and asked.measure <= held | titled
            and not _NOT_COMPARED.match(row.label)
        ]
        fewest = min((extra for extra, _ in rows), default=0)
        named = [row for extra, row in rows if extra == fewest]
        if part and len({row.label for row in named}) == 1:
            label = row_label(shown_text(named[0].chunk.content, named[0].parts))
            found.append(PartRow(part, named[0], label, table[0][0].chunk_id))
    return found


def parts_extreme(asked: ExtremeQuestion, found: Sequence[PartRow]) -> Comparison | None:
    """Returns the comparison of the parts' rows of one label (of several labels, the one the
    most parts hold, the first of equals), each part once, its first row; None for fewer than
    two parts. Where one table's blocks hold two parts or more, that table's parts alone are
    compared (of several, the one with the most): another table's block of the label is no
    part beside them (MGM Resorts' "Casino" expenses beside its segments' casino revenue)."""
    year = asked.year
    by_label: dict[str, list[PartRow]] = {}
    for each in found:
        by_label.setdefault(each.label.lower(), []).append(each)
    rows: dict[str, Row] = {}
    for labelled in by_label.values():
        per_table = Counter(table for table, _ in {(each.table, each.part) for each in labelled})
        table, held = per_table.most_common(1)[0]
        parts: dict[str, Row] = {}
        for each in labelled:
            if held < 2 or each.table == table:
                parts.setdefault(each.part, each.row)
        if len(parts) > len(rows):
            rows = parts
    if year is None or len(rows) < 2:
        return None
    return _comparison(
        asked,
        [replace(_row_compared(row, year), name=part) for part, row in rows.items()],
    )


_PART_TITLE_WORDS = 6
"""A line heading a part's block is a name, a few words long."""
_PART_RESULTS = re.compile(
    r"(?P<part>(?:[A-Z][\w&\-]* +){0,4}[A-Z][\w&\-]*)['\u2019]s?\s+(?:\w+\s+){0,2}?results\b"
)
"""A part's results introduced by its name ("MFC's operating results included the
following")."""


def _part_heading(title_lines: Sequence[str], asked: ExtremeQuestion) -> str | None:
    """Returns the part that heads a block: the last part whose results its titles introduce
    on its last title line, else that line where it is a short name of none of the measure's
    words (not a label going on, "Asset management,", nor period words, "Three months ended"),
    else the last part whose results the titles introduce; None for none."""
    lines = [" ".join(line.split()) for line in title_lines]
    last = lines[-1].removesuffix(":") if lines else ""
    introduced = list(_PART_RESULTS.finditer(last))
    if introduced:
        return introduced[-1].group("part")
    words = last.split()
    named = (
        words
        and len(words) <= _PART_TITLE_WORDS
        and last[0].isupper()
        and not last.endswith(",")
        and not all(_PERIOD_WORD.match(word) for word in words)
        and not terms(last) & asked.measure
        and not _NOT_COMPARED.match(last)
        and not is_period_line(last)
        and not any(figure_value(word) is not None for word in words)
    )
    if named:
        return last
    introduced = list(_PART_RESULTS.finditer("\n".join(lines)))
    return introduced[-1].group("part") if introduced else None


def _blocks(
    table: Sequence[tuple[Candidate, str]], asked: ExtremeQuestion, year: int, page_before: str
) -> list[tuple[list[str], list[Row]]]:
    """Returns the blocks of a table's rows, each with the lines that title it.

    A table may stack blocks under lines of their own ("Net sales" rows, then "Operating
    profit" rows): such a line, after rows, begins a block titled by it, and a total ends the
    block it sums; rows right after a total stand under the title of the block it summed
    ("Revenue by business": "Total Banking", then "Fixed Income Markets"). The first block is
    titled by the table's header and the last TITLE_LINES lines of the page above the first
    chunk as well, or, when neither titles it (a table that opens its page, under its periods
    and units only), the last TITLE_LINES of `page_before`. A block goes on from one chunk of
    the table to the next. Lines of periods and units title nothing.
    """
    if not table:
        return []
    first, above = table[0]
    above_lines = _last_titling_lines(above)
    if not above_lines and not _last_titling_lines(first.table_header_text):
        above_lines = _last_titling_lines(page_before)
    blocks: list[tuple[list[str], list[Row]]] = [([first.table_header_text, *above_lines], [])]
    summed_title: list[str] = []
    for chunk, text_above in table:
        rows = asked.rows_of(chunk_rows(chunk, text_above), year)
        for line in _LINE.finditer(chunk.content):
            row = next(
                (row for row in rows if any(a <= line.start() < b for a, b in row.parts)), None
            )
            if row is not None:
                if row.parts[0][0] == line.start():
                    title_lines, block_rows = blocks[-1]
                    if not title_lines:
                        title_lines.extend(summed_title)
                    block_rows.append(row)
                    if row.label.startswith("total"):
                        summed_title = title_lines
                        blocks.append(([], []))
            elif _titling(line.group()):
                if blocks[-1][1]:
                    blocks.append(([], []))
                blocks[-1][0].append(line.group())
    return blocks


def _last_titling_lines(text: str) -> list[str]:
    """Returns the last TITLE_LINES lines of `text` that may title a table."""
    return [line for line in text.splitlines() if _titling(line)][-TITLE_LINES:]


def _titling(line: str) -> bool:
    return (
        bool(re.search(r"[A-Za-z]", line))
        and row_kind(line) is None
        and not (is_period_line(line) or is_unit_line(line))
    )


@dataclass(frozen=True)
class Comparison:
    """Which of the things compared holds the extreme asked, said with every figure compared,
    and the quotes of the rows they stand in."""

    statement: str
    quotes: list[Quote]


def compared_answer(comparisons: Sequence[Comparison]) -> Answer:
    """Returns the answer stating each comparison, one after another, then quoting the rows
    they read, each row once."""
    quotes = [quote for comparison in comparisons for quote in comparison.quotes]
    statement = "; ".join(comparison.statement for comparison in comparisons)
    return worked_out(statement, list(dict.fromkeys(quotes)))


@dataclass(frozen=True)
class Compared:
    """One of the things compared: its name, its figure for the year, and what quotes it."""

    name: str
    value: float
    quote: Quote
    amount: float | None = None
    """Of a growth compared (`value`, in percent), the figure for the year."""
    unit: str = ""
    """"%" for a figure the table prints as a percentage ("ROE 54 %"), " million" for an amount
    of a table in millions."""


def _row_compared(row: Row, year: int, *, growth: bool = False) -> Compared:
    quote = Quote(
        row.chunk,
        row.parts,
        quoted_row(row),
        COMPUTED_CONFIDENCE,
        row.chunk.table_header if headed(row) else None,
    )
    # A label's leaders ("EMEA ........ 1,336,448") are no part of its name.
    name = _LEADERS.sub("", row_label(shown_text(row.chunk.content, row.parts)))
    if growth:
        now, past = row.figures[year], row.figures[year - 1]
        return Compared(name, (now - past) / abs(past) * 100, quote, now, _unit(row))
    return Compared(name, row.figures[year], quote, unit=_unit(row))


def column_extreme(
    asked: ExtremeQuestion, page: PageText, chunks: Sequence[Candidate]
) -> Comparison | None:
    """Returns the comparison naming which of the things compared in a table on `page` holds the
    highest or lowest figure of the measure asked, read from where the figures stand under
    the table's heads; None when the page holds no such table.

    Where the table's columns stand in groups under a line of years, the groups are the things
    compared, and a row the measure ("Consumer & Community Banking", "Corporate & Investment
    Bank", ... each over "2021 2020 Change"); or the groups are measures and the rows the
    things compared ("Net Revenue" and "Operating Profit", each over "2021 2020 2019", beside
    each of PepsiCo's divisions). Each column of the year asked begins a group, the words of
    the heads above (on one line or several) name the group they stand over, and a row's
    figure under a group is the one nearest to its column. Else, the rows are compared under
    the column the measure heads ("Population (millions)" beside "Area (km2)"), whether or not
    a year is asked. `chunks` are the page's chunks, which quote the rows. Totals and
    reconciling items are no things compared.
    """
    lines = [(m.start(), m.end()) for m in _LINE.finditer(page.text)]
    year = asked.year
    if asked.growth:
        # Only column groups read a year before's figure where it stands: under the group's
        # own column of that year.
        return None if year is None else _groups_compared(asked, year, page, lines, chunks)
    grouped = (
        None
        if year is None
        else _groups_compared(asked, year, page, lines, chunks)
        or _rows_compared(asked, year, page, lines, chunks)
    )
    return grouped or _column_compared(asked, page, lines, chunks)


def _groups_compared(
    asked: ExtremeQuestion,
    year: int,
    page: PageText,
    lines: Sequence[Span],
    chunks: Sequence[Candidate],
) -> Comparison | None:
    """Returns the comparison of the column groups of the measure's row; a group's first
    figure, in page order, counts (a quarter's table before the six months')."""
    rows: list[tuple[int, int, list[Cell]]] = []
    for number, (start, end) in enumerate(lines):
        label = row_label(page.text[start:end])
        held = _label_terms(label)
        cells = _cells(page, start + len(label), end) if asked.measure <= held else []
        # A sentence's figures ("revenue increased $1.3 billion or 13%. Office 365 ...") stand
        # in no column.
        if label and len(cells) >= 2 and not _SENTENCE_END.search(page.text[start:end]):
            rows.append((number, len(held - asked.measure - _GENERIC), cells))
    # The measure's own row, not a longer one holding its words ("Net interest income").
    fewest = min((extra for _, extra, _ in rows), default=0)
    found: dict[str, Compared] = {}
    for number, extra, cells in rows:
        start, end = lines[number]
        chunk = _holding(chunks, start, end)
        heads = _column_heads(year, page, lines[:number])
        if extra > fewest or chunk is None or heads is None or len(cells) < len(heads[1]):
            continue
        head_lines, names = heads
        # A group's column of the year before is the one of its own place in the line of
        # years; the words over the groups name those columns apart less well.
        heads_before = _column_heads(year - 1, page, lines[:number]) if asked.growth else None
        before = [x for _, x in heads_before[1]] if heads_before else []
        quote = _headed_row(page, chunk, head_lines, (start, end))
        for place, (name, x) in enumerate(names):
            if name in found or _NOT_COMPARED.match(name):
                continue
            if not asked.growth:
                cell = _nearest_cell(cells, x)
                found[name] = Compared(name, cell.value, quote, unit="%" if cell.percent else "")
            elif len(before) == len(names) and (past := _nearest(cells, before[place])):
                now = _nearest(cells, x)
                found[name] = Compared(name, (now - past) / abs(past) * 100, quote, now)
    return _comparison(asked, list(found.values())) if len(found) >= 2 else None


def _rows_compared(
    asked: ExtremeQuestion,
    year: int,
    page: PageText,
    lines: Sequence[Span],
    chunks: Sequence[Candidate],
) -> Comparison | None:
    """Returns the comparison of the rows of the first table on the page that has a column
    group named by the measure (the group's name holding fewest other words, of several), each
    row by its figure under that group's column of the year."""
    tables: dict[int, list[Compared]] = {}
    for number, (start, end) in enumerate(lines):
        label = row_label(page.text[start:end])
        cells = _cells(page, start + len(label), end)
        # A row of bare figures is labelled by the line above it, past a note's marker
        # ("AMESA" / "(a)" / "6,078 4,573 ...").
        above = None if label else _label_line(page.text, lines[:number])
        if above is not None:
            start, label = above, " ".join(page.text[above : lines[number - 1][1]].split())
        label = _MARKED.sub("", label)
        chunk = _holding(chunks, start, end)
        if len(cells) < 2 or chunk is None or not _compared(label, chunk):
            continue
        heads = _column_heads(year, page, lines[:number])
        if heads is None or len(cells) < len(heads[1]):
            continue
        head_lines, names = heads
        measured = [
            (len(terms(name) - asked.measure), x)
            for name, x in names
            if asked.measure <= terms(name)
        ]
        compared = tables.setdefault(head_lines[0][0], [])
        if measured and label not in {each.name for each in compared}:
            quote = _headed_row(page, chunk, head_lines, (start, end))
            compared.append(Compared(label, _nearest(cells, min(measured)[1]), quote))
    found = next((compared for compared in tables.values() if len(compared) >= 2), None)
    return _comparison(asked, found) if found else None


def _column_compared(
    asked: ExtremeQuestion, page: PageText, lines: Sequence[Span], chunks: Sequence[Candidate]
) -> Comparison | None:
    """Returns the comparison of the first run of rows on the page (lines of a label and
    figures, one after another) whose heads, the HEAD_ROWS lines just above it, write the
    measure's words: each row by its figure that stands under them (the nearest of those
    whose extent meets theirs), rows with none left out."""
    number = 0
    while number < len(lines):
        run = _rows_run(page, lines, number)
        if not run:
            number += 1
            continue
        head_lines = _head_lines(page.text, lines[: run[0][0]])
        extent = _measure_extent(asked, page, head_lines) or _named_extent(asked, page, head_lines)
        compared = []
        for place, label, cells in run:
            start, end = lines[place]
            chunk = _holding(chunks, start, end)
            under = _under(cells, extent)
            if under is not None and chunk is not None and _compared(label, chunk):
                quote = _headed_row(page, chunk, head_lines, (start, end))
                compared.append(Compared(label, under, quote))
        if len(compared) >= 2:
            return _comparison(asked, compared)
        number = run[-1][0] + 1
    return None


HEAD_ROWS = 2
"""The lines just above a run of rows that may head its columns ("Population (millions) Area
(km2)")."""


def _under(cells: Sequence[Cell], extent: tuple[float, float] | None) -> float | None:
    """Returns the figure of the cell that stands under `extent` (of those that reach into it,
    the nearest to its centre); None when none does."""
    if extent is None:
        return None
    left, right = extent
    under = [cell for cell in cells if cell.left <= right and left <= cell.right]
    return _nearest(under, (left + right) / 2) if under else None


def _rows_run(
    page: PageText, lines: Sequence[Span], number: int
) -> list[tuple[int, str, list[Cell]]]:
    """Returns the rows from line `number` on, up to the first line that is none, each with its
    line's number, label and figures."""
    run = []
    for place in range(number, len(lines)):
        start, end = lines[place]
        label = row_label(page.text[start:end])
        cells = _cells(page, start + len(label), end) if label else []
        if not cells:
            break
        run.append((place, label, cells))
    return run


def _head_lines(text: str, lines: Sequence[Span]) -> list[Span]:
    """Returns the last HEAD_ROWS of `lines` that may head a table's columns, up to one that may
    not: words of a table, not prose, no figure."""
    heads: list[Span] = []
    for start, end in reversed(lines[-HEAD_ROWS:]):
        line = text[start:end]
        if not table_like(line) or row_kind(line) is not None:
            break
        heads.insert(0, (start, end))
    return heads


def _measure_extent(
    asked: ExtremeQuestion, page: PageText, head_lines: Sequence[Span]
) -> tuple[float, float] | None:
    """Returns how far across the page the heads that write the measure reach: the fewest
    words of a line that write all of it ("Traces/Tree", not "Traces" and "Trees/Loop" beside
    it), else its words over all of `head_lines`; None when they do not write all of it."""
    found: set[str] = set()
    boxes = []
    runs: list[tuple[int, int, int]] = []
    for start, end in head_lines:
        words = [
            (start + m.start(), start + m.end(), _head_terms(m.group()) & asked.measure)
            for m in _WORD.finditer(page.text[start:end])
        ]
        for first, (word_start, _, written) in enumerate(words):
            if not written:
                continue
            held: set[str] = set()
            for last in range(first, len(words)):
                held |= words[last][2]
                if held == asked.measure:
                    runs.append((last - first, word_start, words[last][1]))
                    break
        for word_start, word_end, written in words:
            if written:
                found |= written
                boxes.append(_box(page, word_start, word_end))
    if runs:
        _, run_start, run_end = min(runs)
        left, _, right, _ = _box(page, run_start, run_end)
        return left, right
    if found != asked.measure:
        return None
    return min(box[0] for box in boxes), max(box[2] for box in boxes)


def _named_extent(
    asked: ExtremeQuestion, page: PageText, head_lines: Sequence[Span]
) -> tuple[float, float] | None:
    """Returns how far across the page the one head word that the question writes as it
    stands reaches, a period's words aside ("June" of "June 26, 2021" names no column of its
    own); None unless one does."""
    named = [
        (start + m.start(), start + m.end())
        for start, end in head_lines
        for m in _WORD.finditer(page.text[start:end])
        if m.group() in asked.written
        and m.group().lower() not in STOPWORDS
        and any(c.isalpha() for c in m.group())
        and not _PERIOD_WORD.match(m.group())
    ]
    if len(named) != 1:
        return None
    left, _, right, _ = _box(page, *named[0])
    return left, right


def _head_terms(word: str) -> set[str]:
    """Returns the terms of a column's head word, a slash read as "per" ("Traces/Tree")."""
    return terms(word.replace("/", " per "))


_MARKED = re.compile(r"(?:\s*\([a-z0-9]\))+$")
"""Note markers after a row's label: "AMESA (a)"."""


def _label_line(text: str, lines: Sequence[Span]) -> int | None:
    """Returns where the label of a row of bare figures begins: the line above it, or above the
    note markers standing between; None when that line is no label (figures, or nothing)."""
    for start, end in reversed(lines):
        line = text[start:end].strip()
        if not _MARKED.fullmatch(f" {line}"):
            return start if re.search(r"[A-Za-z]", line) and row_kind(line) is None else None
    return None


def _headed_row(page: PageText, chunk: Candidate, head_lines: Sequence[Span], row: Span) -> Quote:
    """Returns the quote of a row of the table on `page` under its heads' lines: the heads
    quoted with it where the row's chunk holds them, else named as its header."""
    start, end = row
    within = (start - chunk.page_span_start, end - chunk.page_span_start)
    if all(_holds(chunk, *line) for line in head_lines):
        parts = (
            *((a - chunk.page_span_start, b - chunk.page_span_start) for a, b in head_lines),
            within,
        )
        return Quote(chunk, parts, shown_text(chunk.content, parts), COMPUTED_CONFIDENCE)
    shown = shown_text(page.text, (*head_lines, row))
    header = (head_lines[0][0], head_lines[-1][1])
    return Quote(chunk, (within,), shown, COMPUTED_CONFIDENCE, header)


def _nearest(cells: Sequence[Cell], x: float) -> float:
    """Returns the figure of the cell nearest to `x`."""
    return _nearest_cell(cells, x).value


def _nearest_cell(cells: Sequence[Cell], x: float) -> Cell:
    return min(cells, key=lambda cell: abs(cell.centre - x))


HEAD_LINES = 15
"""A table's line of years stands at most this many lines above a row of it."""
_PERIOD_WORD = re.compile(
    rf"(?:{MONTH}|\d{{1,2}},?|ended|ending|months?|years?|quarters?|weeks?|three|six|nine"
    r"|twelve)$",
    re.I,
)
"""A word of a period's heading ("Three months ended June 30,"): it names no group."""


def _holding(chunks: Sequence[Candidate], start: int, end: int) -> Candidate | None:
    """Returns the chunk of the page that holds its text from `start` to `end`, if one does."""
    return next((chunk for chunk in chunks if _holds(chunk, start, end)), None)


def _holds(chunk: Candidate, start: int, end: int) -> bool:
    return (
        chunk.page_start == chunk.page_end
        and chunk.page_span_start <= start
        and end <= chunk.page_span_end
    )


def _column_heads(
    year: int, page: PageText, lines: Sequence[Span]
) -> tuple[list[Span], list[tuple[str, float]]] | None:
    """Returns the lines of the heads over a row's column groups, and each group's name with
    where its column of `year` stands (its centre, in page units); None when the lines above
    the row hold no line of years that repeats `year`, or a group is left unnamed.

    The nearest line above the row that writes `year` twice or more heads the columns: each
    `year` begins a group, which runs to the next. The lines above it, up to a row or a line
    of prose, name the groups: each word over the groups (not left of the first, where the
    rows' labels stand) names the group nearest to it.
    """
    for place in reversed(range(max(0, len(lines) - HEAD_LINES), len(lines))):
        start, end = lines[place]
        words = [(start + m.start(), start + m.end()) for m in _WORD.finditer(page.text[start:end])]
        firsts = [k for k, (a, b) in enumerate(words) if page.text[a:b] == str(year)]
        if len(firsts) < 2:
            continue
        boxes = [_box(page, a, b) for a, b in words]
        groups = [
            (boxes[first][0], boxes[(firsts[k + 1] if k + 1 < len(firsts) else len(words)) - 1][2])
            for k, first in enumerate(firsts)
        ]
        left = groups[0][0] - (groups[0][1] - groups[0][0]) / 2
        named: list[list[list[str]]] = [[] for _ in groups]
        head_lines: list[Span] = []
        for above_start, above_end in reversed(lines[:place]):
            text = page.text[above_start:above_end]
            if row_kind(text):
                break
            over = [
                (page.text[a:b], _centre(page, a, b))
                for a, b in (
                    (above_start + m.start(), above_start + m.end()) for m in _WORD.finditer(text)
                )
            ]
            over = [(word, x) for word, x in over if x >= left and not _PERIOD_WORD.match(word)]
            if not over:
                continue
            if not table_like(" ".join(word for word, _ in over)):
                break
            head_lines.insert(0, (above_start, above_end))
            for group in named:
                group.insert(0, [])
            for word, x in over:
                nearest = min(range(len(groups)), key=lambda k: _distance(x, groups[k]))
                named[nearest][0].append(word)
        names = [" ".join(word for line in group for word in line) for group in named]
        if not all(names):
            return None
        centres = [(boxes[first][0] + boxes[first][2]) / 2 for first in firsts]
        return head_lines, list(zip(names, centres, strict=True))
    return None


def _label_terms(label: str) -> frozenset[str]:
    """Returns the terms of a row's label, what it adds in parentheses left out ("Net
    income/(loss)" is net income)."""
    return frozenset(terms(re.sub(r"/?\([^)]*\)", " ", label)))


def _distance(x: float, extent: tuple[float, float]) -> float:
    return max(extent[0] - x, x - extent[1], 0.0)


def _box(page: PageText, start: int, end: int) -> tuple[float, float, float, float]:
    boxes = page.char_boxes[start:end]
    return (
        float(boxes[:, 0].min()),
        float(boxes[:, 1].min()),
        float(boxes[:, 2].max()),
        float(boxes[:, 3].max()),
    )


def _centre(page: PageText, start: int, end: int) -> float:
    x0, _, x1, _ = _box(page, start, end)
    return (x0 + x1) / 2


class Cell(NamedTuple):
    """A figure of a row, with where it stands across the page."""

    value: float
    left: float
    right: float
    percent: bool = False

    @property
    def centre(self) -> float:
        return (self.left + self.right) / 2


def _cells(page: PageText, start: int, end: int) -> list[Cell]:
    """Returns the figures of a row after its label, each marked a percentage where a "%"
    ends it or stands right after it ("54 %")."""
    words = list(_WORD.finditer(page.text[start:end]))
    cells = []
    for place, m in enumerate(words):
        value = figure_value(m.group())
        if value is not None:
            x0, _, x1, _ = _box(page, start + m.start(), start + m.end())
            after = words[place + 1].group() if place + 1 < len(words) else ""
            cells.append(Cell(value, x0, x1, m.group().endswith("%") or after == "%"))
    return cells


def _when(year: int | None, period: Period | None) -> str:
    """Returns how an answer says the year or the period it read: " in 2021", " in the three
    months ended June 30, 2023"; "" for none."""
    if period is not None:
        shown = period.shown()
        return f" in the {shown[0].lower()}{shown[1:]}" if period.months else f" in {shown}"
    return "" if year is None else f" in {year}"


def group_figure(question: str, page: PageText, chunks: Sequence[Candidate]) -> Answer | None:
    """Returns the answer quoting the figure of the row and the column group `question` names
    in a table on `page` whose column groups are the things the figures are of ("What was the
    net income of JPMorgan Chase's Commercial Banking segment in the quarter ended June 30,
    2023?": the "Net income" row under "Commercial Banking", in its column of 2023); None when
    no table on the page has one.

    The row's label is one whose words the question all writes (of several, the longest), the
    group the one whose name's words it all writes, alone; its column of the year is read as
    column_extreme reads it. Of a quarter asked, a table of other months ("Six months ended")
    is not read; the first such row, in page order, answers.
    """
    when = _when_asked(question)
    if when is None:
        return None
    year, _, quarterly = when
    asked = terms(question)
    lines = [(m.start(), m.end()) for m in _LINE.finditer(page.text)]
    found: list[tuple[int, int, str, float, Quote]] = []
    for number, (start, end) in enumerate(lines):
        label = row_label(page.text[start:end])
        held = _label_terms(label)
        chunk = _holding(chunks, start, end)
        if not held or not held <= asked or chunk is None:
            continue
        cells = _cells(page, start + len(label), end)
        heads = _column_heads(year, page, lines[:number])
        if heads is None or len(cells) < len(heads[1]):
            continue
        head_lines, names = heads
        named = [
            (name, x)
            for name, x in names
            if terms(name) and terms(name) <= asked and not _NOT_COMPARED.match(name)
        ]
        heading = " ".join(page.text[a:b] for a, b in head_lines)
        if len(named) != 1 or (quarterly and _other_months(heading, quarterly)):
            continue
        name, x = named[0]
        quote = _headed_row(page, chunk, head_lines, (start, end))
        found.append((-len(held), number, f"{name}: {label}", _nearest(cells, x), quote))
    if not found:
        return None
    _, _, said, figure, quote = min(found, key=lambda each: each[:2])
    return worked_out(f"{said} {shown_figure(figure)}{_when(year, quarterly)}", [quote])


_ASKS_SHARE = re.compile(r"\b(?:share|percent(?:age)?|portion|proportion|fraction)\b", re.I)
"""A question asking what part of a whole something is: no row's figure states it."""


def block_figure(
    question: str, table: Sequence[tuple[Candidate, str]], page_before: str = ""
) -> Answer | None:
    """Returns the answer quoting the figure of the row `question` names in the block of a
    stacked table that the measure it asks titles ("What operating income did Intel's
    Datacenter and AI (DCAI) segment report for the quarter ended October 1, 2022?": the
    "Datacenter and AI" row under "Operating income (loss):", not the one under "Operating
    segment revenue:" above it), in the column of the year or period asked; None when no such
    block and row are named, or several alike.

    A block is titled by the last line above its rows: the first block's by the line under
    the table's header ("Net Sales:"), or else the last line of the header or above it, which
    mostly names more than one measure ("Net revenue and operating income (loss) ..."). A
    block's title and a row's label are named when the question writes all their terms, what
    they add in parentheses aside (a note's marker, "Advertising services (5)"); of several
    rows, the one with the longest label. A line of period words ("Six Months Ended") titles
    no block; a question asking a share is not answered by a figure."""
    figure = _figure_asked(question)
    if figure is None:
        return None
    asked, year, quarterly = figure
    question_terms = terms(question)
    found: list[tuple[int, str, Row]] = []
    for title_lines, block in _blocks(table, asked, year, page_before):
        title = title_lines[-1] if title_lines else ""
        measure = _label_terms(title)
        periods_only = all(_PERIOD_WORD.match(word) for word in title.split())
        if not measure or periods_only or not measure <= question_terms:
            continue
        for row in block:
            held = _label_terms(row.label)
            if held and held <= question_terms and not _NOT_COMPARED.match(row.label):
                found.append((len(held), title, row))
    longest = max((held for held, _, _ in found), default=0)
    named = [(title, row) for held, title, row in found if held == longest]
    if len({row.label for _, row in named}) > 1:
        # "the Equity Markets business in JPMorgan Chase's Corporate & Investment Bank" names
        # "Equity Markets" as its row writes it, "Investment Banking" only by its terms.
        named = [(title, row) for title, row in named if _written_in(row.label, question)]
    if len({row.label for _, row in named}) != 1:
        return None
    title, row = named[0]
    compared = _row_compared(row, year)
    said = f"{compared.name}: {title.rstrip(':')} {_as_printed(row, compared.value)}"
    return worked_out(f"{said}{_when(year, quarterly)}", [compared.quote])


def _as_printed(row: Row, figure: float) -> str:
    return f"{shown_figure(figure)}{_unit(row)}"


def _unit(row: Row) -> str:
    """Returns the unit of a row's figures: a rate's percent, an amount's the table's scale."""
    if row.rate:
        return "%"
    return f" {row.scale.removesuffix('s')}" if row.scale else ""


def _written_in(label: str, question: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(label)}(?!\w)", question, re.IGNORECASE) is not None


_TOTAL = re.compile(r"^total\s+", re.I)


def section_figure(
    question: str, table: Sequence[tuple[Candidate, str]], page_before: str = ""
) -> Answer | None:
    """Returns the answer quoting the figure of the row `question` names in a table of the
    section that the part it asks of heads ("What was the net income of JPMorgan Chase's
    Consumer & Community Banking segment in the first quarter of 2021?": the "Net income" row
    of the table under "Consumer & Community Banking", whose rows name measures, not parts),
    in the column of the year or period asked; None when the table's section is no part the
    question names, or no row or several alike are named.

    The section is named when the question writes all its terms and it is no row's measure
    (a section "Net Revenues"); a row is named as in block_figure, a total by what it sums."""
    figure = _figure_asked(question)
    if figure is None or not table:
        return None
    asked, year, quarterly = figure
    question_terms = terms(question)
    section = table[0][0].section or ""
    part = _label_terms(section)
    # A section named for a measure ("Net revenue") heads the tables of that measure, or of
    # the next, not a part whose rows name measures.
    if not part or not part <= question_terms or measures_named(section):
        return None
    found: list[tuple[int, Row]] = []
    for _, block in _blocks(table, asked, year, page_before):
        for row in block:
            # The part's whole is its figure: "Total assets under management" is its assets
            # under management.
            measure = _TOTAL.sub("", row.label)
            held = _label_terms(measure)
            asked_row = bool(held) and held <= question_terms and not part <= held
            if asked_row and year in row.figures and not _NOT_COMPARED.match(measure):
                found.append((len(held), row))
    longest = max((held for held, _ in found), default=0)
    named = [row for held, row in found if held == longest]
    if len({row.label for row in named}) != 1:
        return None
    compared = _row_compared(named[0], year)
    said = f"{section}: {compared.name} {_as_printed(named[0], compared.value)}"
    return worked_out(f"{said}{_when(year, quarterly)}", [compared.quote])


def _figure_asked(question: str) -> tuple[ExtremeQuestion, int, Period | None] | None:
    """Returns how a part's one figure `question` asks is read (rows of the year or period
    asked, no measure compared), the year, and the period where it is part of a year; None when
    it names no year or asks a share, which no row's figure states."""
    when = _when_asked(question)
    if when is None or _ASKS_SHARE.search(question):
        return None
    year, period, quarterly = when
    asked = ExtremeQuestion(
        highest=True,
        measure=frozenset(),
        year=year,
        named="",
        period=period,
        quarterly=quarterly is not None,
    )
    return asked, year, quarterly


def _when_asked(question: str) -> tuple[int, Period | None, Period | None] | None:
    """Returns the year `question` asks of, the period it writes out, and that period again
    where it is part of a year (a quarter: only its column holds the figure); None when it
    names no year."""
    years = _YEAR.findall(question)
    period = asked_period(question)
    if period is None and not years:
        return None
    year = period.ended[0] if period else int(years[-1])
    return year, period, period if period is not None and asks_part_of_year(question) else None


def _other_months(heading: str, period: Period) -> bool:
    """Says whether a table's heads name spans of months, none the period's ("Six months ended"
    over a quarter asked)."""
    spans = {SPANNED[word.lower()] for word in MONTHS_SPANNED.findall(heading)}
    return bool(spans) and period.months not in spans


def _comparison(asked: ExtremeQuestion, compared: Sequence[Compared]) -> Comparison:
    if asked.counted is not None and len(compared) > asked.counted:
        compared = [each for each in compared if not _CORPORATE.fullmatch(each.name)]

    # A column prints its "%" on its first row only ("49.7 %" over "56.0"), and a part's
    # table may stand under no header of its unit: the one unit said is every figure's.
    units = {each.unit for each in compared if each.unit}
    said = units.pop() if len(units) == 1 else ""

    def shown(each: Compared) -> str:
        unit = each.unit or said
        if each.amount is None:
            return f"{shown_figure(each.value)}{unit}"
        return f"{shown_figure(each.amount)}{unit} ({each.value:+.1f}%)"

    listed = ", ".join(f"{each.name} {shown(each)}" for each in compared)
    when = _when(asked.year, asked.period if asked.quarterly else None)
    quotes = list(dict.fromkeys(each.quote for each in compared))
    if asked.sign:
        moved = "rise" if asked.sign > 0 else "decline" if asked.growth else "income below zero"
        held = [f"{each.name} {shown(each)}" for each in compared if each.value * asked.sign > 0]
        if not held:
            return Comparison(f"None{when}: no {moved}, of {listed}", quotes)
        article = "a" if asked.growth else "an"
        return Comparison(f"{', '.join(held)}{when}: {article} {moved}, of {listed}", quotes)
    extreme = (max if asked.highest else min)(compared, key=lambda each: each.value)
    word = "highest" if asked.highest else "lowest"
    return Comparison(
        f"{extreme.name}, {shown(extreme)}{when}: the {word} {asked.named} of {listed}",
        quotes,
    )
