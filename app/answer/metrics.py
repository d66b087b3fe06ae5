"""Computed answers: the ratio or amount an analyst asks of a filing, worked out from the line
items its statements print, each of them quoted and cited.

A filing prints line items, rarely the ratios read from them: no sentence of Kraft Heinz's 10-K
answers "What is Kraft Heinz's FY2019 inventory turnover ratio?", and a quote of one row answers
half of it. When a question names a metric of METRICS and a fiscal year, the rows holding its
line items are read (label, then one figure per column; the columns' years, the unit and the
statement from the page above the rows) and the metric is worked out for the year asked, with
the year before where a balance is averaged. A question that writes out its period ("for the
quarter ended June 25, 2022", "as of July 30, 2023") is worked out from that period's column,
as a quarterly report's header tells it (Period: the day it ends, the months it spans). The
answer says the result and how it was reached, then quotes each row it used, cited like any
claim.
Where a line item is not found with a figure for each year needed, there is no computed answer
and the question is answered as any other.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from statistics import fmean
from typing import Literal

from app.answer.claims import Answer, Quote, shown_text, worked_out
from app.core.chunks import Candidate
from app.core.rows import (
    FUNCTION_WORDS,
    MONTH,
    dates_written,
    is_period_line,
    is_unit_line,
    month_number,
    row_kind,
    row_label,
)
from app.core.sentences import split_sentences

Statement = Literal["balance", "income", "cash"]
Unit = Literal["ratio", "percent", "amount", "days"]

COMPUTED_CONFIDENCE = 0.45
"""A computed answer is never confident: it is as right as the rows it found, which no
reader has checked (under synthesis's TRUSTED)."""

_STATEMENTS: dict[Statement, re.Pattern[str]] = {
    "balance": re.compile(r"balance sheets?|financial (?:position|condition)", re.I),
    "income": re.compile(
        r"statements? of (?:consolidated )?(?:income|operations|earnings)|income statements?"
        r"|statements? of (?:comprehensive )?(?:income|earnings)",
        re.I,
    ),
    "cash": re.compile(
        r"statements? of (?:consolidated )?cash flows?|cash flows? statements?", re.I
    ),
}
"""How a table's title (its header or its chunk's context header) names each statement."""


@dataclass(frozen=True)
class LineItem:
    """A line item as statements label its row, and the statement that prints it."""

    name: str
    label: re.Pattern[str]
    """Matches the whole of a row's label, normalised (app.answer.metrics.normal_label)."""
    search: str
    """A PostgreSQL regular expression that every chunk holding such a row matches."""
    statement: Statement
    magnitude: bool = False
    """The item is an outflow some statements print in parentheses (capital spending,
    dividends paid, interest expense): its size counts."""
    prefer: re.Pattern[str] | None = None
    """Of the rows that print it, those whose label this matches come first: the net income
    attributable to the company's shareholders before the consolidated one, total revenues
    before the net sales above them."""
    asked: re.Pattern[str] | None = None
    """How a question names the item when it asks for its figure alone ("What is the year end
    FY2018 amount of accounts payable?"); None for an item only metrics are made of."""


_OR_LOSS = r"(?: ?/ ?\(loss\)| \(loss\))?"
"""What a label of income may add for the years it was a loss: "Net income (loss)",
"Income/(loss) before income taxes"."""


def _item(
    name: str,
    label: str,
    search: str,
    statement: Statement,
    *,
    magnitude: bool = False,
    prefer: str | None = None,
    asked: str | None = None,
) -> LineItem:
    return LineItem(
        name,
        re.compile(label),
        search,
        statement,
        magnitude,
        re.compile(prefer) if prefer else None,
        re.compile(asked, re.I) if asked else None,
    )


def _cash_flow_of(activities: str) -> str:
    """Returns the label of the net cash of some activities as statements of cash flows write
    it: "Net cash provided by (used in) investing activities", "Cash provided (used) by
    operations", "Net cash flows used in financing activities"."""
    way = r"\(?(?:provided|used|generated|from|by|in|for)\)?"
    return rf"(?:net )?cash(?: flows?)?(?: {way})* {activities}(?: of continuing operations)?"


_THE_OWNERS = r"(?: attributable to (?![\w .,'&-]*\bnon-?controlling)[\w .,'&-]+)?"
"""Whose a line item is, when it says: the company's owners ("attributable to General Mills"),
not "(redeemable and) noncontrolling interests", another's part of it."""

LINE_ITEMS: dict[str, LineItem] = {
    "revenue": _item(
        "revenue",
        r"(?:total )?(?:net )?(?:operating )?(?:revenues?|sales)(?:, net)?|total net sales"
        r"|net sales and revenues?|total revenues? and other income",
        r"revenue|sales",
        "income",
        prefer=r"^total",
        asked=r"\b(?:total )?(?:net )?(?:revenues?|sales)\b",
    ),
    "cogs": _item(
        "cost of sales",
        r"(?:total )?cost of (?:products |goods |merchandise )?(?:sales|revenues?|sold)"
        r"|cost of (?:products|goods|merchandise) sold(?: \(exclusive of .*\))?",
        r"cost of",
        "income",
        asked=r"\bCOGS\b|\bcost of (?:goods |products )?(?:sold|sales|revenues?)\b",
    ),
    "operating_income": _item(
        "operating income",
        rf"(?:total )?operating income{_OR_LOSS}|income{_OR_LOSS} from operations"
        r"|operating profit|earnings from operations",
        r"operating (income|profit)|from operations",
        "income",
        asked=r"\b(?:unadjusted )?operating income\b|\bincome from operations\b"
        r"|\boperating profit\b",
    ),
    "net_income": _item(
        "net income",
        rf"(?:consolidated )?net (?:income|earnings){_OR_LOSS}{_THE_OWNERS}",
        r"net (income|earnings)",
        "income",
        prefer=r"attributable",
        asked=r"\bnet (?:income|earnings)\b",
    ),
    "depreciation": _item(
        "depreciation and amortization",
        r"depreciation(?:, depletion)?,? (?:and|&) amortization(?: expense)?",
        r"depreciation",
        "cash",
        asked=r"\bdepreciation (?:and|&) amortization\b|\bD&A\b",
    ),
    "total_assets": _item(
        "total assets",
        r"total assets",
        r"total assets",
        "balance",
        asked=r"\btotal assets\b",
    ),
    "current_assets": _item(
        "total current assets",
        r"total current assets",
        r"current assets",
        "balance",
        asked=r"\b(?:total )?current assets\b",
    ),
    "current_liabilities": _item(
        "total current liabilities",
        r"total current liabilities",
        r"current liabilities",
        "balance",
        asked=r"\b(?:total )?current liabilities\b",
    ),
    "short_term_debt": _item(
        "short-term debt",
        r"short-term (?:debt|borrowings)|commercial paper|notes payable"
        r"|debt maturing within one year",
        r"short-term (debt|borrowings)|commercial paper|notes payable|maturing within one year",
        "balance",
    ),
    "current_long_term_debt": _item(
        "current portion of long-term debt",
        r"current (?:portion|maturities) of long-term (?:debt|borrowings)(?:,? net)?"
        r"|long-term debt,? current (?:portion|maturities)|long-term debt due within one year",
        r"current (portion|maturities) of long-term|long-term debt,? current|due within one year",
        "balance",
    ),
    "long_term_debt": _item(
        "long-term debt",
        r"long-term (?:debt|borrowings)(?:,? (?:net|less|excluding|net of)\b[\w ,]*)?",
        r"long-term (debt|borrowings)",
        "balance",
    ),
    "noninterest_expense": _item(
        "total noninterest expense",
        r"total non-?interest expenses?",
        r"non-?interest expense",
        "income",
    ),
    "inventory": _item(
        "inventories",
        r"(?:total )?(?:merchandise )?inventor(?:y|ies)(?:, net)?",
        r"inventor",
        "balance",
        asked=r"\binventor(?:y|ies)\b",
    ),
    "fixed_assets": _item(
        "property, plant and equipment, net",
        r"(?:total )?(?:net )?property,? (?:plant,? )?and equipment,? (?:net|less .*)"
        r"|(?:total )?(?:net )?property,? (?:plant,? )?and equipment"
        r"|property and equipment, net|net property and equipment",
        r"property",
        "balance",
        asked=r"\bproperty,? plant,? (?:and|&) equipment\b|\bPP&E\b",
    ),
    "accounts_payable": _item(
        "accounts payable",
        r"(?:trade )?accounts payable(?:, trade)?|trade payables",
        r"accounts payable",
        "balance",
        asked=r"\baccounts payable\b",
    ),
    "total_equity": _item(
        "total equity",
        r"total (?:(?:stockholders|shareholders|shareowners)' )?equity",
        r"equity",
        "balance",
    ),
    "equity": _item(
        "total shareholders' equity",
        r"total (?:stockholders|shareholders|shareowners|common shareholders)' equity"
        + _THE_OWNERS,
        r"equity",
        "balance",
        asked=r"\b(?:total )?(?:stockholders|shareholders)\'? equity\b",
    ),
    "operating_cash_flow": _item(
        "net cash provided by operating activities",
        _cash_flow_of(r"operati(?:ons|ng activities)"),
        r"operating activities|from operations|by operations",
        "cash",
        asked=r"\b(?:net )?cash (?:flows? )?(?:(?:provided|generated) by |from )"
        r"(?:operating activities|operations)\b",
    ),
    "investing_cash_flow": _item(
        "net cash used in investing activities",
        _cash_flow_of("investing activities"),
        r"investing activities",
        "cash",
    ),
    "financing_cash_flow": _item(
        "net cash used in financing activities",
        _cash_flow_of("financing activities"),
        r"financing activities",
        "cash",
    ),
    "capital_expenditure": _item(
        "capital expenditure",
        r"(?:purchases? (?:of|related to)|payments for|additions to|acquisitions? of"
        r"|investments? in)"
        r" (?:property|land|premises|plant|capital assets)[\w ,]*"
        r"|capital (?:expenditures?|spending)(?:,? \(?(?:net|excluding|including)\b[\w ,]*\)?)?",
        r"property|capital (expenditure|spending)|land",
        "cash",
        magnitude=True,
        asked=r"\bcapex\b|\bcapital expenditures?\b|\bcapital spending\b",
    ),
    "dividends": _item(
        "dividends paid",
        r"(?:cash )?dividends paid(?: to [\w ]+)?|dividends paid on common stock"
        r"|(?:cash )?dividends(?: to shareholders)?",
        r"dividends",
        "cash",
        magnitude=True,
        asked=r"\b(?:cash )?dividends paid\b|\bpa(?:y|id)(?: out)?(?: in)? (?:cash )?dividends\b",
    ),
    "pretax_income": _item(
        "income before income taxes",
        rf"(?:income|earnings){_OR_LOSS}(?: from continuing operations)? before"
        r" (?:provision for )?income tax(?:es| expense)?(?: and equity .*)?",
        r"before (provision for )?income tax",
        "income",
        asked=r"\b(?:income|earnings) before (?:income )?taxes\b|\bpre-?tax income\b",
    ),
    "income_tax": _item(
        "provision for income taxes",
        r"(?:(?:provision|benefit|for|from|and|[()/\s])+)?"
        r"income tax(?:es| expense| provision)(?: \(benefit\)| benefit)?"
        r"(?: from continuing operations)?",
        r"income tax",
        "income",
        asked=r"\bprovision for income taxes\b|\bincome tax expense\b",
    ),
    "interest_expense": _item(
        "interest expense",
        # Walmart's income statement sums its interest under "Interest:" as "Interest, net".
        r"interest expense(?:, net)?|interest, net",
        r"interest(?: expense|, net)",
        "income",
        magnitude=True,
        prefer=r"interest expense",
        asked=r"\binterest expense\b",
    ),
    "selling_expense": _item(
        "selling, general and administrative expenses",
        r"(?:total )?selling, general,? and administrative(?: expenses?| costs?)?",
        r"selling, general",
        "income",
        asked=r"\bSG&A\b|\bselling, general,? and administrative\b",
    ),
    "research_expense": _item(
        "research and development expenses",
        r"(?:total )?research(?:,| and) development(?:,? and engineering)?(?: expenses?| costs?)?",
        r"research(,| and) development",
        "income",
        asked=r"\bR&D\b|\bresearch(?:,| and) development\b",
    ),
    "cash": _item(
        "cash and cash equivalents",
        r"(?:total )?cash and (?:cash )?equivalents(?:, at carrying value)?",
        r"cash and (cash )?equivalents",
        "balance",
    ),
    "marketable_securities": _item(
        "marketable securities",
        r"(?:short-term |current )?(?:marketable securities|investments)(?:,? current)?"
        r"|short-term (?:marketable securities|investments)",
        r"marketable securities|short-term investments",
        "balance",
        prefer=r"marketable|short-term",
    ),
    "receivables": _item(
        "accounts receivable",
        r"(?:trade |accounts |accounts and notes )?receivables?(?:,? net| - net)?(?: of .*)?"
        r"|accounts receivable(?:,? net)?(?:,? less .*| of .*)?",
        r"receivable",
        "balance",
        asked=r"\baccounts receivable\b",
    ),
}


_OF_REVENUE = (
    r"(?:%|percent(?:age)?)\s+of\s+(?:total\s+)?(?:net\s+)?(?:operating\s+)?(?:revenues?|sales)"
)
"""How a question asks for a share of revenue: "as a percentage of net operating revenues"
(Coca-Cola's own words for them), "% of total sales"."""


@dataclass(frozen=True)
class Metric:
    """A figure analysts read from line items: how it is asked and how it is worked out."""

    name: str
    asked: re.Pattern[str]
    items: tuple[str, ...]
    formula: Callable[[Mapping[str, float], Mapping[str, float]], float]
    """Of each item's figure for the year, and for the year before (averaged items, changes)."""
    unit: Unit
    shown: str
    """How it is worked out, with each item's place as `{item}`."""
    averaged: frozenset[str] = frozenset()
    """Items (balances) taken as the average of the year's and the year before's."""
    before: frozenset[str] = frozenset()
    """Items needed for the year before as well (the averaged ones among them), whatever the
    formula does with them."""
    optional: frozenset[str] = frozenset()
    """Items a balance sheet may not print (a company holding no marketable securities): 0
    when no row does."""


def _avg(items: Mapping[str, float], before: Mapping[str, float], name: str) -> float:
    return (items[name] + before[name]) / 2


def _metric(
    name: str,
    asked: str,
    items: tuple[str, ...],
    formula: Callable[[Mapping[str, float], Mapping[str, float]], float],
    unit: Unit,
    shown: str,
    *,
    averaged: tuple[str, ...] = (),
    before: tuple[str, ...] = (),
    optional: tuple[str, ...] = (),
) -> Metric:
    return Metric(
        name,
        re.compile(asked, re.I),
        items,
        formula,
        unit,
        shown,
        frozenset(averaged),
        frozenset(averaged) | frozenset(before),
        frozenset(optional),
    )


def _debt(year: Mapping[str, float]) -> float:
    return (
        year.get("short_term_debt", 0.0)
        + year.get("current_long_term_debt", 0.0)
        + year["long_term_debt"]
    )


def _over_average(name: str, asked: str, flow: str, balance: str) -> Metric:
    """Returns the ratio of a year's flow to the average of a balance over the year and the
    year before (return on assets, the turnovers)."""
    return _metric(
        name,
        asked,
        (flow, balance),
        lambda y, b: y[flow] / _avg(y, b, balance),
        "ratio",
        f"{{{flow}}} / {{{balance}}}",
        averaged=(balance,),
    )


METRICS: tuple[Metric, ...] = (
    _metric(
        "operating cash flow ratio",
        r"operating cash flow ratio",
        ("operating_cash_flow", "current_liabilities"),
        lambda y, b: y["operating_cash_flow"] / y["current_liabilities"],
        "ratio",
        "{operating_cash_flow} / {current_liabilities}",
    ),
    _metric(
        "quick ratio",
        r"quick ratio|acid[- ]test ratio",
        ("cash", "marketable_securities", "receivables", "current_liabilities"),
        lambda y, b: (
            (y["cash"] + y.get("marketable_securities", 0.0) + y["receivables"])
            / y["current_liabilities"]
        ),
        "ratio",
        "({cash} + {marketable_securities} + {receivables}) / {current_liabilities}",
        optional=("marketable_securities",),
    ),
    _metric(
        "efficiency ratio",
        r"\b(?:efficiency|overhead) ratio\b",
        ("noninterest_expense", "revenue"),
        lambda y, b: 100 * y["noninterest_expense"] / y["revenue"],
        "percent",
        "{noninterest_expense} / {revenue}",
    ),
    _metric(
        "debt-to-equity ratio",
        r"\bdebt[- ]to[- ](?:total )?equity\b",
        ("short_term_debt", "current_long_term_debt", "long_term_debt", "total_equity"),
        lambda y, b: _debt(y) / y["total_equity"],
        "ratio",
        "({short_term_debt} + {current_long_term_debt} + {long_term_debt}) / {total_equity}",
        optional=("short_term_debt", "current_long_term_debt"),
    ),
    _metric(
        "total debt",
        r"\btotal debt\b(?![- ]to)",
        ("short_term_debt", "current_long_term_debt", "long_term_debt"),
        lambda y, b: _debt(y),
        "amount",
        "{short_term_debt} + {current_long_term_debt} + {long_term_debt}",
        optional=("short_term_debt", "current_long_term_debt"),
    ),
    _metric(
        "working capital ratio",
        r"working capital ratio|current ratio",
        ("current_assets", "current_liabilities"),
        lambda y, b: y["current_assets"] / y["current_liabilities"],
        "ratio",
        "{current_assets} / {current_liabilities}",
    ),
    _metric(
        "working capital",
        r"working capital",
        ("current_assets", "current_liabilities"),
        lambda y, b: y["current_assets"] - y["current_liabilities"],
        "amount",
        "{current_assets} - {current_liabilities}",
    ),
    _metric(
        "free cash flow",
        r"free cash flow|\bFCF\b",
        ("operating_cash_flow", "capital_expenditure"),
        lambda y, b: y["operating_cash_flow"] - y["capital_expenditure"],
        "amount",
        "{operating_cash_flow} - {capital_expenditure}",
    ),
    _metric(
        "capital expenditure as a share of revenue",
        rf"(?:capex|capital expenditures?|capital spending)\s+(?:as\s+a\s+)?{_OF_REVENUE}",
        ("capital_expenditure", "revenue"),
        lambda y, b: 100 * y["capital_expenditure"] / y["revenue"],
        "percent",
        "{capital_expenditure} / {revenue}",
    ),
    _metric(
        "depreciation and amortization as a share of revenue",
        r"(?:D&A|depreciation (?:and|&) amortization)[^?]{0,60}?(?:%\s*margin|\bmargin\b"
        rf"|{_OF_REVENUE})",
        ("depreciation", "revenue"),
        lambda y, b: 100 * y["depreciation"] / y["revenue"],
        "percent",
        "{depreciation} / {revenue}",
    ),
    _metric(
        "EBITDA margin",
        r"EBITDA (?:%\s+)?margin",
        ("operating_income", "depreciation", "revenue"),
        lambda y, b: 100 * (y["operating_income"] + y["depreciation"]) / y["revenue"],
        "percent",
        "({operating_income} + {depreciation}) / {revenue}",
    ),
    _metric(
        "operating income plus depreciation and amortization",
        r"\bEBITDA\b|operating income\s*(?:\+|plus)\s*depreciation",
        ("operating_income", "depreciation"),
        lambda y, b: y["operating_income"] + y["depreciation"],
        "amount",
        "{operating_income} + {depreciation}",
    ),
    _metric(
        "gross margin",
        r"gross (?:profit )?margin",
        ("revenue", "cogs"),
        lambda y, b: 100 * (y["revenue"] - y["cogs"]) / y["revenue"],
        "percent",
        "({revenue} - {cogs}) / {revenue}",
    ),
    _metric(
        "operating margin",
        r"operating (?:profit |income )?margin",
        ("operating_income", "revenue"),
        lambda y, b: 100 * y["operating_income"] / y["revenue"],
        "percent",
        "{operating_income} / {revenue}",
    ),
    _metric(
        "net profit margin",
        r"net (?:profit |income )?margin",
        ("net_income", "revenue"),
        lambda y, b: 100 * y["net_income"] / y["revenue"],
        "percent",
        "{net_income} / {revenue}",
    ),
    _over_average(
        "return on assets",
        r"return on (?:average )?(?:total )?assets|\bROA\b",
        "net_income",
        "total_assets",
    ),
    _over_average(
        "return on equity",
        r"return on (?:average )?(?:common )?(?:shareholders'? |stockholders'? )?(?:common )?equity"
        r"|\bROE\b",
        "net_income",
        "equity",
    ),
    _over_average("fixed asset turnover ratio", r"fixed asset turnover", "revenue", "fixed_assets"),
    _over_average(
        "total asset turnover ratio", r"(?:total )?asset turnover", "revenue", "total_assets"
    ),
    _over_average("inventory turnover ratio", r"inventory turnover", "cogs", "inventory"),
    _metric(
        "cash conversion cycle",
        r"cash conversion cycle|\bCCC\b",
        ("inventory", "cogs", "receivables", "revenue", "accounts_payable"),
        lambda y, b: (
            365 * _avg(y, b, "inventory") / y["cogs"]
            + 365 * _avg(y, b, "receivables") / y["revenue"]
            - 365 * _avg(y, b, "accounts_payable") / (y["cogs"] + y["inventory"] - b["inventory"])
        ),
        "days",
        "365 * {inventory} / {cogs} + 365 * {receivables} / {revenue} - 365 * "
        "{accounts_payable} / ({cogs} + change in inventories)",
        averaged=("inventory", "receivables", "accounts_payable"),
    ),
    _metric(
        "days payable outstanding",
        r"days payables? outstanding|\bDPO\b",
        ("accounts_payable", "cogs", "inventory"),
        lambda y, b: (
            365 * _avg(y, b, "accounts_payable") / (y["cogs"] + y["inventory"] - b["inventory"])
        ),
        "days",
        "365 * {accounts_payable} / ({cogs} + change in {inventory})",
        averaged=("accounts_payable",),
        before=("inventory",),
    ),
    _metric(
        "days inventory outstanding",
        r"days (?:of )?inventory outstanding|\bDIO\b",
        ("inventory", "cogs"),
        lambda y, b: 365 * _avg(y, b, "inventory") / y["cogs"],
        "days",
        "365 * {inventory} / {cogs}",
        averaged=("inventory",),
    ),
    _metric(
        "effective tax rate",
        r"effective (?:income )?tax rate",
        ("income_tax", "pretax_income"),
        # Some statements print the provision as a deduction, "(411)", under income of 1,797:
        # a rate of 22.9%, not -22.9%.
        lambda y, b: 100 * abs(y["income_tax"] / y["pretax_income"]),
        "percent",
        "{income_tax} / {pretax_income}",
    ),
    _metric(
        "dividend payout ratio",
        r"dividend payout ratio|payout ratio",
        ("dividends", "net_income"),
        lambda y, b: y["dividends"] / y["net_income"],
        "ratio",
        "{dividends} / {net_income}",
    ),
    _metric(
        "cost of sales as a share of revenue",
        r"(?:COGS|cost of (?:goods |products )?(?:sold|sales))\s+(?:%\s*margin|(?:as\s+a\s+)?"
        rf"{_OF_REVENUE})",
        ("cogs", "revenue"),
        lambda y, b: 100 * y["cogs"] / y["revenue"],
        "percent",
        "{cogs} / {revenue}",
    ),
    _metric(
        "SG&A as a share of revenue",
        r"(?:SG&A|selling, general,? and administrative(?: expenses?)?)\s+(?:%\s*margin|(?:as\s+a"
        rf"\s+)?{_OF_REVENUE})",
        ("selling_expense", "revenue"),
        lambda y, b: 100 * y["selling_expense"] / y["revenue"],
        "percent",
        "{selling_expense} / {revenue}",
    ),
    _metric(
        "R&D as a share of revenue",
        r"(?:R&D|research(?:,| and) development(?:,? and engineering)?(?: expenses?)?)\s+"
        rf"(?:%\s*margin|(?:as\s+a\s+)?{_OF_REVENUE})",
        ("research_expense", "revenue"),
        lambda y, b: 100 * y["research_expense"] / y["revenue"],
        "percent",
        "{research_expense} / {revenue}",
    ),
    _metric(
        "days sales outstanding",
        r"days sales outstanding|\bDSO\b",
        ("receivables", "revenue"),
        lambda y, b: 365 * _avg(y, b, "receivables") / y["revenue"],
        "days",
        "365 * {receivables} / {revenue}",
        averaged=("receivables",),
    ),
    _metric(
        "interest coverage ratio",
        r"interest coverage|times interest earned",
        ("operating_income", "interest_expense"),
        lambda y, b: y["operating_income"] / y["interest_expense"],
        "ratio",
        "{operating_income} / {interest_expense}",
    ),
)
"""Most specific first: "working capital ratio" before "working capital", "EBITDA margin"
before "EBITDA"; before any line item asked alone (ASKED_ITEMS)."""


def _item_metric(key: str) -> Metric:
    return _metric(LINE_ITEMS[key].name, "", (key,), lambda y, b: y[key], "amount", f"{{{key}}}")


ASKED_ITEMS: tuple[str, ...] = (
    "cogs",
    "pretax_income",
    "income_tax",
    "interest_expense",
    "selling_expense",
    "research_expense",
    "operating_cash_flow",
    "capital_expenditure",
    "dividends",
    "depreciation",
    "current_assets",
    "current_liabilities",
    "total_assets",
    "fixed_assets",
    "accounts_payable",
    "receivables",
    "inventory",
    "equity",
    "operating_income",
    "net_income",
    "revenue",
)
"""The line items a question may ask for alone, the longer names first: "cost of sales"
before "sales", "net cash from operations" before "operations"."""
ITEM_METRICS = {key: _item_metric(key) for key in ASKED_ITEMS}
_NOT_THE_ITEM = re.compile(
    r"\b(?:per share|EPS|segments?|regions?|geograph\w*|divisions?|brands?|products?|markets?"
    r"|platforms?|share|adjusted"
    r"|non-GAAP|noncontrolling|minority|ratio|margin|growth|percent\w*|guidance|outlook"
    r"|expect\w*|which|why|drove|recurring|annuali[sz]ed|ARR|deferred|unearned|backlog"
    r"|driv\w+)\b|%",
    re.I,
)
"""Words that ask for more than, or other than, the statement's figure of an item: a segment's
(or market platform's) revenue, a per-share amount, the noncontrolling interests' share, a
ratio of it, another measure named after it (annualized recurring revenue, deferred
revenue)."""

_YEAR = r"((?:19|20)\d\d)"
_FISCAL_YEAR = re.compile(rf"\b(?:FY\s?|fiscal(?: year)?\s+){_YEAR}\b|\b{_YEAR}\b", re.I)
_SPAN = re.compile(
    rf"(?:\bFY\s?|\bfiscal(?: year)?\s+)?{_YEAR}\s*(?:-|\u2013|to|through|and)\s*"
    rf"(?:\bFY\s?|fiscal(?: year)?\s+)?{_YEAR}",
    re.I,
)
_SHORT_FISCAL_YEAR = re.compile(r"\bFY\s?'?(\d\d)\b", re.I)
"""A fiscal year written short ("FY22", "FY '22"): of this century."""
_CAGR = re.compile(r"\bCAGR\b|compound(?:ed)? annual growth", re.I)
_REVENUE = re.compile(r"revenue|sales", re.I)
_QUARTER = re.compile(r"\b(?:quarter|Q[1-4]|(?:three|six|nine) months)\b", re.I)
_NOT_ONE_FIGURE = re.compile(
    r"\b(?:chang|increas|decreas|compar|differ|declin|jump|drop|fell|fall|rose|rise|grew"
    r"|why|drove|driv|caus|reason(?!abl)|explain)\w*",
    re.I,
)
"""A question about how a metric moved, or why ("Why did Nike's gross margin decline in
FY2023?"), asks for more than a period's figure. One about a quarter (_QUARTER) is answered
only from the column of the period it writes out, never from a fiscal year's."""
_PER_UNIT = re.compile(r"\bper\s+(?!(?:share|cent|year|annum|quarter)\b)\w+", re.I)
"""A figure per unit of something ("REVPAR (revenue per available room)", "sales per square
foot"): a measure of its own, not the line item it names."""
_YEAR_ON_YEAR = re.compile(
    r"\b(?:year[- ]over[- ]year|YoY|y/y)\b|\b(?:percent(?:age)?|%) (?:change|growth)\b"
    r"|\bgrowth rate\b",
    re.I,
)
_IN_PERCENT = re.compile(r"\bpercent|%", re.I)
_CHANGE_WORDS = re.compile(
    r"\b(?:year[- ]over[- ]year|YoY|y/y|percent\w*|growth(?: rate)?|change)\b|%|\([^)]*\)",
    re.I,
)
"""How a question asks for the percentage change of an item from one fiscal year to the next
("What is Adobe's year-over-year change in unadjusted operating income from FY2015 to FY2016 (in
units of percents)?"), and the words that ask it, left out to find the item."""
_ASKED_SCALE = re.compile(
    r"\bin (?:units of )?(?:USD |US\$ |\$ ?)?(thousands|millions|billions)\b", re.I
)
SCALES = {"thousands": 1e3, "millions": 1e6, "billions": 1e9}
_ASKED_PERCENT = re.compile(r"\bin (?:units of )?percents?\b|\bas a percent(?:age)?\b", re.I)
_AVERAGE_OVER_YEARS = re.compile(r"\b(?:\d|two|three|four|five)[- ]year average\b", re.I)


@dataclass(frozen=True)
class Period:
    """A column's period as a quarterly report heads it: the day it ends, (year, month, day),
    and for a flow the months it spans (None where the header does not say)."""

    ended: tuple[int, int, int]
    months: int | None = None

    def shown(self) -> str:
        year, month, day = self.ended
        date = f"{MONTH_NAMES[month - 1]} {day}, {year}"
        if not self.months:
            return date
        return f"{_SPAN_WORDS[self.months].capitalize()} months ended {date}"


MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)  # fmt: skip
SPANNED = {"three": 3, "six": 6, "nine": 9, "twelve": 12}
_SPAN_WORDS = {months: word for word, months in SPANNED.items()}
_HEADER_PIECE = re.compile(
    rf"\b(?P<span>three|six|nine|twelve)\s+months\b|\b(?P<quarter>quarters?)\s+ended\b"
    rf"|\b(?P<fiscal_year>years?)\s+ended\b|\b(?P<month>{MONTH})\s+(?P<day>\d{{1,2}})\b(?![\d,.]\d)"
    r"|(?<![\d$])(?<!\d[,.])(?P<year>(?:19|20)\d\d)(?!\d|%|[.,]\d)",
    re.I,
)
"""What a header says of its columns, in order: how long their periods are ("Three Months
Ended"), the days they end ("June 25,") and their years."""
MONTHS_SPANNED = re.compile(r"\b(three|six|nine|twelve)[- ]months?\b", re.I)
"""Months a question or a table's heads say a period spans ("the six months ended")."""
_ASKED_QUARTER = re.compile(r"\bquarter|\bQ[1-4]\b", re.I)
_SPANS_NAMED = re.compile(
    r"\b(three|six|nine|twelve)"
    r"(?=[- ]months?\b|-?\s+(?:and|or)\s+(?:three|six|nine|twelve)[- ]months?\b)",
    re.I,
)
"""Each span of months a text names, those a filing names together too ("the three- and
nine-month periods")."""


