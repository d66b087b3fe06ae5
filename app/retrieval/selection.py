"""Where a reader's selected text stands in the stored pages: exact, then fuzzy, matching.

A selection comes from a viewer's text layer, which need not read exactly as citelock's page
text: whitespace and line breaks differ, a word broken at a line end may keep its hyphen,
ligatures and curly quotes may be spelled either way. Both sides are therefore normalised
(`normalize`) the same way before they are compared, and every normalised character keeps
the offset of the page character it came from, so a match maps back onto page offsets:
offsets are the truth, the normalised text is only for comparing.

Pages are searched in runs of consecutive pages joined with PAGE_BREAK, as in a document's
text, so a selection across a page break is found like any other.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from app.core.records import PAGE_BREAK

FUZZY_MIN_SCORE = 90.0
"""The least rapidfuzz partial_ratio (0-100) of a fuzzy match. A selection and the page text
it was taken from score 96-100 when they differ only by what extraction does differently
(a running header inside a selection across pages, a quote or dash spelled otherwise, a
hyphen kept); at 90, about one character in twenty may differ, while a passage that only
shares its topic and many words with the selection scores well under 80."""

KEY_WORDS = 3
"""How many of the selection's longest words pick the pages worth comparing."""

KEY_WORD_MAX_CHARS = 16
"""Key words are cut to this many characters: a long run of unspaced script (Chinese) is
rarely on one line of a page, a prefix of it usually is."""

FOLDED = str.maketrans(
    {
        "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'",
        "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
        "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-",
        "\u2212": "-",
    }
)  # fmt: skip
"""Characters that text layers spell either way, mapped to one spelling."""

_JOINS = re.compile(r"(?<=\w)[-\u00ad\u2010]\s*\n\s*(?=\w)|\s{2,}|[^\S ]|\u00ad")
"""A word broken at a line end (hyphen, line break), a whitespace run, a soft hyphen.

A single space is no run: it stands for itself already, and is copied with the words around
it. With one match for every gap between words, and every character of a stretch folded one
by one wherever it held one non-ASCII character, a page took 557 us; now 172 (bench/query.py's
selection pages)."""

_WORD = re.compile(r"\w+")

_NON_ASCII = re.compile(r"[^\x00-\x7f]+")
"""Characters folded one by one (NFKC, FOLDED); ASCII stretches are only lower-cased."""


@dataclass(frozen=True)
class Selection:
    """What a reader selected, and where the viewer says it is (any of it may be unknown)."""

    text: str
    document_id: uuid.UUID | None = None
    start_page: int | None = None
    end_page: int | None = None
    chapter: str | None = None


@dataclass(frozen=True)
class Normalized:
    """A text folded for comparison; `origin[i]` is the source offset of `text[i]`."""

    text: str
    origin: tuple[int, ...]


@dataclass(frozen=True)
class PageRun:
    """Consecutive pages of one document, their texts in page order from `first_page`."""

    document_id: uuid.UUID
    first_page: int
    texts: tuple[str, ...]


@dataclass(frozen=True)
class Match:
    """Where a selection stands: from `start_offset` on `start_page` to `end_offset`
    (exclusive) on `end_page`, offsets into those pages' texts."""

    document_id: uuid.UUID
    start_page: int
    start_offset: int
    end_page: int
    end_offset: int
    score: float
    """100 for an exact match (after normalisation), the partial ratio for a fuzzy one."""
    text: str
    """The pages' text under the match, pages joined with PAGE_BREAK, as in a chunk."""

    @property
    def exact(self) -> bool:
        return self.score == 100.0


