"""A QueryRequest in, a QueryResponse out: retrieval, then the answer built on its context."""

from __future__ import annotations

import logging
import re
import time
import uuid
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import cached_property, partial

from sqlalchemy.orm import Session

from app.answer import (
    Answer,
    ChatModel,
    Evidence,
    Following,
    collect_evidence,
    synthesize,
    synthesize_with_model,
)
from app.answer.cells import cell_answer
from app.answer.extremes import (
    Comparison,
    ExtremeQuestion,
    asked_extremes,
    block_figure,
    column_extreme,
    compared_answer,
    group_figure,
    part_rows,
    parts_extreme,
    section_figure,
    table_extreme,
)
from app.answer.llm import ChatFailed
from app.answer.metrics import (
    LINE_ITEMS,
    asked_metric,
    computed_answer,
    names_a_part,
    owned_by,
    owners_named,
)
from app.contract.schemas import (
    AnswerStatus,
    BBox,
    ChunkHit,
    Citation,
    HighlightedSource,
    QueryFilters,
    QueryRequest,
    QueryResponse,
    ResponseEvidence,
    SelectedText,
    SelectionScope,
    SynthesisUsed,
)
from app.core.asked import Asked, asked_kinds
from app.core.chunks import Candidate
from app.core.config import Settings, Synthesis
from app.core.links import response_scope, token_query
from app.core.questions import question_core
from app.core.records import PageText
from app.db.documents import stored_pages
from app.db.responses import store_response
from app.embedding.backends import FloatArray
from app.embedding.embedder import Embedder
from app.retrieval.assemble import similarity
from app.retrieval.filters import SearchFilters
from app.retrieval.pipeline import (
    RetrievalParams,
    elapsed_ms,
    final_score,
    retrieve_context,
)
from app.retrieval.rerank import AnnotationSignal
from app.retrieval.search import distances_to
from app.retrieval.selection import Match, Selection
from app.retrieval.selection_scope import SELECTION_TOP_K
from app.retrieval.statements import (
    chunks_holding,
    chunks_on_page,
    following_chunk,
    page_end,
    table_chunks,
    table_chunks_on_pages,
)

logger = logging.getLogger(__name__)

VIEWER_PATH = "/api/v1/viewer"

COMPUTED_DOCUMENTS = 2
"""A computed answer reads the statements of at most this many documents: those the question
names first (metric_answer), then those of the best ranked chunks."""


def search_filters(filters: QueryFilters, settings: Settings) -> SearchFilters:
    return SearchFilters(
        collection=filters.collection,
        document_ids=tuple(filters.document_ids),
        chapter=filters.chapter,
        section=filters.section,
        language=filters.language,
        version=filters.version,
        page_start=filters.page_start,
        page_end=filters.page_end,
        is_my_copy=filters.is_my_copy,
        exclude_flags=settings.excluded_flags,
    )


def retrieval_params(request: QueryRequest, settings: Settings) -> RetrievalParams:
    top_k = request.top_k
    if request.selected_text is not None and "top_k" not in request.model_fields_set:
        top_k = SELECTION_TOP_K
    return RetrievalParams(
        top_k=top_k,
        overfetch=settings.search_overfetch,
        mode=request.search or settings.search_mode,
        filters=search_filters(request.filters, settings),
        min_similarity=settings.min_similarity,
        min_similarity_named=settings.min_similarity_named,
        min_similarity_fill=settings.min_similarity_fill,
        min_term_coverage=settings.min_term_coverage,
        token_budget=settings.context_token_budget,
        annotations=annotation_signal(request.use_annotations, settings),
    )


def selection_of(selected: SelectedText | None) -> Selection | None:
    return None if selected is None else Selection(**selected.model_dump())


def selection_scope(match: Match | None) -> SelectionScope | None:
    if match is None:
        return None
    return SelectionScope(
        document_id=match.document_id,
        start_page=match.start_page,
        end_page=match.end_page,
        match="exact" if match.exact else "fuzzy",
        score=match.score,
    )


def annotation_signal(use_annotations: bool | None, settings: Settings) -> AnnotationSignal | None:
    """Returns the rerank signal when the request (or, when it does not say, the settings)
    asks for the reader's annotations."""
    wanted = settings.use_annotations if use_annotations is None else use_annotations
    if not wanted:
        return None
    return AnnotationSignal(alpha=settings.annotation_alpha, cap=settings.annotation_cap)


