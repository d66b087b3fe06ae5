"""The keyword side's query: which chunks it matches and how it weighs their words (BM25).

A question's words are not all in the passage that answers it ("What is the maximum context
length Qwen2 can handle?"), so a chunk holding any of them is a match, and matches are
ranked by BM25: each query term a chunk holds counts by how rare it is among all chunks
(term_weight), with diminishing returns for repeats and less in a longer chunk (its impact,
written with the chunk's postings: app.db.terms.IMPACT).
ts_rank_cd, which ranked them before, weighs "total" in a filing as much as "dividends", and
counts every repeat: a list of subsidiaries naming the company fifty times came first.

Terms held by more than COMMON_SHARE of the chunks do not make a chunk a match (a long
question's "company", "total", "use" would make most of the library one, and its ranking as
slow); they still count in the score of a chunk that matches by a rarer term.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from app.db.terms import TermStat

COMMON_SHARE = 0.05
"""Terms held by more of the chunks than this share match nothing on their own."""
FEWEST_MATCHING_TERMS = 2
"""When every term is common, the rarest ones still match, so that a question of common words
("What is the total revenue?") has a keyword side."""

FEWEST_CHUNKS_WEIGHED = 1000
"""In a smaller library the counts say little about which words are telling (in two chunks,
every word they hold is "common"): terms are weighed as in a library of this many chunks."""


def term_weight(chunk_count: int, total_chunks: int) -> float:
    """Returns the inverse chunk frequency of a term that `chunk_count` of `total_chunks` hold."""
    return math.log((max(total_chunks, FEWEST_CHUNKS_WEIGHED) + 1) / (chunk_count + 0.5))


@dataclass(frozen=True)
class KeywordQuery:
    terms: tuple[str, ...]
    """The query's terms that make a chunk a match, in order: those that are not common (a
    term no chunk is counted to hold among them: a library whose counts were never taken
    still has a keyword side)."""
    weights: tuple[float, ...]
    """Each matching term's weight (term_weight), at its position."""
    common_terms: tuple[str, ...]
    """The query's other terms, in order: they count in a match's score, and match nothing."""
    common_weights: tuple[float, ...]


def keyword_query(terms: Sequence[TermStat], total_chunks: int) -> KeywordQuery:
    """Returns the keyword side's query for a question's terms (as the text search
    configuration makes them) and their chunk counts."""
    ordered = sorted(terms, key=lambda t: t.term)
    common = COMMON_SHARE * max(total_chunks, FEWEST_CHUNKS_WEIGHED)
    matching = [term for term in ordered if term.chunk_count <= common] or sorted(
        sorted(ordered, key=lambda t: (t.chunk_count, t.term))[:FEWEST_MATCHING_TERMS],
        key=lambda t: t.term,
    )
    others = [term for term in ordered if term not in matching]
    return KeywordQuery(
        terms=tuple(term.term for term in matching),
        weights=tuple(term_weight(term.chunk_count, total_chunks) for term in matching),
        common_terms=tuple(term.term for term in others),
        common_weights=tuple(term_weight(term.chunk_count, total_chunks) for term in others),
    )
