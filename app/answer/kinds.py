"""The kind of answer a question asks for, and whether a claim holds one.

"How many ..." wants a count, "how much" or "what was the total ..." an amount, "when" a date,
"which version" a version, "how do I" or "which function" code (a call, an option, an
identifier), "what does X mean" a definition ("X is understood as", "X refers to"), "why" or
"what drove" a cause ("primarily due to", "driven by"): a sentence or row that holds a figure
of that kind answers better than one that only repeats the question's words. Figures the
question itself names (the period "June 25, 2022", "Qwen2-72B") do not count as an answer's,
nor does a bare year count as a count or an amount. A question that asks for
several things ("What are the four function zones ...?") wants a series of them, which a
sentence announcing the list ("... divides an HPC system into four function zones.") lacks.
"""

from __future__ import annotations

import re

from app.answer.claims import stem, terms
from app.answer.metrics import months_asked, months_named
from app.core.asked import ASKS, FIGURES, Asked
from app.core.rows import MONTH

_NOT_NOTE = r"(?!(?<=\()\d\))"
"""Not a note's marker, one digit in brackets ("Front store and other (2) 23.6%"): no figure."""

_FOUND = {
    Asked.REASON: re.compile(
        r"\b(?:due to|driven by|because|as a result of|owing to|caused by|"
        r"result(?:s|ed|ing)? (?:from|of)|reflect(?:s|ed|ing)?|offset by|primarily (?:by|from)|"
        r"led by|contributed|benefit(?:s|ed|ing)? from|impact(?:s|ed)? (?:of|by)|rationale|"
        r"so that|in order to|the (?:whole )?(?:idea|point|reason|purpose) (?:behind|of|for|is))\b"
        # A change, then what went on as it did: "down $847 million from Q2 2022, as customers
        # tempered purchases".
        r"|\b(?:up|down|higher|lower|increased|decreased|declined|rose|fell|grew)\b[^.;]{0,80}?,"
        r" as (?!a |an |the |well|of |compared|part)\w",
        re.I,
    ),
    Asked.COUNT: re.compile(
        rf"(?<![\w.]){_NOT_NOTE}\d[\d,]*(?![\w.]\d)|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
        r"eleven|twelve|dozen|hundred|thousand|million|billion)\b",
        re.I,
    ),
    Asked.AMOUNT: re.compile(
        rf"(?<![\w.]){_NOT_NOTE}[$\u20ac\u00a3]?\s?\d[\d,]*(?:\.\d+)?\s?[%xX]?[KMBT]?"
        # A magnitude without a figure: "The storage capacity of these file systems is often
        # measured in petabytes and can reach up to exabytes."
        r"|\b(?i:kilo|mega|giga|tera|peta|exa|zetta)(?:bytes|flops|watts)\b"
    ),
    Asked.DATE: re.compile(
        rf"\b{MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?(?:\s+\d{{4}})?|\b\d{{1,2}}\s+{MONTH}"
        r"|\b(?:19|20)\d\d\b|\b\d{4}-\d\d-\d\d\b|\d{4}年\d{1,2}月(?:\d{1,2}日)?",
        re.I,
    ),
    Asked.VERSION: re.compile(r"\bv?\d+(?:\.\d+)+\b|\bversion\s+\d+", re.I),
    Asked.DEFINITION: re.compile(
        r"\b(?:is|are) (?:understood|defined|known|referred to|described) (?:here )?as\b|"
        r'\b(?:is|are) [\u201c"]|'
        r"\brefers? to\b|\bmeans?\b|\bstands? for\b|\bi\.\s?e\.|\bthat is,|\bdenotes?\b|"
        r"\bis called\b|\bis the (?:term|name) for\b",
        re.I,
    ),
    # A call ("help(solve)"), an option ("-c", "--check"), an identifier with an underscore,
    # inner capital or dots ("asn1_strerror", "asn1Coding", "Example.Group.value"), a header
    # file, an operator ("%o%"), a command after its prompt ("> q()"), an argument given
    # its value ("value=NULL").
    Asked.CODE: re.compile(
        r"\b[A-Za-z_][\w.]*\(|(?<![\w-])--?[A-Za-z][\w-]*|\b[A-Za-z]\w*_\w+|\b[A-Za-z_]\w*=[\w\"'-]|"
        r"\b[a-z]+\d*[A-Z]\w*|\b\w+(?:\.\w+){2,}|\b\w+\.h\b|%\w+%|^\s*[>$] \S",
        re.M,
    ),
}


