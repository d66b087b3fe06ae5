"""Citation-locked extractive answers: sentences quoted from the context, each with its source.

No language model: the answer is made of sentences taken verbatim from the context chunks,
chosen by a deterministic score, each followed by a marker `[n]` that points at `sources[n-1]`
("tracemonkey.pdf, p. 3" or "tracemonkey.pdf, pp. 3-4"), the pages the quoted sentence lies on.

A claim in the answer is its sentence with newlines replaced by spaces, nothing else changed,
so it has the same length as the exact text it quotes: `Claim.start`/`Claim.end` point at that
text in the chunk's content, and evidence (app/answer/evidence.py) maps them onto the page.
Answers written by a model (app/answer/llm.py) are built by `cite` too, with the model's words
as `text` and the chunk sentence that supports them as the evidence.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from app.core.chunks import Candidate
from app.core.geometry import page_break_at
from app.core.records import PAGE_BREAK
from app.core.sentences import split_sentences

MAX_CLAIMS = 3
"""At most this many sentences make an answer: enough to answer, few enough to check."""

MIN_WORDS = 4
"""Sentences with fewer words (headings, captions, stray labels) are never quoted."""

RELATIVE_FLOOR = 0.5
"""A sentence must cover at least this share of the best sentence's query-term coverage."""

RANK_BONUS = 0.2
"""Added to a sentence's score as RANK_BONUS / (1 + rank of its chunk): a tie-breaker that
prefers the better-ranked chunk, too small to beat one more query term covered."""

REDUNDANT_JACCARD = 0.6
"""A sentence whose terms overlap a chosen one's this much (Jaccard) says the same thing."""

_TOKEN = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?\u2026:;][\"'\u201d\u2019)\]]*$")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n")
_SUFFIXES = ("ations", "ation", "ings", "ing", "ies", "ied", "es", "ed", "ly", "s")
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


@dataclass(frozen=True)
class Claim:
    """One claim, shown as `text`, cited as `[source]`, resting on `chunk.content[start:end]`."""

    chunk: Candidate
    start: int
    end: int
    text: str
    source: int
    """1-based index into the answer's sources."""
    first_page: int
    last_page: int
    confidence: float
    """The chunk's similarity times (1 + the sentence's query-term coverage) / 2."""


@dataclass(frozen=True)
class Answer:
    text: str
    sources: list[str]
    confidence: float
    claims: list[Claim]


EMPTY_ANSWER = Answer(text="", sources=[], confidence=0.0, claims=[])


def terms(text: str) -> set[str]:
    """Returns the lower-cased, crudely stemmed words of `text`, stopwords and digits left out."""
    return terms_of(words_of(text))