def highlighted_source(evidence: Evidence) -> HighlightedSource:
    """Returns the contract's shape of one piece of evidence."""
    bbox = None
    if evidence.bbox is not None:
        x0, y0, x1, y1 = evidence.bbox
        bbox = BBox(x=x0, y=y0, width=round(x1 - x0, 2), height=round(y1 - y0, 2))
    # Evidence carries the contract's fields under the contract's names; only bbox changes shape.
    return HighlightedSource.model_validate({**vars(evidence), "bbox": bbox})


def chunk_hit(chunk: Candidate, params: RetrievalParams) -> ChunkHit:
    """Returns the contract's shape of a retrieved chunk, with the reader's marks on it when
    they reranked the chunks (none otherwise: then final_score is the mode's score)."""
    boost = params.annotations.boost(chunk.hl_count) if params.annotations else 0.0
    return ChunkHit(
        chunk_id=chunk.chunk_id,
        document_id=chunk.document_id,
        document_name=chunk.document_filename,
        content=chunk.content,
        context_header=chunk.context_header,
        page_start=chunk.page_start,
        page_end=chunk.page_end,
        chapter=chunk.chapter,
        section=chunk.section,
        distance=round(chunk.distance, 6),
        relevance_score=round(similarity(chunk.distance), 6),
        hl_count=chunk.hl_count,
        boost=round(boost, 6),
        final_score=round(final_score(chunk, params.mode) - boost, 6),
    )


def write_answer(
    query: str,
    ranked: Sequence[Candidate],
    context: Sequence[Candidate],
    *,
    settings: Settings,
    embedder: Embedder,
    query_vector: FloatArray,
    selected: bool = False,
    following: Following | None = None,
) -> tuple[Answer, SynthesisUsed]:
    """Returns the answer as SYNTHESIS asks, and how it was written.

    A model that fails (unreachable, too slow, a reply with no supported citation) costs the
    answer its wording, not the request: the extractive answer is returned instead. A model
    reads the whole question, its instructions too ("round to two decimals"); the extractive
    answer weighs what it asks (its core, as retrieval searched it), and reads on in the chunk
    `following` gives where a list it quotes runs past its chunk.
    """
    asked = question_core(query)
    extractive = partial(
        synthesize,
        asked,
        ranked,
        context,
        embedder,
        query_vector=query_vector,
        selected=selected,
        following=following,
    )
    if settings.synthesis == Synthesis.llm:
        chat = ChatModel(
            base_url=settings.llm_base_url,
            model=settings.llm_model,
            api_key=settings.llm_api_key.get_secret_value(),
            timeout=settings.llm_timeout,
        )
        try:
            return synthesize_with_model(query, context, chat, embedder), "llm"
        except ChatFailed as failure:
            # The reason only: the query text is never logged.
            logger.warning("LLM synthesis failed, answering extractively: %s", failure)
            return extractive(), "extractive_fallback"
    return extractive(), "extractive"


def metric_answer(query: str, ranked: Sequence[Candidate], session: Session) -> Answer | None:
    """Returns the answer that works out the metric `query` asks for (app.answer.metrics) from
    the statements of the documents the ranked chunks come from; None when it asks for none,
    or their rows do not hold it."""
    asked = asked_metric(query)
    if asked is None:
        return None
    patterns = [LINE_ITEMS[name].search for name in asked.metric.items]
    documents = {c.document_id: f"{c.document_title} {c.document_filename}" for c in ranked}
    for document_id in statement_documents(ranked, asked.years[-1])[:COMPUTED_DOCUMENTS]:
        if not owned_by(query, documents[document_id]):
            continue
        answer = computed_answer(asked, chunks_holding(session, document_id, patterns))
        if answer is not None:
            return answer
    return None


def statement_documents(ranked: Sequence[Candidate], latest_year: int) -> list[uuid.UUID]:
    """Returns the documents of the ranked chunks in the order a computed answer reads their
    statements: those the question names (its company, its year) before those that only rank
    well, as another company's statements would answer with its figures; of each, those whose
    title or file name writes the last year asked first (the FY2020 report holds the columns of
    FY2018 to FY2020, the FY2018 report not FY2020's); then in ranking order."""
    named = {chunk.document_id for chunk in ranked if chunk.name_boost > 0}
    year = str(latest_year)
    dated = {
        chunk.document_id
        for chunk in ranked
        if year in f"{chunk.document_title} {chunk.document_filename}"
    }
    return sorted(
        dict.fromkeys(chunk.document_id for chunk in ranked),
        key=lambda document_id: (document_id not in named, document_id not in dated),
    )


