"""Which row of a table holds the highest or lowest figure: the question, the table chosen and
the answer that names the row and quotes every row compared."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import pymupdf
import pytest

from app.answer.claims import Answer, terms
from app.answer.extremes import (
    Comparison,
    ExtremeQuestion,
    PartRow,
    asked_extremes,
    block_figure,
    column_extreme,
    compared_answer,
    group_figure,
    part_rows,
    parts_extreme,
    section_figure,
    table_extreme,
)
from app.core.chunks import Candidate
from app.pdf.reader import extract_page
from tests.helpers.chunks import statement_chunk
from tests.helpers.corpus import corpus_path


def asked_extreme(question: str) -> ExtremeQuestion | None:
    """Returns the first comparison `question` asks for."""
    asks = asked_extremes(question)
    return asks[0] if asks else None


def answered(comparison: Comparison | None) -> Answer | None:
    return compared_answer([comparison]) if comparison else None


def figure_text(read: Callable[..., Answer | None], question: str, chunk: Candidate) -> str:
    """Returns the text of the figure `read` answers `question` with from a table of `chunk`."""
    answer = read(question, [(chunk, "")])
    assert answer is not None
    return answer.text


NOTIONAL_ABOVE = (
    "We do not hold derivatives for trading purposes.\n"
    "The following table sets forth the notional amounts of our outstanding derivative "
    "instruments:\n(dollars in millions)\nAt December 31,\n2021\n2020\n"
)
NOTIONAL = statement_chunk(
    1,
    "Interest rate swaps $ 19,779 $ 17,768\nCross currency swaps 32,502 26,288\n"
    "Forward starting interest rate swaps 1,000 2,000\nForeign exchange forwards 932 1,405\n",
    page=85,
)
QUESTION = (
    "Among all of the derivative instruments that Verizon used to manage the exposure to "
    "fluctuations of foreign currencies exchange rates or interest rates, which one had the "
    "highest notional value in FY 2021?"
)


@pytest.mark.parametrize(
    ("question", "highest", "measure", "year"),
    [
        (QUESTION, True, {"notional"}, 2021),
        (
            "In fiscal 2018, which category received the largest share of Walmart's U.S. "
            "capital expenditures, and how much was spent on it?",
            True,
            terms("capital expenditures"),
            2018,
        ),
        (
            "Which component of American Water Works' Regulated Businesses operation and "
            "maintenance expense was the largest in 2022, and how much was it?",
            True,
            terms("operation and maintenance expense"),
            2022,
        ),
        (
            "Which SunSpider benchmark has the highest number of traces per tree?",
            True,
            terms("traces per tree"),
            None,
        ),
        (
            "Which of JPM's business segments had the lowest net revenue in 2021 Q1?",
            False,
            {"net", "revenue"},
            2021,
        ),
        (
            "In 2022 Q2, which of JPM's business segments had the highest net income?",
            True,
            {"net", "income"},
            2022,
        ),
        (  # "for" a period ends the measure, "for" anything else goes on with it
            "Which of JPM's segments had the largest provision for credit losses in 2022 Q2?",
            True,
            terms("provision for credit losses"),
            2022,
        ),
        (
            "Which segment had the highest operating income for fiscal 2022?",
            True,
            terms("operating income"),
            2022,
        ),
    ],
)
def test_the_comparison_asked(
    question: str, highest: bool, measure: set[str], year: int | None
) -> None:
    asked = asked_extreme(question)
    assert asked is not None
    assert (asked.highest, asked.measure, asked.year) == (highest, measure, year)


@pytest.mark.parametrize(
    "question",
    [
        "Which derivative instruments does Verizon use?",  # no comparison
        "What was the highest notional amount in 2021?",  # no "which"
    ],
)
def test_questions_that_ask_no_comparison(question: str) -> None:
    assert asked_extreme(question) is None


def test_a_comparison_of_no_year_reads_no_year_s_column() -> None:
    asked = asked_extreme("Which one had the highest notional amount?")
    assert asked is not None and asked.year is None
    assert table_extreme(asked, [(NOTIONAL, NOTIONAL_ABOVE)]) is None


def compared_on_page(parts: tuple[str, ...], index: int, question: str) -> Answer | None:
    """Returns the comparison `question` asks of the tables on page `index` (0-based) of a PDF
    of the shared corpus, the page one chunk."""
    with pymupdf.open(corpus_path(*parts)) as document:
        text = extract_page(document[index])
    asked = asked_extreme(question)
    assert asked is not None
    return answered(column_extreme(asked, text, [statement_chunk(5, text.text, page=index + 1)]))


@pytest.mark.parametrize(
    ("parts", "index", "question", "start"),
    [
        # "Population (millions)" beside "Area (km2)": each row's figure under the measure's head.
        (
            ("docs", "multicolumn.pdf"),
            2,
            "Which country in the EU countries table has the smallest population, and how large "
            "is it?",
            "Finland, 5.5: the lowest population of Austria 8.9, Belgium 11.5, Czech Republic "
            "10.7, Denmark 5.8, Finland 5.5 [1] Table 1: EU Countries Information Country "
            "Population (millions) Area (km2) Capital Official Language Austria 8.9 83,879 Vienna "
            "German [1]",
        ),
        # "Traces/Tree" writes "traces per tree"; "Traces" and "Trees/Loop" beside it a part.
        (
            ("docs", "tracemonkey.pdf"),
            11,
            "Which SunSpider benchmark has the highest number of traces per tree in the "
            "TraceMonkey paper's recording statistics?",
            "string-unpack-code, 9.3: the highest number of traces per tree of 3d-cube 1.1, "
            "3d-morph 1, 3d-raytrace 4, ",
        ),
        # Languages are the rows, models the columns; their average is no language.
        (
            ("docs", "test_4751_Qwen2_tech_report.pdf"),
            17,
            "In Qwen2's multilingual human evaluation, in which language did Qwen2-72B-Instruct "
            "get its highest score, and what was it?",
            "Russian, 4.15: the highest score of Arabic 3.86, French 4.01, Indonesian 3.83, "
            "Japanese 3.63, Korean 4.14, Portuguese 3.97, Russian 4.15, Spanish 4.1, Thai 3.75, "
            "Vietnamese 3.91 [1]",
        ),
        # The question's "June" is the "June" of "June 26, 2021" over a column of nine months.
        (
            ("eval", "docugami_sec10q", "docs", "2022_Q3_AAPL.pdf"),
            18,
            "Which of Apple's geographic reportable segments grew net sales the fastest in the "
            "quarter ended June 25, 2022?",
            None,
        ),
    ],
)
def test_a_column_a_head_writes_the_measure_of_or_the_question_names(
    parts: tuple[str, ...], index: int, question: str, start: str | None
) -> None:
    answer = compared_on_page(parts, index, question)
    assert (answer.text[: len(start)] if answer else None) == start


def test_the_row_with_the_highest_figure_of_the_year_and_every_row_compared() -> None:
    asked = asked_extreme(QUESTION)
    assert asked is not None
    answer = answered(table_extreme(asked, [(NOTIONAL, NOTIONAL_ABOVE)]))
    assert answer is not None
    assert answer.text.startswith(
        "Cross currency swaps, 32,502 million in 2021: the highest notional value of Interest "
        "rate swaps 19,779 million, Cross currency swaps 32,502 million, Forward starting "
        "interest rate swaps 1,000 million, Foreign exchange forwards 932 million [1]"
    )
    assert "Cross currency swaps 32,502 26,288 [1]" in answer.text
    assert answer.sources == ["acme-10k.pdf, p. 85"]
    for claim in answer.claims:
        assert claim.text == claim.chunk.content[claim.start : claim.end].strip()


def test_the_lowest_figure_and_totals_aside() -> None:
    chunk = statement_chunk(
        2,
        "Revenue by segment\n(in millions)\n2021 2020\nNorth America 5,000 4,000\n"
        "Europe (120) 300\nAsia 900 800\nTotal 5,780 5,100\n",
        page=40,
    )
    asked = asked_extreme("Which segment had the lowest revenue in FY2021?")
    assert asked is not None
    answer = answered(table_extreme(asked, [(chunk, "")]))
    assert answer is not None
    assert answer.text.startswith(
        "Europe, -120 million in 2021: the lowest revenue of North America 5,000 million,"
    )
    assert "Total 5,780" not in answer.text.split("[1]")[0]


def test_a_table_opening_its_page_is_titled_by_the_end_of_the_page_before() -> None:
    chunk = statement_chunk(
        3,
        "2015 2014\n(In millions)\nEurope 168 325\nChina 1,145 2,324\nJapan 1,254 1,324\n"
        "Total sales to external customers $ 3,991 $ 5,506\n",
        page=84,
    )
    before = (
        "The Company's sales offices are located in the United States, Europe and Asia.\n"
        "The following table summarizes sales to external customers by country:\n \n81\n"
    )
    asked = asked_extreme(
        "Which country generated the largest sales to external customers in 2015?"
    )
    assert asked is not None
    assert answered(table_extreme(asked, [(chunk, "")])) is None
    answer = answered(table_extreme(asked, [(chunk, "")], before))
    assert answer is not None
    assert answer.text.startswith(
        "Japan, 1,254 in 2015: the highest sales to external customers of Europe 168, China 1,145"
    )


def test_blocks_stacked_in_one_table_are_compared_apart() -> None:
    chunk = statement_chunk(
        3,
        "Net sales\n2021 2020 2019\nAeronautics $ 26,748 $ 26,266 $ 23,693\n"
        "Space 11,814 11,880 10,860\nTotal net sales $ 38,562 $ 38,146 $ 34,553\n"
        "Operating profit\nAeronautics $ 2,799 $ 2,843 $ 2,521\nSpace 1,134 1,149 1,191\n"
        "Return on sales 10.5 % 10.8 %\n",
        page=42,
    )
    above = "Summary operating results for each of our business segments were as follows:\n"
    for question, start, measure in [
        (
            "Which business segment had the lowest operating profit in 2021?",
            "Space, 1,134",
            "operating profit",
        ),
        ("Which business segment had the lowest net sales in 2021?", "Space, 11,814", "net sales"),
    ]:
        asked = asked_extreme(question)
        assert asked is not None
        answer = answered(table_extreme(asked, [(chunk, above)]))
        assert answer is not None
        assert answer.text.startswith(f"{start} in 2021: the lowest {measure} of Aeronautics")


def test_a_block_read_on_over_the_table_s_next_chunk_and_ended_by_its_total() -> None:
    first = statement_chunk(
        4,
        "Operating profit:\nNorth America Retail $ 2,627.0 $ 2,277.2\n"
        "Europe & Australia 113.8 123.3\n",
        page=90,
    )
    second = statement_chunk(
        5,
        "Pet 390.7 268.4\nAsia & Latin America 18.7 72.4\n"
        "Total segment operating profit $ 3,487.4 $ 3,160.8\n"
        "Divestitures loss - 30.0\n",
        page=90,
    )
    above = "Our operating segment results were as follows:\nIn Millions 2020 2019\n"
    asked = asked_extreme("Which operating segment had the lowest operating profit in 2020?")
    assert asked is not None
    answer = answered(table_extreme(asked, [(first, above), (second, above + first.content)]))
    assert answer is not None
    assert answer.text.startswith(
        "Asia & Latin America, 18.7 in 2020: the lowest operating profit of North America "
        "Retail 2,627, Europe & Australia 113.8, Pet 390.7, Asia & Latin America 18.7 [1]"
    )


def test_each_comparison_a_question_asks() -> None:
    asks = asked_extremes(
        "Which of PepsiCo's divisions was the largest by net revenue in FY2021, and which "
        "earned the most operating profit?"
    )
    assert [(ask.highest, ask.measure, ask.named, ask.year) for ask in asks] == [
        (True, terms("net revenue"), "net revenue", 2021),
        (True, terms("operating profit"), "operating profit", 2021),
    ]


def test_comparisons_are_stated_in_turn_and_each_row_quoted_once() -> None:
    lowest, highest = (
        table_extreme(ask, [(NOTIONAL, NOTIONAL_ABOVE)])
        for ask in asked_extremes(
            "Which instrument had the lowest notional value in FY 2021, and which the highest "
            "notional amount?"
        )
    )
    assert lowest is not None and highest is not None
    answer = compared_answer([lowest, highest])
    assert answer.text.startswith(
        "Foreign exchange forwards, 932 million in 2021: the lowest notional value of Interest "
        "rate swaps 19,779 million, Cross currency swaps 32,502 million, Forward starting "
        "interest rate swaps 1,000 million, Foreign exchange forwards 932 million; Cross "
        "currency swaps, 32,502 million in 2021: the highest notional amount of "
    )
    assert len(answer.claims) == 4  # each row once


def test_rows_labelled_with_the_measure_are_not_compared() -> None:
    # A summary of the measure beside another is no table of the things that hold it.
    asked = asked_extreme("Which of PepsiCo's divisions had the largest net revenue in FY2021?")
    assert asked is not None
    summary = statement_chunk(
        14,
        "Consolidated Net Revenue and Operating Profit\n2021 2020\n"
        "Net revenue $ 79,474 $ 70,372\nOperating profit $ 11,162 $ 10,080\n",
        page=41,
    )
    assert answered(table_extreme(asked, [(summary, "")])) is None


def test_no_answer_from_a_table_titled_otherwise() -> None:
    asked = asked_extreme("Which one had the highest fair value in FY 2021?")
    assert asked is not None
    assert answered(table_extreme(asked, [(NOTIONAL, NOTIONAL_ABOVE)])) is None


@pytest.mark.parametrize(
    ("filing", "page", "question", "start"),
    [
        (
            "JPMORGAN_2021Q1_10Q.pdf",
            19,
            "Which of JPM's business segments had the lowest net revenue in 2021 Q1?",
            "Corporate, -473 in 2021: the lowest net revenue of Consumer & Community Banking "
            "12,517, Corporate & Investment Bank 14,605, Commercial Banking 2,393, Asset & "
            "Wealth Management 4,077, Corporate -473 [1]",
        ),
        (
            # The notes' table: heads over several lines, "Reconciling Items" beside the
            # segments, "Net interest income" beside "Net income/(loss)".
            "JPMORGAN_2021Q1_10Q.pdf",
            160,
            "Which of JPM's business segments had the highest net income in 2021 Q1?",
            "Consumer & Community Banking, 6,728 in 2021: the highest net income of Consumer & "
            "Community Banking 6,728, Corporate & Investment Bank 5,740, Commercial Banking "
            "1,168, Asset & Wealth Management 1,244, Corporate -580 [1]",
        ),
        (
            # The quarter's tables stand before the six months': a group's first figure counts.
            "JPMORGAN_2022Q2_10Q.pdf",
            21,
            "In 2022 Q2, which of JPM's business segments had the highest net income?",
            "Corporate & Investment Bank, 3,725 in 2022: the highest net income of Consumer & "
            "Community Banking 3,100, Corporate & Investment Bank 3,725, Commercial Banking 994, "
            "Asset & Wealth Management 1,004, Corporate -174 [1]",
        ),
        (
            # A growth: each group's figure over its own column of the year before; "four lines
            # of business" are four, JPMorgan's "Corporate" none of them.
            "JPMORGAN_2023Q2_10Q.pdf",
            23,
            "Which of JPMorgan Chase's four lines of business grew total net revenue the fastest "
            "year over year in the second quarter of 2023?",
            "Commercial Banking, 3,988 (+48.6%) in 2023: the highest total net revenue growth of "
            "Consumer & Community Banking 17,233 (+37.2%), Corporate & Investment Bank 12,519 "
            "(+4.3%), Commercial Banking 3,988 (+48.6%), Asset & Wealth Management 4,943 "
            "(+14.8%) [1]",
        ),
        (
            # The measure's abbreviation in parentheses is no word the row's label must write.
            "JPMORGAN_2021Q1_10Q.pdf",
            19,
            "Which of JPMorgan Chase's lines of business reported the highest return on equity "
            "(ROE) in the first quarter of 2021?",
            "Consumer & Community Banking, 54% in 2021: the highest return on equity (ROE) of "
            "Consumer & Community Banking 54%, Corporate & Investment Bank 27%, Commercial "
            "Banking 19%",
        ),
        (
            # The groups are measures and the rows the things compared; "AMESA" labels the
            # figures two lines below it, past its note's marker.
            "PEPSICO_2021_10K.pdf",
            69,
            "Which of PepsiCo's divisions earned the most operating profit in FY2021?",
            "FLNA, 5,633 in 2021: the highest operating profit of FLNA 5,633, QFNA 578, PBNA "
            "2,442, LatAm 1,369, Europe 1,292, AMESA 858, APAC 673 [1]",
        ),
    ],
)
def test_column_groups_named_over_their_columns(
    filing: str, page: int, question: str, start: str
) -> None:
    """Segments head groups of columns ("2021 2020 Change" each), two tables of three on a
    page; the figure under each group's column of the year is read from where it stands."""
    path = corpus_path("eval", "financebench_dev", "pdfs", filing)
    with pymupdf.open(path) as document:
        text = extract_page(document[page - 1])
    chunk = statement_chunk(7, text.text, page=page)
    asked = asked_extreme(question)
    assert asked is not None
    answer = answered(column_extreme(asked, text, [chunk]))
    assert answer is not None
    assert answer.text.startswith(start)
    for claim in answer.claims:
        assert claim.text == " ".join(" ".join(chunk.content[a:b].split()) for a, b in claim.parts)


