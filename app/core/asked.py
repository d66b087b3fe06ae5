"""The kind of answer a question asks for: a count, an amount, a date, a cause, ...

Answers weigh their claims by it (app.answer.kinds), and retrieval which passages may hold one
(a table's row holds an amount, not a cause).
"""

from __future__ import annotations

import re
from enum import Enum


class Asked(Enum):
    COUNT = "count"
    AMOUNT = "amount"
    DATE = "date"
    VERSION = "version"
    CODE = "code"
    DEFINITION = "definition"
    REASON = "reason"
    EXAMPLE = "example"


ASKS = {
    Asked.REASON: re.compile(
        r"\bwhy\b|\bwhat makes (?!up\b)|\bwhat (?:drove|drives|caused|causes|led to|"
        r"contributed to|explains|accounted for|turned|pushed|lifted|weighed on|hurt|helped)\b|"
        r"\b(?:reasons?|reasoning|rationale|motivations?|drivers?|causes?|factors?) "
        r"(?:for|of|behind)\b|"
        r"\b(?:what|which) (?:factors|drivers|reasons)\b|"
        r"\b(?:what|which) (?:were|was|are|is) the (?:(?:main|primary|key|principal|major) "
        r"(?:reasons?|drivers?|causes?|factors?)|reasons|drivers|causes)\b|"
        r"\baccounted for the (?:increase|decrease|decline|rise|growth|change|drop)\b",
        re.I,
    ),
    Asked.COUNT: re.compile(r"\bhow many\b|\bnumber of\b|\bcount of\b", re.I),
    Asked.AMOUNT: re.compile(
        r"\bhow (?:much|large|big|long|fast|high|low|small)\b|"
        r"\b(?:what|which) is the (?:maximum|minimum|longest|shortest)\b|"
        r"\b(?:total|amount|revenues?|sales|income|expenses?|costs?|prices?|margins?|cash|"
        r"expenditures?|capex|earnings|profits?|loss|dividends?|assets|liabilities|debt|size|"
        r"length|rate|ratio|percentage|percent|speedups?|scores?|accuracy|budget|parameters|"
        r"tokens|ebitdar?|ebit|eps|deposits|backlog|obligations|commitments)\b|多少|金额|价值|数额",
        re.I,
    ),
    Asked.DATE: re.compile(
        r"\bwhen(?= (?:did|does|do|was|were|is|are|will|would|has|have|had|can|could|should|and"
        r"|or)\b|\s*[?,]|$)|\b(?:what|which) (?:date|day|year|month)\b|\bdeadline\b|\bdue\b|"
        r"\beffective\b|\bexpire|哪天|哪一天|何时|什么时候|日期",
        re.I,
    ),
    Asked.VERSION: re.compile(r"\b(?:which|what) (?:\w+ ){0,4}(?:version|release)\b", re.I),
    Asked.DEFINITION: re.compile(
        r"\bwhat (?:does|do|did) .{1,60}\b(?:mean|stand for)\b|\bwhat is meant by\b|"
        r"\bdefin(?:e|ed|es)\b|\bdefinitions? of\b|\bmeaning of\b",
        re.I,
    ),
    Asked.EXAMPLE: re.compile(
        r"\b(?:as|for) examples?\b|\b(?:what|which) examples\b|\bgives? (?:an? )?examples?\b", re.I
    ),
    Asked.CODE: re.compile(
        r"\bhow (?:do|can|should|would) (?:i|you|we|one|a program|an application)\b|"
        r"\bhow to\b|\b(?:which|what) (?:\w+ )?(?:function|command|option|flag|switch|header|"
        r"tool|method|call|macro|parameter|argument|syntax)s?\b",
        re.I,
    ),
}
"""How a question asks for each kind of answer. A definition is asked of something ("How does the
paper define chatbots?", "the definition of machine learning"), not by the name of a thing ("For a
function definition, where does the brace go?"). "When" asks a date as a question's word ("When did
...?", "When and where ...?", "... and when?"), not as a clause's ("When reading a BioTapestry
model, which kinds of links ...?", "... when the number is not specified?")."""


_ASKS_DEFAULT = re.compile(
    r"\bby default\b|(?<![Oo]f )(?<![Ii]n )(?<!-)\bdefault (?!on\b)[a-z]+|"
    r"\bwhen (?:it is |the \w+ is |they are )?not (?:specified|given|set)\b"
)
"""A default asked, what holds when nothing is set ("How many commands does the history list
keep by default?", "What is KLU's default partial pivoting tolerance?"), not a borrower's
("an Event of Default", "in default", "cross-default")."""


def asks_default(query: str) -> bool:
    """Whether `query` asks what holds when nothing is set (a setting's default)."""
    return _ASKS_DEFAULT.search(query) is not None


def asked_kinds(query: str) -> frozenset[Asked]:
    """Returns the kinds of answer `query` asks for; none for "what is", "how do I".

    A question asking why (or what drove) wants the cause, whatever figure it names: "Why did
    Walmart's net income decline?" is answered by "primarily due to a loss on extinguishment of
    debt", not by the net income row."""
    asked = frozenset(kind for kind, pattern in ASKS.items() if pattern.search(query))
    return frozenset({Asked.REASON}) if Asked.REASON in asked else asked


FIGURES = frozenset({Asked.COUNT, Asked.AMOUNT})
"""The kinds a figure answers."""
