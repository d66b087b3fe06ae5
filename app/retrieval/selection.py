"""Where a reader's selected text stands in the stored pages: exact, then fuzzy, matching.

A selection comes from a viewer's text layer, which need not read exactly as citelock's page
text: whitespace and line breaks differ, a word broken at a line end may keep its hyphen,
ligatures and curly quotes may be spelled either way. Both sides are therefore normalised
(`normalize`) the same way before they are compared, and every normalised character keeps
the offset of the page character it came from, so a match maps back onto page offsets:
offsets are the truth, the normalised text is only for comparing.

Pages are searched in runs of consecutive pages joined with PAGE_BREAK, as in a document's
text, so a selection across a page break is found like any other.

A text layer may also order a page's lines otherwise than citelock's reading order: a running
header, a page number or footnotes stand inside a selection across a page turn, a figure's
labels come in another order. Such a selection is found by its words alone (letters and
digits, `Words`): first as one unbroken run of them, then between its first and its last
words (`anchored`), the rest of its words only having to be on the pages searched.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from bisect import bisect_right
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace

from rapidfuzz import fuzz

from app.core.records import PAGE_BREAK
from app.core.sentences import split_sentences

FUZZY_MIN_SCORE = 90.0
"""The least rapidfuzz partial_ratio (0-100) of a fuzzy match. A selection and the page text
it was taken from score 96-100 when they differ only by what extraction does differently
(a running header inside a selection across pages, a quote or dash spelled otherwise, a
hyphen kept); at 90, about one character in twenty may differ, while a passage that only
shares its topic and many words with the selection scores well under 80."""

KEY_WORDS = 8
"""How many of the selection's longest words pick the pages worth comparing, each weighed by
its rarity on the pages searched: a running header's words, which are the longest of a
selection taken from the top of a page, stand on every page and pick none of them."""

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

MAX_WIDENING = 600
"""Characters a match may grow by at either end to take in its whole sentences: more is a
table or a list without full stops, not a sentence."""

ANCHOR_CHARS = 16
"""Letters and digits in each of the two word runs that pin down an anchored match: long
enough to be found in few places, short enough to hold no more than two or three words."""

ANCHOR_SKIP = 0.25
"""Share of a selection's words, at either end, that may be passed over to find an anchor
that a header, a page number or a figure label inside it does not break."""

ANCHORED_MIN_COVERAGE = 0.9
"""Share of the selection's words (counted with repeats) that must be on the pages searched."""