SEGMENTS = statement_chunk(
    30,
    "Revenue\n"
    "Productivity and Business Processes $ 17,516 $ 15,791 $ 50,774 $ 46,104\n"
    "Intelligent Cloud 22,081 19,051 64,349 55,337\n"
    "Total $ 52,857 $ 49,360 $ 156,630 $ 148,218\n"
    "Operating Income\n"
    "Productivity and Business Processes $ 8,639 $ 7,853 $ 24,998 $ 23,176\n"
    "Intelligent Cloud 9,476 8,391 27,330 24,556\n"
    "Total $ 22,352 $ 20,364 $ 62,668 $ 63,302\n",
    page=38,
    header=(
        "Segment revenue and operating income (In millions) Three Months Ended March 31, Nine "
        "Months Ended March 31, 2023 2022 2023 2022"
    ),
)


@pytest.mark.parametrize(
    ("question", "start"),
    [
        (
            "Which segment had the highest operating income in the quarter ended March 31, 2023?",
            "Intelligent Cloud, 9,476 million in the three months ended March 31, 2023: the "
            "highest operating income of Productivity and Business Processes 8,639 million, "
            "Intelligent Cloud 9,476 million",
        ),
        (
            "Which segment had the lowest revenue in the nine months ended March 31, 2022?",
            "Productivity and Business Processes, 46,104 million in the nine months ended March "
            "31, 2022: the lowest revenue",
        ),
    ],
)
def test_a_quarterly_table_compared_in_the_period_asked(question: str, start: str) -> None:
    asked = asked_extreme(question)
    assert asked is not None
    answer = answered(table_extreme(asked, [(SEGMENTS, "")]))
    assert answer is not None and answer.text.startswith(start)