def column_periods(header: str) -> list[Period]:
    """Returns the periods of a table's columns as its header writes them, one per year it
    names, in order; [] unless each column's day is told. A header groups its columns:
    "Three Months Ended Nine Months Ended June 25, 2022 June 26, 2021 June 25, 2022 June 26,
    2021", "Three Months Ended March 31, Nine Months Ended March 31, 2023 2022 2023 2022" and
    "July 30, January 29, 2023 2023" each give a period a column. A caption before them ("...
    for the three- and nine-month periods ended June 25, 2022 and June 26, 2021 (in millions):")
    heads no column: where the column heads' spans all follow a colon, only what follows it
    is read."""
    caption, colon, heads = header.rpartition(":")
    spans_before = any(piece["span"] for piece in _HEADER_PIECE.finditer(caption))
    return (colon and not spans_before and _periods(heads)) or _periods(header)


def _periods(header: str) -> list[Period]:
    spans: list[int] = []
    days: list[tuple[int, int]] = []
    years: list[int] = []
    for piece in _HEADER_PIECE.finditer(header):
        if piece["span"]:
            spans.append(SPANNED[piece["span"].lower()])
        elif piece["quarter"]:
            spans.append(3)
        elif piece["fiscal_year"]:
            spans.append(12)
        elif piece["month"]:
            days.append((month_number(piece["month"]), int(piece["day"])))
        else:
            years.append(int(piece["year"]))
    count = len(years)
    if not days or count % len(days) or (spans and count % len(spans)):
        return []
    per_day = count // len(days)
    per_span = count // len(spans) if spans else 0
    return [
        Period((year, *days[i // per_day]), spans[i // per_span] if spans else None)
        for i, year in enumerate(years)
    ]


_QUARTER_NAMED = re.compile(r"\b(first|second|third|fourth)[- ]quarter\b|\bQ([1-4])\b", re.I)
_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


def asked_quarter(question: str) -> int | None:
    """Returns the quarter a question names by its number ("the first quarter of 2021", "2022
    Q2"), None when it names none."""
    named = _QUARTER_NAMED.search(question)
    if named is None:
        return None
    return _ORDINALS[named.group(1).lower()] if named.group(1) else int(named.group(2))


def quarter_period(rows: Sequence[Row], year: int, quarter: int) -> Period | None:
    """Returns the period of the three months the rows' columns end in `quarter` of the
    calendar `year` (a fiscal quarter ending elsewhere is never guessed); None unless exactly
    one day does."""
    days = {
        column.ended
        for row in rows
        for column in row.periods
        if column.months == 3 and column.ended[0] == year and (column.ended[1] + 2) // 3 == quarter
    }
    return Period(days.pop(), 3) if len(days) == 1 else None


def asked_period(question: str) -> Period | None:
    """Returns the period a question writes out: the last whole date it gives (where a
    fiscal quarter is named before the day it ends), with the months it spans when it says
    ("three months", a quarter); None when it writes no whole date."""
    dates = dates_written(question, any_case=True)
    return Period(dates[-1], months_asked(question)) if dates else None


def months_asked(question: str) -> int | None:
    """Returns the months the period a question asks of spans, where it says ("the six months
    ended", a quarter), else None."""
    span = MONTHS_SPANNED.search(question)
    if span:
        return SPANNED[span.group(1).lower()]
    return 3 if _ASKED_QUARTER.search(question) else None


def months_named(text: str) -> frozenset[int]:
    """Returns the spans of the periods a text names in months ("the nine months ended", "Q3
    2023", "the quarter")."""
    spans = {SPANNED[span.lower()] for span in _SPANS_NAMED.findall(text)}
    return frozenset(spans | {3} if _ASKED_QUARTER.search(text) else spans)


@dataclass(frozen=True)
class MetricQuestion:
    """What a question asks to compute: a metric for some years, averaged or as growth."""

    metric: Metric
    years: tuple[int, ...]
    """The fiscal years it is asked for (one, or the span of an average or a growth rate)."""
    growth: bool = False
    """The compound annual growth of the metric from the first year to the last (over one
    year, its change in percent)."""
    largest: bool = False
    """Which of the metric's items is the largest ("Among operations, investing, and financing
    activities, which brought in the most (or lost the least) cash flow?"); a question of the
    one that used the most is not this one."""
    scale: str = ""
    """The scale an amount is asked in ("millions" of "Answer in USD millions"), "percent" for
    a ratio asked in percent ("Answer in units of percents"), "" unsaid."""
    period: Period | None = None
    """The period the question writes out ("the quarter ended June 25, 2022", "as of July 30,
    2023"), whose column answers it where no fiscal year's does."""
    quarterly: bool = False
    """It asks for part of a year (a quarter, nine months): only `period`'s column answers."""
    quarter: int | None = None
    """The quarter it names by number where it writes out no period ("the first quarter of
    2021"): the columns of three months ending in that calendar quarter answer it."""


CASH_FLOW_BY_ACTIVITY = _metric(
    "net cash by activity",
    r"(?=.*\boperati(?:ons|ng)\b)(?=.*\binvesting\b)(?=.*\bfinancing\b)"
    r"(?=.*\b(?:brought in|provided|generated)\b[\w ]* (?:most|highest|largest)\b)",
    ("operating_cash_flow", "investing_cash_flow", "financing_cash_flow"),
    lambda y, b: max(y.values()),
    "amount",
    "{operating_cash_flow}, {investing_cash_flow}, {financing_cash_flow}",
)
ACTIVITIES = {
    "operating_cash_flow": "operations",
    "investing_cash_flow": "investing",
    "financing_cash_flow": "financing",
}
"""The activities as the question names them."""


def asked_metric(question: str) -> MetricQuestion | None:
    """Returns the metric `question` asks to compute and for which fiscal years; None when it
    asks for none of METRICS, or names no fiscal year."""
    period = asked_period(question)
    quarterly = asks_part_of_year(question)
    question = _SHORT_FISCAL_YEAR.sub(lambda short: f"FY20{short.group(1)}", question)
    span = _SPAN.search(question)
    years: tuple[int, ...]
    if span:
        first, last = sorted((int(span.group(1)), int(span.group(2))))
        years = tuple(range(first, last + 1))
    elif quarterly and period is not None:
        years = (period.ended[0],)
    else:
        named = [int(a or b) for a, b in _FISCAL_YEAR.findall(question)]
        if not named:
            return None
        years = (named[0],)
    if quarterly and (span or _CAGR.search(question) or _YEAR_ON_YEAR.search(question)):
        return None  # growth over quarters is not worked out
    if _CAGR.search(question) and _REVENUE.search(question):
        growth = MetricQuestion(ITEM_METRICS["revenue"], (years[0], years[-1]), growth=True)
        return growth if len(years) > 1 else None
    if len(years) == 2 and _YEAR_ON_YEAR.search(question) and _IN_PERCENT.search(question):
        changed = _item_asked(_CHANGE_WORDS.sub(" ", _asking(question)))
        return MetricQuestion(changed, years, growth=True) if changed else None
    if CASH_FLOW_BY_ACTIVITY.asked.search(question):
        return MetricQuestion(CASH_FLOW_BY_ACTIVITY, years[-1:], largest=True)
    metric = next((m for m in METRICS if m.asked.search(question)), None) or _item_asked(
        _asking(question)
    )
    asking = _asking(question)
    if (
        metric is None
        or _NOT_ONE_FIGURE.search(asking)
        or _PER_UNIT.search(asking)
        or names_a_part(question)
    ):
        return None
    if len(years) > 1 and not _AVERAGE_OVER_YEARS.search(question):
        years = (years[-1],)
    wanted = _ASKED_SCALE.search(question)
    scale = wanted.group(1).lower() if wanted else ""
    if metric.unit == "ratio" and _ASKED_PERCENT.search(question):
        scale = "percent"
    return MetricQuestion(
        metric,
        years,
        scale=scale,
        period=period,
        quarterly=quarterly,
        quarter=asked_quarter(question) if quarterly and period is None else None,
    )


def _item_asked(asking: str) -> Metric | None:
    """Returns the metric of the one line item `asking` asks the figure of ("What is the year
    end FY2018 amount of accounts payable?"), None when it names none, several, or asks more
    of it (_NOT_THE_ITEM)."""
    if not re.search(r"\b(?:what|how much)\b", asking, re.I):
        return None
    for key in ASKED_ITEMS:
        named = LINE_ITEMS[key].asked
        found = named.search(asking) if named else None
        if found is None:
            continue
        rest = f"{asking[: found.start()]} {asking[found.end() :]}"
        others = (LINE_ITEMS[other].asked for other in ASKED_ITEMS if other != key)
        if _NOT_THE_ITEM.search(rest) or any(other and other.search(rest) for other in others):
            return None
        if _PART_NAMED.search(asking[: found.start()]):
            return None
        qualifier = _QUALIFIER.search(asking[: found.start()])
        if qualifier and qualifier.group(1) not in _ANY_OF_THE_ITEM:
            return None
        return ITEM_METRICS[key]
    return None


_PART_NAMED = re.compile(
    r"(?:['\u2019]s|\bits|\btheir)\s+(?:[A-Z][A-Za-z]*|[a-z]+[A-Z][A-Za-z]*)(?:\s+[A-Z][A-Za-z]*)*"
    r"\s+$"
)
"""A name right after the company's possessive ("its") and right before the item: a segment's or a
product's ("NVIDIA's Data Center revenue", "Apple's iPhone net sales"), whose figure is not
the statement's."""


_QUALIFIER = re.compile(r"(?:^|\s)([a-z][a-z-]*)\s+$")
_ANY_OF_THE_ITEM = frozenset({
    "a", "an", "and", "are", "as", "consolidated", "did", "do", "does", "for", "gaap", "in",
    "is", "its", "much", "net", "of", "operating", "our", "reported", "the", "their", "total",
    "was", "were", "what",
})  # fmt: skip
"""The lower-case words that may stand right before a line item asked for its statement's
figure; any other names a kind of it ("subscription revenue", "wireless equipment revenue"),
which is a note's or the MD&A's figure, not the statement's."""


_PART_NOUN = re.compile(
    r"\b(?:segments?|operating units?|business units?|divisions?|customer groups?|brands?)\b",
    re.I,
)
"""What a part of the company is called: its figures are a segment note's or the MD&A's, not
the statements' ("the net sales of General Mills' U.S. Cereal operating unit")."""
_POSSESSOR = re.compile(r"\b([A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*)*)['\u2019]s?(?=\s)")


_EARNING = r"(?:generate|earn|report|bring|make|produce|contribute)\b"
_PART_DOING = re.compile(rf"['\u2019]s?\s+(?:[\w&-]+\s+){{1,5}}{_EARNING}")
"""An owner's part that the question says earned the figure ("How much net sales did Amazon's
advertising services generate", "did Intel's Notebook business generate")."""
_FROM_PART = re.compile(
    r"\b(?:sales|revenues?|income)\s+from\s+(?:its\s+|the\s+)?(?:[a-z][\w-]*\s+){0,3}"
    r"(?:services|products|business|subscriptions?)\b"
)
"""A kind of business a figure came from ("net sales from third-party seller services")."""


def names_a_part(question: str) -> bool:
    """Says whether `question` asks of a part of the company rather than of it: it names a
    segment, a unit, a division, a customer group or a brand, a part that earned the figure or
    the business it came from, or two owners ("Converse's total revenues in Nike's fiscal
    2023": the first is the second's)."""
    owners = {owner.lower() for owner in owners_named(question)}
    return (
        _PART_NOUN.search(question) is not None
        or _PART_DOING.search(question) is not None
        or _FROM_PART.search(question) is not None
        or len(owners) > 1
    )


def owners_named(question: str) -> list[str]:
    """Returns the names `question` writes as owners: possessives ("Nike's", "American Water
    Works'") and names right before or after a line item it asks ("Windows revenue", "the
    revenue of Intel Foundry Services"), which may be the company's or a part's."""
    owners = [owner for owner in _POSSESSOR.findall(question) if owner.lower() not in _CONTRACTED]
    owners += _EARNER.findall(question)
    for key in ASKED_ITEMS:
        named = LINE_ITEMS[key].asked
        for found in named.finditer(question) if named else ():
            before = _NAME_BEFORE_ITEM.search(question, 0, found.start())
            after = _NAME_AFTER_ITEM.match(question, found.end())
            owners += [
                name.group(1)
                for name in (before, after)
                if name is not None and name.group(1).lower() not in _ANY_OF_THE_ITEM
            ]
    names = (_LEADING_NOT_NAME.sub("", owner) for owner in owners)
    return [name for name in names if name and not _DATED.match(name)]


_LEADING_NOT_NAME = re.compile(
    r"^(?:(?:The|Using|Use|Compute|Calculate|Determine|Find|Estimate|Based|According|Was|Were"
    r"|Is|Did|Does|Do|Has|Had|Have|What|How|In|For|Of|From|By)(?:\s+|$))+"
)
"""Capitalised words that open a question before the owner it names ("Using Walmart's income
statement", "Compute NIKE's inventory turnover", "The Coca-Cola Company's"), or that open a
sentence of it before a line item ("Use net earnings divided by ..."): no part of a name."""
_DATED = re.compile(rf"{MONTH}(?:\s|$)")
"""A month standing where a name may ("inventories at May 31, 2022"): a date, not an owner."""


_NAMED_WORD = r"(?:[A-Z][a-z][\w&.-]*|[A-Z]{2,}\b)"
"""A capitalised word or an acronym; not a fiscal year's "FY2021", nor "Q3"."""
_NAME_BEFORE_ITEM = re.compile(rf"(?<=\s)({_NAMED_WORD}(?:\s+{_NAMED_WORD})*)\s+$")
_NAME_AFTER_ITEM = re.compile(
    rf"\s+(?:of|from|at)\s+(?:the\s+)?({_NAMED_WORD}(?:\s+{_NAMED_WORD})*)"
)


_EARNER = re.compile(
    rf"\b(?:did|does|do|will)\s+({_NAMED_WORD}(?:\s+{_NAMED_WORD})*)\s+(?:generate|earn|contribute)\b"
)
"""The name that earned the figure ("How much revenue did LinkedIn generate for Microsoft"):
the company's, or a part's. Fewer verbs than _EARNING: "What change did Microsoft make to the
estimated useful lives ..." names no owner of a figure."""


_CONTRACTED = frozenset({"here", "how", "it", "let", "that", "there", "what", "where", "who"})
"""Words whose "'s" is "is" or "us" ("Here's the question"), not an owner's."""


def owned_by(question: str, document: str) -> bool:
    """Says whether every owner `question` names ("MGM China's", "American Water Works'") is
    written in `document` (its title and file name): a subsidiary's figures are not its
    parent's statements' ("MGM China's net revenues" in MGM Resorts' 10-K). Letters and
    digits are compared alone: "Coca-Cola's" is owned by COCACOLA_2017_10K.pdf."""
    written = _letters_and_digits(document)
    return all(
        all(
            _letters_and_digits(word) in written
            for word in owner.split()
            if word.lower().strip(".,") not in _INCORPORATED
        )
        for owner in owners_named(question)
    )


_INCORPORATED = frozenset({"company", "co", "corporation", "corp", "inc", "incorporated", "plc"})
"""Words a company's name may end with that its file name leaves out ("The Coca-Cola
Company's" of COCACOLA_2017_10K.pdf)."""


def _letters_and_digits(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.lower())


def _asking(question: str) -> str:
    """Returns the sentences of `question` that ask ("?"), all of it when none does: a
    metric's definition may speak of a change ("+ change in inventory") the question does
    not ask for."""
    asking = [question[a:b] for a, b in split_sentences(question) if "?" in question[a:b]]
    return " ".join(asking) or question


# Rows


@dataclass(frozen=True)
class Row:
    """A statement's row found in a chunk: its label, one figure per year, where it stands."""

    chunk: Candidate
    line: tuple[int, int]
    """The row's line (and the label line above it, for a row of bare figures) in the
    chunk's content."""
    label: str
    figures: Mapping[int, float]
    statement: Statement | None
    consolidated: bool
    """Its statement is titled as the financial statements are ("Consolidated Balance
    Sheets"), not as a summary of them ("Selected Financial Data", "Balance sheet data")."""
    scale: str
    """The table's unit as its header says it ("millions", "thousands"), "" when unsaid."""
    label_part: tuple[int, int] | None = None
    """Its label's line, when the table's header stands between it and `line` (chunk_rows'
    parked label)."""
    periods: Mapping[Period, float] = field(default_factory=dict)
    """One figure per column whose period the table's header tells whole (column_periods):
    a quarterly report's, whose years head several columns each (`figures` then empty)."""
    rate: bool = False
    """Its figures are percentages, each a year's rate ("Operating margin 14.4 % 14.1 %"),
    whatever the table's unit."""

    @property
    def parts(self) -> tuple[tuple[int, int], ...]:
        """The spans of the chunk's content the row is quoted from, label first."""
        return (self.label_part, self.line) if self.label_part else (self.line,)


_CONSOLIDATED = re.compile(r"\b(?:consolidated|condensed|combined)\b", re.I)

MAX_TITLE_CHARS = 100
"""A line that names a statement or gives a unit is short: a longer one is prose about it."""

_DOTS = re.compile(r"[.\u2026\s]{2,}$|[.\u2026]{2,}")
_NOTE = re.compile(r"\s*\((?:notes?|see note)[^)]*\)|\s*\([a-z0-9]\)$", re.I)
_SCALE = re.compile(r"\b(thousands|millions|billions)\b", re.I)
_PER_SHARE = re.compile(r"\d\.\d\d\)?$")
"""A figure printed to the cent: in a table of millions, a per-share amount."""
_NOTE_MARK = re.compile(r"\(\d\)")
"""A note's marker after a row's label, which reads as a figure ("(5)")."""
_NOTE_MARKS_LINE = re.compile(rf"(?:\s*{_NOTE_MARK.pattern})+\s*")
"""A line of notes' markers only ("(1)(2)"), standing between a row's label and its figures."""
_LINE = re.compile(r"[^\n]+")
_COLUMN_YEAR = re.compile(
    r"(?<![\d$])(?<!\d[,.])(?<!\d\d[\-\u2013/])((?:19|20)\d\d)"
    r"(?!\d|%|[.,]\d|[\-\u2013/](?:19|20)?\d\d\b)"
)
"""A year, not a figure's digits ("2,019", "2019.5", "$2019"), a share ("2019%") nor an end of
a span of years, which heads a change ("% Change 2015-2014")."""
_PERIOD_WORDS = re.compile(
    r"\s*(?:for the\s+)?(?:fiscal\s+)?(?:years?|quarters?|(?:three|six|nine|twelve)\s+months?"
    r"|periods?|weeks?)?\s*(?:ended|ending)?\s*:?\s*",
    re.I,
)
"""Words that stand between a column header's dates ("Year Ended")."""


def normal_label(label: str) -> str:
    """Returns a row's label as LineItem.label reads it: lower case, curly quotes straight,
    leaders ("......"), note references ("(Note 9)") and a trailing colon left out."""
    text = label.replace("\u2019", "'").replace("\u2018", "'")
    text = _NOTE.sub("", _DOTS.sub(" ", text))
    return " ".join(text.lower().rstrip(" :,$").split())


def figure_value(cell: str) -> float | None:
    """Returns a figure cell's value, negative in parentheses, 0 for a nil cell ("—");
    None for a cell that is no plain figure (a percentage, a multiple)."""
    text = cell.strip("$\u20ac\u00a3")
    if text in ("\u2014", "\u2013", "-", "--", "(\u2014)"):
        return 0.0
    negative = text.startswith("(") or text.startswith(("-", "\u2212"))
    digits = text.strip("()-\u2212")
    if not re.fullmatch(r"\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?", digits):
        return None
    value = float(digits.replace(",", ""))
    return -value if negative else value


def column_years(header: str) -> list[int]:
    """Returns the years that head a table's columns, in their order: "December 28, 2019
    December 29, 2018" gives [2019, 2018]. A year of the caption's prose heads none ("that
    became effective during 2019 through 2021: ... 2021 2020 2019")."""
    return [
        int(found.group(1))
        for found in _COLUMN_YEAR.finditer(header)
        if not _PROSE_BEFORE_YEAR.search(header, 0, found.start())
    ]


_PROSE_BEFORE_YEAR = re.compile(r"\b(?:during|through|from|since|between|until)\s+$", re.I)


def statement_of(title: str) -> Statement | None:
    """Returns which statement `title` names; None for none of them. A sentence that only
    refers to one ("... allocated in our consolidated statements of operations as follows:",
    over a note's table of stock-based compensation) names none."""
    return next(
        (
            kind
            for kind, named in _STATEMENTS.items()
            if any(not _REFERRED.search(title, 0, found.start()) for found in named.finditer(title))
        ),
        None,
    )


_REFERRED = re.compile(
    r"\b(?:in|on|from|to|into|within|with)\s+(?:(?:our|the|its|these|those|such|this)\s+)?"
    r"(?:(?:consolidated|condensed|combined|accompanying|audited)\s+)*$",
    re.I,
)
"""What stands before a statement's name a sentence refers to, not a title."""


def chunk_rows(chunk: Candidate, above: str = "") -> list[Row]:
    """Returns the rows of a chunk whose figures the years above them head one for one.

    `above` is the text of the chunk's page before it: a statement's title, its unit and the
    line (or the run of lines, "November 27," "2015" "November 28," "2014") of its columns'
    years stand there when the chunk holds rows further down. The nearest of each counts; the
    table's header (Candidate.table_header_text) and the chunk's section stand in for those
    the page does not show above it (a table continued from the page before).
    """
    years = column_years(chunk.table_header_text)
    periods = column_periods(chunk.table_header_text)
    changes = _CHANGE_COLUMN.search(chunk.table_header_text) is not None
    found_scale = _SCALE.search(chunk.table_header_text)
    scale = found_scale.group(1).lower() if found_scale else ""
    title = f"{chunk.table_header_text} {chunk.context_header.rsplit('>', 1)[-1]}"
    statement = statement_of(title)
    audited = statement is not None and _CONSOLIDATED.search(title) is not None
    above_lines = [(None, m.group()) for m in _LINE.finditer(above) if m.group().strip()]
    own_lines = [((m.start(), m.end()), m.group()) for m in _LINE.finditer(chunk.content)]
    rows = []
    label_line: tuple[int, int] | None = None
    # The label line a table's header interrupts: the reading order may set a statement's
    # title, its years and its unit between its first row's label and figures ("Cash and cash
    # equivalents" / "Consolidated Balance Sheets ASSETS December 26, 2015 ..." / "$ 785 $ 805").
    parked: tuple[int, int] | None = None
    run: list[int] | None = None
    for place, text in [*above_lines, *own_lines]:
        if not text.strip():
            continue
        heading = _heads(text)
        if heading:
            parked = parked or label_line
            label_line = None
        if is_period_line(text):
            heads = column_years(text)
            # "Fiscal years ended December 25, 2021, December 26, 2020 and ..." over "2021
            # 2020 2019" says the same years twice.
            repeated = bool(heads) and run is not None and set(heads) <= set(run)
            run = heads if repeated else [*(run or []), *heads]
            if run:
                years = run
                changes = _CHANGE_COLUMN.search(text) is not None
            label_line = None
            continue
        if run is not None and (_PERIOD_WORDS.fullmatch(text) or is_unit_line(text)):
            continue  # "December 26," "2015" "Year Ended" "December 27," "2014": one header
        run = None
        if len(text) <= MAX_TITLE_CHARS:
            named = statement_of(text)
            if named:
                statement, audited = named, _CONSOLIDATED.search(text) is not None
            found_scale = _SCALE.search(text) if is_unit_line(text) or named else None
            scale = found_scale.group(1).lower() if found_scale else scale
        if place is None or heading:
            continue
        if _NOTE_MARKS_LINE.fullmatch(text):
            continue  # "iPad" / "(1)" / "9,396 7,248 30 %": the label's note, on a line of its own
        leadered = _LEADERED.fullmatch(text)
        if leadered and not _figure_cells(leadered.group(2)):
            leadered = None
        if leadered is None and row_kind(text) not in ("figures", "loose"):
            label_line = place if re.search(r"[A-Za-z]", text) else None
            parked = None
            continue
        label = leadered.group(1) if leadered else row_label(text)
        label_part = parked if not label and label_line is None else None
        parked = None
        rest = leadered.group(2) if leadered else " ".join(text.split()[len(label.split()) :])
        rest_cells = rest.split()
        cells = _amounts(rest_cells)
        rate = not cells
        if rate:
            cells = _rates(rest_cells)
        if changes and len(cells) - 1 in (len(years), len(periods)):
            cells = cells[:-1]  # "Card income 999 652 53" under "2021 2020 Change"
        values = [figure_value(cell) for cell in cells]
        if (
            cells
            and _NOTE_MARK.fullmatch(cells[0])
            and len(values) - 1 in (len(years), len(periods))
        ):
            # "Advertising services (5) 7,612 9,548 21,444 26,182" under four columns: the
            # label's note marker, not a figure.
            label = f"{label} {cells[0]}"
            cells, values = cells[1:], values[1:]
        line = place
        if label_part is not None:
            label = chunk.content[slice(*label_part)]
        if label_line is not None and (not label or _continues(chunk.content, label_line, label)):
            label = f"{chunk.content[slice(*label_line)]} {label}"
            line = (label_line[0], place[1])
        label_line = None
        if not label or None in values or (scale and all(map(_PER_SHARE.search, cells))):
            # Cents in a table of millions are a per-share amount ("Net income attributable to
            # Verizon $ 5.32").
            continue
        figures: dict[int, float] = {}
        # Years that head more than one column each head parts of a year (its quarters: "2020
        # 2019" under each of four): only the periods the header tells whole read them.
        if len(values) == len(years) == len(set(years)):
            figures = dict(zip(years, values, strict=True))  # type: ignore[arg-type]
        dated: dict[Period, float] = {}
        if len(values) == len(periods) == len(set(periods)):
            dated = dict(zip(periods, values, strict=True))  # type: ignore[arg-type]
        if figures or dated:
            rows.append(
                Row(
                    chunk, line, normal_label(label), figures, statement, audited, scale,
                    label_part, dated, rate,
                )
            )  # fmt: skip
    return rows


_CHANGE_COLUMN = re.compile(r"\b(?:19|20)\d\d\s+(?:%\s+)?change\s*$", re.I)
"""A header whose years end on a column of changes ("2021 2020 Change"), where a row's last
figure is the change, written "53" or "NM" (not meaningful) without the "%" of the first row."""


_LEADERED = re.compile(r"\s*(\S.*?)\s*\.{4,}\s*(\S.*)")
"""A row whose label leaders ("......") join to its figures: the label may hold figures of
its own, as a balance sheet's "Trade receivables, net of allowances for doubtful accounts of
$7,293 and $7,867, respectively........ 672,006 591,800"."""


def _figure_cells(text: str) -> bool:
    """Says whether `text` is figures alone, currency signs between them."""
    cells = _amounts(text.split())
    return bool(cells) and all(figure_value(cell) is not None for cell in cells)


def _heads(line: str) -> bool:
    """Says whether a line belongs to a table's header: its years or dates ("Fiscal Year"
    above them), its unit, the statement's title, or a heading in capitals ("ASSETS"; not a
    label that goes on, "NET INCOME ATTRIBUTABLE TO SHAREOWNERS OF")."""
    stripped = line.strip()
    return (
        is_period_line(stripped)
        or (bool(stripped) and _PERIOD_WORDS.fullmatch(stripped) is not None)
        or is_unit_line(stripped)
        or (len(stripped) <= MAX_TITLE_CHARS and statement_of(stripped) is not None)
        or (
            stripped.isupper()
            and row_kind(stripped) is None
            and stripped.split()[-1].lower() not in FUNCTION_WORDS
            and not stripped.endswith((",", "-"))
            # "TOTAL CURRENT LIABILITIES" over its figures' line is a row's label.
            and not stripped.startswith("TOTAL ")
        )
    )


def _amounts(cells: Sequence[str]) -> list[str]:
    """Returns a row's cells of amounts: currency signs and percentages ("18 %", "(4.9)%",
    the change columns beside a year's figures) left out."""
    return [
        cell for k, cell in enumerate(cells) if cell not in _CURRENCY and not _percent(cells, k)
    ]


def _rates(cells: Sequence[str]) -> list[str]:
    """Returns a row's percentages, their signs left out: a rate's row has a year's in each
    column ("Operating margin 14.4 % 14.1 % 13.7 %")."""
    return [
        cell.removesuffix("%")
        for k, cell in enumerate(cells)
        if cell not in (*_CURRENCY, "%") and _percent(cells, k)
    ]


_CURRENCY = ("$", "\u20ac", "\u00a3")


def _percent(cells: Sequence[str], k: int) -> bool:
    return cells[k].endswith("%") or cells[k + 1 : k + 2] == ["%"]


def _continues(content: str, label_line: tuple[int, int], label: str) -> bool:
    """Says whether a row's label goes on from the line above it: that line ends on a word
    that needs more ("NET INCOME ATTRIBUTABLE TO SHAREOWNERS OF" / "THE COCA-COLA COMPANY
    $ 1,248"), or the label starts in lower case ("Prepaid expenses" / "and other current
    assets 161,802")."""
    before = content[slice(*label_line)].split()
    return bool(before) and (
        before[-1].lower() in FUNCTION_WORDS
        or before[-1].endswith((",", "-"))
        or label[:1].islower()
    )


def find_row(item: LineItem, rows: Sequence[Row], years: Sequence[int]) -> Row | None:
    """Returns the row that prints `item` for every one of `years`: one of its own statement
    first, then one its preferred label names, then the earliest in the document; None when
    no row does. A balance is never read from a statement of flows (the cash flow statement's
    "Inventories (277)" is a change), nor a flow from the balance sheet; an item is an
    amount, never a row of rates."""
    fitting = [
        row
        for row in rows
        if item.label.fullmatch(row.label)
        and not row.rate
        and all(year in row.figures for year in years)
        and (row.statement is None or (row.statement == "balance") == (item.statement == "balance"))
    ]
    if not fitting:
        return None
    return min(
        fitting,
        key=lambda row: (
            row.statement != item.statement,
            not row.consolidated,
            item.prefer is not None and not item.prefer.search(row.label),
            row.chunk.page_start,
            row.chunk.chunk_id,
            row.line[0],
        ),
    )


# The answer


def computed_answer(
    asked: MetricQuestion, chunks: Sequence[tuple[Candidate, str]]
) -> Answer | None:
    """Returns the answer that computes `asked` from the rows of `chunks` (one document's,
    each with its page's text above it): the result and how it was reached, then each row used
    quoted and cited; None when a line item is not found for every year needed.

    A question that writes out its period ("the quarter ended June 25, 2022", "as of July 30,
    2023") is answered from that period's column where a table's header tells it whole, else
    (unless it asks for a quarter) from the fiscal year's: a quarterly report's years head
    several columns each, and a balance sheet's two may be of the same year."""
    rows = [row for chunk, above in chunks for row in chunk_rows(chunk, above)]
    period = asked.period
    if period is None and asked.quarter is not None:
        period = quarter_period(rows, asked.years[-1], asked.quarter)
    answer = None
    if period is not None and len(asked.years) == 1 and not asked.growth:
        year = asked.years[0]
        answer = _worked_out(asked, lambda item: _in_period(rows, period, item, year), period)
    if answer is None and not asked.quarterly:
        answer = _worked_out(asked, lambda item: rows, None)
    return answer


def _in_period(rows: Sequence[Row], period: Period, item: LineItem, year: int) -> list[Row]:
    balance = item.statement == "balance"
    return [dated for row in rows if (dated := in_period(row, period, year, balance=balance))]


def in_period(row: Row, period: Period, year: int, *, balance: bool = False) -> Row | None:
    """Returns `row` as if its column of `period` alone were `year`'s (a balance's: of its
    day, whatever the months; a flow's: of its months too, where both are told); None when it
    has no such column, or more than one."""
    columns = [
        column
        for column in row.periods
        if column.ended == period.ended
        and (balance or None in (period.months, column.months) or column.months == period.months)
    ]
    if len(columns) != 1:
        return None
    return replace(row, figures={year: row.periods[columns[0]]})


def asks_part_of_year(question: str) -> bool:
    """Whether `question` asks of a quarter or some months, whose figures no fiscal year's
    column holds."""
    return _QUARTER.search(question) is not None


def _worked_out(
    asked: MetricQuestion,
    rows_of: Callable[[LineItem], Sequence[Row]],
    period: Period | None,
) -> Answer | None:
    """Returns the answer that computes `asked` from the rows `rows_of` gives each line item,
    their figures by year; None when an item is not found for every year needed."""
    metric = asked.metric
    found: dict[str, Row] = {}
    for name in metric.items:
        needed = {year - 1 if name in metric.before else year for year in asked.years} | set(
            asked.years
        )
        item = LINE_ITEMS[name]
        row = find_row(item, rows_of(item), sorted(needed))
        if row is None and name in metric.optional:
            continue
        if row is None:
            return None
        found[name] = row
    values = []
    for year in asked.years:
        now = {name: _value(name, row, year) for name, row in found.items()}
        before = {
            name: _value(name, row, year - 1)
            for name, row in found.items()
            if year - 1 in row.figures
        }
        try:
            values.append(metric.formula(now, before))
        except (KeyError, ZeroDivisionError):
            return None
    if asked.growth:
        first, last = values[0], values[-1]
        periods = asked.years[-1] - asked.years[0]
        if first <= 0 or last <= 0:
            return None
        result = 100 * ((last / first) ** (1 / periods) - 1)
        unit: Unit = "percent"
        name = f"{'change in' if periods == 1 else 'CAGR of'} {metric.name}"
    else:
        result, unit, name = fmean(values), metric.unit, metric.name
        if len(asked.years) > 1:
            name = f"{len(asked.years)}-year average {name}"
    years = period.shown() if period else _years_shown(asked)
    scales = {row.scale for row in found.values() if row.scale}
    scale = next(iter(scales)) if len(scales) == 1 else ""
    how = _how(asked, found)
    shown = _shown(result, unit, scale, asked.scale)
    if asked.largest:
        year = asked.years[-1]
        largest = max(found, key=lambda name: (_value(name, found[name], year), name))
        shown = f"the most from {ACTIVITIES[largest]}, {shown}"
    quotes = [
        Quote(
            row.chunk,
            row.parts,
            quoted_row(row),
            COMPUTED_CONFIDENCE,
            row.chunk.table_header if headed(row) else None,
        )
        for row in found.values()
    ]
    # The result is a claim too: it cites the pages of the rows it was worked out from.
    return worked_out(f"{years} {name}: {shown} ({how})", quotes)


def _value(name: str, row: Row, year: int) -> float:
    value = row.figures[year]
    return abs(value) if LINE_ITEMS[name].magnitude else value


def _years_shown(asked: MetricQuestion) -> str:
    if len(asked.years) == 1:
        return f"FY{asked.years[0]}"
    return f"FY{asked.years[0]}-FY{asked.years[-1]}"


def _how(asked: MetricQuestion, found: Mapping[str, Row]) -> str:
    metric = asked.metric
    if asked.growth:
        first, last = asked.years[0], asked.years[-1]
        ((item, row),) = found.items()
        years = f"{last - first} years" if last - first > 1 else "a year"
        return (
            f"{LINE_ITEMS[item].name} {shown_figure(row.figures[last])} in FY{last} against "
            f"{shown_figure(row.figures[first])} in FY{first}, over {years}"
        )
    shown = {}
    for name, row in found.items():
        label = ACTIVITIES[name] if asked.largest else LINE_ITEMS[name].name
        if name in metric.before:
            year = asked.years[-1]
            now, before = _value(name, row, year), _value(name, row, year - 1)
            pair = f"{shown_figure(now)} and {shown_figure(before)}"
            kind = "average " if name in metric.averaged else ""
            shown[name] = f"{kind}{label} ({pair})"
        else:
            each = ", ".join(shown_figure(_value(name, row, year)) for year in asked.years)
            shown[name] = f"{label} {each}"
    unprinted = {name: f"{LINE_ITEMS[name].name} 0 (not printed)" for name in metric.optional}
    return metric.shown.format(**(unprinted | shown))


def shown_figure(value: float) -> str:
    """Returns a figure read from a table as the table writes it: 4.15, not 4.2."""
    if value == int(value):
        return f"{int(value):,}"
    return f"{value:,f}".rstrip("0")


def _shown(result: float, unit: Unit, scale: str, wanted: str) -> str:
    """Returns the result as its unit writes it; an amount in the table's scale ("1,832
    million"), and in the scale the question asks for as well where that differs ("4.63
    billion (4,625 million)")."""
    if unit == "percent":
        return f"{result:.1f}%"
    if unit == "days":
        return f"{result:.2f} days"
    if unit == "ratio":
        return f"{100 * result:.1f}%" if wanted == "percent" else f"{result:.2f}"
    amount = shown_figure(round(result, 1))
    if not scale:
        return amount
    stated = f"{amount} {scale.rstrip('s')}"
    if not wanted or wanted == scale:
        return stated
    converted = result * SCALES[scale] / SCALES[wanted]
    return f"{converted:,.2f} {wanted.rstrip('s')} ({stated})"


def quoted_row(row: Row) -> str:
    shown = shown_text(row.chunk.content, row.parts)
    return f"{row.chunk.table_header_text} {shown}" if headed(row) else shown


def headed(row: Row) -> bool:
    """Says whether a row is quoted with its table's header: one that heads its columns with
    years and is not the row itself (a table found from its first row)."""
    header = row.chunk.table_header_text
    return bool(column_years(header)) and shown_text(row.chunk.content, row.parts) not in header
