"""Claims and their citations: what an answer is made of, however it was written.

A claim quotes one or more spans of a chunk's content (`Claim.parts`); it is shown as the
spans' text with whitespace collapsed and the quoted text's own bracketed numbers ("as shown
in [21]") left out, so every `[n]` in an answer is a marker that points at `sources[n-1]` and
`citations[n-1]`. The parts keep pointing at the exact text in the chunk, so evidence
(app/answer/evidence.py) maps them onto the page unchanged.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import lru_cache

from app.answer.units import Span
from app.core.chunks import Candidate
from app.core.geometry import page_break_at
from app.core.records import PAGE_BREAK
from app.core.sentences import CJK_LETTERS
from app.core.wording import SAME_WORDS

_TOKEN = re.compile(rf"[{CJK_LETTERS}]+|(?:(?![{CJK_LETTERS}])\w)+")
_CJK_RUN = re.compile(rf"[{CJK_LETTERS}]{{2,}}")
_WIDE = rf"[{CJK_LETTERS}\u3000-\u303f\uff00-\uffef]"
_CJK_SPACE = re.compile(rf"(?<={_WIDE}) (?={_WIDE})")
"""A space between two CJK letters or full-width marks: a line break inside CJK text."""
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
_IRREGULAR = {
    "paid": "pay",
    "won": "win",
    "sold": "sell",
    "bought": "buy",
    "spent": "spend",
    "made": "make",
    "grew": "grow",
    "grown": "grow",
    "rose": "rise",
    "risen": "rise",
    "fell": "fall",
    "fallen": "fall",
    "drove": "driv",
    "driven": "driv",
    "drive": "driv",
    "took": "take",
    "taken": "take",
    "held": "hold",
    "gave": "give",
    "given": "give",
    "began": "begin",
    "begun": "begin",
    "brought": "bring",
    "built": "build",
    "lost": "loss",
    "lose": "loss",
    "loses": "loss",
    "kept": "keep",
    "sent": "send",
    "wrote": "write",
    "written": "write",
}
"""Irregular verbs' past forms, which no suffix joins to their verb: "How much did Verizon pay
...?" is answered by "Verizon paid $45.5 billion"."""
_SAME = {word: term for term, words in SAME_WORDS.items() for word in words}
"""A filing's word for a question's is the question's term (app.core.wording)."""
STOPWORDS = frozenset(
    {
        "a", "about", "above", "after", "again", "against", "all", "am", "an", "and", "any", "are",
        "as", "at", "be", "because", "been", "before", "being", "below", "between", "both", "but",
        "by", "can", "could", "did", "do", "does", "doing", "down", "during", "each", "few", "for",
        "from", "further", "had", "has", "have", "having", "he", "her", "here", "hers", "herself",
        "him", "himself", "his", "how", "i", "if", "in", "into", "is", "it", "its", "itself",
        "just", "me", "more", "most", "my", "myself", "no", "nor", "not", "now", "of", "off", "on",
        "once",
        "only", "or", "other", "our", "ours", "out", "over", "own", "same", "she", "should", "so",
        "some", "such", "than", "that", "the", "their", "theirs", "them", "themselves", "then",
        "there", "these", "they", "this", "those", "through", "to", "too", "under", "until", "up",
        "very", "was", "we", "were", "what", "when", "where", "which", "while", "who", "whom",
        "why", "will", "with", "would", "you", "your", "yours", "yourself", "explain", "describe",
        "tell",
    }
)  # fmt: skip
"""Words that carry no topic: a question's "how does", "what is" never count as overlap."""

QUOTED_MARKER = re.compile(r"\s*(?<![\w\])])\[\d+(?:\s*[,\u2013-]\s*\d+)*\]")
"""A bracketed number standing in the quoted text, not glued to a word as `x[1]` is."""


def terms(text: str) -> set[str]:
    """Returns the lower-cased, crudely stemmed words of `text`, stopwords left out."""
    return terms_of(words_of(text))


def words_of(text: str) -> list[str]:
    """Returns the words of `text`, lower-cased; a run of CJK letters, written without spaces
    between its words, as its overlapping pairs of letters ("评估价值" -> 评估, 估价, 价值)."""
    words: list[str] = []
    for token in _TOKEN.findall(text.lower()):
        if _CJK_RUN.fullmatch(token):
            words += [token[k : k + 2] for k in range(len(token) - 1)]
        else:
            words.append(token)
    return words


def terms_of(words: list[str]) -> set[str]:
    return {stem(word) for word in words if word not in STOPWORDS}


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Returns `word` less one common English suffix, keeping at least four letters.

    Cached: a response's sentences repeat the same few hundred words, and stemming them was
    most of the answer's time."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _SAME:
        return _SAME[word]
    if word.endswith("ues") and len(word) > 4:
        return word[:-1]  # "revenues" is revenue, "values" value, not "revenu", "valu"
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def shown_text(content: str, parts: Sequence[Span]) -> str:
    """Returns how a claim over `parts` of `content` reads: the parts' text joined by a space,
    whitespace collapsed (and dropped between CJK characters, whose line breaks cut no word),
    the quoted text's own bracketed numbers left out."""
    text = " ".join(
        " ".join(QUOTED_MARKER.sub("", content[start:end]).split()) for start, end in parts
    )
    return _CJK_SPACE.sub("", text)