def test_a_part_s_figure_is_read_in_the_block_its_measure_titles() -> None:
    assert figure_text(
        block_figure,
        "What operating income did Microsoft's Intelligent Cloud segment report for the quarter "
        "ended March 31, 2023?",
        SEGMENTS,
    ).startswith(
        "Intelligent Cloud: Operating Income 9,476 million in the three months ended March 31, "
        "2023 [1]"
    )
    # The first block is titled by its own line ("Revenue") too.
    assert figure_text(
        block_figure,
        "What revenue did Microsoft's Intelligent Cloud segment report in the quarter ended "
        "March 31, 2022?",
        SEGMENTS,
    ).startswith("Intelligent Cloud: Revenue 19,051 million in the three months")


SEGMENT_RESULTS = replace(
    statement_chunk(
        40,
        "Card income 999 652 53\nNet interest income 7,929 9,190 (14)\n"
        "Total net revenue 12,517 13,287 (6)\n"
        "Provision for credit losses (3,602) 5,772 NM\nNet income $ 6,728 $ 197 NM\n",
        page=20,
        header=(
            "Selected income statement data Three months ended March 31, "
            "(in millions, except ratios) 2021 2020 Change"
        ),
    ),
    section="Consumer & Community Banking",
)
"""A segment's own results under its section, the last column each row's change ("53", "NM")."""


