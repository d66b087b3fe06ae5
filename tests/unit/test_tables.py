"""Tables as tables: found in a page's lines, chunked by whole rows under their header, and
their rows quoted with that header."""

from __future__ import annotations

from app.answer.units import claim_units
from app.chunking.chunker import chunk_pages
from app.chunking.tables import find_tables
from app.core.chunks import TABLE
from app.core.geometry import page_lines
from app.core.rows import is_period_line, is_unit_line, one_figure_row, row_kind, row_label
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
    assert row_kind("emergencystretch 3em 1em 0pt") == "figures"
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
    # An aside's figures are the label's, where the aside closes.
    assert (
        row_label("Pennsylvania (effective January 28, 2021) 70 — —")
        == "Pennsylvania (effective January 28, 2021)"
    )
    assert row_label("Interest expense (3,602) 5,772") == "Interest expense"
    assert row_label("Other (effective 2021 70 80") == "Other (effective"


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


COMMITMENTS = [
    "Total future purchase commitments as of October 29, 2023 are as follows:",
    "Commitments",
    "(In millions)",
    "Fiscal Year:",
    "2024 $ 6,499",
    "2025 11,861",
    "2029 and thereafter 354",
    "Total $ 21,540",
    "Accrual for Product Warranty Liabilities",
    "The estimated amount of product warranty liabilities was $142 million as of October 29.",
]


def test_a_label_and_one_figure_is_a_row_only_under_another() -> None:
    assert one_figure_row("Total $ 21,540") and one_figure_row("Cash payments (487)")
    assert not one_figure_row("Liabilities (2)")  # a footnote mark
    assert not one_figure_row("from YTD 2021") and not one_figure_row("Year Ending June 30,")
    page = page_of(COMMITMENTS, frozenset({1, 7, 8, 9}))
    [table] = find_tables(page_lines(page))
    # The total after a blank line closes the column of years; the heading below it is no row.
    assert page.text[: table.end].endswith("Total $ 21,540")
    assert len(table.row_ends) == 4
    content = page.text[table.start : table.end]
    assert table.header is not None
    for header_end in (None, table.header[1] - table.start):  # as prose, as a table's chunk
        rows = [unit for unit in claim_units(content, None, header_end) if unit.kind == "row"]
        assert [content[slice(*unit.parts[-1])] for unit in rows][-1] == "Total $ 21,540"
    lone = page_of(["Accrual for Product Warranty Liabilities", "Total $ 21,540", PROSE])
    assert find_tables(page_lines(lone)) == []


MATURITIES = [
    "Our aggregate debt maturities as of October 29, 2023, by year payable, are as follows:",
    "(In millions)",
    "Due in one year $ 1,250",
    "Due in one to five years 2,250",
    "Due in five to ten years 2,750",
    "Total long-term portion $ 8,457",
    "We have a $575 million commercial paper program to support general corporate purposes.",
]


def test_a_column_of_labels_and_one_figure_each_is_a_table() -> None:
    page = page_of(MATURITIES)
    [table] = find_tables(page_lines(page))
    assert table.header_text == " ".join(MATURITIES[:2])
    assert [page.text[:end].rsplit("\n", 1)[-1] for end in table.row_ends] == MATURITIES[2:6]
    # Two such lines are not enough: prose and contents pages write them too.
    assert find_tables(page_lines(page_of([PROSE, *MATURITIES[3:5], PROSE]))) == []
