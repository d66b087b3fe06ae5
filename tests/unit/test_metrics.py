"""Computed answers: the metric a question asks for, the statement rows that hold its line
items, and the answer worked out from them with each row cited."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pytest

from app.answer.metrics import (
    LINE_ITEMS,
    Period,
    asked_metric,
    chunk_rows,
    column_periods,
    column_years,
    computed_answer,
    find_row,
    normal_label,
    owned_by,
)
from app.core.chunks import Candidate
from tests.helpers.chunks import statement_chunk

INCOME = statement_chunk(
    1,
    "Consolidated Statements of Income\n(in millions, except per share data)\n"
    "December 28, 2019 December 29, 2018 December 30, 2017\n"
    "Net sales $ 24,977 $ 26,268 $ 26,076\nCost of products sold 16,830 17,347 17,043\n",
    page=50,
)
BALANCE_ROWS = statement_chunk(
    2,
    "Income taxes receivable 173 152\n\nInventories 2,721 2,667\n\nPrepaid expenses 384 400\n",
    page=52,
)
BALANCE_ABOVE = (
    "Consolidated Balance Sheets\n(in millions, except per share data)\nASSETS\n\n"
    "December 28, 2019 December 29, 2018\n\nCash and cash equivalents $ 2,279 $ 1,130\n"
)
CASH = statement_chunk(
    3,
    "Consolidated Statements of Cash Flows\n(in millions)\n2019 2018 2017\n"
    "Changes in current assets and liabilities:\nInventories (277) (251) (236)\n",
    page=54,
)


@pytest.mark.parametrize(
    ("question", "metric", "years"),
    [
        (
            "What is the FY2017 return on assets (ROA) for Coca Cola? ROA is defined as: FY2017 net"
            " income / (average total assets between FY2016 and FY2017). Round your answer.",
            "return on assets",
            (2017,),
        ),
        (
            "What is the FY2018 - FY2020 3 year average of capex as a % of revenue for MGM?",
            "capital expenditure as a share of revenue",
            (2018, 2019, 2020),
        ),
        (
            "What is Lockheed Martin's 2 year total revenue CAGR from FY2020 to FY2022?",
            "revenue",
            (2020, 2022),
        ),
        (
            "What is Kraft Heinz's FY2019 inventory turnover ratio?",
            "inventory turnover ratio",
            (2019,),
        ),
        (
            "Does American Water Works have positive working capital based on FY2022 data?",
            "working capital",
            (2022,),
        ),
        ("What is the FY2020 working capital ratio?", "working capital ratio", (2020,)),
        ("What is Costco's FY2021 SG&A as a % of revenue?", "SG&A as a share of revenue", (2021,)),
        (
            "What is the FY2019 COGS % margin for Best Buy?",
            "cost of sales as a share of revenue",
            (2019,),
        ),
        ("What is Nike's FY2020 days sales outstanding (DSO)?", "days sales outstanding", (2020,)),
        ("What is AMD's FY22 gross margin?", "gross margin", (2022,)),
        (
            "What is Corning's FY2022 research, development and engineering expense as a "
            "percentage of net sales?",
            "R&D as a share of revenue",
            (2022,),
        ),
        (
            "Does AMD have a reasonably healthy liquidity profile based on its quick ratio for "
            "FY2015?",
            "quick ratio",
            (2015,),
        ),
        # The question opens with what to do, and dates the balances its average spans.
        (
            "Compute NIKE's inventory turnover for fiscal 2023, defined as FY2023 cost of sales "
            "divided by the average of inventories at May 31, 2022 and May 31, 2023.",
            "inventory turnover ratio",
            (2023,),
        ),
        (
            "What was American Water Works' return on average common equity for 2020?",
            "return on equity",
            (2020,),
        ),
        # A sentence opening with what to do names no owner ("Use net earnings").
        (
            "What was Lockheed Martin's return on average total assets in 2022? Use net "
            "earnings divided by the average of total assets at December 31, 2021 and 2022.",
            "return on assets",
            (2022,),
        ),
    ],
)
def test_the_metric_asked_and_its_years(question: str, metric: str, years: tuple[int, ...]) -> None:
    asked = asked_metric(question)
    assert asked is not None
    assert (asked.metric.name, asked.years) == (metric, years)


@pytest.mark.parametrize(
    "question",
    [
        # A change is more than one figure.
        "How much has the effective tax rate of Corning changed between FY2021 and FY2022?",
        "What is the maximum context length Qwen2 can handle?",
        "What is the inventory turnover ratio?",  # no year to compute it for
        # Why a metric moved asks for its causes, not its figure.
        "Why did the gross margin decline in FY2023?",
        "What drove the operating margin in FY2022?",
    ],
)
def test_questions_that_ask_no_computed_figure(question: str) -> None:
    assert asked_metric(question) is None


@pytest.mark.parametrize(
    ("question", "metric", "years"),
    [
        (
            "Basing your judgments off of the balance sheet, what is the year end FY2018 amount"
            " of accounts payable for MGM Resorts? Answer in USD millions.",
            "accounts payable",
            (2018,),
        ),
        ("What is the FY2015 COGS for Adobe?", "cost of sales", (2015,)),
        ("What is the FY2018 total revenue for General Mills?", "revenue", (2018,)),
        (
            "How much (in USD billions) did American Water Works pay out in cash dividends for "
            "FY2020?",
            "dividends paid",
            (2020,),
        ),
        (
            "According to the information provided in the statement of cash flows, what is the"
            " FY2020 net cash from operating activities for Verizon?",
            "net cash provided by operating activities",
            (2020,),
        ),
    ],
)
def test_a_line_item_asked_alone(question: str, metric: str, years: tuple[int, ...]) -> None:
    asked = asked_metric(question)
    assert asked is not None
    assert (asked.metric.name, asked.years) == (metric, years)


@pytest.mark.parametrize(
    "question",
    [
        "What is the FY2019 revenue of the Wearables segment?",
        "What were Apple's iPhone net sales in FY2022?",  # a product's
        "What was NVIDIA's Data Center revenue in FY2023?",
        # A part the question names after the item, or as its owner.
        "What were the net sales of General Mills' U.S. Cereal operating unit in fiscal 2020?",
        "What were Converse's total revenues in Nike's fiscal 2023?",
        "How much revenue did Verizon Business's Small and Medium Business customer group "
        "generate in 2021?",
        "What is the FY2019 net income per share?",
        "What is the FY2019 net income attributable to noncontrolling interests?",
        "What is the FY2017 cost of goods sold and revenue?",  # two items
        "Has MGM Resorts paid dividends to common shareholders in FY2022?",
        "In 2022 Q2, which of JPM's business segments had the highest net income?",
        "Which region had the highest revenue in FY2021?",
        # Another measure named after the item.
        "What was the total annualized recurring revenue (ARR) at the end of fiscal 2015?",
        # A kind of the item, which the statement may not print on a line of its own.
        "How much subscription revenue did Adobe report for fiscal 2015?",
        "What was the wireless equipment revenue in 2021?",
        # A part that earned it, or the business it came from.
        "How much net sales did Amazon's advertising services generate in the quarter ended "
        "September 30, 2022?",
        "How much revenue did Intel's Notebook business generate in the quarter ended "
        "October 1, 2022?",
        "What were Amazon's net sales from third-party seller services in the quarter ended "
        "September 30, 2023?",
        # The item per unit of something.
        "What was REVPAR (revenue per available room) at the Las Vegas Strip Resorts in 2022?",
    ],
)
def test_questions_that_ask_more_than_a_line_item(question: str) -> None:
    assert asked_metric(question) is None


def test_a_figure_of_what_the_document_is_not_the_owner_of() -> None:
    filing = "MGM Resorts International; Form 10-K, fiscal year ended December 31, 2018 MGM.pdf"
    assert not owned_by("What were MGM China's net revenues in 2018?", filing)
    assert owned_by("What were MGM Resorts' net revenues in 2018?", filing)
    assert owned_by("What were the net revenues in 2018?", filing)
    assert owned_by("Here's the question: what were MGM Resorts' net revenues in 2018?", filing)
    # A name right before or after the item is an owner too: the company's, or a part's.
    quarterly = "INTEL CORP 10-Q 2023_Q3_INTC.pdf"
    assert not owned_by("What was the revenue of Intel Foundry Services in Q3 2023?", quarterly)
    assert not owned_by("How much Windows revenue did Microsoft report in 2022?", quarterly)
    # What the question says earned the figure is an owner too.
    microsoft = "MICROSOFT CORPORATION 2022_Q3_MSFT.pdf"
    assert not owned_by("How much revenue did LinkedIn generate for Microsoft in 2022?", microsoft)
    assert owned_by("How much revenue did Microsoft generate in 2022?", microsoft)
    assert owned_by(
        "What was the revenue of Intel for the quarter ended September 30, 2023?", quarterly
    )
    assert owned_by("What was the FY2023 Total Revenue of INTC?", quarterly)
    # Letters and digits compared alone: the file name writes the company as one word.
    assert owned_by("What is Coca-Cola's FY2017 quick ratio?", "COCACOLA_2017_10K.pdf")
    # Neither the word that opens the question nor "Company" is the company's name.
    assert owned_by(
        "What was The Coca-Cola Company's current ratio at December 31, 2017?",
        "COCACOLA_2017_10K.pdf",
    )
    assert owned_by(
        "Using Walmart's income statement for fiscal 2018, calculate its interest coverage.",
        "WALMART INC. WALMART_2018_10K.pdf",
    )


def test_a_total_in_capitals_over_its_figures_is_a_row() -> None:
    chunk = statement_chunk(
        1,
        "CURRENT LIABILITIES\nLoans and notes payable 13,205 12,498\n\n"
        "TOTAL CURRENT LIABILITIES\n\n27,194 26,532\n\nLONG-TERM DEBT 31,182 29,684\n",
        page=76,
        header="CONSOLIDATED BALANCE SHEETS December 31, 2017 2016 (In millions)",
    )
    rows = {row.label: row.figures for row in chunk_rows(chunk)}
    assert rows["total current liabilities"] == {2017: 27194.0, 2016: 26532.0}


def test_the_scale_asked_for() -> None:
    asked = asked_metric("What is the FY2021 capital expenditure amount (in USD billions)?")
    assert asked is not None and asked.scale == "billions"


def test_column_years_are_years_not_figures() -> None:
    header = "Fiscal years ended December 25, 2021, December 26, 2020 and December 28, 2019"
    assert column_years(header) == [2021, 2020, 2019]
    assert column_years("2,019 2019.5 2019% $2019 (2018)") == [2018]
    # A span of years heads a change, not a year's figures.
    header = "Fiscal 2015 Fiscal 2014 % Change 2015-2014 % Change 2014\u20132013 2013/12"
    assert column_years(header) == [2015, 2014]


def test_labels_lose_leaders_notes_and_case() -> None:
    assert normal_label("Total current liabilities..........") == "total current liabilities"
    assert normal_label("Goodwill, net (Note 9)") == "goodwill, net"
    assert normal_label("TOTAL CURRENT LIABILITIES:") == "total current liabilities"


def test_rows_take_their_years_and_statement_from_the_page_above() -> None:
    # The table's header was found wrongly (its first row), as chunking may: the page's text
    # above the chunk says the statement, the unit and the years.
    rows = chunk_rows(BALANCE_ROWS, BALANCE_ABOVE)
    inventories = next(row for row in rows if row.label == "inventories")
    assert inventories.figures == {2019: 2721.0, 2018: 2667.0}
    assert (inventories.statement, inventories.scale) == ("balance", "millions")


def test_a_header_of_dates_on_lines_of_their_own() -> None:
    above = (
        "Consolidated Statements of Cash Flows\n\nDecember 26,\n\n2015\n\nYear Ended\n\n"
        "December 27,\n\n2014\n\nDecember 28,\n\n2013\n\n(In millions)\n"
    )
    chunk = statement_chunk(4, "Depreciation and amortization 167 203 236\n", page=60)
    (row,) = chunk_rows(chunk, above)
    assert row.figures == {2015: 167.0, 2014: 203.0, 2013: 236.0}


def test_a_row_with_percentage_changes_beside_its_figures() -> None:
    chunk = statement_chunk(
        8,
        "(Dollars in millions) FISCAL 2023 FISCAL 2022 % CHANGE FISCAL 2021 % CHANGE\n"
        "North America $ 21,608 $ 18,353 18 % $ 17,179 7 %\n"
        "Net sales $ 24,977 $ 26,268 (4.9)% $ 26,076 0.7%\n",
        page=40,
    )
    north_america, net_sales = chunk_rows(chunk)
    assert north_america.figures == {2023: 21608.0, 2022: 18353.0, 2021: 17179.0}
    assert net_sales.figures == {2023: 24977.0, 2022: 26268.0, 2021: 26076.0}


def test_no_year_is_read_from_columns_of_its_quarters_or_from_a_per_share_row() -> None:
    quarters = statement_chunk(
        9,
        "(In millions) First Quarter Second Quarter\n2020 2019 2020 2019\n"
        "Net sales $ 4,002.5 $ 4,094.0 $ 4,180.3 $ 4,198.3\n",
        page=90,
    )
    income = statement_chunk(
        10,
        "Consolidated Statements of Income (dollars in millions, except per share amounts)\n"
        "2021 2020\nNet income attributable to Verizon $ 22,065 $ 17,801\n"
        "Basic earnings per common share\nNet income attributable to Verizon $ 5.32 $ 4.30\n",
        page=51,
    )
    assert chunk_rows(quarters) == []
    [row] = chunk_rows(income)
    assert row.figures == {2021: 22065.0, 2020: 17801.0}


def test_a_note_s_marker_after_a_label_is_no_figure() -> None:
    chunk = statement_chunk(
        6,
        "Net sales by groups of similar products and services (in millions):\n2021 2022\n"
        "Advertising services (5) 7,612 9,548\nOther income (5) (3)\n",
        page=20,
    )
    advertising, other = chunk_rows(chunk)
    assert (advertising.label, advertising.figures) == (
        "advertising services",
        {2021: 7612.0, 2022: 9548.0},
    )
    # As many figures as columns: "(5)" is a loss of 5.
    assert other.figures == {2021: -5.0, 2022: -3.0}


def test_a_note_s_marker_on_a_line_of_its_own_parts_no_label_from_its_figures() -> None:
    chunk = statement_chunk(
        7,
        "Net sales by category:\n2022 2021\niPhone\n\n(1)\n\n$ 65,775 $ 71,628 (8)%\n"
        "Wearables, Home and Accessories\n\n(1)(2)\n\n13,482 14,701 (8)%\n",
        page=20,
    )
    assert [(row.label, row.figures) for row in chunk_rows(chunk)] == [
        ("iphone", {2022: 65775.0, 2021: 71628.0}),
        ("wearables, home and accessories", {2022: 13482.0, 2021: 14701.0}),
    ]


def test_a_label_that_goes_on_from_the_line_above() -> None:
    chunk = statement_chunk(
        5,
        "Consolidated Statements of Income\n2017 2016 2015\n"
        "NET INCOME ATTRIBUTABLE TO SHAREOWNERS OF\n"
        "THE COCA-COLA COMPANY $ 1,248 $ 6,527 $ 7,351\n",
        page=74,
    )
    (row,) = chunk_rows(chunk)
    assert row.label == "net income attributable to shareowners of the coca-cola company"
    assert row.figures[2017] == 1248.0


def test_a_label_the_tables_header_stands_between_its_figures() -> None:
    # The reading order may set a statement's title, years and unit between its first row's
    # label and its figures, and a heading above the years ("Fiscal Year").
    balance = statement_chunk(
        11,
        "Current assets:\n\nCash and cash equivalents\n\nConsolidated Balance Sheets\n\n"
        "ASSETS\n\nDecember 26,\n\n2015\n\nDecember 27,\n\n2014\n"
        "(In millions, except par value amounts)\n\n$ 785 $ 805\nMarketable securities — 235\n",
        page=58,
    )
    cash, securities = chunk_rows(balance)
    assert (cash.label, cash.figures) == ("cash and cash equivalents", {2015: 785.0, 2014: 805.0})
    assert [balance.content[slice(*part)] for part in cash.parts] == [
        "Cash and cash equivalents",
        "$ 785 $ 805",
    ]
    assert securities.figures == {2015: 0.0, 2014: 235.0}
    earnings = statement_chunk(
        12,
        "Consolidated Statements of Earnings\n(In Millions)\n\nNet sales\nFiscal Year\n"
        "2020 2019 2018\n$ 17,626.6 $ 16,865.2 $ 15,740.4\nCost of sales 11,496.7 11,108.4 "
        "10,304.8\n",
        page=48,
    )
    net_sales, _ = chunk_rows(earnings)
    assert (net_sales.label, net_sales.figures[2020]) == ("net sales", 17626.6)


def test_the_quick_ratio_counts_no_marketable_securities_where_none_are_printed() -> None:
    answer = worked_out(
        "What is the FY2015 quick ratio?",
        "Consolidated Balance Sheets\n(In millions)\nDecember 26, 2015 December 27, 2014\n"
        "Cash and cash equivalents $ 785 $ 805\nAccounts receivable, net 533 818\n"
        "Total current liabilities 1,403 1,440\n",
    )
    assert answer.startswith(
        "FY2015 quick ratio: 0.94 ((cash and cash equivalents 785 + marketable securities 0 "
        "(not printed) + accounts receivable 533) / total current liabilities 1,403)"
    )


def test_the_cash_conversion_cycle_is_dio_plus_dso_less_dpo() -> None:
    asked = asked_metric("What is the FY2019 cash conversion cycle (CCC) for Kraft Heinz?")
    assert asked is not None
    balance = statement_chunk(
        13,
        "Consolidated Balance Sheets\n(in millions)\nDecember 28, 2019 December 29, 2018\n"
        "Trade receivables 1,973 2,129\nInventories 2,721 2,667\nTrade payables 4,003 4,153\n",
        page=52,
    )
    answer = computed_answer(asked, [(INCOME, ""), (balance, "")])
    # 58.43 days of inventory + 29.97 of sales - 88.16 of payables
    assert answer is not None and answer.text.startswith("FY2019 cash conversion cycle: 0.24 days")


def test_a_balance_is_never_read_from_a_statement_of_flows() -> None:
    rows = chunk_rows(CASH)  # "Inventories (277)": a change, not a balance
    assert find_row(LINE_ITEMS["inventory"], rows, [2019, 2018]) is None
    rows += chunk_rows(BALANCE_ROWS, BALANCE_ABOVE)
    found = find_row(LINE_ITEMS["inventory"], rows, [2019, 2018])
    assert found is not None and found.figures[2019] == 2721.0


def test_the_answer_works_out_the_metric_and_cites_each_row() -> None:
    asked = asked_metric("What is Kraft Heinz's FY2019 inventory turnover ratio?")
    assert asked is not None
    answer = computed_answer(asked, [(INCOME, ""), (BALANCE_ROWS, BALANCE_ABOVE), (CASH, "")])
    assert answer is not None
    assert answer.text.startswith(
        "FY2019 inventory turnover ratio: 6.25 (cost of sales 16,830 / average inventories "
        "(2,721 and 2,667)) [1] [2] Cost of products sold"
    )
    assert "Cost of products sold 16,830 17,347 17,043 [1]" in answer.text
    assert "Inventories 2,721 2,667 [2]" in answer.text
    assert answer.sources == ["acme-10k.pdf, p. 50", "acme-10k.pdf, p. 52"]
    assert [claim.chunk.chunk_id for claim in answer.claims] == [
        INCOME.chunk_id,
        BALANCE_ROWS.chunk_id,
    ]
    for claim in answer.claims:
        assert claim.text == claim.chunk.content[claim.start : claim.end].strip()


def test_no_answer_when_a_line_item_is_missing() -> None:
    asked = asked_metric("What is Kraft Heinz's FY2019 inventory turnover ratio?")
    assert asked is not None
    assert computed_answer(asked, [(INCOME, ""), (CASH, "")]) is None


def worked_out(question: str, statement: str) -> str:
    """Returns the text of the answer computed for `question` from one chunk of `statement`."""
    return computed_from(question, [statement_chunk(6, statement, page=63)])


def computed_from(question: str, chunks: Sequence[Candidate]) -> str:
    """Returns the text of the answer computed for `question` from `chunks`, in their order."""
    asked = asked_metric(question)
    assert asked is not None
    answer = computed_answer(asked, [(chunk, "") for chunk in chunks])
    assert answer is not None
    return answer.text


def test_an_amount_in_the_scale_asked_for() -> None:
    answer = worked_out(
        "What is the FY2021 capital expenditure amount (in USD billions)?",
        "Consolidated Statement of Cash Flows\n(in millions)\n2021 2020 2019\n"
        "Capital spending (4,625) (4,240) (4,232)\n",
    )
    assert answer.startswith("FY2021 capital expenditure: 4.62 billion (4,625 million)")


def test_a_line_item_for_the_year_asked() -> None:
    answer = worked_out(
        "What is the year end FY2018 amount of accounts payable for MGM Resorts? Answer in USD"
        " millions.",
        "Consolidated Balance Sheets\n(In thousands)\nDecember 31, 2018 2017\n"
        "Accounts payable $ 302,578 $ 255,028\n",
    )
    assert answer.startswith("FY2018 accounts payable: 302.58 million (302,578 thousand)")
    assert "Accounts payable $ 302,578 $ 255,028 [1]" in answer


def test_the_change_of_an_item_from_one_year_to_the_next() -> None:
    question = (
        "What is Adobe's year-over-year change in unadjusted operating income from FY2015 to "
        "FY2016 (in units of percents and round to one decimal place)?"
    )
    asked = asked_metric(question)
    assert asked is not None
    assert (asked.metric.name, asked.years, asked.growth) == (
        "operating income",
        (2015, 2016),
        True,
    )
    answer = worked_out(
        question,
        "Consolidated Statements of Income\n(In thousands)\n2016 2015 2014\n"
        "Operating income 1,493,602 903,095 412,685\n",
    )
    assert answer.startswith(
        "FY2015-FY2016 change in operating income: 65.4% (operating income 1,493,602 in FY2016 "
        "against 903,095 in FY2015, over a year) [1]"
    )


def test_total_revenues_before_the_net_sales_above_them() -> None:
    answer = worked_out(
        "What is Walmart's FY2018 total revenue? Answer in USD millions.",
        "Consolidated Statements of Income\n(Amounts in millions)\n2018 2017 2016\n"
        "Net sales $ 495,761 $ 481,317 $ 478,614\nMembership and other income 4,582 4,556 3,516\n"
        "Total revenues 500,343 485,873 482,130\n",
    )
    assert answer.startswith("FY2018 revenue: 500,343 million")


def test_a_definition_that_speaks_of_a_change_still_asks_for_the_metric() -> None:
    asked = asked_metric(
        "What is FY2018 days payable outstanding (DPO) for Walmart? DPO is defined as: 365 * "
        "(average accounts payable between FY2017 and FY2018) / (FY2018 COGS + change in "
        "inventory between FY2017 and FY2018). Round your answer to two decimal places."
    )
    assert asked is not None
    assert (asked.metric.name, asked.years) == ("days payable outstanding", (2018,))


@pytest.mark.parametrize(
    "label",
    ["Provision for/(benefit from) income taxes", "(Benefit) provision for income taxes",
     "Income tax expense (benefit)", "Income taxes from continuing operations"],
)  # fmt: skip
def test_the_labels_of_the_income_tax_line(label: str) -> None:
    assert LINE_ITEMS["income_tax"].label.fullmatch(normal_label(label))
    assert not LINE_ITEMS["income_tax"].label.fullmatch(normal_label("Deferred income taxes"))


@pytest.mark.parametrize(
    ("item", "label"),
    [("pretax_income", "Income/(loss) before income taxes"),
     ("net_income", "Net income/(loss) attributable to common shareholders"),
     ("operating_income", "Operating income (loss)")],
)  # fmt: skip
def test_labels_of_income_that_was_a_loss_some_years(item: str, label: str) -> None:
    assert LINE_ITEMS[item].label.fullmatch(normal_label(label))
    assert not LINE_ITEMS["net_income"].label.fullmatch(
        normal_label("Net income attributable to noncontrolling interest")
    )


@pytest.mark.parametrize(
    "label",
    ["Net earnings attributable to redeemable and noncontrolling interests",
     "Net income attributable to non-controlling interests"],
)  # fmt: skip
def test_net_income_attributed_to_others_is_not_the_company_s(label: str) -> None:
    assert not LINE_ITEMS["net_income"].label.fullmatch(normal_label(label))
    assert LINE_ITEMS["net_income"].label.fullmatch(
        normal_label("Net earnings attributable to General Mills")
    )


def test_an_expense_printed_in_parentheses_counts_by_its_size() -> None:
    answer = worked_out(
        "What is Verizon's FY2021 interest coverage ratio?",
        "Consolidated Statements of Income\n(dollars in millions)\n2021 2020 2019\n"
        "Operating Income 32,448 28,798 30,378\nInterest expense (3,485) (4,247) (4,730)\n",
    )
    assert answer.startswith("FY2021 interest coverage ratio: 9.31 ")


def test_a_tax_provision_printed_as_a_deduction_is_still_a_rate_of_its_size() -> None:
    answer = worked_out(
        "What is Corning's FY2022 effective tax rate?",
        "Consolidated Statements of Income\n(in millions)\n2022 2021 2020\n"
        "Income before income taxes 1,797 2,426 634\n"
        "Provision for income taxes (411) (491) (111)\n",
    )
    assert answer.startswith("FY2022 effective tax rate: 22.9% ")


def test_which_activity_brought_in_the_most_cash() -> None:
    answer = worked_out(
        "Among operations, investing, and financing activities, which brought in the most (or "
        "lost the least) cash flow for Nike in FY2023?",
        "Consolidated Statements of Cash Flows\n(Dollars in millions) 2023 2022 2021\n"
        "Cash provided (used) by operations 5,841 5,188 6,657\n"
        "Cash provided (used) by investing activities:\n"
        "Additions to property, plant and equipment (969) (758) (695)\n"
        "Cash provided (used) by investing activities 564 (1,524) (3,800)\n"
        "Cash provided (used) by financing activities (7,447) (4,836) (1,459)\n",
    )
    assert answer.startswith(
        "FY2023 net cash by activity: the most from operations, 5,841 "
        "(operations 5,841, investing 564, financing -7,447) [1]"
    )
    # A question of the activity that used the most cash is another one.
    assert (
        asked_metric("Which of operating, investing and financing used the most in FY2022?") is None
    )


# Quarterly reports


@pytest.mark.parametrize(
    ("header", "periods"),
    [
        (
            "Three Months Ended Nine Months Ended June 25, 2022 Net sales: June 26, 2021 "
            "June 25, 2022 June 26, 2021",
            [((2022, 6, 25), 3), ((2021, 6, 26), 3), ((2022, 6, 25), 9), ((2021, 6, 26), 9)],
        ),
        # The caption's dates head no column.
        (
            "The following table shows information by reportable segment for the three- and "
            "nine-month periods ended June 25, 2022 and June 26, 2021 (in millions): Three "
            "Months Ended Nine Months Ended June 25, 2022 June 26, 2021 June 25, 2022 June 26, "
            "2021",
            [((2022, 6, 25), 3), ((2021, 6, 26), 3), ((2022, 6, 25), 9), ((2021, 6, 26), 9)],
        ),
        (
            "CASH FLOWS STATEMENTS (In millions) Three Months Ended March 31, Nine Months Ended "
            "March 31, 2023 2022 2023 2022",
            [((2023, 3, 31), 3), ((2022, 3, 31), 3), ((2023, 3, 31), 9), ((2022, 3, 31), 9)],
        ),
        (
            "BALANCE SHEETS (In millions) (Unaudited) July 30, January 29, 2023 2023",
            [((2023, 7, 30), None), ((2023, 1, 29), None)],
        ),
        (
            "Cash Flows Nine Months Ended (In Millions; Unaudited) Sep 30, 2023 Oct 1, 2022",
            [((2023, 9, 30), 9), ((2022, 10, 1), 9)],
        ),
        (
            "Year Ended December 31, 2021 2020 2019",
            [((2021, 12, 31), 12), ((2020, 12, 31), 12), ((2019, 12, 31), 12)],
        ),
        ("(In millions) 2021 2020", []),  # no day: the fiscal years' columns
        ("First Quarter Second Quarter 2020 2019 2020 2019", []),
    ],
)
def test_the_periods_a_header_gives_its_columns(
    header: str, periods: list[tuple[tuple[int, int, int], int | None]]
) -> None:
    assert [(period.ended, period.months) for period in column_periods(header)] == periods


@pytest.mark.parametrize(
    ("question", "metric", "period", "quarterly"),
    [
        (
            "What is Apple's operating margin for the quarter ended June 25, 2022? Define "
            "operating margin as operating income / total net sales.",
            "operating margin",
            Period((2022, 6, 25), 3),
            True,
        ),
        (
            "What is Microsoft's operating margin for its fiscal 2023 second quarter (ended "
            "December 31, 2022)?",
            "operating margin",
            Period((2022, 12, 31), 3),
            True,
        ),
        (
            "What is Intel's free cash flow for the nine months ended September 30, 2023 (year "
            "to date)?",
            "free cash flow",
            Period((2023, 9, 30), 9),
            True,
        ),
        (
            "What is NVIDIA's current ratio as of July 30, 2023?",
            "working capital ratio",
            Period((2023, 7, 30)),
            False,
        ),
        (
            "what is nvidia's current ratio as of july 30, 2023?",  # as a reader may type it
            "working capital ratio",
            Period((2023, 7, 30)),
            False,
        ),
        (
            "What was Amazon's net income for the quarter ended September 30, 2023?",
            "net income",
            Period((2023, 9, 30), 3),
            True,
        ),
    ],
)
def test_the_period_a_question_writes_out(
    question: str, metric: str, period: Period, quarterly: bool
) -> None:
    asked = asked_metric(question)
    assert asked is not None
    assert (asked.metric.name, asked.period, asked.quarterly) == (metric, period, quarterly)
    assert asked.years == (period.ended[0],)


@pytest.mark.parametrize(
    "question",
    [
        # A segment's or a product's figure, named before or after the item.
        "What were Apple's iPhone net sales for the quarter ended December 31, 2022?",
        "How much revenue did NVIDIA's Data Center market platform bring in during the quarter "
        "ended October 29, 2023?",
        # Growth over quarters is not worked out.
        "What is the year-over-year change in revenue (in percent) for the quarter ended June "
        "30, 2023?",
    ],
)
def test_quarterly_questions_that_ask_no_computed_figure(question: str) -> None:
    assert asked_metric(question) is None


QUARTERLY_HEADER = (
    "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS (In millions) Three Months Ended Nine "
    "Months Ended June 25, 2022 June 26, 2021 June 25, 2022 June 26, 2021"
)
QUARTERLY_INCOME = statement_chunk(
    20,
    "Total net sales 82,959 81,434 304,182 282,457\n"
    "Research and development 6,797 5,717 19,490 16,142\n"
    "Operating income 23,076 24,126 94,543 85,163\n",
    page=4,
    header=QUARTERLY_HEADER,
)


@pytest.mark.parametrize(
    ("question", "start"),
    [
        (
            "What is the operating margin for the quarter ended June 25, 2022?",
            "Three months ended June 25, 2022 operating margin: 27.8% (operating income 23,076 "
            "/ revenue 82,959)",
        ),
        (
            "What is the operating margin for the nine months ended June 25, 2022?",
            "Nine months ended June 25, 2022 operating margin: 31.1% (operating income 94,543 "
            "/ revenue 304,182)",
        ),
        (
            "What is R&D as a percentage of total net sales for the three months ended June 26, "
            "2021?",
            "Three months ended June 26, 2021 R&D as a share of revenue: 7.0% (research and "
            "development expenses 5,717 / revenue 81,434)",
        ),
    ],
)
def test_a_quarterly_metric_is_read_from_its_periods_column(question: str, start: str) -> None:
    asked = asked_metric(question)
    assert asked is not None
    answer = computed_answer(asked, [(QUARTERLY_INCOME, "")])
    assert answer is not None and answer.text.startswith(start)
    # The fiscal year's figures are never the quarter's: its year heads four columns.
    assert chunk_rows(QUARTERLY_INCOME)[0].figures == {}


def test_a_quarter_whose_columns_the_header_does_not_tell_has_no_computed_answer() -> None:
    asked = asked_metric("What is the operating margin for the quarter ended June 25, 2022?")
    assert asked is not None
    untold = dataclasses.replace(QUARTERLY_INCOME, table_header_text="(In millions)")
    assert computed_answer(asked, [(untold, "")]) is None


def test_a_balance_of_a_day_whose_year_heads_both_columns() -> None:
    balance = statement_chunk(
        21,
        "Total current assets 28,797 23,073\nTotal current liabilities 10,334 6,563\n",
        page=5,
        header="BALANCE SHEETS (In millions) July 30, January 29, 2023 2023",
    )
    answers = []
    for day in ("July 30, 2023", "January 29, 2023"):
        asked = asked_metric(f"What is the current ratio as of {day}?")
        assert asked is not None
        answer = computed_answer(asked, [(balance, "")])
        assert answer is not None
        answers.append(answer.text.split(" (")[0])
    assert answers == [
        "July 30, 2023 working capital ratio: 2.79",
        "January 29, 2023 working capital ratio: 3.52",
    ]


def test_capital_spending_labelled_as_purchases_related_to_property() -> None:
    label = "purchases related to property and equipment and intangible assets"
    assert LINE_ITEMS["capital_expenditure"].label.fullmatch(label)


def test_total_debt_sums_the_debt_lines_printed() -> None:
    balance = statement_chunk(
        22,
        "Consolidated Balance Sheets\n(In millions)\n2018 2017\nShort-term debt 720 1,276\n"
        "Current portion of long-term debt 1,265 3,545\nLong-term debt 71,444 22,181\n",
        page=60,
    )
    assert worked_out("What is the total debt at the end of FY2018?", balance.content).startswith(
        "FY2018 total debt: 73,429 million (short-term debt 720 + current portion of long-term "
        "debt 1,265 + long-term debt 71,444)"
    )
    # A balance sheet printing no short-term debt owes none.
    only_long = "Balance Sheets\n(In millions)\n2018 2017\nLong-term debt 9,000 8,000\n"
    assert worked_out("What is the FY2018 total debt?", only_long).startswith(
        "FY2018 total debt: 9,000 million"
    )


def test_debt_to_equity_is_the_debt_printed_over_the_equity_of_all_owners() -> None:
    balance = statement_chunk(
        23,
        "Consolidated Balance Sheets\n(dollars in millions)\n2021 2020\n"
        "Debt maturing within one year 7,443 5,889\nLong-term debt 143,425 123,173\n"
        "Total shareholders' equity attributable to Verizon 81,790 66,938\n"
        "Noncontrolling interests 1,410 1,430\nTotal equity 83,200 68,368\n",
        page=66,
    )
    asked = "What is Verizon's FY2021 debt-to-equity ratio? Round to two decimal places."
    assert worked_out(asked, balance.content).startswith(
        "FY2021 debt-to-equity ratio: 1.81 ((short-term debt 7,443 + current portion of long-term "
        "debt 0 (not printed) + long-term debt 143,425) / total equity 83,200)"
    )
    # The total debt asked alone is no ratio.
    assert worked_out("What was Verizon's FY2021 total debt?", balance.content).startswith(
        "FY2021 total debt: 150,868 million"
    )


@pytest.mark.parametrize(
    "revenues", ["total operating revenues", "net operating revenues", "net revenue", "sales"]
)
def test_capital_spending_as_a_share_of_operating_revenues(revenues: str) -> None:
    asked = asked_metric(
        f"What is Verizon's FY2021 capital expenditure as a percentage of {revenues}?"
    )
    assert asked is not None and asked.metric.name == "capital expenditure as a share of revenue"
    label = normal_label("Capital expenditures (including capitalized software)")
    assert LINE_ITEMS["capital_expenditure"].label.fullmatch(label)


JPM_INCOME = statement_chunk(
    23,
    "Total net revenue 32,266 28,286\nTotal noninterest expense 18,725 16,791\n",
    page=79,
    header="Consolidated statements of income Three months ended March 31, 2021 2020",
)


@pytest.mark.parametrize(
    ("question", "start"),
    [
        (
            "What is the efficiency ratio for the first quarter of 2021?",
            "Three months ended March 31, 2021 efficiency ratio: 58.0% (total noninterest "
            "expense 18,725 / revenue 32,266)",
        ),
        ("What is the overhead ratio in 2020 Q1?", "Three months ended March 31, 2020"),
        # Another quarter, a fiscal quarter ending elsewhere: no column is of it.
        ("What is the efficiency ratio for the second quarter of 2021?", None),
        ("What is the efficiency ratio for the first quarter of fiscal 2022?", None),
    ],
)
def test_a_quarter_named_by_number_is_that_of_the_columns_ending_in_it(
    question: str, start: str | None
) -> None:
    asked = asked_metric(question)
    assert asked is not None and asked.quarterly and asked.period is None
    answer = computed_answer(asked, [(JPM_INCOME, "")])
    if start is None:
        assert answer is None
    else:
        assert answer is not None and answer.text.startswith(start)


def test_a_table_a_sentence_announces_is_not_the_statement_it_refers_to() -> None:
    # AMD's stock-based compensation note: its "Research and development 36" is not the
    # income statement's research and development expense (947).
    note = statement_chunk(
        30,
        "Research and development 36 44 48\n",
        page=47,
        header="We allocated stock-based compensation expense for the years ended December 26, "
        "2015, December 27, 2014 and December 28, 2013 in our consolidated statements of "
        "operations as follows: 2015 2014 2013 (In millions)",
    )
    income = statement_chunk(
        31,
        "Net revenue $ 3,991 $ 5,506 $ 5,299\nResearch and development 947 1,072 1,201\n",
        page=56,
        header="Consolidated Statements of Operations 2015 2014 2013 (In millions)",
    )
    assert computed_from(
        "What is AMD's FY2015 research and development expense as a percentage of net revenue?",
        [note, income],
    ).startswith("FY2015 R&D as a share of revenue: 23.7%")


def test_a_row_whose_label_holds_figures_of_its_own_before_its_leaders() -> None:
    rows = chunk_rows(
        statement_chunk(
            32,
            "Trade receivables, net of allowances for doubtful accounts of $7,293 and $7,867, "
            "respectively........ 672,006 591,800\n",
            page=59,
        ),
        "CONSOLIDATED BALANCE SHEETS\n(In thousands)\nNovember 27,\n2015\nNovember 28,\n2014\n",
    )
    assert [(row.label.split(",")[0], row.figures) for row in rows] == [
        ("trade receivables", {2015: 672006.0, 2014: 591800.0})
    ]


def test_a_ratio_asked_in_percent_and_the_net_income_attributable_to_the_company() -> None:
    income = statement_chunk(
        33,
        "Consolidated net income 10,523 14,293\n"
        "Consolidated net income attributable to Walmart 9,862 13,643\n",
        page=57,
        header="Consolidated Statements of Income (in millions) 2018 2017",
    )
    balance = statement_chunk(
        34,
        "Total assets $ 204,522 $ 198,825\n",
        page=59,
        header="Consolidated Balance Sheets (in millions) 2018 2017",
    )
    assert computed_from(
        "What is Walmart's FY2018 return on assets? Answer in units of percents and round to "
        "one decimal place.",
        [income, balance],
    ).startswith("FY2018 return on assets: 4.9% (net income 9,862 / average")


def test_a_caption_s_years_head_no_column() -> None:
    assert column_years(
        "resulting from general rate cases authorizations that became effective during 2019 "
        "through 2021: (In millions) 2021 2020 2019"
    ) == [2021, 2020, 2019]
    assert column_years("As of December 31, 2021 and 2020") == [2021, 2020]