def sentence_pages(chunk: Candidate, start: int, end: int) -> tuple[int, int]:
    """Returns the first and last page that `chunk.content[start:end]` lies on.

    Exact for chunks on one or two pages, which is all chunking makes; for a longer chunk,
    text before its last page is attributed to its first page onwards (a wider citation).
    """
    brk = page_break_at(chunk)
    if brk is None:
        return chunk.page_start, chunk.page_start
    last_from = brk + len(PAGE_BREAK)
    first = chunk.page_end if start >= last_from else chunk.page_start
    if end > last_from:
        return first, chunk.page_end
    return first, chunk.page_start if chunk.page_end - chunk.page_start == 1 else chunk.page_end - 1


def source_label(filename: str, first: int, last: int) -> str:
    """Returns "name.pdf, p. 3" for one page, "name.pdf, pp. 3-4" for several."""
    return f"{filename}, p. {first}" if first == last else f"{filename}, pp. {first}-{last}"


@dataclass(frozen=True)
class Claim:
    """One claim, shown as `text`, cited as `[source]`, resting on the chunk's `parts`."""

    chunk: Candidate
    parts: tuple[Span, ...]
    text: str
    source: int
    """1-based index into the answer's sources and citations."""
    first_page: int
    last_page: int
    confidence: float
    header: tuple[int, int] | None = None
    """For a table row, its table's header lines in page `chunk.page_start`'s text."""

    @property
    def start(self) -> int:
        return self.parts[0][0]

    @property
    def end(self) -> int:
        return self.parts[-1][1]


@dataclass(frozen=True)
class Citation:
    """What marker `[n]` cites: a document's page range, and the chunk first quoted there."""

    n: int
    document_id: uuid.UUID
    document_name: str
    page_start: int
    page_end: int
    chunk_id: uuid.UUID


@dataclass(frozen=True)
class Answer:
    text: str
    sources: list[str]
    citations: list[Citation]
    confidence: float
    claims: list[Claim]


EMPTY_ANSWER = Answer(text="", sources=[], citations=[], confidence=0.0, claims=[])


@dataclass(frozen=True)
class Quote:
    """What a claim cites, `parts` of `chunk.content`, shown as `text`, and how sure it is."""

    chunk: Candidate
    parts: tuple[Span, ...]
    text: str
    confidence: float
    header: tuple[int, int] | None = None
    """For a table row, its table's header lines in page `chunk.page_start`'s text."""


def worked_out(statement: str, quotes: Sequence[Quote]) -> Answer:
    """Returns the answer that states `statement`, what was worked out from `quotes` (a ratio,
    which row is highest, a table's cell), with the markers of every source they cite, then
    the quotes themselves, cited: the statement is a claim of theirs."""
    answer = cite(quotes)
    markers = " ".join(f"[{n}]" for n in sorted({claim.source for claim in answer.claims}))
    return replace(answer, text=f"{statement} {markers} {answer.text}")


def cite(quotes: Sequence[Quote]) -> Answer:
    """Returns the answer made of `quotes` in their order, each followed by its source marker.

    Sources are numbered as first cited, one per document and page range, from the chunk's
    stored page provenance only. The answer is as sure as its surest claim.
    """
    if not quotes:
        return EMPTY_ANSWER
    citations: list[Citation] = []
    index: dict[tuple[uuid.UUID, int, int], int] = {}
    claims: list[Claim] = []
    for quote in quotes:
        chunk = quote.chunk
        first, last = sentence_pages(chunk, quote.parts[0][0], quote.parts[-1][1])
        key = (chunk.document_id, first, last)
        if key not in index:
            index[key] = len(citations) + 1
            citations.append(
                Citation(
                    index[key], chunk.document_id, chunk.document_filename, first, last,
                    chunk.chunk_id,
                )
            )  # fmt: skip
        claims.append(
            Claim(
                chunk=chunk,
                parts=quote.parts,
                text=quote.text,
                source=index[key],
                first_page=first,
                last_page=last,
                confidence=round(quote.confidence, 4),
                header=quote.header,
            )
        )
    return Answer(
        text=" ".join(f"{claim.text} [{claim.source}]" for claim in claims),
        sources=[source_label(c.document_name, c.page_start, c.page_end) for c in citations],
        citations=citations,
        confidence=max(claim.confidence for claim in claims),
        claims=claims,
    )


def similarity(chunk: Candidate) -> float:
    """Returns the chunk's similarity to the query, 1 - distance clipped to [0, 1]."""
    return min(max(1.0 - chunk.distance, 0.0), 1.0)
