"""retrieve_context: a query in, the ranked chunks and the assembled context out."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Literal

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from app.db.models import Chunk
from app.retrieval.assemble import Context, above_threshold, assemble_context, without_duplicates
from app.retrieval.embedder import Embedder, embed_query
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.rerank import AnnotationSignal, rerank
from app.retrieval.search import RRF_K, Candidate, SearchMode, search_chunks
from app.retrieval.selection import Match, Selection

RetrievalStatus = Literal["ok", "no_matches", "empty_database", "scope_fallback"]

BEST_FUSED_SCORE = 2 / (RRF_K + 1)
"""The fused score of a chunk ranked first by both the vector and the keyword search."""


@dataclass(frozen=True)
class RetrievalParams:
    top_k: int = 5
    overfetch: int = 4
    mode: SearchMode = "hybrid"
    filters: SearchFilters = field(default_factory=SearchFilters)
    min_similarity: float = 0.3
    token_budget: int = 4000
    exact: bool = False
    """Always scan the filtered chunks exactly, never through the index (selection mode)."""
    annotations: AnnotationSignal | None = None
    """Rerank the chosen chunks by the reader's marks; None leaves them in score order."""


@dataclass(frozen=True)
class ContextBundle:
    status: RetrievalStatus
    chunks: list[Candidate]
    """The top_k chunks, best first."""
    context: Context[Candidate]
    """The chunks the answer may use, within the token budget, in reading order."""
    filters: SearchFilters
    timings_ms: dict[str, float]
    selection: Match | None = None
    """Where the selection stands, in selection mode; its text opens `context`."""
    scope_note: str | None = None
    """Why selection mode fell back to standard retrieval, or how it read the selection."""


def final_score(candidate: Candidate, mode: SearchMode) -> float:
    """Returns the score a candidate is ranked by, lower is better, in both modes.

    "vector": the cosine distance. "hybrid": one less the fused reciprocal-rank score scaled
    to [0, 1] by its best possible value (first in both rankings), so 0 is the best match.
    """
    if mode == "vector":
        return candidate.distance
    return 1.0 - candidate.fused_score / BEST_FUSED_SCORE


def ranking_key(candidate: Candidate, mode: SearchMode) -> tuple[float, float, str]:
    return (final_score(candidate, mode), candidate.distance, str(candidate.chunk_id))


def retrieve_context(
    query: str,
    params: RetrievalParams,
    *,
    session: Session,
    embedder: Embedder,
    selected_text: Selection | None = None,
) -> ContextBundle:
    """Returns the best chunks for `query` under `params` and the context assembled from them.

    With `selected_text`, only the pages where the selection stands are searched, and the
    context opens with the selection itself (app.retrieval.selection_scope).

    Candidates are overfetched (top_k x overfetch), those under the similarity threshold
    dropped, exact and near duplicates removed keeping the better one, and the rest ordered
    by score with the chunk id as the last tie-breaker. With `params.annotations`, those
    chunks are then reordered by the reader's marks on them (app.retrieval.rerank).
    """
    if selected_text is not None:
        # Imported here: selection_scope builds on this module.
        from app.retrieval.selection_scope import retrieve_in_selection

        return retrieve_in_selection(
            query, selected_text, params, session=session, embedder=embedder
        )
    timings: dict[str, float] = {}
    started = time.perf_counter()
    query_vector = embed_query(embedder, query)
    timings["embed"] = elapsed_ms(started)

    started = time.perf_counter()
    candidates = search_chunks(
        session,
        query_vector=query_vector,
        query_text=query,
        filters=params.filters,
        k=params.top_k,
        overfetch=params.overfetch,
        mode=params.mode,
        exact=params.exact,
        count_marks=params.annotations is not None,
    )
    timings["search"] = elapsed_ms(started)

    started = time.perf_counter()
    ranked = sorted(candidates, key=lambda c: ranking_key(c, params.mode))
    kept = without_duplicates(above_threshold(ranked, params.min_similarity), limit=params.top_k)
    if params.annotations is not None:
        # After top_k is taken: the marks change the order of the chosen chunks, never which.
        hl_counts = {chunk.chunk_id: chunk.hl_count for chunk in kept}
        kept = rerank(
            kept, hl_counts, params.annotations, score=lambda c: final_score(c, params.mode)
        )
    context = assemble_context(kept, token_budget=params.token_budget)
    timings["assemble"] = elapsed_ms(started)

    if kept:
        status: RetrievalStatus = "ok"
    elif candidates or has_chunks(session, params.filters):
        status = "no_matches"
    else:
        status = "empty_database"
    return ContextBundle(status, kept, context, params.filters, timings)


def has_chunks(session: Session, filters: SearchFilters) -> bool:
    """Returns whether anything at all is stored under `filters`, flags aside."""
    unflagged = replace(filters, exclude_flags=())
    return bool(
        session.scalar(select(exists().where(*filter_clauses(unflagged)).select_from(Chunk)))
    )


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
