"""From ranked candidates to the context an answer is built on: threshold, dedupe, budget, order."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from app.core.chunks import Candidate

NEAR_DUPLICATE_RATIO = 80.0
"""Two chunks whose texts overlap more than this (rapidfuzz ratio, 0-100) say the same thing."""

TOKENS_PER_WORD = 1.33
"""English words to model tokens, for the context budget (WordPiece averages about 1.3)."""


def similarity(distance: float) -> float:
    """Returns the cosine similarity behind a cosine distance."""
    return 1.0 - distance


def without_duplicates(
    ranked: Sequence[Candidate], *, limit: int | None = None, pages: int = 0
) -> list[Candidate]:
    """Returns `ranked` less the chunks with the same or nearly the same text as a
    better-ranked one, up to `limit` chunks or more, until they stand on `pages` pages.

    Exact copies (the same passage in two documents) are dropped first; then a chunk is
    dropped when its text overlaps a better-ranked kept one by more than NEAR_DUPLICATE_RATIO.
    Each text is normalised once, and the walk stops as soon as it can: the comparisons are
    quadratic in what is kept.
    """
    kept: list[Candidate] = []
    kept_texts: list[str] = []
    kept_pages: set[tuple[uuid.UUID, int]] = set()
    seen_texts: set[str] = set()
    for item in ranked:
        if limit is not None and len(kept) >= limit and len(kept_pages) >= pages:
            break
        text = " ".join(item.content.split())
        if text in seen_texts:
            continue
        if any(
            fuzz.ratio(text, other, score_cutoff=NEAR_DUPLICATE_RATIO) > NEAR_DUPLICATE_RATIO
            for other in kept_texts
        ):
            continue
        seen_texts.add(text)
        kept.append(item)
        kept_texts.append(text)
        kept_pages.add((item.document_id, item.page_start))
    return kept


def pages_first(ranked: Sequence[Candidate]) -> list[Candidate]:
    """Returns `ranked` with the best chunk of each page first, in rank order, then the pages'
    other chunks, in rank order.

    A page whose several chunks match filled the top 5 alone: the Federal Register's five
    chunks of page 3 on MCAS kept page 2, which says when MCAS activates, sixth. A page's
    first chunk can only rise: over bench/eval_pages.py's 1,308 question-and-setting pairs,
    156 ranks rose and none fell (hybrid hit@5 1,248 -> 1,269, vector 1,206 -> 1,222).
    """
    firsts: list[Candidate] = []
    others: list[Candidate] = []
    seen: set[tuple[uuid.UUID, int]] = set()
    for candidate in ranked:
        page = (candidate.document_id, candidate.page_start)
        (others if page in seen else firsts).append(candidate)
        seen.add(page)
    return firsts + others


def estimate_tokens(text: str) -> int:
    return round(len(text.split()) * TOKENS_PER_WORD)


@dataclass(frozen=True)
class Context:
    """The chunks an answer may use, in reading order, and what they cost of the budget."""

    chunks: tuple[Candidate, ...]
    tokens: int


def assemble_context(ranked: Sequence[Candidate], *, token_budget: int) -> Context:
    """Returns the best-ranked chunks that fit `token_budget`, whole, in reading order.

    Chunks are taken best first and never cut: one that does not fit is skipped and a smaller
    one after it may still fit. Reading order then groups each document's chunks and keeps
    them in document order, so neighbouring passages read as one text; documents come in
    the order of their best chunk.
    """
    chosen: list[Candidate] = []
    used = 0
    for item in ranked:
        cost = estimate_tokens(item.content)
        if used + cost <= token_budget:
            chosen.append(item)
            used += cost
    document_rank: dict[object, int] = {}
    for rank, item in enumerate(chosen):
        document_rank.setdefault(item.document_id, rank)
    chosen.sort(
        key=lambda item: (
            document_rank[item.document_id],
            item.page_start,
            item.page_span_start,
            str(item.chunk_id),
        )
    )
    return Context(tuple(chosen), used)