def test_a_part_s_figure_is_read_in_the_table_its_section_holds() -> None:
    assert figure_text(
        section_figure,
        "What was the net income of JPMorgan Chase's Consumer & Community Banking segment in "
        "the first quarter of 2021?",
        SEGMENT_RESULTS,
    ).startswith("Consumer & Community Banking: Net income 6,728 million")
    # The part's total is its figure of what the total sums.
    assert figure_text(
        section_figure,
        "What was the net revenue of JPMorgan Chase's Consumer & Community Banking segment in "
        "the first quarter of 2021?",
        SEGMENT_RESULTS,
    ).startswith("Consumer & Community Banking: Total net revenue 12,517")
    # Another segment's question, or one of no row the table has, is not answered from it.
    for question in (
        "What was the net income of JPMorgan Chase's Commercial Banking segment in the first "
        "quarter of 2021?",
        "What was the noninterest expense of JPMorgan Chase's Consumer & Community Banking "
        "segment in the first quarter of 2021?",
        # A year the table has no column for is no row's figure (it raised KeyError).
        "What was the net income of JPMorgan Chase's Consumer & Community Banking segment in 2022?",
    ):
        assert section_figure(question, [(SEGMENT_RESULTS, "")]) is None
    # A section named for a measure heads tables of the measure (or the next table, of
    # another), not a part's: "Net revenue" over a table of segments' EBITDAR.
    ebitdar = replace(
        statement_chunk(
            42,
            "Las Vegas Strip Resorts $ 3,142,308 $ 1,738,211\nRegional Operations 1,294,630 "
            "1,217,814\n",
            page=21,
            header="Adjusted Property EBITDAR Year Ended December 31, (In thousands) 2022 2021",
        ),
        section="Net revenue",
    )
    question = "What were the net revenues of MGM Resorts' Las Vegas Strip Resorts segment in 2022?"
    assert section_figure(question, [(ebitdar, "")]) is None


