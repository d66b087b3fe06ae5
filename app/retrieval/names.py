"""What a question names: a document, and things a library may never mention.

Which document: its company, year or title words raise that document.

"What is Adobe's FY2015 operating cash flow ratio?" names a document as much as it asks a
question; among many filings in one collection, the named one's page otherwise loses to a
look-alike of another company or year. A candidate whose document's title or file name
shares such words with the query gains NAME_BOOST per word (at most MAX_NAMED_WORDS), taken
off its score before the top k are chosen: deterministic, and nothing when no name matches.

A date the query writes whole, month, day and year, raises the chunks that hold it by
DATE_BOOST: of the quarterly filings in one collection, it names one. So does a term the query
sets in quotes (QUOTED_BOOST): "What does the Qwen2 report mean by the 'alignment tax'?".

Names the library never mentions: "What is a GAN?", "What was Tesla's revenue in 2022?" over
documents where no chunk says GAN or Tesla cannot be answered from them, however near their
chunks' vectors lie; retrieval then finds no matches (name_phrases, pipeline.missing_names);
so it does for a name none of the nearest chunks holds (unheld_phrases), and for a name
with a version none of those near enough writes with that version ("Llama 2" where they say
only "Llama-3"; unwritten_versions).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from app.core.rows import MONTH, full_dates, row_kind, row_label
from app.core.sentences import CJK_LETTER

NAME_BOOST = 0.03
"""Score taken off per query word found in the candidate's document name (cosine distance
units: the nearest chunks of a collection lie some 0.02 to 0.1 apart)."""
MAX_NAMED_WORDS = 3
"""A company's two words and a year: at two, "MGM Resorts ... FY2018" raised MGM's 2020 filing
as much as its 2018 one. At three, FinanceBench in one collection found a gold page in the top 5
for one more question (hybrid and vector hit@5 0.517 -> 0.552 and 0.483 -> 0.517); the docs
set's pages did not move."""

DATE_BOOST = 0.5
"""Score taken off a candidate holding a date the query writes whole ("as of July 15, 2022"):
in hybrid mode what ranking first in one of the two rankings is worth. Such a date picks one
filing's period among look-alikes of other quarters; measured on the docs set's 10-Q questions
(bench/eval_pages.py), one collection hybrid hit@1 0.758 -> 0.783, vector hit@5 0.867 -> 0.925;
0.3 ranked as high, but left "July 21, 2023" above "July 15, 2022" in the answer."""

QUOTED_BOOST = 0.5
"""Score taken off a candidate that writes a term the query sets in quotes
(app.core.questions.quoted_terms) and every name the query gives beside it. The reader names
the words the passage uses; the one paragraph that defines "alignment tax" lies at cosine 0.22
from the question, under every chunk of its report, and ranks 4th on the keyword side among
the 10-Qs' income taxes. The names keep a common word quoted to its document: "What does Cope
mean by a composer's 'signature'?" raised the 10-Qs' SIGNATURE pages without them."""

_PART = re.compile(r"[^\W\d_]+|\d+")
_WORD = re.compile(r"[^\W_]+")
"""A run of letters and digits, as the text search's parser keeps "x86" or "asn1" whole."""
GENERIC = frozenset(
    {
        "a", "an", "and", "annual", "are", "as", "at", "be", "by", "co", "company", "corp",
        "corporation", "did", "do", "does", "document", "for", "form", "from", "fy", "group",
        "has", "have", "how", "in", "inc", "incorporated", "is", "it", "its", "k", "llc", "ltd",
        "much", "of", "on", "or", "pdf", "plc", "q", "quarter", "quarterly", "report", "s",
        "the", "to", "was", "were", "what", "when", "which", "who", "why", "with",
    }
)  # fmt: skip
"""Words that name no particular document: the form's own words, legal suffixes, stopwords."""


def name_words(text: str) -> frozenset[str]:
    """Returns the distinctive words of a name or a query, lower-cased, letters and digits
    apart ("FY2015" gives "2015", "10-K" and "10K" give "10"); a name of letters hyphenated
    gives its parts and all of them run together, as a file name writes it ("Coca-Cola":
    "coca", "cola" and "cocacola" of COCACOLA_2017_10K.pdf)."""
    parts = [match.group().lower() for match in _PART.finditer(text)]
    joined = [match.group().lower().replace("-", "") for match in _HYPHENATED.finditer(text)]
    return frozenset(
        part
        for part in [*parts, *joined]
        if part not in GENERIC and (len(part) > 1 or part.isdigit())
    )


_HYPHENATED = re.compile(r"\b[^\W\d_]+(?:-[^\W\d_]+)+\b")


