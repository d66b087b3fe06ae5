"""retrieve_context: a query in, the ranked chunks and the assembled context out."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from typing import Literal

from sqlalchemy import exists, select
from sqlalchemy.orm import Session

from app.core.chunks import Candidate
from app.db.models import Chunk
from app.embedding.embedder import Embedder, embed_query
from app.retrieval.assemble import (
    Context,
    above_threshold,
    assemble_context,
    estimate_tokens,
    without_duplicates,
)
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.rerank import AnnotationSignal, rerank
from app.retrieval.search import RRF_K, SearchMode, search_chunks
from app.retrieval.selection import Match, Selection
from app.retrieval.selection_scope import (
    Fallback,
    resolve_selection,
    selection_passage,
    within_pages,
)

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
    context: Context
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
        return retrieve_in_selection(
            query, selected_text, params, session=session, embedder=embedder
        )
    ranking = rank_chunks(query, params, session=session, embedder=embedder)
    started = time.perf_counter()
    context = assemble_context(ranking.chunks, token_budget=params.token_budget)
    timings = dict(ranking.timings_ms)
    timings["assemble"] = round(timings["assemble"] + elapsed_ms(started), 3)
    return ContextBundle(ranking.status, ranking.chunks, context, params.filters, timings)


@dataclass(frozen=True)
class Ranking:
    status: RetrievalStatus
    chunks: list[Candidate]
    """The top_k chunks, best first."""
    timings_ms: dict[str, float]


def rank_chunks(
    query: str, params: RetrievalParams, *, session: Session, embedder: Embedder
) -> Ranking:
    """Returns the top_k chunks for `query` under `params`, best first, and the status."""
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
    # search_chunks returns its rows in ranking_key's order already (its ORDER BY).
    kept = without_duplicates(
        above_threshold(candidates, params.min_similarity), limit=params.top_k
    )
    hl_counts = {chunk.chunk_id: chunk.hl_count for chunk in kept}
    if params.annotations is not None and any(hl_counts.values()):
        # After top_k is taken: the marks change the order of the chosen chunks, never which;
        # with no marks on them the order stands.
        kept = rerank(
            kept, hl_counts, params.annotations, score=lambda c: final_score(c, params.mode)
        )
    timings["assemble"] = elapsed_ms(started)

    if kept:
        status: RetrievalStatus = "ok"
    elif candidates or has_chunks(session, params.filters):
        status = "no_matches"
    else:
        status = "empty_database"
    return Ranking(status, kept, timings)


def retrieve_in_selection(
    query: str,
    selection: Selection,
    params: RetrievalParams,
    *,
    session: Session,
    embedder: Embedder,
) -> ContextBundle:
    """Returns the best chunks for `query` on the selection's pages, the context opening
    with the selection; or standard retrieval, status `scope_fallback`, when it is not found.

    Only the located document and pages (and `selection.chapter`) are searched, by an
    exact scan: `params.filters` serve only to find a selection that names no document.
    """
    started = time.perf_counter()
    resolved = resolve_selection(session, selection, params.filters)
    located_ms = elapsed_ms(started)
    if isinstance(resolved, Fallback):
        bundle = retrieve_context(query, params, session=session, embedder=embedder)
        timings = {"locate": located_ms, **bundle.timings_ms}
        return replace(
            bundle, status="scope_fallback", scope_note=resolved.reason, timings_ms=timings
        )
    match = resolved.match
    filters = SearchFilters(
        document_ids=(match.document_id,),
        chapter=selection.chapter,
        page_start=match.start_page,
        page_end=match.end_page,
        exclude_flags=params.filters.exclude_flags,
    )
    ranking = rank_chunks(
        query, replace(params, filters=filters, exact=True), session=session, embedder=embedder
    )
    started = time.perf_counter()
    chunks = [
        clipped
        for chunk in ranking.chunks
        if (clipped := within_pages(chunk, match.start_page, match.end_page)) is not None
    ]
    passage = selection_passage(resolved, chunks, params.min_similarity)
    cost = estimate_tokens(passage.content)
    around = assemble_context(chunks, token_budget=max(params.token_budget - cost, 0))
    context = Context((passage, *around.chunks), around.tokens + cost)
    timings = {"locate": located_ms, **ranking.timings_ms, "scope": elapsed_ms(started)}
    return ContextBundle(
        "ok", chunks, context, filters, timings, selection=match, scope_note=resolved.note
    )


def has_chunks(session: Session, filters: SearchFilters) -> bool:
    """Returns whether anything at all is stored under `filters`, flags aside."""
    unflagged = replace(filters, exclude_flags=())
    return bool(
        session.scalar(select(exists().where(*filter_clauses(unflagged)).select_from(Chunk)))
    )


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)
