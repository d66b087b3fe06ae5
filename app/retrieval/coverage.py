"""Term coverage: do the chunks found hold the query's informative words at all?

Vectors put every query somewhere near some chunk: "How tall is Mount Everest?" lies at
cosine 0.3 from a page of R's manual, and "What is a good training plan for a first marathon?"
from a paragraph on training tokens. What such chunks lack are the query's telling words. Each
of the query's terms is weighed by how rare it is among all chunks (inverse chunk frequency,
as the keyword side weighs it, app.retrieval.keywords: "everest", held by none, weighs most;
"plan" or "many" little), and the coverage is the weighed share of the query's terms that
the best few chunks hold. A single chunk's coverage tells the answer whether a passage is
about what was asked (app.answer.synthesis).
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Sequence
from dataclasses import replace

from app.core.sentences import CJK_LETTER
from app.core.wording import SAME_WORDS
from app.db.terms import TermStat
from app.retrieval.keywords import term_weight

COVERAGE_DEPTH = 5
"""How many of the best chunks the coverage is taken over, whatever top_k asks for."""


def term_coverage(
    terms: Sequence[TermStat], total_chunks: int, chunk_ids: Collection[uuid.UUID]
) -> float | None:
    """Returns the weighed share of `terms` that any of `chunk_ids` holds, in [0, 1]; None for
    a query with no terms (stopwords only), which coverage cannot judge.

    A term with CJK letters is left out: the text search's parser takes a whole run of them,
    written without spaces between words, as one term, which no other text repeats."""
    weights = [
        (term_weight(term.chunk_count, total_chunks), not term.held_by.isdisjoint(chunk_ids))
        for term in terms
        if not CJK_LETTER.search(term.term)
    ]
    total = sum(weight for weight, _ in weights)
    if total <= 0:
        return None
    return sum(weight for weight, held in weights if held) / total


def same_words_asked(query: str) -> list[str]:
    """Returns the groups of app.core.wording.SAME_WORDS of which `query` writes a word, each
    as its words."""
    written = set(re.findall(r"[\w-]+", query.lower()))
    return [" ".join(group) for group in SAME_WORDS.values() if written & set(group)]


def folded(terms: Sequence[TermStat], groups: Sequence[Sequence[TermStat]]) -> list[TermStat]:
    """Returns `terms`, each held also by the chunks that hold any term of its group (as the
    text search makes each group's words, `groups`): its weight stays its own."""
    result = []
    for term in terms:
        held = term.held_by
        for group in groups:
            if any(other.term == term.term for other in group):
                held = held.union(*(other.held_by for other in group))
        result.append(replace(term, held_by=held))
    return result