@lru_cache(maxsize=4096)
def document_words(title: str, filename: str) -> frozenset[str]:
    return name_words(f"{title} {filename.rsplit('.', 1)[0]}")


def name_boost(query_words: frozenset[str], title: str, filename: str) -> float:
    """Returns what a candidate's score loses for each query word its document's name has:
    its year apart from the other words, so that a company's name of three words ("American
    Water Works") does not fill MAX_NAMED_WORDS and leave its filings of every year alike."""
    shared = query_words & document_words(title, filename)
    years = {word for word in shared if _NAMED_YEAR.fullmatch(word)}
    return NAME_BOOST * (min(len(shared - years), MAX_NAMED_WORDS - 1) + min(len(years), 1))


_NAMED_YEAR = re.compile(r"(?:19|20)\d\d")


def date_boost(query_dates: frozenset[tuple[int, int, int]], text: str) -> float:
    """Returns what a candidate's score loses when it holds a date the query names whole."""
    return DATE_BOOST if query_dates and query_dates & full_dates(text) else 0.0


ROW_BOOST = 0.05
"""Score taken off a candidate with a table row the query names (row_boost), when the query
asks for a figure. Over bench/eval_pages.py's 654 questions (both settings): hybrid hit@1
1013 -> 1016, hit@5 1247 -> 1248. At 0.1, and for every question, hit@1 fell to 1003: tables
passed the prose that says why a segment's profit fell."""


def row_names(named: frozenset[str], title: str, filename: str) -> frozenset[str]:
    """Returns the query's name words `named` (name_phrases, as it writes them) that do not
    name the document: what a table's row may be labelled ("LinkedIn" of "How much revenue did
    LinkedIn generate for Microsoft?")."""
    document = document_words(title, filename)
    return frozenset(word for word in named if word.lower() not in document)


def row_boost(names: frozenset[str], query_words: set[str], text: str) -> float:
    """Returns what a candidate's score loses when one of its table rows is labelled by the
    query's own words, a name among them as the query writes it: "LinkedIn 3,663 3,136" for
    LinkedIn's revenue, "Dynamics products and cloud services 1,540 1,260" for theirs, not
    "Assets under management" for the Asset & Wealth Management segment's. A table of figures
    lies far from a question's vector, and the prose around it says the name as often."""
    for line in text.splitlines():
        if row_kind(line) != "figures":
            continue
        label = row_label(line)
        if names.intersection(_WORD.findall(label)) and text_words(label) <= query_words:
            return ROW_BOOST
    return 0.0


PREFIX_PART = 4
"""Parts this long match as a prefix (a plural, a possessive); shorter ones ("gan", "v8")
only whole, or they would match the start of any longer word."""

_QUERY_TOKEN = re.compile(r"\w[\w\-.']*\w|\w")
_POSSESSIVE = re.compile(r"['\u2019]s$")
_SENTENCE_START = re.compile(r"(?:^|[.?!:;]\s+)\W*$")
"""What stands before a word that opens a sentence ("... over the quarters? If so, ..."):
capitalised for grammar's sake."""
QUESTION_WORDS = frozenset(
    {"what", "how", "which", "who", "whom", "whose", "when", "where", "why", "is", "are", "was",
     "were", "does", "do", "did", "can", "could", "should", "would", "will", "i", "in", "on",
     "the", "a", "an", "of", "according", "for", "to", "and", "or", "tell", "give", "list",
     "describe", "explain", "name", "find", "show"}
)  # fmt: skip
"""Words that open questions or stand capitalised for grammar's sake, not as names."""


def name_phrases(query: str) -> list[tuple[str, ...]]:
    """Returns the query's words that name something, in runs of those only spaces part (one
    name of several words, "Editorial Review Board", is one phrase): capitalised within a
    sentence ("Tesla", "Frontier"), acronyms ("GAN", "BERT"), codes of letters and digits
    ("GPT-4", "ggplot2", "A320neo") and functions written as calls ("mutate()"), possessives
    trimmed; only those with a part of two characters or more (name_query)."""
    phrases: list[tuple[str, ...]] = []
    follows = False
    previous_end = 0
    # Chinese or Japanese is written without spaces: a run of its letters is a whole clause to
    # the tokens ("...小区14间商铺的评估价值是多少"), no name a passage writes; the Latin letters
    # and digits among it are read on their own ("Qwen2的词表").
    query = CJK_LETTER.sub(" ", query)
    for match in _QUERY_TOKEN.finditer(query):
        word = _POSSESSIVE.sub("", match.group())
        opens_sentence = _SENTENCE_START.search(query[: match.start()]) is not None
        called = query.startswith("()", match.end())
        if _is_name(word, opens_sentence=opens_sentence, called=called):
            if follows and not query[previous_end : match.start()].strip():
                phrases[-1] += (word,)
            else:
                phrases.append((word,))
            # A possessive ends the name: "Apple's Services" are two.
            follows = word == match.group()
        else:
            follows = False
        previous_end = match.end()
    return phrases