def test_an_owner_named_is_read_as_a_row_of_the_block_its_measure_titles() -> None:
    # "MGM China's" names no segment in words, yet is a row of MGM Resorts' table.
    table = statement_chunk(
        41,
        "Adjusted EBITDA\nYear Ended December 31,\n2018 2017 2016\n(In thousands)\n"
        "Las Vegas Strip Resorts $ 1,705,479 $ 1,780,600 $ 1,661,921\n"
        "Regional Operations 759,096 731,916 399,701\nMGM China 568,294 535,524 529,281\n"
        "Reportable segment Adjusted Property EBITDA 3,032,869 3,048,040 2,590,903\n",
        page=38,
        header="Adjusted EBITDA Year Ended December 31, 2018 2017 2016 (In thousands)",
    )
    answer = block_figure("What was MGM China's Adjusted Property EBITDA in 2018?", [(table, "")])
    assert answer is not None
    assert answer.text.startswith("MGM China: Adjusted EBITDA 568,294 thousand in 2018")


def test_the_rows_after_a_subtotal_stand_under_the_block_s_title() -> None:
    table = statement_chunk(
        42,
        "Revenue by business\nInvestment Banking $ 2,851 $ 886 222 %\nLending 265 350 (24)\n"
        "Total Banking 4,508 2,650 70\nFixed Income Markets 5,761 4,993 15\n"
        "Equity Markets 3,289 2,237 47\nTotal net revenue 13,569 9,908 37\n",
        page=23,
        header="Selected income statement data Three months ended March 31, (in millions) 2021 "
        "2020 Change",
    )
    # Both rows' terms are the question's; only one is written in it as its row writes it.
    asked = (
        "How much revenue did the Equity Markets business in JPMorgan Chase's Corporate & "
        "Investment Bank generate in the first quarter of 2021?"
    )
    answer = block_figure(asked, [(table, "")])
    assert answer is not None
    assert answer.text.startswith("Equity Markets: Revenue by business 3,289 million in 2021")


def test_no_block_is_read_that_a_header_alone_titles() -> None:
    # The header names every measure of the table: which block it titles is not said.
    untitled = statement_chunk(
        32,
        "Client Computing $ 1,655 $ 3,592\nDatacenter and AI 17 2,293\n",
        page=11,
        header="Operating income (In Millions) Three Months Ended Oct 1, 2022 Sep 25, 2021",
    )
    asked = (
        "What operating income did the Datacenter and AI segment report in the quarter ended "
        "October 1, 2022?"
    )
    assert block_figure(asked, [(untitled, "")]) is None


def test_the_fastest_growth_is_of_the_period_asked_over_a_year_before() -> None:
    asked = asked_extreme(
        "Which segment had the fastest operating income growth in the quarter ended March 31, "
        "2023, and by how much did it grow?"
    )
    assert asked is not None and asked.growth and asked.measure == terms("operating income")
    answer = answered(table_extreme(asked, [(SEGMENTS, "")]))
    assert answer is not None
    # 9,476 over 8,391 and 8,639 over 7,853: the total is no segment.
    assert answer.text.startswith(
        "Intelligent Cloud, 9,476 million (+12.9%) in the three months ended March 31, 2023: "
        "the highest operating income growth of Productivity and Business Processes 8,639 "
        "million (+10.0%), Intelligent Cloud 9,476 million (+12.9%)"
    )
    # Where no column of a year before stands, there is no growth to compare.
    asked = asked_extreme("Which segment had the fastest revenue growth in fiscal 2023?")
    assert asked is not None and answered(table_extreme(asked, [(SEGMENTS, "")])) is None


