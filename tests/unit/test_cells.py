"""A table's cell: the figure of the column a question names in the row it names, read
without guessing or not at all."""

from __future__ import annotations

import dataclasses

from app.answer.cells import CELL_CONFIDENCE, cell_answer, column_names, table_rows
from app.core.chunks import Candidate
from tests.helpers.chunks import statement_chunk

HEADER = (
    "Table 2: Performance of the 70B+ models.\n"
    "Datasets Mixtral-8x22B Llama-3-70B Qwen2-72B\n"
    "Architecture MoE Dense Dense\n"
    "English\n"
)
FIRST = HEADER + "MMLU 77.8 79.5 84.2\nMMLU-Pro 49.5 52.8 55.6\n"
SECOND = "Chinese\n\nC-Eval 54.6 65.2 91.0\nCMMLU - 67.2 90.1\n"


def results_table() -> list[Candidate]:
    """Returns a results table's two chunks on one page, its header in the first."""
    header_text = " ".join(HEADER.split())
    first = statement_chunk(1, FIRST, page=9, header=header_text)
    second = statement_chunk(2, SECOND, page=9, header=header_text)
    return [
        dataclasses.replace(first, table_header=(0, len(HEADER))),
        dataclasses.replace(
            second,
            table_header=(0, len(HEADER)),
            page_span_start=len(FIRST),
            page_span_end=len(FIRST) + len(SECOND),
        ),
    ]


def test_rows_are_a_label_then_figures_below_the_header() -> None:
    first, second = results_table()
    assert [(row.label, row.figures) for row in table_rows(first)] == [
        ("MMLU", ("77.8", "79.5", "84.2")),
        ("MMLU-Pro", ("49.5", "52.8", "55.6")),
    ]
    assert [row.label for row in table_rows(second)] == ["C-Eval", "CMMLU"]


def test_column_names_come_from_the_lines_that_can_head_the_figures() -> None:
    lines = HEADER.splitlines()
    assert column_names(lines, 3) == [
        ("MoE", "Dense", "Dense"),
        ("Mixtral-8x22B", "Llama-3-70B", "Qwen2-72B"),
    ]
    # Years head a statement's periods, never named columns; prose heads nothing.
    assert column_names(["Year ended June 30, 2023 2022"], 2) == []
    assert column_names(["The results are shown in Table 2."], 6) == []


def test_the_cell_of_the_column_and_the_row_named_answers() -> None:
    answer = cell_answer("What score did the Qwen2-72B base model get on C-Eval?", results_table())
    assert answer is not None
    assert answer.text.startswith("C-Eval, Qwen2-72B: 91.0 [1]")
    assert answer.confidence == CELL_CONFIDENCE
    (claim,) = answer.claims
    assert claim.chunk.chunk_id == results_table()[1].chunk_id
    assert claim.header == (0, len(HEADER))


def test_a_cell_is_not_guessed() -> None:
    table = results_table()
    # No column named, two columns named, a column named otherwise than its header writes it,
    # no row named.
    for question in (
        "What is the best C-Eval score?",
        "How does Qwen2-72B compare with Llama-3-70B on C-Eval?",
        "What score did qwen2-72b get on C-Eval?",
        "How does Qwen2-72B do on reasoning?",
    ):
        assert cell_answer(question, table) is None, question
    # The row whose label the question holds whole: MMLU, not MMLU-Pro.
    answer = cell_answer("What is Qwen2-72B's MMLU score?", table)
    assert answer is not None and answer.text.startswith("MMLU, Qwen2-72B: 84.2")


def one_chunk_table(
    n: int, header: str, rows: str, *, page: int, document_title: str = "Acme Corp 10-K"
) -> list[Candidate]:
    """Returns a table of one chunk, its header's lines above its rows."""
    chunk = statement_chunk(n, header + rows, page=page, header=" ".join(header.split()))
    return [
        dataclasses.replace(chunk, table_header=(0, len(header)), document_title=document_title)
    ]


def test_a_word_of_grammar_names_no_column() -> None:
    header = "Number of combined end % of\ncustomers net sales in 2022\nsegment customers of\n"
    table = one_chunk_table(3, header, "Display Technologies 2 37%\n", page=14)
    asked = "What was the segment net income of Corning's Display Technologies segment in 2022?"
    assert column_names(header.splitlines(), 2) == []
    assert cell_answer(asked, table) is None


def test_one_word_names_no_column_and_row_at_once() -> None:
    # A label's last word left alone on its line ("Lending- and deposit-related" / "income"),
    # under a column the same word heads.
    rows = "Lending- and deposit-related\nincome 703 320\n"
    table = one_chunk_table(4, "Revenue fees income\n", rows, page=20)
    asked = "What was the net income of the Consumer & Community Banking segment?"
    assert cell_answer(asked, table) is None


def test_the_company_s_own_words_name_no_column() -> None:
    header = "Year Ended December 31,\nSegment Strip Resorts\n"
    rows = "Regional Operations 759,096 399,701\n"
    table = one_chunk_table(5, header, rows, page=91, document_title="MGM Resorts International")
    asked = "What were the net revenues of MGM Resorts' Regional Operations segment in 2018?"
    assert column_names(header.splitlines(), 2)[0] == ("Strip", "Resorts")
    assert cell_answer(asked, table) is None


def test_a_date_heads_no_column_and_labels_no_row() -> None:
    # A date's words wrapped one to a line: "December" over "31, 2022".
    header = "(in millions)\nJune 30,\n2023\nDecember\n"
    table = one_chunk_table(6, header, "31, 2022\n", page=50)
    asked = "Was the CET1 capital ratio higher at June 30, 2023 than at December 31, 2022?"
    assert table_rows(table[0]) == []
    assert ("December",) not in column_names(header.splitlines(), 1)
    assert cell_answer(asked, table) is None


def test_a_title_over_the_labels_names_no_column() -> None:
    header = "Three months ended March 31,\n(in millions) 2021 2020 Change\nRevenue by business\n"
    table = one_chunk_table(7, header, "Equity Markets 3,289 2,237 47\n", page=24)
    asked = "How much revenue did the Equity Markets business generate in the first quarter?"
    assert column_names(header.splitlines(), 3) == []
    assert cell_answer(asked, table) is None