def words_of(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def terms_of(words: list[str]) -> set[str]:
    return {stem(word) for word in words if word not in STOPWORDS}


@lru_cache(maxsize=1 << 16)
def stem(word: str) -> str:
    """Returns `word` less one common English suffix, keeping at least four letters.

    Cached: a response's sentences repeat the same few hundred words, and stemming them was
    most of the answer's time."""
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def chunk_sentences(content: str, page_break: int | None) -> list[tuple[int, int]]:
    """Returns the spans of the sentences of `content`, paragraph by paragraph.

    Paragraph breaks end sentences (so a heading is never glued to the sentence after it),
    except the page break at `page_break`: a chunk crosses pages only inside a sentence.
    """
    spans: list[tuple[int, int]] = []
    cursor = 0
    for match in [*_PARAGRAPH_BREAK.finditer(content), None]:
        if match and page_break is not None and match.start() <= page_break < match.end():
            continue
        stop = match.start() if match else len(content)
        spans += [(cursor + a, cursor + b) for a, b in split_sentences(content[cursor:stop])]
        cursor = match.end() if match else len(content)
    return spans


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
class _Scored:
    score: float
    coverage: float
    rank: int
    order: int
    chunk: Candidate
    start: int
    end: int
    words: frozenset[str]
    complete: bool


def synthesize(query: str, ranked: Sequence[Candidate], context: Sequence[Candidate]) -> Answer:
    """Returns the extractive answer to `query` from `context`, each claim cited.

    `ranked` is the retrieved chunks best first; `context` the ones the answer may use, in
    reading order. Each sentence scores its coverage of the query's terms (the share of them
    it contains) plus RANK_BONUS / (1 + its chunk's rank). Up to MAX_CLAIMS sentences are
    chosen best first, skipping fragments (no closing punctuation) while whole sentences
    remain, and those too short, too weak (under RELATIVE_FLOOR of the best coverage) or
    redundant with one already chosen; ties go to the better-ranked chunk, then the smaller
    chunk id, then the earlier sentence. When no sentence shares a term with the
    query, the best chunk's first quotable sentence is the answer (retrieval found it by
    meaning). Claims are then put in reading order and sources numbered as first cited.

    `confidence` is the mean similarity (1 - distance, clipped to [0, 1]) of the cited chunks
    times (1 + the share of query terms the claims cover together) / 2: similar passages that
    leave the question's words uncovered score at most half.
    """
    query_terms = terms(query)
    rank_of = {chunk.chunk_id: rank for rank, chunk in enumerate(ranked)}
    candidates = _score(query_terms, context, rank_of)
    # Fragments (a sentence cut at a chunk's end, a caption) quote badly: only as a last resort.
    candidates = [c for c in candidates if c.complete] or candidates
    if not candidates:
        return EMPTY_ANSWER
    best_coverage = max(c.coverage for c in candidates)
    floor = RELATIVE_FLOOR * best_coverage
    ordered = sorted(candidates, key=lambda c: (-c.score, c.rank, str(c.chunk.chunk_id), c.start))
    chosen: list[_Scored] = []
    for candidate in ordered:
        if len(chosen) == MAX_CLAIMS:
            break
        if best_coverage > 0 and candidate.coverage < max(floor, 1e-9):
            continue
        if any(_redundant(candidate, other) for other in chosen):
            continue
        chosen.append(candidate)
        if best_coverage == 0:
            break
    chosen.sort(key=lambda c: c.order)
    quotes = [
        Quote(c.chunk, c.start, c.end, c.chunk.content[c.start : c.end].replace("\n", " "))
        for c in chosen
    ]
    return cite(quotes, query_terms)


def _score(
    query_terms: set[str], context: Sequence[Candidate], rank_of: dict[uuid.UUID, int]
) -> list[_Scored]:
    found: list[_Scored] = []
    for chunk in context:
        rank = rank_of.get(chunk.chunk_id, len(rank_of))
        for start, end in chunk_sentences(chunk.content, page_break_at(chunk)):
            sentence = chunk.content[start:end]
            sentence_words = words_of(sentence)
            if len(sentence_words) < MIN_WORDS:
                continue
            words = frozenset(terms_of(sentence_words))
            coverage = len(words & query_terms) / len(query_terms) if query_terms else 0.0
            score = coverage + RANK_BONUS / (1 + rank)
            complete = _SENTENCE_END.search(sentence) is not None
            found.append(
                _Scored(score, coverage, rank, len(found), chunk, start, end, words, complete)
            )
    return found


def _redundant(candidate: _Scored, other: _Scored) -> bool:
    # Overlapping chunks repeat sentences; near-copies add nothing to an answer either.
    union = candidate.words | other.words
    return not union or len(candidate.words & other.words) / len(union) >= REDUNDANT_JACCARD


@dataclass(frozen=True)
class Quote:
    """A sentence an answer cites: `chunk.content[start:end]`, shown as `text`."""

    chunk: Candidate
    start: int
    end: int
    text: str


def cite(quotes: Sequence[Quote], query_terms: set[str]) -> Answer:
    """Returns the answer made of `quotes` in their order, each followed by its source marker.

    Sources are numbered as first cited, one per document and page range, from the chunk's
    stored page provenance only.
    """
    if not quotes:
        return EMPTY_ANSWER
    sources: list[str] = []
    index: dict[tuple[uuid.UUID, int, int], int] = {}
    claims: list[Claim] = []
    covered: set[str] = set()
    for quote in quotes:
        chunk = quote.chunk
        first, last = sentence_pages(chunk, quote.start, quote.end)
        key = (chunk.document_id, first, last)
        if key not in index:
            sources.append(source_label(chunk.document_filename, first, last))
            index[key] = len(sources)
        found = terms(chunk.content[quote.start : quote.end]) & query_terms
        covered |= found
        coverage = len(found) / len(query_terms) if query_terms else 0.0
        claims.append(
            Claim(
                chunk=chunk,
                start=quote.start,
                end=quote.end,
                text=quote.text,
                source=index[key],
                first_page=first,
                last_page=last,
                confidence=round(_similarity(chunk) * (1 + coverage) / 2, 4),
            )
        )
    cited = {claim.chunk.chunk_id: claim.chunk for claim in claims}
    share = len(covered) / len(query_terms) if query_terms else 0.0
    mean_similarity = sum(_similarity(c) for c in cited.values()) / len(cited)
    return Answer(
        text=" ".join(f"{claim.text} [{claim.source}]" for claim in claims),
        sources=sources,
        confidence=round(mean_similarity * (1 + share) / 2, 4),
        claims=claims,
    )


def _similarity(chunk: Candidate) -> float:
    return min(max(1.0 - chunk.distance, 0.0), 1.0)