SEGMENTS_LOSSES = statement_chunk(
    31,
    "Operating income (loss):\nClient Computing $ 520 $ 2,722\nData Center and AI (518) 1,393\n"
    "Network and Edge (300) 358\nAll other (1,153) (1,203)\n"
    "Total operating income (loss) $ (1,468) $ 4,341\n",
    page=12,
    header="(In Millions) Three Months Ended Apr 1, 2023 Apr 2, 2022",
)


@pytest.mark.parametrize(
    ("question", "measure"),
    [
        (
            "Which of NVIDIA's market platforms grew revenue fastest year over year in the "
            "quarter ended October 30, 2022?",
            {"revenue"},
        ),
        (
            "Which of Apple's geographic reportable segments grew net sales the fastest in the "
            "quarter ended June 25, 2022?",
            {"net", "sales"},
        ),
    ],
)
def test_the_part_that_grew_most_is_asked_once(question: str, measure: set[str]) -> None:
    # Not "which grew", nor a measure of "year over year" or "in the quarter ended June 25".
    asks = asked_extremes(question)
    assert len(asks) == 1
    assert (asks[0].highest, asks[0].growth, asks[0].sign) == (True, True, 0)
    assert asks[0].measure == terms(" ".join(measure))


def test_which_declined_is_read_from_a_year_before() -> None:
    chunk = statement_chunk(
        33,
        "Operating profit\nAeronautics $ 2,843 $ 2,521\nSpace 1,149 1,191\n"
        "Total operating profit $ 3,992 $ 3,712\n",
        page=42,
    )
    above = "Summary operating results of our business segments:\n2020 2019\n"
    asked = asked_extreme(
        "Which business segment was the only one whose operating profit declined in 2020, and "
        "what was its operating profit?"
    )
    assert asked is not None and asked.sign < 0 and asked.growth
    answer = answered(table_extreme(asked, [(chunk, above)]))
    assert answer is not None
    assert answer.text.startswith(
        "Space 1,149 (-3.5%) in 2020: a decline, of Aeronautics 2,843 (+12.8%), Space 1,149"
    )


@pytest.mark.parametrize(
    ("question", "sign"),
    [
        ("Which of Intel's operating segments increased revenue year over year in 2022?", 1),
        ("Which of the company's offerings posted lower revenue in 2023 than a year earlier?", -1),
        ("Which product lines had higher revenue in 2023 than a year earlier?", 1),
    ],
)
def test_which_parts_moved_one_way_is_asked(question: str, sign: int) -> None:
    asked = asked_extreme(question)
    assert asked is not None
    assert (asked.sign, asked.growth, asked.measure) == (sign, True, frozenset({"revenue"}))


def test_no_comparison_where_no_parts_are_named() -> None:
    assert asked_extremes("Which factors increased revenue in 2021?") == []


def test_which_rose_is_read_from_a_year_before() -> None:
    chunk = statement_chunk(
        35,
        "Revenue\nAeronautics $ 26,748 $ 26,266\nSpace 11,814 11,880\n"
        "Total revenue $ 38,562 $ 38,146\n",
        page=42,
    )
    above = "Summary operating results of our business segments:\n2022 2021\n"
    asked = asked_extreme("Which of Acme's business segments increased revenue in 2022?")
    assert asked is not None
    answer = answered(table_extreme(asked, [(chunk, above)]))
    assert answer is not None
    assert answer.text.startswith(
        "Aeronautics 26,748 (+1.8%) in 2022: a rise, of Aeronautics 26,748 (+1.8%), Space 11,814"
    )


def test_a_reconciliation_compares_no_parts() -> None:
    chunk = statement_chunk(
        34,
        "Net income $ 5,070 $ 6,046\nAdd: Interest expense (income), net (6) 205\n"
        "Add: Income tax expense 1,131 605\nEarnings before interest and taxes $ 6,195 $ 6,856\n",
        page=33,
    )
    above = "EBIT is calculated as follows:\n2023 2022\n"
    asked = asked_extreme(
        "Which of NIKE's geographic operating segments saw its EBIT decline in fiscal 2023?"
    )
    assert asked is not None
    assert table_extreme(asked, [(chunk, above)]) is None


@pytest.mark.parametrize(
    ("question", "start"),
    [
        (
            "Which of Intel's operating segments reported an operating loss in the quarter "
            "ended April 1, 2023?",
            "Data Center and AI -518 million, Network and Edge -300 million in the three months "
            "ended April 1, 2023: an income below zero, of Client Computing 520 million, Data "
            "Center and AI -518 million",
        ),
        (
            "Which segments were still operating at a loss in the quarter ended April 2, 2022?",
            "None in the three months ended April 2, 2022: no income below zero, of Client "
            "Computing 2,722 million",
        ),
    ],
)
def test_which_lost_money_is_read_below_zero_others_aside(question: str, start: str) -> None:
    asked = asked_extreme(question)
    assert asked is not None and asked.sign < 0
    answer = answered(table_extreme(asked, [(SEGMENTS_LOSSES, "")]))
    assert answer is not None and answer.text.startswith(start)
    assert "All other" not in answer.text