def comparison_answer(
    query: str, ranked: Sequence[Candidate], session: Session, tables: RankedTables
) -> Answer | None:
    """Returns the answer naming, for each comparison `query` asks for, which row of a ranked
    chunk's table, read whole (or which column group of a table on its page), holds the
    highest or lowest figure asked (app.answer.extremes), the best ranked first; None when it
    asks for no comparison, or no ranked table holds one it asks."""
    found = [
        comparison
        for asked in asked_extremes(query)
        if (comparison := ranked_comparison(asked, ranked, session, tables)) is not None
    ]
    return compared_answer(found) if found else None


def ranked_comparison(
    asked: ExtremeQuestion, ranked: Sequence[Candidate], session: Session, tables: RankedTables
) -> Comparison | None:
    """Returns the comparison `asked` of the best ranked chunk's table or page that holds one;
    of none, that of another table on a ranked chunk's page (NIKE's "The breakdown of EBIT is
    as follows:" beside the notes on its revenue table that ranked)."""
    return (
        _own_tables_comparison(asked, ranked, session)
        or _other_tables_comparison(asked, tables)
        or _parts_comparison(asked, tables)
    )


def _parts_comparison(asked: ExtremeQuestion, tables: RankedTables) -> Comparison | None:
    """Returns the comparison of the parts whose own blocks or tables hold the measure's row
    (app.answer.extremes.part_rows), of the best ranked table that holds one: its document's
    every table holding a row of the same label is read, as each segment's table stands in its
    own section and few of them rank."""
    for table, before in tables.after_their_page_before():
        found = part_rows(asked, table, before)
        if not found:
            continue
        document_id = table[0][0].document_id
        labels = [r"\s+".join(map(re.escape, each.label.split())) for each in found]
        read = {chunk.chunk_id for chunk, _ in table}
        for other, other_before in tables.document_tables(document_id, labels, read):
            found += part_rows(asked, other, other_before)
        comparison = parts_extreme(asked, found)
        if comparison is not None:
            return comparison
    return None


def _other_tables_comparison(asked: ExtremeQuestion, tables: RankedTables) -> Comparison | None:
    if asked.year is None:
        return None
    # A ranked chunk's own table was read already (_own_tables_comparison).
    own = {chunk.chunk_id for chunk in tables.ranked}
    for table, before in tables.after_their_page_before():
        if any(chunk.chunk_id in own for chunk, _ in table):
            continue
        comparison = table_extreme(asked, table, before)
        if comparison is not None:
            return comparison
    return None


def _own_tables_comparison(
    asked: ExtremeQuestion, ranked: Sequence[Candidate], session: Session
) -> Comparison | None:
    """Returns the comparison `asked` of the best ranked chunk's table or page that holds one."""
    tables: set[tuple[uuid.UUID, int, tuple[int, int] | uuid.UUID]] = set()
    read: set[tuple[uuid.UUID, int]] = set()
    for chunk in ranked:
        page = (chunk.document_id, chunk.page_start)
        # The chunks of one table are read together, once.
        table = (*page, chunk.table_header or chunk.chunk_id)
        comparison = None
        # A comparison of no year reads no year's column: only a column the measure heads.
        if table not in tables and asked.year is not None:
            tables.add(table)
            before = page_end(session, chunk.document_id, chunk.page_start - 1)
            comparison = table_extreme(asked, table_chunks(session, chunk), before)
        if comparison is None and page not in read:
            read.add(page)
            read_page = page_and_chunks(session, *page)
            comparison = column_extreme(asked, *read_page) if read_page else None
        if comparison is not None:
            return comparison
    return None


def cell_lookup(query: str, tables: RankedTables) -> Answer | None:
    """Returns the answer quoting the cell that `query` names by its column and its row
    (app.answer.cells) in a table on a ranked chunk's page, read whole: the ranked chunk's own
    table first (a caption chunk ranks for the table below it), the best ranked page first;
    None when no such table has one. The tables of every ranked page are read at once."""
    for table in tables.tables:
        answer = cell_answer(query, [chunk for chunk, _ in table])
        if answer is not None:
            return answer
    return None