ANCHORED_MAX_INSERT = 3000
"""How many more letters and digits than the selection its anchored match may hold: what the
page text has between the anchors that the selection does not (a column's footnotes, a
figure's labels read elsewhere) is under half a dense page."""

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
class Words:
    """A normalised text's words run together (letters, digits); `origin[i]` is the offset in
    the normalised text of `text[i]`, `starts[k]` where word k begins in `text`."""

    text: str
    origin: tuple[int, ...]
    starts: tuple[int, ...]

    @classmethod
    def of(cls, normalized: Normalized) -> Words:
        pieces: list[str] = []
        origin: list[int] = []
        starts: list[int] = []
        length = 0
        for word in _WORD.finditer(normalized.text):
            pieces.append(word.group())
            origin.extend(range(word.start(), word.end()))
            starts.append(length)
            length += len(word.group())
        return cls("".join(pieces), tuple(origin), tuple(starts))

    def words(self) -> list[str]:
        ends = (*self.starts[1:], len(self.text))
        return [self.text[start:end] for start, end in zip(self.starts, ends, strict=True)]


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
    """100 for an exact match (after normalisation, or of its words), else the partial
    ratio of a fuzzy one, or the share of its words on the pages of an anchored one."""
    text: str
    """The pages' text under the match, pages joined with PAGE_BREAK, as in a chunk."""
    exact: bool


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
    """Returns where `selection` stands in `runs`, trying in turn, each in run order: an exact
    match, one of its words alone, an anchored one; else the best fuzzy match scoring at
    least FUZZY_MIN_SCORE (the earlier run on a tie); else None.

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
            return _match(run, haystack, at, at + len(needle), 100.0, exact=True)
    needle_words = Words.of(Normalized(needle, tuple(range(len(needle)))))
    if needle_words.text:
        words = [(run, haystack, Words.of(haystack)) for run, haystack in haystacks]
        for run, haystack, run_words in words:
            at = run_words.text.find(needle_words.text)
            if at >= 0:
                start, end = _spread(run_words, at, at + len(needle_words.text))
                return _match(run, haystack, start, end, 100.0, exact=True)
        for run, haystack, run_words in words:
            found = anchored(needle_words, run_words)
            if found is not None:
                start, end = _spread(run_words, found[0], found[1])
                return _match(run, haystack, start, end, found[2], exact=False)
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
            best = _match(run, haystack, start, end, round(aligned.score, 2), exact=False)
    return best


def anchored(needle: Words, haystack: Words) -> tuple[int, int, float] | None:
    """Returns (start, end, score) in `haystack.text` of the shortest stretch that opens with
    a run of the needle's first words and closes with a run of its last words, at most
    ANCHORED_MAX_INSERT letters longer than the needle, when ANCHORED_MIN_COVERAGE of the
    needle's words are in the haystack; else None. The score is that share, in percent.

    Either run may start a few words in (ANCHOR_SKIP), past a header or a label.
    """
    words = needle.words()
    if len(needle.text) < 2 * ANCHOR_CHARS:
        return None
    have = Counter(haystack.words())
    wanted = Counter(words)
    coverage = sum(min(count, have[word]) for word, count in wanted.items()) / len(words)
    if coverage < ANCHORED_MIN_COVERAGE:
        return None
    skip = max(1, int(len(words) * ANCHOR_SKIP))
    longest = len(needle.text) + ANCHORED_MAX_INSERT
    heads = [_anchor(words[first:]) for first in range(skip)]
    tails = [
        _anchor(words[: len(words) - dropped][::-1], backwards=True) for dropped in range(skip)
    ]
    for head in dict.fromkeys(heads):
        starts = _occurrences(haystack.text, head)
        if not starts:
            continue
        for tail in dict.fromkeys(tails):
            stretches = [
                (end - start, start, end)
                for start in starts
                for at in _occurrences(haystack.text, tail, start + len(head))
                if (end := at + len(tail)) - start <= longest
            ]
            if stretches:
                _, start, end = min(stretches)
                return start, end, round(100 * coverage, 2)
    return None


def _anchor(words: Sequence[str], *, backwards: bool = False) -> str:
    """Returns the first words of `words` run together, up to ANCHOR_CHARS letters; with
    `backwards`, `words` are the needle's in reverse, and so is what is returned."""
    taken: list[str] = []
    for word in words:
        taken.append(word)
        if sum(map(len, taken)) >= ANCHOR_CHARS:
            break
    return "".join(taken[::-1] if backwards else taken)


def _occurrences(text: str, part: str, start: int = 0) -> list[int]:
    found = []
    at = text.find(part, start)
    while at >= 0:
        found.append(at)
        at = text.find(part, at + 1)
    return found


def _spread(words: Words, start: int, end: int) -> tuple[int, int]:
    """Returns the stretch `start`..`end` of `words.text` as offsets into the normalised text."""
    return words.origin[start], words.origin[end - 1] + 1


def _trimmed(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start] == " ":
        start += 1
    while end > start and text[end - 1] == " ":
        end -= 1
    return start, end


def _match(
    run: PageRun, haystack: Normalized, start: int, end: int, score: float, *, exact: bool
) -> Match:
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
        exact=exact,
    )


def whole_sentences(match: Match, runs: Sequence[PageRun]) -> Match:
    """Returns the match widened to the sentences it starts and ends in, on its own pages, by
    at most MAX_WIDENING characters either way: a selection rarely starts and ends where its
    sentences do, and only whole sentences can be quoted as the reader's passage."""
    run = next(
        run
        for run in runs
        if run.document_id == match.document_id
        and run.first_page <= match.start_page
        and match.end_page < run.first_page + len(run.texts)
    )
    texts = run.texts[match.start_page - run.first_page : match.end_page - run.first_page + 1]
    text = PAGE_BREAK.join(texts)
    last_page_at = len(text) - len(texts[-1])
    start, end = match.start_offset, last_page_at + match.end_offset
    for sentence_start, sentence_end in split_sentences(text):
        if sentence_start <= start < sentence_end and start - sentence_start <= MAX_WIDENING:
            start = sentence_start
        if sentence_start < end <= sentence_end and sentence_end - end <= MAX_WIDENING:
            end = sentence_end
    return replace(match, start_offset=start, end_offset=end - last_page_at, text=text[start:end])


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