def test_a_quarter_asked_is_never_compared_in_a_fiscal_year_s_column() -> None:
    asked = asked_extreme("Which segment had the highest revenue in the quarter ended May 1, 2021?")
    assert asked is not None
    assert answered(table_extreme(asked, [(SEGMENTS, "")])) is None


@pytest.mark.parametrize(
    ("question", "start"),
    [
        (
            "What was the net income of JPMorgan Chase's Commercial Banking segment in the "
            "quarter ended June 30, 2023?",
            "Commercial Banking: Net income/(loss) 1,208 in the three months ended June 30, 2023",
        ),
        (
            # The six months' table stands below the quarter's, on the same page.
            "What was the net income of JPMorgan Chase's Commercial Banking segment in the "
            "six months ended June 30, 2023?",
            "Commercial Banking: Net income/(loss) 2,555 in the six months ended June 30, 2023",
        ),
    ],
)
def test_the_figure_of_the_group_and_the_row_a_question_names(question: str, start: str) -> None:
    path = corpus_path("eval", "financebench_dev", "pdfs", "JPMORGAN_2023Q2_10Q.pdf")
    with pymupdf.open(path) as document:
        text = extract_page(document[22])
    answer = group_figure(question, text, [statement_chunk(7, text.text, page=23)])
    assert answer is not None and answer.text.startswith(start)


def test_no_figure_where_the_question_names_no_one_group() -> None:
    path = corpus_path("eval", "financebench_dev", "pdfs", "JPMORGAN_2023Q2_10Q.pdf")
    with pymupdf.open(path) as document:
        text = extract_page(document[22])
    chunk = statement_chunk(7, text.text, page=23)
    question = "What was JPMorgan Chase's net income in the quarter ended June 30, 2023?"
    assert group_figure(question, text, [chunk]) is None


def parts_compared(asked: ExtremeQuestion, found: list[PartRow]) -> str:
    """Returns the text of the answer comparing the parts' rows `found`."""
    answer = answered(parts_extreme(asked, found))
    assert answer is not None
    return answer.text


def segment_results(
    n: int, above: str, backlog: str, margin: str = "10.8 % 10.6 %"
) -> tuple[Candidate, str]:
    """Returns a segment's own table of results, as Lockheed Martin's 10-K gives each one,
    with the prose above it that names the segment."""
    rows = (
        f"2020 2019\nNet sales $ 26,266 $ 23,693\nOperating margin {margin}\n"
        f"Backlog at year-end $ {backlog}\n"
    )
    return statement_chunk(n, rows, page=40 + n), above


def test_the_parts_whose_own_tables_hold_the_measure_are_compared() -> None:
    asked = asked_extreme(
        "Which of Lockheed Martin's business segments had the largest backlog at year-end 2020?"
    )
    assert asked is not None
    tables = [
        segment_results(
            1, "F-22 Raptor. Aeronautics\u2019 operating results included the\n", "56,551 $ 55,636"
        ),
        segment_results(
            2, "Table of Contents\nRMS\u2019 operating results included the\n", "36,249 $ 34,296"
        ),
        segment_results(
            3, "Space\u2019s operating results included the following:\n", "25,148 $ 28,253"
        ),
    ]
    found = [row for table in tables for row in part_rows(asked, [table])]
    assert [row.part for row in found] == ["Aeronautics", "RMS", "Space"]
    assert parts_compared(asked, found).startswith(
        "Aeronautics, 56,551 in 2020: the highest backlog of Aeronautics 56,551, RMS 36,249, "
        "Space 25,148 [1] [2] [3]"
    )


def test_a_row_of_rates_is_compared_in_percent() -> None:
    asked = asked_extreme(
        "Which of Lockheed Martin's segments had the highest operating margin in 2020?"
    )
    assert asked is not None
    tables = [
        segment_results(1, "Aeronautics\u2019 operating results included the\n", "1 $ 1"),
        segment_results(2, "MFC\u2019s operating results included the\n", "1 $ 1", "13.7 % 13.0 %"),
    ]
    found = [row for table in tables for row in part_rows(asked, [table])]
    assert parts_compared(asked, found).startswith(
        "MFC, 13.7% in 2020: the highest operating margin of Aeronautics 10.8%, MFC 13.7%"
    )


def test_a_column_s_percent_sign_on_its_first_row_is_every_row_s() -> None:
    margins = statement_chunk(
        45,
        "Operating margin\nEurope, Middle East & Africa 49.7 % 50.4 %\n"
        "Latin America 56.0 52.1\nNorth America 29.8 31.9\n",
        page=44,
        header="Year Ended December 31, 2017 2016",
    )
    asked = asked_extreme("Which operating segment had the highest operating margin in 2017?")
    assert asked is not None
    answer = answered(table_extreme(asked, [(margins, "")]))
    assert answer is not None
    assert answer.text.startswith(
        "Latin America, 56% in 2017: the highest operating margin of Europe, Middle East & "
        "Africa 49.7%, Latin America 56%, North America 29.8%"
    )