def holds_kind(text: str, kinds: frozenset[Asked], query: str) -> bool:
    """Whether `text` holds a figure of one of `kinds` that the query does not name itself, or
    the examples it asks for. A percentage is the amount of a rate, a share or a change, not of
    the measure itself: "MGM China's Adjusted Property EBITDA increased 6% in 2018" does not say
    what it was; nor does the size of a change ("revenue increased $280 million or 22%") or a
    part's contribution say what the revenue was."""
    figures = kinds - {Asked.EXAMPLE}
    named = {_normal(m.group()) for kind in figures for m in _FOUND[kind].finditer(query)}
    percent_asked = _ASKS_PERCENT.search(query) is not None
    contribution_asked = _ASKS_CONTRIBUTION.search(query) is not None
    return (Asked.EXAMPLE in kinds and gives_examples(text, exemplified(query))) or any(
        _normal(match.group()) not in named
        and not (kind in FIGURES and _YEAR.fullmatch(match.group().strip(" ,")))
        and not (
            kind is Asked.AMOUNT
            and not percent_asked
            and (match.group().endswith("%") or _CHANGE_BY.search(text, 0, match.start()))
        )
        and not (
            kind is Asked.AMOUNT
            and not contribution_asked
            and _CONTRIBUTED.search(text, 0, match.start())
        )
        and not (kind in FIGURES and _in_name(text, match))
        for kind in figures
        for match in _FOUND[kind].finditer(text)
    )


_NAME_BEFORE = re.compile(r"\b[A-Z][A-Za-z]+ $")
_WORD_AFTER = re.compile(r" (?!(?:million|billion|thousand|percent|per)\b)[A-Za-z]")
_SMALL_WHOLE = re.compile(r"\d{1,3}")


def _in_name(text: str, match: re.Match[str]) -> bool:
    """Whether the figure `match` found in `text` is part of a name: a small whole number
    between a capitalized word and a word that is no scale ("Dynamics 365 growth", "Windows
    11 devices"), not a row's figure ("Other 95 87")."""
    end = match.start() + len(match.group().rstrip())
    return (
        _SMALL_WHOLE.fullmatch(match.group().strip()) is not None
        and _NAME_BEFORE.search(text, max(match.start() - 40, 0), match.start()) is not None
        and _WORD_AFTER.match(text, end) is not None
    )


_EXAMPLES_ASKED = re.compile(
    r"\b(?:which|what)\s+((?:[\w\-]+\s+){0,3}?[\w\-]+)\s+(?:does|do|did|are|were|is|can)\b"
    r"|\bexamples?\s+of\s+((?:[\w\-]+\s+){0,3}[\w\-]+)",
    re.I,
)
_EXAMPLE_MARK = re.compile(r"\b(?:such as|e\.\s?g\.|for (?:example|instance)|including)", re.I)
_EXAMPLES_OF = re.compile(
    r"\bexamples?\s+of\s+((?:[\w\-]+\s+){0,4}?[\w\-]+)(?:\s+(?:include|are)\b|:)", re.I
)
EXAMPLE_LEAD_WORDS = 4
"""Words before "such as" or "e.g." that name what its examples are of: "a scheduler or
workload manager, such as Slurm"."""


def exemplified(query: str) -> set[str]:
    """Returns the terms of what `query` asks examples of: "container runtimes" of "Which
    container runtimes does the NIST guide give as examples?", and "sanitizing HPC compute
    nodes" of "... list as examples of sanitizing HPC compute nodes between jobs?"."""
    return {
        term
        for found in _EXAMPLES_ASKED.finditer(query)
        for term in terms(found.group(1) or found.group(2))
    }


def gives_examples(text: str, things: set[str]) -> bool:
    """Whether `text` gives examples of what `things` name (exemplified): they are named in the
    words just before "such as", "e.g.", "for example" or "including" ("a container runtime,
    such as Docker"), or between "examples of" and "include", "are" or a colon ("Examples of
    compute node sanitization include"); of anything, when `things` is empty."""
    for mark in _EXAMPLE_MARK.finditer(text):
        before = text[: mark.start()].split()[-EXAMPLE_LEAD_WORDS:]
        if not things or things & terms(" ".join(before)):
            return True
    return any(
        not things or things & terms(found.group(1)) for found in _EXAMPLES_OF.finditer(text)
    )


_MEASURES = {
    "revenue": "revenue",
    "revenues": "revenue",
    "sales": "revenue",
    "income": "income",
    "earnings": "income",
    "profit": "income",
    "profits": "income",
    "loss": "income",
    "losses": "income",
    "expense": "expense",
    "expenses": "expense",
    "cost": "expense",
    "costs": "expense",
    "assets": "assets",
    "liabilities": "liabilities",
    "equity": "equity",
    "debt": "debt",
}
"""The head words of a filing's measures, each to the measure it names ("earnings" is income,
"sales" revenue)."""
_MEASURE_WORD = re.compile(rf"\b(?:{'|'.join(_MEASURES)})\b", re.I)


