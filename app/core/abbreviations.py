"""Abbreviations a text defines ("Notices of Proposed Adjustment (“NOPAs”)") and the text of a
sentence with each written out where it uses only one of the two forms.

A filing defines an abbreviation once and then writes it alone ("In the NOPAs, the IRS is
seeking an additional tax payment of $28.9 billion"); a question names the thing in full, or
the other way round. The long form is found as Schwartz and Hearst's algorithm finds it
(PSB 2003): the short form's letters, read backwards, in the words right before the
parenthesis, its first letter opening a word.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from app.core.sentences import split_sentences

_DEFINED = re.compile(r"\(\s*[\"'\u201c\u2018]?([A-Za-z][A-Za-z0-9&-]{1,9})[\"'\u201d\u2019]?\s*\)")
"""A parenthesis holding a short form alone, quoted or not: "(“NOPAs”)", "(DCAI)"."""
_WORD = re.compile(r"\S+")
_SENTENCE_BREAK = re.compile(r"[.;:!?]\s|\n\n")
MAX_SPELLED_SHARE = 0.5
"""Of the sentences, the most that may write only the form the query does not."""
EXTRA_WORDS = 5
"""Words the long form may hold beyond one per letter of the short form ("of", "and")."""


def defined_abbreviations(text: str) -> dict[str, str]:
    """Returns each short form `text` defines with the long form before it, in the order
    defined; the first definition of a short form stands."""
    defined: dict[str, str] = {}
    for match in _DEFINED.finditer(text):
        short = match.group(1)
        letters = _letters(short)
        if len(letters) < 2 or short in defined:
            continue
        before = text[: match.start()]
        breaks = list(_SENTENCE_BREAK.finditer(before))
        sentence = before[breaks[-1].end() :] if breaks else before
        window = _WORD.findall(sentence)[-(len(letters) + EXTRA_WORDS) :]
        long = _long_form(letters, " ".join(window))
        if long is not None:
            defined[short] = long
    return defined


def spelled_out(text: str, defined: dict[str, str]) -> str:
    """Returns `text` with each defined abbreviation it writes in one form only followed by the
    other in parentheses ("In the NOPAs (Notices of Proposed Adjustment), ...")."""
    for short, long in defined.items():
        used, full = _short_at(text, short), _long_at(text, long)
        if used is not None and full is None:
            text = f"{text[: used.end()]} ({long}){text[used.end() :]}"
        elif full is not None and used is None:
            text = f"{text[: full.end()]} ({short}){text[full.end() :]}"
    return text


def asked_abbreviations(query: str, texts: Sequence[str]) -> dict[str, str]:
    """Returns the abbreviations `texts` define (the first definition of each standing) that
    `query` writes one way only, and that at most MAX_SPELLED_SHARE of the texts' sentences
    write only the other way.

    A query writing both forms finds whatever writes either; a form most sentences write
    tells none of them apart (an airworthiness directive's "AD")."""
    defined: dict[str, str] = {}
    for text in texts:
        for short, long in defined_abbreviations(text).items():
            defined.setdefault(short, long)
    sentences = list(
        dict.fromkeys(text[start:end] for text in texts for start, end in split_sentences(text))
    )
    asked = {}
    for short, long in defined.items():
        if (_short_at(query, short) is None) == (_long_at(query, long) is None):
            continue
        one = {short: long}
        spelled = sum(spelled_out(sentence, one) != sentence for sentence in sentences)
        if spelled <= MAX_SPELLED_SHARE * len(sentences):
            asked[short] = long
    return asked


def _short_at(text: str, short: str) -> re.Match[str] | None:
    return re.search(rf"\b{re.escape(short)}\b", text)


def _long_at(text: str, long: str) -> re.Match[str] | None:
    return re.search(rf"\b{re.escape(long)}\b", text, re.I)


def _letters(short: str) -> str:
    """Returns the letters and digits a short form abbreviates: a plural's "s" ("NOPAs") and
    any hyphen or ampersand left out. A short form of lower-case letters abbreviates nothing."""
    if short.endswith("s") and short[:-1].isupper():
        short = short[:-1]
    if sum(char.isupper() for char in short) < 2:
        return ""
    return "".join(char for char in short if char.isalnum())


def _long_form(letters: str, window: str) -> str | None:
    """Returns the shortest end of `window` whose words spell `letters` in order, the first
    letter opening a word, or None (Schwartz and Hearst's backward match)."""
    position = len(window) - 1
    for index in range(len(letters) - 1, -1, -1):
        letter = letters[index].lower()
        while position >= 0 and (
            window[position].lower() != letter
            or (index == 0 and position > 0 and window[position - 1].isalnum())
        ):
            position -= 1
        if position < 0:
            return None
        position -= 1
    start = window.rfind(" ", 0, position + 1) + 1
    long = window[start:].strip("\"'\u201c\u201d,")
    if len(_WORD.findall(long)) < 2:
        return None
    return long