def test_an_amount_is_not_compared_by_its_shares() -> None:
    shares = statement_chunk(
        43,
        "Net sales\nCondiments and sauces 26 % 27 %\nCheese and dairy 20 % 19 %\n",
        page=15,
        header="Percentage of net sales 2019 2018",
    )
    asked = asked_extreme("Which product category brought in the most net sales in 2019?")
    assert asked is not None and not asked.of_rates
    assert table_extreme(asked, [(shares, "")]) is None


def test_one_part_is_no_comparison() -> None:
    asked = asked_extreme("Which segment had the largest backlog in 2020?")
    assert asked is not None
    table = segment_results(1, "Aeronautics\u2019 operating results included the\n", "56,551 $ 1")
    assert parts_extreme(asked, part_rows(asked, [table])) is None


def test_the_blocks_of_one_table_headed_by_its_parts() -> None:
    """MGM Resorts' segment table stacks each segment's revenues under its name; "Casino"
    under "Net Revenues" is casino revenue. Another table's "Expenses" block of "Casino" is no
    segment beside them."""
    segments = statement_chunk(
        1,
        "Net Revenues\nLas Vegas Strip Resorts\n2018 2017\nCasino $ 1,407,733 $ 1,436,830\n"
        "Rooms 1,776,029 1,778,869\nRegional Operations\nCasino 2,026,925 1,834,803\n"
        "Rooms 318,017 319,049\nMGM China\nCasino 2,195,144 1,741,635\n"
        "Rooms 118,527 54,824\n",
        page=91,
    )
    statement = statement_chunk(
        2,
        "2018 2017\nRevenues\nCasino $ 5,753,150 $ 5,014,240\nExpenses\n"
        "Casino 3,199,775 2,929,489\n",
        page=70,
    )
    asked = asked_extreme("Which segment generated the most casino revenue in 2018?")
    assert asked is not None
    found = part_rows(asked, [(statement, "")]) + part_rows(asked, [(segments, "")])
    assert parts_compared(asked, found).startswith(
        "MGM China, 2,195,144 in 2018: the highest casino revenue of Las Vegas Strip Resorts "
        "1,407,733, Regional Operations 2,026,925, MGM China 2,195,144 [1]"
    )


def test_a_part_s_heading_may_end_in_a_colon() -> None:
    segments = statement_chunk(
        46,
        "2022 2021\nAmericas:\nNet sales $ 169,658 $ 153,306\nOperating income $ 62,683 $ 53,382\n"
        "Europe:\nNet sales 95,118 89,307\nOperating income 35,233 32,505\n",
        page=16,
    )
    asked = asked_extreme("Which of Apple's segments had the highest net sales in 2022?")
    assert asked is not None
    assert [row.part for row in part_rows(asked, [(segments, "")])] == ["Americas", "Europe"]


def test_no_part_is_headed_by_a_label_going_on_or_by_period_words() -> None:
    revenue = statement_chunk(
        44,
        "Three months ended\n2021 2020\nNet revenue 12,889 10,005\nAsset management,\n"
        "Net revenue 931 860\n",
        page=30,
    )
    asked = asked_extreme("Which of JPM's business segments had the lowest net revenue in 2021?")
    assert asked is not None
    assert part_rows(asked, [(revenue, "")]) == []


def test_groups_summed_by_their_totals_beside_lone_rows() -> None:
    """Adobe's revenue by geographic area: "Americas:" and "APAC:" each over their countries and
    their total, "EMEA" a row of its own; the regions compared are the totals and the row."""
    above = (
        "The tables below list our revenue and property and equipment, net, by geographic "
        "area for fiscal 2015, 2014 and 2013 (in thousands).\nRevenue\n2015 2014 2013\n"
    )
    chunk = statement_chunk(
        1,
        "Americas:\nUnited States ........ $ 2,548,024 $ 2,115,148 $ 1,935,429\n"
        "Other ........ 240,020 199,221 198,953\n"
        "Total Americas ........ 2,788,044 2,314,369 2,134,382\n"
        "EMEA ........ 1,336,448 1,179,864 1,129,180\nAPAC:\n"
        "Japan ........ 347,740 365,570 472,110\nOther ........ 323,279 287,262 319,568\n"
        "Total APAC ........ 671,019 652,832 791,678\n"
        "Revenue ........ $ 4,795,511 $ 4,147,065 $ 4,055,240\n",
        page=102,
    )
    asked = asked_extreme(
        "Which of Adobe's three geographic regions had the slowest revenue growth in fiscal 2015?"
    )
    assert asked is not None
    comparison = table_extreme(asked, [(chunk, above)])
    assert comparison is not None
    assert comparison.statement == (
        "APAC, 671,019 (+2.8%) in 2015: the lowest revenue growth of Americas 2,788,044 "
        "(+20.5%), EMEA 1,336,448 (+13.3%), APAC 671,019 (+2.8%)"
    )