_MEASURE_PHRASE = re.compile(rf"\b(\w+)\s+({'|'.join(_MEASURES)})\b", re.I)
_TELLING_MODIFIERS = frozenset({"interest", "noninterest", "operating", "gross", "comprehensive"})
"""Words before a measure's head word that make it another measure: net interest income is
not net income, operating income not net income."""


def measures_named(text: str) -> set[str]:
    """Returns the measures `text` names by their head words: {"income"} for "segment operating
    income", {"revenue"} for "The Consumer segment's operating revenues ... totaled $95.3
    billion"."""
    return {_MEASURES[word.lower()] for word in _MEASURE_WORD.findall(text)}


_STATEMENT_TITLE = re.compile(
    r"\bstatements? of (?:consolidated )?(?:comprehensive )?(?:income|earnings|operations|"
    r"cash flows?)\b|\b(?:income|earnings) statements?\b",
    re.I,
)
"""A financial statement's name, which a table row's header repeats for every row: the
"Consolidated Condensed Statements of Income" names no measure of its "Marketing, general, and
administrative" row."""


def other_measure(text: str, query: str) -> bool:
    """Whether `text` names only measures other than those `query` asks of: no measure asked
    ("operating revenues" for operating income), or the head word asked only after other
    telling words ("net income" for net interest income). A financial statement's name is no
    measure named."""
    asked, named = measures_named(query), measures_named(_STATEMENT_TITLE.sub(" ", text))
    if not asked or not named:
        return False
    if not asked & named:
        return True
    for modifier, head in _MEASURE_PHRASE.findall(query):
        if modifier.lower() not in _TELLING_MODIFIERS:
            continue
        said = {
            before.lower()
            for before, word in _MEASURE_PHRASE.findall(text)
            if _MEASURES[word.lower()] == _MEASURES[head.lower()]
        }
        if said and modifier.lower() not in said:
            return True
    return False


_RATE = re.compile(
    r"%|\b(?:margins?|rates?|ratios?|percent(?:age)?s?|shares?|proportion|portion|mix|yields?|"
    r"returns?|efficiency|occupancy|accuracy|scores?|speedups?)\b",
    re.I,
)
"""Words naming a measure that a percentage states: a rate, a share, a score."""
_CHANGE = re.compile(
    r"\b(?:growth|grow|grew|grown|changes?|changed|increase[ds]?|decrease[ds]?|declines?|"
    r"declined|rise|rose|risen|fall|fell|fallen|up|down|improve(?:d|ment)?)\b",
    re.I,
)
_ASKS_PERCENT = re.compile(f"{_RATE.pattern}|{_CHANGE.pattern}", re.I)
"""Words of a question a percentage answers: a rate, a share, a change."""
_CHANGE_BY = re.compile(
    r"\b(?:increased|decreased|declined|rose|fell|grew|up|down|higher|lower)\s+(?:by\s+)?"
    r"(?:(?:approximately|about|nearly|almost|over|roughly)\s+)?$",
    re.I,
)
"""A change's verb right before an amount: the amount is the change's size."""
_CONTRIBUTED = re.compile(r"\bcontribut(?:ed|ing)\s+(?:(?:approximately|about)\s+)?$", re.I)
"""A part's contribution right before an amount: "MGM Cotai, which contributed $729 million of
net revenues" does not say what MGM China's net revenues were."""
_ASKS_CONTRIBUTION = re.compile(r"\bcontribut", re.I)


def names_rate(measure: str) -> bool:
    """Whether `measure` is one a percentage states ("operating margin"), not an amount ("net
    sales"), whose percentages are its shares or changes."""
    return _RATE.search(measure) is not None


_YEAR = re.compile(r"(?<!\d)(?:19[5-9]\d|20[0-4]\d)(?!\d)")
"""A year. A bare one is no count or amount: "In July 2021, we received the licenses" does not
say how much they cost."""


def _normal(figure: str) -> str:
    return re.sub(r"\W+", "", figure.lower())


_ASKS_LIST = re.compile(
    r"\b(?:what|which) (?:are|were) the (?:\w+ )?(?:two|three|four|five|six|seven|eight|nine|"
    r"ten|\d+)\b|\b(?:what|which) (?:kinds|types|sorts|sizes|\w+ sizes)\b|"
    r"\bwhich (?!of\b)(?:[\w.\-]+ ){0,3}[a-z]+[^s\W]s (?:do|does|did|are|were|can)\b",
    re.I,
)