def normalize(text: str) -> Normalized:
    """Returns `text` lower-cased, NFKC-folded, quotes and dashes unified, words broken at
    line ends joined, soft hyphens dropped and whitespace runs made one space, trimmed."""
    pieces: list[str] = []
    origin: list[int] = []

    def copy(start: int, end: int) -> None:
        for wide in _NON_ASCII.finditer(text, start, end):
            pieces.append(text[start : wide.start()].lower())
            origin.extend(range(start, wide.start()))
            for offset in range(wide.start(), wide.end()):
                folded = unicodedata.normalize("NFKC", text[offset].translate(FOLDED)).lower()
                pieces.append(folded)
                origin.extend([offset] * len(folded))
            start = wide.end()
        pieces.append(text[start:end].lower())
        origin.extend(range(start, end))

    cursor = 0
    for found in _JOINS.finditer(text):
        copy(cursor, found.start())
        if found.group().isspace():
            pieces.append(" ")
            origin.append(found.start())
        cursor = found.end()
    copy(cursor, len(text))
    folded = "".join(pieces)
    start = len(folded) - len(folded.lstrip(" "))
    end = len(folded.rstrip(" "))
    return Normalized(folded[start:end], tuple(origin[start:end]))


def key_words(selection: str) -> list[str]:
    """Returns up to KEY_WORDS of the longest distinct words of the normalised selection
    (longest first, then alphabetical), each cut to KEY_WORD_MAX_CHARS."""
    words = {word[:KEY_WORD_MAX_CHARS] for word in _WORD.findall(normalize(selection).text)}
    return sorted(words, key=lambda word: (-len(word), word))[:KEY_WORDS]


def locate(selection: str, runs: Sequence[PageRun]) -> Match | None:
    """Returns where `selection` stands in `runs`: the first exact match in run order, else
    the best fuzzy one scoring at least FUZZY_MIN_SCORE (the earlier run on a tie), else None.

    A run shorter than the selection is not compared fuzzily: the selection cannot lie
    within it, and a partial ratio of a long needle in a short text costs most of a second.
    """
    needle = normalize(selection).text
    if not needle:
        return None
    haystacks = [(run, normalize(PAGE_BREAK.join(run.texts))) for run in runs]
    for run, haystack in haystacks:
        at = haystack.text.find(needle)
        if at >= 0:
            return _match(run, haystack, at, at + len(needle), 100.0)
    best: Match | None = None
    for run, haystack in haystacks:
        if len(haystack.text) < len(needle):
            continue
        cutoff = best.score if best is not None else FUZZY_MIN_SCORE
        aligned = fuzz.partial_ratio_alignment(needle, haystack.text, score_cutoff=cutoff)
        if aligned is None or (best is not None and aligned.score <= best.score):
            continue
        start, end = _trimmed(haystack.text, aligned.dest_start, aligned.dest_end)
        if start < end:
            best = _match(run, haystack, start, end, round(aligned.score, 2))
    return best


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def _match(run: PageRun, haystack: Normalized, start: int, end: int, score: float) -> Match:
    """Returns the Match of `haystack.text[start:end]`, mapped back onto the run's pages."""
    page_starts = []
    offset = 0
    for text in run.texts:
        page_starts.append(offset)
        offset += len(text) + len(PAGE_BREAK)
    first = haystack.origin[start]
    last = haystack.origin[end - 1]
    start_index = bisect_right(page_starts, first) - 1
    end_index = bisect_right(page_starts, last) - 1
    return Match(
        document_id=run.document_id,
        start_page=run.first_page + start_index,
        start_offset=first - page_starts[start_index],
        end_page=run.first_page + end_index,
        end_offset=last + 1 - page_starts[end_index],
        score=score,
        text=PAGE_BREAK.join(run.texts)[first : last + 1],
    )


def page_runs(document_id: uuid.UUID, pages: Sequence[tuple[int, str]]) -> list[PageRun]:
    """Returns the runs of consecutive pages among `pages` ((number, text), in page order)."""
    runs: list[PageRun] = []
    texts: list[str] = []
    first = previous = 0
    for number, text in pages:
        if texts and number != previous + 1:
            runs.append(PageRun(document_id, first, tuple(texts)))
            texts = []
        if not texts:
            first = number
        texts.append(text)
        previous = number
    if texts:
        runs.append(PageRun(document_id, first, tuple(texts)))
    return runs