DOCUMENT_PARTS = frozenset({
    "appendix", "article", "chapter", "equation", "exhibit", "fig", "figure", "item", "lemma",
    "listing", "note", "page", "part", "schedule", "section", "step", "table", "theorem", "volume",
})  # fmt: skip
"""Words that point at a part of the document, not at what it names: a question's "(Figure 4)"
is the paper's "Fig. 4", and a passage need not say "Figure" to be about what it shows."""


_MONTH = re.compile(MONTH)
"""A month names a date, which a text writes in many ways ("as of November 1989" is the
CVS paper's "as of 11/11/89"): no name a passage must write."""


def _is_name(word: str, *, opens_sentence: bool, called: bool) -> bool:
    lowered = word.lower()
    if not any(c.isalpha() for c in word) or lowered in QUESTION_WORDS or lowered in DOCUMENT_PARTS:
        return False
    if _MONTH.fullmatch(word):
        return False
    code = called or any(c.isdigit() for c in word)
    acronym = len(word) >= 2 and word.isupper()
    capitalised = word[0].isupper() and not opens_sentence
    return (code or acronym or capitalised) and bool(name_query(word))


def name_query(name: str) -> str:
    """Returns the `to_tsquery` text matching any part of a name (name_parts), a part of
    PREFIX_PART characters or more as a prefix ("PC-12" as "pc" or "12"; "Weizenbaum's" as
    "weizenbaum:*"); "" for a name with no part of two characters or more ("v8"). Only letters
    and digits reach it."""
    return " | ".join(
        f"{part}:*" if len(part) >= PREFIX_PART else part for part in name_parts(name)
    )


def name_parts(name: str) -> list[str]:
    """Returns the parts a name is sought by, lower-cased: its runs of letters and of digits of
    two characters or more and, when it has any, its runs of both, which the text search keeps
    whole ("x86" as "86" and "x86")."""
    lowered = name.lower()
    parts = [part for part in _PART.findall(lowered) if len(part) > 1]
    if parts:
        parts += [word for word in _WORD.findall(lowered) if len(word) > 1 and word not in parts]
    return parts


MIN_UNHELD_NAME = 4
"""A word of a name this long or longer ("Samsung", "Moby-Dick") is written as the question
writes it wherever it is meant. Acronyms and short names are mostly abbreviations a text spells
out or never uses ("EBITDA", "CAGR", "JPM" for JPMorgan, "IoT"): they are not sought."""


def unheld_phrases(said: Sequence[set[str]], phrases: Sequence[tuple[str, ...]]) -> list[str]:
    """Returns the name phrases (name_phrases) of which none of the texts whose words are
    `said` (text_words) holds a word sought: one of MIN_UNHELD_NAME characters or more, not an
    acronym. Passages that never say "Moby-Dick", nor "Stable" or "Diffusion", are about
    something else, however near their vectors lie; "Editorial Review Board" is held by a
    passage on an appeal board."""
    unheld = []
    for phrase in phrases:
        sought = [word for word in phrase if len(word) >= MIN_UNHELD_NAME and not word.isupper()]
        if sought and not any(holds_name(words, name) for words in said for name in sought):
            unheld.append(" ".join(phrase))
    return unheld


def holds_phrases(text: str, phrases: Sequence[str]) -> bool:
    """Whether `text` writes any of `phrases`, word after word, whatever the case, the spaces
    or the line breaks between them; the last word may go on ("trace trees", "tax's")."""
    written = f" {' '.join(_WORD.findall(text.lower()))}"
    return any(f" {' '.join(_WORD.findall(phrase.lower()))}" in written for phrase in phrases)


def writes_code(text: str, terms: Sequence[str]) -> bool:
    """Whether `text` writes any of `terms` (app.core.questions.code_terms) as it is, case and
    all, not inside a longer name: "tol_int" is not in "tol_int_max"."""
    return any(
        re.search(rf"(?<![\w\\-]){re.escape(term)}(?![\w-])", text) is not None for term in terms
    )


MIN_NAMES_HELD = 2
"""A passage that holds this many of a query's names or more, all of them, is evidence enough
without a near vector (retrieval's named floor)."""