@dataclass
class RankedTables:
    """The tables on the ranked chunks' pages, read at their first use and only once for every
    kind of worked-out answer that reads them."""

    ranked: Sequence[Candidate]
    session: Session

    @cached_property
    def tables(self) -> list[list[tuple[Candidate, str]]]:
        """The tables, each as its chunks in order with the text above each (as table_chunks
        gives them): a ranked chunk's own table before the others on its page, the best ranked
        page first. The tables of every ranked page are read in one statement."""
        ranked = self.ranked
        pages = list(dict.fromkeys((chunk.document_id, chunk.page_start) for chunk in ranked))
        tables: dict[tuple[uuid.UUID, int, tuple[int, int]], list[tuple[Candidate, str]]] = {}
        for each, above in table_chunks_on_pages(self.session, pages):
            if each.table_header is not None:
                key = (each.document_id, each.page_start, each.table_header)
                tables.setdefault(key, []).append((each, above))
        ordered = [
            key
            for chunk in ranked
            for key in [
                (chunk.document_id, chunk.page_start, chunk.table_header),
                *(k for k in tables if k[:2] == (chunk.document_id, chunk.page_start)),
            ]
            if key in tables
        ]
        return [tables[key] for key in dict.fromkeys(ordered)]

    def after_their_page_before(self) -> Iterator[tuple[list[tuple[Candidate, str]], str]]:
        """Yields the tables, each with the end of the page before its own, which titles a
        table that opens its page untitled."""
        for table in self.tables:
            yield table, self._page_before(table)

    def document_tables(
        self, document_id: uuid.UUID, patterns: Sequence[str], read: Collection[uuid.UUID]
    ) -> Iterator[tuple[list[tuple[Candidate, str]], str]]:
        """Yields the document's tables that hold a line matching one of `patterns`
        (PostgreSQL regular expressions), whole, in the document's order, each with the end of
        the page before its own; none holding a chunk of `read` (a table read already)."""
        tables: set[tuple[int, tuple[int, int] | uuid.UUID]] = set()
        for chunk, _ in chunks_holding(self.session, document_id, patterns):
            key = (chunk.page_start, chunk.table_header or chunk.chunk_id)
            if key not in tables and chunk.chunk_id not in read:
                tables.add(key)
                table = table_chunks(self.session, chunk)
                yield table, self._page_before(table)

    def _page_before(self, table: Sequence[tuple[Candidate, str]]) -> str:
        first = table[0][0]
        return page_end(self.session, first.document_id, first.page_start - 1)


def page_and_chunks(
    session: Session, document_id: uuid.UUID, number: int
) -> tuple[PageText, list[Candidate]] | None:
    """Returns a stored page's text and the chunks on it, which quote what is read from it;
    None when the page is not stored."""
    stored = stored_pages(session=session, document_id=document_id, numbers=[number])
    return (stored[0], chunks_on_page(session, document_id, number)) if stored else None


def part_figure(
    query: str, ranked: Sequence[Candidate], session: Session, tables: RankedTables
) -> Answer | None:
    """Returns the answer quoting the figure `query` asks of a part of the company (a segment
    it names: app.answer.metrics.names_a_part, or an owner it names that may be one: "MGM
    China's Adjusted Property EBITDA" in MGM Resorts' filing) from a table on a ranked chunk's
    page (a note under a table ranks for its rows) whose block of the parts' rows its measure
    titles (app.answer.extremes.block_figure), or whose column groups are the parts
    (group_figure), or that the part's section holds (section_figure), the best ranked first;
    None when it names no part, asks why (the cause, not the figure), or no such table has
    it."""
    if not (names_a_part(query) or owners_named(query)) or Asked.REASON in asked_kinds(query):
        return None
    for table, before in tables.after_their_page_before():
        answer = block_figure(query, table, before)
        if answer is not None:
            return answer
    for document_id, number in dict.fromkeys((c.document_id, c.page_start) for c in ranked):
        read_page = page_and_chunks(session, document_id, number)
        answer = group_figure(query, *read_page) if read_page else None
        if answer is not None:
            return answer
    for table, before in tables.after_their_page_before():
        answer = section_figure(query, table, before)
        if answer is not None:
            return answer
    return None


def worked_out_answer(query: str, ranked: Sequence[Candidate], session: Session) -> Answer | None:
    """Returns the answer worked out from the filings' statements or a table (a metric, the
    highest or lowest row, a named cell), the first of them that applies; None when none does
    and the answer is written from the passages."""
    tables = RankedTables(ranked, session)
    return (
        metric_answer(query, ranked, session)
        or comparison_answer(query, ranked, session, tables)
        or cell_lookup(query, tables)
        or part_figure(query, ranked, session, tables)
    )