def asks_list(query: str) -> bool:
    """Whether `query` asks for several things at once: "What are the four function zones
    ...?", "On which kinds of text ...?", "Which model sizes ...?", "Which backward
    optimization filters does nanojit run ...?" (not "Which of the segments ...", one of
    them), "What reportable segments did MGM Resorts have ...?" (not "What net revenues did
    it report?", an amount)."""
    return _ASKS_LIST.search(query) is not None or (
        _WHAT_THINGS.search(query) is not None and not ASKS[Asked.AMOUNT].search(query)
    )


_WHAT_THINGS = re.compile(
    r"\bwhat (?:(?!of\b)[\w.\-]+ ){0,4}[a-z]+[^s\W]s (?:do|does|did|are|were|can|have|has|had)\b|"
    r"\bwhat (?:are|were) (?:the |[\w.\-]+['\u2019]s )(?:[\w.\-]+ ){0,2}[a-z]+[^s\W]s\b",
    re.I,
)
"""What things a question asks for by their plural ("What are Corning's reportable segments
...?"), not a measure of them ("What proportion of harmful responses did ... produce?")."""


_PERIOD_FRAME = re.compile(
    r"^(?:For|In|During)\s+(?:the\s+)?(?:fiscal(?:\s+year)?\s+|year\s+ended\s+|"
    r"(?:three|six|nine|twelve)\s+months\s+ended\s+)?(?:[A-Z][a-z]+\s+\d{1,2},?\s+)?"
    r"((?:19|20)\d\d)\s?,"
)
"""A sentence framed by its period at its start: "For fiscal 2017, the increase in gross profit
rate was primarily due to ...", "In 2019, we ..."."""
_SUBJECT_YEAR = re.compile(
    r"^[^.;:]{0,80}?\bin\s+(?:fiscal\s+(?:year\s+)?)?((?:19|20)\d\d)\s+(?:increased|decreased|"
    r"declined|rose|fell|grew|was|were|totaled|remained)\b"
)
"""A sentence whose subject is a measure in its year: "MFC's operating profit in 2020 increased
$104 million ..."."""
_MONTHS_ENDED = re.compile(
    r"\b(?:three|six|nine|twelve)\s+months\s+ended\s+[A-Z][a-z]+\s+\d{1,2},?\s+((?:19|20)\d\d)\b"
)
"""A period of months: the first a sentence names is its own ("Average deposits increased for
the three months ended June 30, 2022 compared to the three months ended June 30, 2021")."""


def framed_elsewhen(text: str, query: str) -> bool:
    """Whether `text` is of a period the query does not ask of, when it names any: periods of
    other months only (the nine months ended September 30, 2023 where the question asks of the
    three), or a year it does not name, one its first words place it in ("For fiscal 2017, the
    increase ..." does not say why the rate fell in fiscal 2018, which the filing explains in
    the sentence after; "MFC's operating profit in 2020 increased ...") or the months ended at
    the first year it names."""
    span = months_asked(query)
    if span is not None and (named := months_named(text)) and span not in named:
        return True
    asked = set(_YEAR.findall(query))
    if not asked:
        return False
    frame = _PERIOD_FRAME.match(text) or _SUBJECT_YEAR.match(text)
    if frame is None:
        first, months = _YEAR.search(text), _MONTHS_ENDED.search(text)
        if first is None or months is None or months.start(1) != first.start():
            return False
        frame = months
    return frame.group(1) not in asked


def year_asked(text: str, query: str) -> int:
    """+1 when `text` names a year the query names ("FY2021" names 2021), -1 when it names
    only other years, 0 when it names none or the query none."""
    asked = set(_YEAR.findall(query))
    named = set(_YEAR.findall(text))
    if not asked or not named:
        return 0
    return 1 if asked & named else -1


