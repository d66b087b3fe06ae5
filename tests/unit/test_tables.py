"""Tables as tables: found in a page's lines, chunked by whole rows under their header, and
their rows quoted with that header."""

from __future__ import annotations

from app.answer.units import claim_units
from app.chunking.chunker import chunk_pages
from app.chunking.tables import find_tables
from app.core.chunks import TABLE
from app.core.geometry import page_lines
from app.core.rows import is_period_line, is_unit_line, row_kind, row_label
from tests.helpers.chunks import count_words
from tests.helpers.pages import page_of

CAPTION = "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS"
UNIT = "(In millions, except per share amounts)"
PERIOD = "Three Months Ended Nine Months Ended"
DATES = "July 1, 2023 June 25, 2022 July 1, 2023 June 25, 2022"
ROWS = [
    "Products $ 60,584 $ 63,355 $ 230,901 $ 245,241",
    "Services 21,213 19,604 62,886 58,941",
    "Total net sales 81,797 82,959 293,787 304,182",
    "Research and development 7,442 6,797 22,608 19,490",
    "Selling, general and administrative 5,973 6,012 18,781 18,654",
    "Total operating expenses 13,415 12,809 41,389 38,144",
    "Operating income 22,998 23,076 87,332 94,543",
    "Net income $ 19,881 $ 19,442 $ 74,039 $ 79,082",
]
PROSE = "The company reports its results of operations in the statements that follow below."
AFTER = "See accompanying Notes to Condensed Consolidated Financial Statements."
STATEMENT = [PROSE, CAPTION, UNIT, PERIOD, DATES, *ROWS, AFTER]
BLOCKS = frozenset({1, len(STATEMENT) - 1})
"""The statement stands in a block of its own, between two paragraphs."""
HEADER = " ".join([CAPTION, UNIT, PERIOD, DATES])


def test_lines_are_told_apart() -> None:
    assert row_kind(ROWS[0]) == "figures"
    assert row_kind(DATES) is None and is_period_line(DATES)
    assert is_period_line("2023 2022 2023 2022") and not is_period_line(ROWS[1])
    assert is_unit_line(UNIT) and is_unit_line("($ in thousands)") and is_unit_line("$ million")
    assert not is_unit_line(PROSE)


def test_a_rows_label_is_its_words_before_its_figures() -> None:
    assert row_label(ROWS[0]) == "Products"
    assert row_label(ROWS[-1]) == "Net income"
    assert row_label("Total operating expenses 13,415 12,809") == "Total operating expenses"
    assert row_label("Deferred revenue — 1,204") == "Deferred revenue"
    assert row_label(PROSE) == PROSE


def test_a_statement_is_found_with_its_header() -> None:
    page = page_of(STATEMENT, BLOCKS)
    [table] = find_tables(page_lines(page))
    assert table.header_text == HEADER
    assert table.header is not None
    assert page.text[table.header[0] : table.header[1]] == "\n".join([CAPTION, UNIT, PERIOD, DATES])
    assert page.text.startswith(CAPTION, table.start) and page.text[: table.end].endswith(ROWS[-1])
    assert [page.text[:end].rsplit("\n", 1)[-1] for end in table.row_ends] == ROWS


def test_prose_has_no_table() -> None:
    growth = "It grew by 5 percent in 2023 and by 7 percent in 2022."
    page = page_of([PROSE, growth])
    assert find_tables(page_lines(page)) == []


def test_table_chunks_hold_whole_rows_once_under_the_header_and_its_title() -> None:
    page = page_of(STATEMENT, BLOCKS)
    chunks = chunk_pages([page], [], max_tokens=64, overlap_tokens=10, count_tokens=count_words)
    tables = [chunk for chunk in chunks if TABLE in chunk.flags]
    assert len(tables) > 1
    rows_seen: list[str] = []
    for chunk in tables:
        assert chunk.content == page.text[chunk.page_span_start : chunk.page_span_end]
        assert chunk.table_header_text == HEADER
        # Its title, not its periods and units: those every statement shares.
        assert chunk.context_header.split(" > ")[-1] == CAPTION
        assert UNIT not in chunk.context_header and PERIOD not in chunk.context_header
        assert chunk.table_header is not None
        lines = chunk.content.split("\n")
        assert all(line in ROWS or line in HEADER for line in lines if line)
        rows_seen += [line for line in lines if line in ROWS]
    assert rows_seen == ROWS  # every row once, none repeated
    assert all(TABLE not in chunk.flags for chunk in chunks if PROSE in chunk.content)


def test_a_table_chunks_rows_are_quoted_with_the_tables_header() -> None:
    page = page_of(STATEMENT, BLOCKS)
    chunks = chunk_pages([page], [], max_tokens=64, overlap_tokens=10, count_tokens=count_words)
    later = [chunk for chunk in chunks if TABLE in chunk.flags][-1]
    assert later.table_header is not None
    header_end = later.table_header[1] - later.page_span_start
    assert header_end <= 0  # the header stands before this chunk
    units = claim_units(later.content, None, header_end)
    rows = [unit for unit in units if unit.kind == "row"]
    assert rows and all(unit.headed for unit in rows)
    assert [later.content[slice(*unit.parts[-1])] for unit in rows] == [
        line for line in later.content.split("\n") if line in ROWS
    ]


def test_a_paragraph_leading_into_a_table_is_its_caption_not_its_rows() -> None:
    lead_in = [
        "Operating expenses for the three- and nine-month periods ended July 1, 2023 and",
        "June 25, 2022 were as follows (dollars in millions):",
    ]
    lines = [PROSE, *lead_in, PERIOD, DATES, *ROWS[3:6]]
    page = page_of(lines, frozenset({1, 3}))
    [table] = find_tables(page_lines(page))
    assert table.header_text == " ".join([*lead_in, PERIOD, DATES])
    assert page.text.startswith(lead_in[0], table.start)
