"""Sentences of a text as spans: the one sentence splitter every layer uses."""

from __future__ import annotations

import re

CJK_LETTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff"
"""Kana, CJK ideographs and Hangul (a character class's ranges): letters that stand without
spaces between words."""
CJK_LETTER = re.compile(f"[{CJK_LETTERS}]")

CLOSERS = "\"'\u201d\u2019)\\]"
"""What may follow a sentence's last punctuation: closing quotes and brackets."""
_FULL_STOPS = "\u3002\uff01\uff1f"
"""The full-width full stop, exclamation and question marks of Chinese and Japanese: they end
a sentence with no space after them."""
_FULL_CLOSERS = "\u300d\u300f\u201d\uff09"
_BOUNDARY = re.compile(rf"[.!?\u2026]+[{CLOSERS}]*\s+|[{_FULL_STOPS}]+[{_FULL_CLOSERS}]*\s*")
_DOTTED = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]")
ABBREVIATIONS = frozenset(
    {
        "al", "approx", "cf", "ch", "chap", "dept", "dr", "e.g", "eq", "eqs", "etc", "fig",
        "figs", "i.e", "inc", "jr", "ltd", "mr", "mrs", "ms", "no", "nos", "p", "pp", "prof",
        "ref", "refs", "resp", "sec", "secs", "sr", "st", "vol", "vols", "vs",
    }
)  # fmt: skip
"""Words that end in a period without ending the sentence (compared in lower case)."""
_CLOSING = frozenset({"al", "etc", "inc", "jr", "ltd", "sr"})
"""Of ABBREVIATIONS, those a sentence often ends with ("... according to Information
Resources, Inc.") as dotted letters do ("... sold in the U.S."): before a word that opens
sentences, their period ends one too."""
_OPENER = re.compile(
    r"\s+(?:The|However|In|We|Our|This|These|Those|It|Its|They|There|As|For|Such|Also|Additionally"
    r"|Accordingly|Therefore|Thus|If|When|While)\b"
)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """Returns the spans of the sentences in `text`, trimmed of surrounding whitespace.

    A sentence ends at ".", "!", "?" or "…" (closing quotes and brackets included) that is
    followed by whitespace and then not by a lower-case letter, unless the period closes an
    abbreviation ("e.g.", "et al.", "Fig."), an initial ("J.") or dotted letters ("U.S.")
    and, for those a sentence often ends with ("Inc.", "U.S."), no word that opens
    sentences follows. Decimals never split: their period is not followed by whitespace. A
    full-width full stop, exclamation or question mark ends one wherever it stands.
    """
    spans: list[tuple[int, int]] = []
    start = 0
    for match in _BOUNDARY.finditer(text):
        following = match.end()
        if following < len(text) and text[following].islower():
            continue
        if match.group().rstrip() == "." and _is_abbreviation(text, match.start()):
            continue
        spans.append((start, match.start() + len(match.group().rstrip())))
        start = following
    spans.append((start, len(text)))
    return [span for span in (trim_span(text, *span) for span in spans) if span[0] < span[1]]


def _is_abbreviation(text: str, period: int) -> bool:
    word = text[text.rfind(" ", 0, period) + 1 : period].rsplit("\n", 1)[-1]
    word = word.lstrip("([\"'\u201c\u2018")
    if len(word) == 1 and word.isupper():
        return True
    dotted = _DOTTED.fullmatch(word) is not None
    if (dotted or word.lower() in _CLOSING) and _OPENER.match(text, period + 1):
        return False
    return word.lower() in ABBREVIATIONS or dotted


def trim_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
