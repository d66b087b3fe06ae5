"""Citation-locked extractive answers: claims quoted from the context, ranked by worth.

No language model: the answer is made of claim units (app/answer/units.py: sentences, lead-ins
with their items, table rows with their headers) taken from the context chunks, each followed by
a marker `[n]` for the pages it lies on (app/answer/claims.py). Every unit of the context is
scored by its similarity to the question (the embedding model that ranked the chunks, all
units and the question in one batch), the share of the question's terms it holds, and whether
it holds the kind of answer asked for (a count, an amount, a date, a version:
app/answer/kinds.py). The best units are the answer, best first.

When the best unit is not close enough to the question, there is no answer rather than a wrong
one (ANSWER_FLOOR). `confidence` estimates how likely the answer is to state what was asked: a
logistic function of each claim's similarity, coverage and kind, fitted on bench/data's
questions.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from app.answer.claims import (
    EMPTY_ANSWER,
    Answer,
    Quote,
    cite,
    shown_text,
    table_header_text,
    terms,
)
from app.answer.kinds import asked_kinds, holds_kind
from app.answer.units import Span, Unit, claim_units
from app.core.chunks import Candidate
from app.core.geometry import page_break_at
from app.embedding import Embedder, embed_texts

MAX_CLAIMS = 3
"""At most this many claims make an answer: enough to answer, few enough to check."""

SIMILARITY_WEIGHT = 1.0
COVERAGE_WEIGHT = 1.0
KIND_WEIGHT = 0.2
"""A unit's worth: similarity to the question, plus these shares of its coverage of the
question's terms and of holding (or lacking, subtracted) the kind of answer asked for. On
bench/data's docs and 10-Q questions the figures are flat around these weights (similarity
0 to 1, coverage 0.5 to 1, kind 0 to 0.2 all within a question of each other)."""

RANK_BONUS = 0.2
"""Added as RANK_BONUS / (1 + rank of the unit's chunk): retrieval's order counts a little."""

CLAIM_MARGIN = 0.5
"""A further claim is kept when its worth is within this of the best claim's: the second and
third best often state the fact where the best misses it."""

REDUNDANT_JACCARD = 0.6
"""A unit whose terms overlap a chosen one's this much (Jaccard) says the same thing."""

CONFIDENCE_BIAS = -1.12
CONFIDENCE_SIMILARITY = 0.25
CONFIDENCE_COVERAGE = 0.61
CONFIDENCE_KIND = -0.27
CONFIDENCE_LEAD = 2.63
"""A claim's confidence = logistic(bias + these times its similarity, coverage, kind (+1
holds the asked kind, -1 lacks it, 0 none asked) and lead (how much more it is worth than the
next unit)): a logistic regression of "the answer states the gold fact" on bench/data's
answered questions. How far ahead of the rest a claim stands says most; the kind's negative
weight is the regression's, not a preference (questions that ask for a figure are harder)."""

MAX_LEAD = 0.5
"""A lead counts up to this: a context with a single unit says little about its worth."""

ANSWER_FLOOR = 0.64
FLOOR_COVERAGE = 0.25
"""The best unit answers the question when its similarity plus FLOOR_COVERAGE times its
coverage reaches ANSWER_FLOOR; otherwise the answer is empty (status no_answer). Fitted on
bench/data over retrieval with context headers: 4 of the 47 questions the documents do not
answer pass it, and it costs 5 in 100 answers that state the gold fact (flat around it:
0.59 with 0.15, 0.61 with 0.2 do the same)."""


@dataclass(frozen=True)
class ScoredUnit:
    worth: float
    similarity: float
    coverage: float
    kind: int
    """+1 holds the kind of answer asked for, -1 lacks it, 0 when none is asked."""
    rank: int
    lead: float
    """How much more this unit is worth than the next best one."""
    chunk: Candidate
    parts: tuple[Span, ...]
    text: str
    words: frozenset[str]
    """The terms of its own text: a table's header, shared by its rows, is left out."""
    headed: bool = False
    """A table row quoted with its table's header (Unit.headed)."""

    @property
    def answers(self) -> bool:
        return self.similarity + FLOOR_COVERAGE * self.coverage >= ANSWER_FLOOR

    @property
    def confidence(self) -> float:
        logit = (
            CONFIDENCE_BIAS
            + CONFIDENCE_SIMILARITY * self.similarity
            + CONFIDENCE_COVERAGE * self.coverage
            + CONFIDENCE_KIND * self.kind
            + CONFIDENCE_LEAD * self.lead
        )
        return 1 / (1 + math.exp(-logit))


def synthesize(
    query: str,
    ranked: Sequence[Candidate],
    context: Sequence[Candidate],
    embedder: Embedder,
    *,
    selected: bool = False,
) -> Answer:
    """Returns the extractive answer to `query` from `context`, each claim cited, best first.

    `ranked` is the retrieved chunks best first; `context` the ones the answer may use. Up to
    MAX_CLAIMS units are chosen by worth, each within CLAIM_MARGIN of the best and none
    redundant with one already chosen; ties go to the better-ranked chunk, then the smaller
    chunk id, then the earlier unit. No unit, or a best one under ANSWER_FLOOR, is no answer.

    `selected`: the reader selected the passage that opens `ranked` and asks about it ("what
    does this mean?"), so its units come first and the floor does not apply: the question's
    subject is the passage, whatever its words.
    """
    scored = score_units(query, ranked, context, embedder)
    if not scored:
        return EMPTY_ANSWER
    if selected:
        passage = ranked[0].chunk_id
        scored.sort(key=lambda unit: (unit.chunk.chunk_id != passage, *_order(unit)))
    elif not scored[0].answers:
        return EMPTY_ANSWER
    best = scored[0]
    chosen = [best]
    for unit in scored[1:]:
        if len(chosen) == MAX_CLAIMS or unit.worth < best.worth - CLAIM_MARGIN:
            break
        if not any(_redundant(unit, other) for other in chosen):
            chosen.append(unit)
    return cite([Quote(u.chunk, u.parts, u.text, u.confidence, _header(u)) for u in chosen])


def score_units(
    query: str, ranked: Sequence[Candidate], context: Sequence[Candidate], embedder: Embedder
) -> list[ScoredUnit]:
    """Returns every claim unit of `context` scored, best first."""
    query_terms = terms(query)
    kinds = asked_kinds(query)
    rank_of = {chunk.chunk_id: rank for rank, chunk in enumerate(ranked)}
    found: list[tuple[Candidate, Unit, str]] = []
    for chunk in context:
        header = table_header_text(chunk)
        for unit in claim_units(chunk.content, page_break_at(chunk), _header_end(chunk)):
            text = shown_text(chunk.content, unit.parts)
            found.append((chunk, unit, f"{header} {text}" if unit.headed and header else text))
    if not found:
        return []
    vectors = embed_texts(embedder, [query, *(text for _, _, text in found)])
    similarities = np.clip(vectors[1:] @ vectors[0], 0.0, 1.0).tolist()
    scored = []
    for (chunk, unit, text), similarity in zip(found, similarities, strict=True):
        quoted = terms(text)
        coverage = len(quoted & query_terms) / len(query_terms) if query_terms else 0.0
        words = frozenset(terms(shown_text(chunk.content, unit.parts)) if unit.headed else quoted)
        kind = 0 if not kinds else (1 if holds_kind(text, kinds, query) else -1)
        rank = rank_of.get(chunk.chunk_id, len(rank_of))
        worth = (
            SIMILARITY_WEIGHT * similarity
            + COVERAGE_WEIGHT * coverage
            + KIND_WEIGHT * kind
            + RANK_BONUS / (1 + rank)
        )
        scored.append(
            ScoredUnit(
                worth, similarity, coverage, kind, rank, 0.0, chunk, unit.parts, text, words,
                unit.headed,
            )
        )  # fmt: skip
    scored.sort(key=_order)
    return [
        replace(unit, lead=min(unit.worth - after.worth, MAX_LEAD))
        for unit, after in zip(scored, [*scored[1:], replace(scored[-1], worth=0.0)], strict=True)
    ]


def _header(unit: ScoredUnit) -> tuple[int, int] | None:
    return unit.chunk.table_header if unit.headed else None


def _header_end(chunk: Candidate) -> int | None:
    """Returns where a table chunk's table header ends in its content (at or before 0 when it
    stands before the chunk), None for a chunk of no table."""
    if chunk.table_header is None:
        return None
    return chunk.table_header[1] - chunk.page_span_start


def _order(unit: ScoredUnit) -> tuple[float, int, uuid.UUID, int]:
    return (-unit.worth, unit.rank, unit.chunk.chunk_id, unit.parts[0][0])


def _redundant(candidate: ScoredUnit, other: ScoredUnit) -> bool:
    # Overlapping chunks repeat sentences; near-copies add nothing to an answer either.
    if candidate.chunk.chunk_id == other.chunk.chunk_id and any(
        a < d and c < b for a, b in candidate.parts for c, d in other.parts
    ):
        return True
    union = candidate.words | other.words
    return not union or len(candidate.words & other.words) / len(union) >= REDUNDANT_JACCARD