_HOW_MANY = re.compile(r"\bhow many\b", re.I)
_NOUN_WORD = re.compile(r"\s*([^\W\d_][\w\-]*|\d[\w\-]*)")
_NOT_COUNTED = frozenset(
    {"did", "do", "does", "are", "were", "is", "was", "has", "have", "had", "can", "could",
     "will", "would", "in", "of", "on", "at", "for", "per", "across", "to", "from", "with",
     "by", "there", "and", "or", "the", "a", "an"}
)  # fmt: skip
COUNTED_NAME_WORDS = 3
"""What a "how many" counts is named in this many words at most: "how many F-35 aircraft"."""
# A count: no year, and no number after a dash (a model's, "737-8" or "737- 9").
_NUMBER = (
    r"(?:(?<![\w.,\-\u2013])(?<![\-\u2013] )(?!(?:19|20)\d\d\b)\d(?:[\d,]*\d)?(?:\.\d+)?"
    r"|\b(?:two|three|four|five|six|seven|eight|nine|ten|"
    r"eleven|twelve|dozens?|hundreds?|thousands?|millions?|billions?))"
)
COUNTED_WORDS = 4
"""How many words (or asides in brackets) may stand between a count and what it counts: "57,500
full- and part-time employees", "26 short-running (less than 250ms) JavaScript programs"."""
ASIDE_CHARS = 60
"""Characters an aside in brackets between a count and what it counts holds at the most."""


_STATES_DEFAULT = re.compile(r"\bdefault(?:s|ed)?\b|\bpredefined\b|\bunless otherwise\b", re.I)


def states_default(text: str) -> bool:
    """Whether `text` says what holds when nothing is set: "The text of the last HISTSIZE
    commands (default 500) is saved.", "the predefined number of 1000 iterations"."""
    return _STATES_DEFAULT.search(text) is not None


def counted_things(query: str) -> list[str]:
    """Returns what each "how many" of `query` counts, as the stem of the word that names it:
    "employe" and "countr" for "How many employees did Corning have, and in how many countries?"."""
    found = []
    for match in _HOW_MANY.finditer(query):
        position, named = match.end(), ""
        for _ in range(COUNTED_NAME_WORDS):
            word = _NOUN_WORD.match(query, position)
            if word is None or word.group(1).lower() in _NOT_COUNTED:
                break
            named, position = word.group(1), word.end()
        if named:
            found.append(stem(named.lower()))
    return found


def states_counts(text: str, things: list[str], query: str = "") -> bool:
    """Whether `text` gives a count just before each of `things` (counted_things), other than
    a number `query` writes itself: "Each of our 57,500 full- and part-time employees in 44
    countries" counts employees and countries; "all 737 MAX airplanes" counts no airplanes for
    a question about the 737 MAX."""
    named = {_normal(number) for number in re.findall(_NUMBER, query, re.I)}
    return bool(things) and all(
        any(
            _normal(found.group(1)) not in named
            for found in re.finditer(
                rf"({_NUMBER})(?:[\s\-]+(?:[^\W\d][\w\-]*|\([^()]{{0,{ASIDE_CHARS}}}\)))"
                rf"{{0,{COUNTED_WORDS}}}?[\s\-]+{re.escape(thing)}",
                text,
                re.I,
            )
        )
        for thing in things
    )


_THING = (
    r"(?:(?:the|a|an) )?(?:term )?[\u201c\"']?"
    r"([^\W\d][\w\-]*(?: (?!of\b|in\b|for\b)[^\W\d][\w\-]*)?)"
)
"""What a definition is asked of: a word or two after an article ("the basin", "Hungarian
notation"), not what follows "of" or "in"."""
_DEFINED = re.compile(
    rf"\bdefines? {_THING}|\bdefinition of {_THING}|\bwhat is meant by {_THING}"
    rf"|\bmeans? by {_THING}|(?:^|, )what (?:is|are) (?:a|an) {_THING}",
    re.I,
)
_PRONOUNS = frozenset({"it", "them", "this", "that", "these", "those", "its"})
"""Words "defines" may take that name no thing ("As the article defines it, what is a widow?")."""


def defined_things(query: str) -> list[str]:
    """Returns the words whose definition `query` asks for, the last word of each thing as its
    stem: "creativity" of "How does Thoma's paper define creativity in its introduction?",
    "notation" of "What does the guide mean by Hungarian notation?"."""
    things = [
        next(words for words in found.groups() if words).split()
        for found in _DEFINED.finditer(query)
    ]
    return [stem(words[-1].lower()) for words in things if words[0].lower() not in _PRONOUNS]


def states_definition(text: str, things: list[str]) -> bool:
    """Whether `text` defines each of `things` (defined_things): "creativity is \u201cthe
    ability to use your imagination ...\u201d", "X is defined as", "X refers to", "X is a",
    "a \u201cwidow\u201d occurs when"."""
    return bool(things) and all(
        re.search(
            rf"\b{re.escape(thing)}\w*(?: of [\w\-]+)?[\u201d\"]?\s+"
            r"(?:(?:is|are)\s+(?:[\u201c\"]|an?\b|(?:understood|defined|known|described) as\b)"
            r"|refers? to\b|means\b|denotes\b|stands for\b|occurs? when\b)",
            text,
            re.I,
        )
        for thing in things
    )