def worked_out_first(
    answer: Answer,
    ranked: Sequence[Candidate],
    session: Session,
    query_vector: FloatArray,
    top_k: int,
) -> list[Candidate]:
    """Returns the chunks a computed answer quotes, in the order it cites them, then the rest of
    the ranked chunks, `top_k` in all.

    A computed answer reads its rows from the statements, wherever search ranked them: the
    balance sheet's rows that a ratio is worked out from are the page a reader checks first.
    A chunk search did not rank keeps its own distance to the query and no fused score.
    """
    by_id = {chunk.chunk_id: chunk for chunk in ranked}
    quoted = {claim.chunk.chunk_id: claim.chunk for claim in answer.claims}
    distances = distances_to(session, [key for key in quoted if key not in by_id], query_vector)
    first = [
        by_id.get(key)
        or replace(
            chunk,
            distance=distances[key],
            vector_rank=None,
            keyword_rank=None,
            fused_score=0.0,
            name_boost=0.0,
        )
        for key, chunk in quoted.items()
    ]
    return [*first, *(chunk for chunk in ranked if chunk.chunk_id not in quoted)][:top_k]


def answer_query(
    request: QueryRequest,
    *,
    session: Session,
    embedder: Embedder,
    settings: Settings,
    request_id: str = "",
) -> QueryResponse:
    """Returns the response to `request`: the ranked chunks, the answer built on the assembled
    context with its sources, and, with highlights enabled, the evidence. The response's
    evidence is stored under its `response_id` for the viewer and annotated.pdf."""
    params = retrieval_params(request, settings)
    bundle = retrieve_context(
        request.query,
        params,
        session=session,
        embedder=embedder,
        selected_text=selection_of(request.selected_text),
    )
    timings = dict(bundle.timings_ms)
    started = time.perf_counter()
    # The answer reads the chunks by score, a page's neighbouring chunks together; the
    # response lists them each page's best first. In selection mode the reader asks about
    # the selection, which opens the context: it ranks first for the answer, before the
    # chunks around it.
    ranked = [*bundle.context.chunks[:1], *bundle.by_score] if bundle.selection else bundle.by_score
    computed = (
        worked_out_answer(request.query, ranked, session)
        if bundle.selection is None and settings.synthesis == Synthesis.extractive
        else None
    )
    answer, synthesis = (
        (computed, "extractive")
        if computed
        else write_answer(
            request.query,
            ranked,
            bundle.context.chunks,
            settings=settings,
            embedder=embedder,
            query_vector=bundle.query_vector,
            selected=bundle.selection is not None,
            # A selection's answer stays within its pages: no list is read on past them.
            following=None
            if bundle.selection
            else lambda chunk: following_chunk(session, chunk, params.filters.exclude_flags),
        )
    )
    chunks = (
        worked_out_first(computed, bundle.chunks, session, bundle.query_vector, params.top_k)
        if computed
        else bundle.chunks
    )
    timings["answer"] = elapsed_ms(started)
    hits = [chunk_hit(chunk, params) for chunk in chunks]
    status: AnswerStatus = bundle.status
    if status in ("ok", "scope_fallback") and not answer.claims:
        status = "no_answer"
    citations = [Citation.model_validate(vars(citation)) for citation in answer.citations]
    highlighted: list[HighlightedSource] | None = None
    if settings.enable_highlights:
        started = time.perf_counter()
        highlighted = [highlighted_source(e) for e in collect_evidence(session, answer.claims)]
        timings["evidence"] = elapsed_ms(started)
    started = time.perf_counter()
    # Stored with highlights off too: the answer, its sources and chunk ids stay retrievable.
    stored = ResponseEvidence(
        answer=answer.text,
        sources=answer.sources,
        citations=citations,
        synthesis=synthesis,
        chunk_ids=[hit.chunk_id for hit in hits],
        highlighted_sources=highlighted,
    )
    response_id = store_response(
        session=session,
        evidence_json=stored.model_dump_json(),
        ttl_seconds=settings.response_ttl_seconds,
    )
    timings["store"] = elapsed_ms(started)
    # A viewer with no cited line would show a blank page: there is none to link to.
    viewer_url = (
        f"{VIEWER_PATH}?response_id={response_id}"
        + token_query(settings, response_scope(response_id))
        if highlighted
        else None
    )
    return QueryResponse(
        answer=answer.text,
        sources=answer.sources,
        citations=citations,
        confidence=answer.confidence,
        query_type="standard" if bundle.selection is None else "selected_text",
        status=status,
        synthesis=synthesis,
        request_id=request_id,
        response_id=str(response_id),
        chunks=hits,
        highlighted_sources=highlighted,
        viewer_url=viewer_url,
        timings_ms=timings,
        selection=selection_scope(bundle.selection),
        scope_note=bundle.scope_note,
    )