WORKS = (
    "article|book|chapter|essay|guide|manual|memo|notes|paper|presentation|proposal|report"
    "|slides|study|survey|talk|thesis|tutorial|whitepaper"
)
_AUTHORED = re.compile(
    rf"\b([A-Z][\w\-]*)['\u2019]s (?:\w+ )?(?:{WORKS})s?\b"
    rf"|\b(?:{WORKS})s? (?:written |given )?by ((?:[A-Z][\w\-.]* )*[A-Z][\w\-]*)\b"
    r"|\b([A-Z][\w\-]*) et al\b"
)
"""A name a query gives as a work's author: "Berliner's paper", "Thoma's creativity paper", "the
report by Jane Doe", "Vaswani et al."."""


def authored_names(query: str) -> list[str]:
    """Returns the names the query gives as its document's author (_AUTHORED), as it writes
    them: a byline on the document's first pages says them, where its passages need not."""
    return [_author(match) for match in _AUTHORED.finditer(query)]


def without_authors(query: str) -> str:
    """Returns `query` without the names it gives as its document's author (authored_names):
    like "the paper", they say which source is asked, which its passages seldom write."""
    return _AUTHORED.sub(lambda match: match.group().replace(_author(match), " ", 1), query)


def _author(match: re.Match[str]) -> str:
    return next(name for name in match.groups() if name)


def text_words(text: str) -> set[str]:
    """Returns the words of `text` as holds_name reads them: lower-cased, its runs of letters
    and digits together and apart."""
    lowered = text.lower()
    return set(_WORD.findall(lowered)) | set(_PART.findall(lowered))


def holds_name(words: set[str], name: str) -> bool:
    """Whether a text whose words are `words` (text_words) holds a part of `name` as
    name_query seeks it: a part of PREFIX_PART characters or more as a word's beginning, a
    shorter one as a whole word."""
    return any(
        word.startswith(part) if len(part) >= PREFIX_PART else word == part
        for part in name_parts(name)
        for word in words
    )


_VERSIONED = re.compile(
    r"(?<![\w.\-'\u2019])(?:([^\W\d_]+) |([^\W_]+)[\-\u2010-\u2015])"
    r"(\d+(?:[.\-\u2010-\u2015]\d+)*[^\W\d_]*)(?!\w|\.\d)"
)
"""A name then its number: a word of letters and a space ("Llama 2", "SP 800-207", "Boeing
737"), or any word and a hyphen ("GPT-4", "Qwen2-72B", "Llama-3-70B"); a code of letters and
digits then a space ("FY2020 3 year") is no name with a version."""
_YEAR_OR_MONTH = re.compile(rf"(?:19|20)\d\d|{MONTH}", re.IGNORECASE)
_NAME_FOLLOWS = re.compile(r" [A-Z]")
_DASH = "[\\-\u2010-\u2015]"
"""A hyphen or a dash a PDF writes for it."""


def versioned_names(query: str) -> list[tuple[str, str]]:
    """Returns the names the query writes with a version, as (name, version): a name
    (name_phrases) then a number, "Llama 2", "GPT-4", "SP 800-207". A year ("Fiscal 2023") or
    a date ("June 25") is no version."""
    versioned = []
    for match in _VERSIONED.finditer(query):
        name = match.group(1) or match.group(2)
        version = match.group(3)
        if _YEAR_OR_MONTH.fullmatch(version) or _YEAR_OR_MONTH.fullmatch(name):
            continue
        if match.group(1) and _NAME_FOLLOWS.match(query, match.end()):
            # "Ethiopian Airlines 737 MAX": the number begins the next name.
            continue
        opens_sentence = _SENTENCE_START.search(query[: match.start()]) is not None
        if _is_name(name, opens_sentence=opens_sentence, called=False):
            versioned.append((name, version))
    return versioned


@lru_cache(maxsize=256)
def written_with_version(name: str, version: str) -> re.Pattern[str]:
    """Returns the pattern of the name written with its version as texts write it: "Llama 2",
    "Llama-2", "Llama2" or "Llama\u20132", not "Llama-3" nor "Llama 20"."""
    version_written = re.sub(rf"\\-|{_DASH}", lambda _: _DASH, re.escape(version))
    return re.compile(
        rf"(?<![^\W_]){re.escape(name)}(?:\s|{_DASH})?{version_written}(?![0-9])", re.IGNORECASE
    )


def unwritten_versions(texts: Sequence[str], versions: Sequence[tuple[str, str]]) -> list[str]:
    """Returns the names with a version (versioned_names) that none of `texts` writes with that
    version (written_with_version), as "name version"."""
    return [
        f"{name} {version}"
        for name, version in versions
        if not any(written_with_version(name, version).search(text) for text in texts)
    ]
