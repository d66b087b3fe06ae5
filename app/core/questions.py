"""A question's core: what it asks, without the instructions on how to answer it.

Analysts' questions come wrapped in instructions to whoever answers them ("Round your answer to
two decimal places.", "Respond to the question by assuming the perspective of an investment
analyst ..."). No passage holds those words; embedded and searched with the question they pull
it towards boilerplate. On FinanceBench, leaving them out raised page hit@5 within a filing
from 0.448 to 0.517 (hybrid); keeping the statements they name ("... primarily using the
statement of income") cost one collection a question, as every filing has those statements.
Since a table's title joined its chunks' context header, an asking sentence's own "Basing your
judgments off of the balance sheet, ..." is kept: the words name the page. The units the answer
is to be given in ("(in USD billions)", "in USD millions?") and "Here's the question:" go: on
FinanceBench, within a filing hit@5 0.621 -> 0.655, in one collection 0.552 -> 0.517 (one
question from 5th to 8th), and the extractive answer states 3 of the 12 stated facts (was 2).
"""

from __future__ import annotations

import re

from app.core.sentences import split_sentences

_INSTRUCTION = re.compile(
    r"^(?:please\s+)?(?:round\b|answer\s+in\b|answer\s+the\s+following|respond\b|provide\s+a\s+"
    r"response|give\s+a\s+response|calculate\s+what|compute\s+or\s+extract|base\s+your|basing\s+"
    r"your|utili[sz]e\b|you\s+are\s+an?\b|if\s+.{0,80}\bnot\s+a\s+useful\b|explain\s+why|"
    r"we\s+need\s+to\s+calculate)",
    re.IGNORECASE,
)

_ANNOUNCEMENT = re.compile(r"^here'?s\s+the\s+question:\s*", re.IGNORECASE)

_ANSWER_UNITS = re.compile(
    r"\s*\((?:in\s+(?:units\s+of|USD|US\$|\$)|round)[^)]*\)|\s+in\s+(?:USD|US\$)\s+\w+(?=\?)",
    re.IGNORECASE,
)
"""How the answer is to be written, inside the question: "(in USD billions)", "in USD millions?"."""


def question_core(text: str) -> str:
    """Returns `text` without what only instructs how to answer: whole sentences (a sentence
    that asks, with a "?", stays), and within an asking sentence the units the answer is to be
    given in; `text` itself when nothing else would be left."""
    sentences = [text[start:end] for start, end in split_sentences(text)]
    kept = [
        _ANSWER_UNITS.sub("", _ANNOUNCEMENT.sub("", s)) if "?" in s else s
        for s in sentences
        if "?" in s or not _INSTRUCTION.match(s)
    ]
    if kept == sentences or not any(kept):
        return text
    return " ".join(s for s in kept if s)


_QUOTED = re.compile(
    r"(?<![\w'\u2019])['\u2018\"\u201c]([^\W_][^'\u2018\u2019\"\u201c\u201d?!.;:]{0,58}?[^\W_])"
    r"['\u2019\"\u201d](?![\w'\u2019])"
)
"""A term set in quotes, single or double, straight or curly; an apostrophe within a word
("Kraft Heinz's", "don't") opens none."""
MAX_QUOTED_WORDS = 6
"""A quoted stretch of more words than this is a quotation, not a term."""


def quoted_terms(text: str) -> list[str]:
    """Returns the terms a question sets in quotes, "the 'alignment tax'": the reader names
    them as the documents write them, so a passage that writes one is evidence, however far
    its vector lies from the question's."""
    return [
        term
        for match in _QUOTED.finditer(text)
        if len((term := match.group(1)).split()) <= MAX_QUOTED_WORDS
    ]


_CODE_TERM = re.compile(
    r"(?<![\w\\])(?:"
    r"\\[A-Za-z@]+(?:-[A-Za-z]+)*"  # a TeX or LilyPond command: \emergencystretch, \on-the-fly
    r"|#[A-Za-z][\w-]*"  # a Scheme symbol: #first-page
    r"|--?[A-Za-z][\w-]+(?:=[\w.-]+)?"  # an option: --enable-memory-profiling, -dbackend=eps
    r"|\$\{[^}\s]+\}"  # a shell expansion: ${parameter:-word}
    r"|[A-Za-z]\w*_\w+"  # an identifier: asn1_write_value, GLP_DUALP, tol_int
    r"|[A-Za-z][\w.]{2,}(?=\(\))"  # a function called: locator(), tracemem()
    r")"
)


def code_terms(text: str) -> list[str]:
    """Returns what a question writes as code, "what do I write instead of \\on-the-fly
    #first-page?": the reader copies it from the documents, so a passage that writes it is
    evidence as a quoted term is, however far its vector lies from the question's (the 2.24
    release notes' table of replacements, at cosine 0.29). A function's name shorter than
    three letters ("I()") is left out: bare, it is a word of prose."""
    return [match.group() for match in _CODE_TERM.finditer(text)]


_FISCAL_YEAR = re.compile(r"\bFY\s?((?:19|20)\d\d)\b", re.IGNORECASE)


def fiscal_years_spelled(text: str) -> str:
    """Returns `text` with an analyst's "FY2018" as statements write it, "fiscal year 2018":
    the text search reads "fy2018" as one word, which no balance sheet headed "December 31,
    2018" holds."""
    return _FISCAL_YEAR.sub(r"fiscal year \1", text)


_FRAME_WORDS = re.compile(
    r"\b(?:according|defin(?:e|es|ed|ition|itions)|meaning|paper|manual|report|document|article"
    r"|book|handbook|guide|publication|authors?|describ(?:e|es|ed)|explain(?:s|ed)?"
    r"|mention(?:s|ed)?|says?|drove|drive(?:s|rs?)?|reasons?|factors?|how (?:much|many))\b",
    re.IGNORECASE,
)


def without_frame_words(text: str) -> str:
    """Returns `text` without the words that frame what it asks, the source it asks of and how
    ("According to R's introduction manual", "How does the paper define chatbots?", "What drove
    the increase", "How much did Microsoft spend"): a passage that answers seldom writes them
    ("primarily due to", "$ 6,628"), and rare in the documents, they weighed most in whether
    it holds what was asked."""
    return _FRAME_WORDS.sub(" ", text)


_NEXT_ASK = re.compile(
    r",?\s+and\s+(?=(?:by\s+)?(?:how|what|which|when|where|who|whom|why)\b)", re.IGNORECASE
)


def question_parts(question: str) -> list[str]:
    """Returns the asks a question joins with "and": "How much did Amazon invest in Anthropic
    in the quarter, and how much more did it agree to invest?" asks two things, which a single
    passage seldom says together; [question] when it asks one."""
    return [part.strip() for part in _NEXT_ASK.split(question) if part.strip()]
