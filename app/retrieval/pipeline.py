"""retrieve_context: a query in, the ranked chunks and the assembled context out."""

from __future__ import annotations

import time
import uuid
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from typing import Literal

from sqlalchemy import String, exists, func, literal, or_, select
from sqlalchemy.dialects.postgresql import REGCONFIG
from sqlalchemy.orm import Session

from app.core.asked import FIGURES, asked_kinds
from app.core.chunks import Candidate
from app.core.questions import (
    code_terms,
    fiscal_years_spelled,
    question_core,
    quoted_terms,
    without_frame_words,
)
from app.core.rows import full_dates
from app.db.models import Chunk, Document
from app.db.terms import query_term_stats
from app.embedding.backends import FloatArray
from app.embedding.embedder import Embedder, embed_query
from app.retrieval.assemble import (
    Context,
    assemble_context,
    estimate_tokens,
    pages_first,
    similarity,
    without_duplicates,
)
from app.retrieval.coverage import COVERAGE_DEPTH, folded, same_words_asked, term_coverage
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.names import (
    MIN_NAMES_HELD,
    QUOTED_BOOST,
    authored_names,
    date_boost,
    holds_name,
    holds_phrases,
    name_boost,
    name_parts,
    name_phrases,
    name_query,
    name_words,
    row_boost,
    row_names,
    text_words,
    unheld_phrases,
    unwritten_versions,
    versioned_names,
    without_authors,
    writes_code,
)
from app.retrieval.rerank import AnnotationSignal, rerank
from app.retrieval.search import (
    KEYWORD_WEIGHT,
    RRF_K,
    TEXT_SEARCH_CONFIG,
    VECTOR_WEIGHT,
    SearchMode,
    keyword_ranking,
    search_chunks,
)
from app.retrieval.selection import Match, Selection
from app.retrieval.selection_scope import (
    Fallback,
    resolve_selection,
    selection_passage,
    within_pages,
)

RetrievalStatus = Literal["ok", "no_matches", "empty_database", "scope_fallback"]

BEST_FUSED_SCORE = (VECTOR_WEIGHT + KEYWORD_WEIGHT) / (RRF_K + 1)
"""The fused score of a chunk ranked first by both the vector and the keyword search."""


@dataclass(frozen=True)
class RetrievalParams:
    top_k: int = 5
    overfetch: int = 4
    mode: SearchMode = "hybrid"
    filters: SearchFilters = field(default_factory=SearchFilters)
    min_similarity: float = 0.4
    min_similarity_named: float = 0.3
    """The floor for a query whose names the documents all mention (a name is evidence)."""
    min_similarity_fill: float = 0.3
    """The floor of the chunks that fill the list up to top_k once some chunk passed its
    floor: that one says the documents answer the query; the others need not be as near."""
    check_names: bool = True
    """Answer no_matches for a query naming mostly what the documents never mention, or whose
    informative words the chunks found mostly lack; off in selection mode, whose few pages
    need not name what their document does."""
    min_term_coverage: float = 0.05
    """The weighed share of the query's terms the best chunks must hold (app.retrieval.coverage)."""
    token_budget: int = 4000
    exact: bool = False
    """Always scan the filtered chunks exactly, never through the index (selection mode)."""
    annotations: AnnotationSignal | None = None
    """Rerank the chosen chunks by the reader's marks; None leaves them in score order."""


@dataclass(frozen=True)
class ContextBundle:
    status: RetrievalStatus
    chunks: list[Candidate]
    """The top_k chunks listed, best first, each page's best before any page's second."""
    by_score: list[Candidate]
    """The top_k chunks by score alone among those that passed the floor, best first: those
    the answer reads, a page's neighbouring chunks together (`context` is assembled from them)."""
    context: Context
    """The chunks the answer may use, within the token budget, in reading order."""
    filters: SearchFilters
    timings_ms: dict[str, float]
    query_vector: FloatArray
    """The query's embedding, for the answer to weigh its claims by."""
    selection: Match | None = None
    """Where the selection stands, in selection mode; its text opens `context`."""
    scope_note: str | None = None
    """Why selection mode fell back to standard retrieval, or how it read the selection."""


def final_score(candidate: Candidate, mode: SearchMode) -> float:
    """Returns the score a candidate is ranked by, lower is better, in both modes.

    "vector": the cosine distance. "hybrid": one less the fused reciprocal-rank score scaled
    to [0, 1] by its best possible value (first in both rankings), so 0 is the best match.
    Either less what the query's naming the candidate's document, or a date it holds, is worth.
    """
    if mode == "vector":
        return candidate.distance - candidate.name_boost
    return 1.0 - candidate.fused_score / BEST_FUSED_SCORE - candidate.name_boost


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

    The query is searched by its core (app.core.questions): what it asks, not how the answer
    should be written. Candidates are overfetched (top_k x overfetch), those under the
    similarity threshold dropped, exact and near duplicates removed keeping the better one,
    and the rest ordered by score with the chunk id as the last tie-breaker: the answer's
    chunks (`by_score`). The chunks listed take each page's best before any page's second
    (pages_first). With
    `params.annotations`, those chunks are then reordered by the reader's marks on them
    (app.retrieval.rerank).
    """
    query = question_core(query)
    if selected_text is not None:
        return retrieve_in_selection(
            query, selected_text, params, session=session, embedder=embedder
        )
    ranking = rank_chunks(query, params, session=session, embedder=embedder)
    started = time.perf_counter()
    context = assemble_context(ranking.by_score, token_budget=params.token_budget)
    timings = dict(ranking.timings_ms)
    timings["assemble"] = round(timings["assemble"] + elapsed_ms(started), 3)
    return ContextBundle(
        ranking.status,
        ranking.chunks,
        ranking.by_score,
        context,
        params.filters,
        timings,
        ranking.query_vector,
    )


@dataclass(frozen=True)
class Ranking:
    status: RetrievalStatus
    chunks: list[Candidate]
    """The top_k chunks listed, best first, each page's best before any page's second."""
    by_score: list[Candidate]
    """The top_k chunks by score alone among those that passed the floor, best first (the
    answer reads these)."""
    timings_ms: dict[str, float]
    query_vector: FloatArray


def rank_chunks(
    query: str, params: RetrievalParams, *, session: Session, embedder: Embedder
) -> Ranking:
    """Returns the top_k chunks for `query` under `params`, best first, and the status."""
    timings: dict[str, float] = {}
    started = time.perf_counter()
    keyword_ids = None
    if params.mode == "hybrid":
        # The keyword ranking needs no query vector: it is read while the model embeds the
        # query on another thread (onnxruntime leaves the GIL while it runs).
        with ThreadPoolExecutor(1, thread_name_prefix="query-embedding") as pool:
            embedding = pool.submit(embedded_query, embedder, query)
            keyword_ids = keyword_ranking(
                session, query, params.filters, params.top_k * params.overfetch
            )
            embed_ms, query_vector = embedding.result()
    else:
        embed_ms, query_vector = embedded_query(embedder, query)
    timings["embed"] = embed_ms

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
        keyword_ids=keyword_ids,
    )
    # What the search added to the embedding's time: the keyword ranking read beside it, the
    # vector ranking and the fusion after it.
    timings["search"] = round(elapsed_ms(started) - embed_ms, 3)

    started = time.perf_counter()
    # search_chunks returns its rows in ranking_key's order already (its ORDER BY); only a
    # query that names a candidate's document changes it.
    candidates = with_named_documents(candidates, query, params.mode)
    phrases = name_phrases(query) if params.check_names else []
    names = [word for phrase in phrases for word in phrase]
    # Each candidate's words, read once for both checks of the names below.
    said = [text_words(candidate_text(candidate)) for candidate in candidates] if names else []
    authored = authored_names(query) if names else []
    if authored and candidates:
        said = with_bylines(session, said, candidates, authored)
    unheld = unheld_phrases(said, phrases)
    missing = missing_names(session, names, params.filters) if candidates and not unheld else []
    if unheld or 2 * len(missing) > len(names):
        # The query names mostly what no chunk of these documents mentions ("What was
        # Tesla's revenue in 2022?" over filings that never say Tesla), or a name none of the
        # nearest chunks holds a word of ("What is the plot of Moby-Dick?"): nothing here
        # answers it, however near their vectors lie. A name of two the text writes otherwise
        # ("Science DMZ" as "ScienceDMZ") leaves the question its answer.
        candidates_left: list[Candidate] = []
    else:
        # Names the documents do mention are evidence the vectors lack, in the passages that
        # say them: there the floor is lower, and a passage that holds several names of the
        # query, all of them, needs none ("In which year did Deep Blue beat Garry Kasparov?"
        # lies at cosine 0.26 from the one paragraph that says so). A passage that says none
        # of them keeps the plain floor: a table of EU countries that never says France is no
        # nearer to "What is the capital of France?" for the filings that do.
        named = bool(names) and not missing
        named_floor = min(params.min_similarity, params.min_similarity_named)
        quoted, code = quoted_terms(query), code_terms(query)

        def passes(index: int, candidate: Candidate) -> bool:
            if writes_quoted(candidate, quoted, names, code):
                return True
            holding = [holds_name(said[index], name) for name in names] if named else []
            floor = (
                named_floor
                if any(holding) or (named and names_document(candidate, names))
                else params.min_similarity
            )
            all_held = len(holding) >= MIN_NAMES_HELD and all(holding)
            return all_held or similarity(candidate.distance) >= floor

        # What passes must say each name as the nearest chunks must (unheld_phrases): a table
        # of EU countries at cosine 0.6 from "What is the population of Germany?" never says
        # Germany, and the passages that do lie far below the floor.
        passing = [index for index, candidate in enumerate(candidates) if passes(index, candidate)]
        # And each name with a version as the query writes it, the document's name read too:
        # passages on Llama-3 and Qwen2 do not answer "What learning rate schedule was used to
        # pre-train Llama 2?", nor ones that mention GPT-4 in passing "How many parameters
        # does GPT-4 have?". A passage holds what its document's title or file name says too
        # ("Thoma's creativity paper": only its first page says Thoma).
        versions = versioned_names(query) if names else []
        unsaid = bool(names) and bool(
            unheld_phrases(
                [
                    said[index]
                    | title_words(
                        candidates[index].document_title, candidates[index].document_filename
                    )
                    for index in passing
                ],
                phrases,
            )
            or (
                versions
                and unwritten_versions([named_text(candidates[i]) for i in passing], versions)
            )
        )
        candidates_left = [] if unsaid else [candidates[index] for index in passing]
    passed = {candidate.chunk_id for candidate in candidates_left}
    if candidates_left:
        # The floor tells an answerable query from an off-topic one; once the query passed
        # it, a passage that words its topic unlike the query may lie just under it (Qwen2's
        # decontamination, 0.39 from "How did they filter training data that overlaps with
        # the evaluation benchmarks?"). It fills the list after those that passed, which
        # alone weigh in the checks below.
        candidates_left += [
            candidate
            for candidate in candidates
            if candidate.chunk_id not in passed
            and similarity(candidate.distance) >= params.min_similarity_fill
        ]
    # Duplicates go by score before the pages are spread: the three months' segment text and
    # the six months' are near duplicates on two pages, and the better-ranked one stays.
    distinct = without_duplicates(
        candidates_left, limit=max(params.top_k, COVERAGE_DEPTH), pages=params.top_k
    )
    if params.check_names and distinct:
        # Whether a chunk holds the question's words asks for them as the documents write
        # them. Searched so, "fiscal year 2018" cost FinanceBench two pages within a filing.
        distinct = covering_query(
            session,
            fiscal_years_spelled(without_frame_words(without_authors(query))),
            distinct,
            params.min_term_coverage,
            params.filters.collection,
            gate=sum(candidate.chunk_id in passed for candidate in distinct[:COVERAGE_DEPTH]),
        )
    # The answer reads only what passed: quoting the chunks filled in changed no answer over
    # bench/eval_answers.py's questions, and each would cost the answer its claims' embeddings.
    best = [candidate for candidate in distinct if candidate.chunk_id in passed][: params.top_k]
    listed = pages_first(distinct)[: params.top_k]
    hl_counts = {chunk.chunk_id: chunk.hl_count for chunk in [*best, *listed]}
    if params.annotations is not None and any(hl_counts.values()):
        # After top_k is taken: the marks change the order of the chosen chunks, never which
        # (their order is then the marked score's alone); with no marks on them the order
        # stands.
        signal, mode = params.annotations, params.mode
        best, listed = (
            rerank(chunks, hl_counts, signal, score=lambda c: final_score(c, mode))
            for chunks in (best, listed)
        )
    timings["assemble"] = elapsed_ms(started)

    if listed:
        status: RetrievalStatus = "ok"
    elif candidates or has_chunks(session, params.filters):
        status = "no_matches"
    else:
        status = "empty_database"
    return Ranking(status, listed, best, timings, query_vector)


def with_named_documents(
    candidates: list[Candidate], query: str, mode: SearchMode
) -> list[Candidate]:
    """Returns the candidates, those whose document the query names, that hold a date it
    writes whole or a term it quotes, or a table row it names when it asks for a figure
    boosted, and all in the order that makes (app.retrieval.names)."""
    words = name_words(query)
    dates = full_dates(query)
    quoted = quoted_terms(query)
    names = [word for phrase in name_phrases(query) for word in phrase]
    named_words = frozenset(names)
    query_words = text_words(query)
    # A row holds a figure, not a cause: "Why did Pet's net sales rise?" is answered by prose.
    figure_asked = bool(asked_kinds(query) & FIGURES)

    def boost(candidate: Candidate) -> float:
        title, filename = candidate.document_title, candidate.document_filename
        named = name_boost(words, title, filename)
        quoting = QUOTED_BOOST if writes_quoted(candidate, quoted, names) else 0.0
        rows = row_names(named_words, title, filename) if figure_asked else frozenset()
        row = row_boost(rows, query_words, candidate.content) if rows else 0.0
        return named + date_boost(dates, candidate_text(candidate)) + quoting + row

    boosted = [
        replace(candidate, name_boost=gained) if (gained := boost(candidate)) else candidate
        for candidate in candidates
    ]
    if not any(candidate.name_boost for candidate in boosted):
        return candidates
    return sorted(boosted, key=lambda candidate: ranking_key(candidate, mode))


def names_document(candidate: Candidate, names: list[str]) -> bool:
    """Whether a name the query gives is its document's, in its title or file name ("Thoma's
    paper", "creativity-in-ml_thoma.pdf"): each of its passages is of what the query names,
    though only its first page says it."""
    words = title_words(candidate.document_title, candidate.document_filename)
    return any(holds_name(words, name) for name in names)


def title_words(title: str, filename: str) -> set[str]:
    """Returns the words of a document's title and file name (text_words)."""
    return text_words(f"{title} {filename}")


def writes_quoted(
    candidate: Candidate, quoted: list[str], names: list[str], code: Sequence[str] = ()
) -> bool:
    """Whether a candidate writes a term the query quotes (app.core.questions.quoted_terms) or
    one of the `code` it writes (code_terms) and, in its own words or its document's name,
    every name the query gives."""
    if not quoted and not code:
        return False
    text = candidate_text(candidate)
    if not (quoted and holds_phrases(text, quoted)) and not writes_code(text, code):
        return False
    words = text_words(named_text(candidate))
    return all(holds_name(words, name) for name in names)


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
    # The selection's pages, not the question's similarity, make these chunks relevant: a
    # question such as "what does this mean?" resembles no passage, yet wants those around it.
    around_selection = replace(
        params, filters=filters, exact=True, min_similarity=-1.0, check_names=False
    )
    ranking = rank_chunks(query, around_selection, session=session, embedder=embedder)
    started = time.perf_counter()
    chunks, by_score = (
        [
            clipped
            for chunk in ranked
            if (clipped := within_pages(chunk, match.start_page, match.end_page)) is not None
        ]
        for ranked in (ranking.chunks, ranking.by_score)
    )
    passage = selection_passage(resolved, by_score, params.min_similarity)
    cost = estimate_tokens(passage.content)
    around = assemble_context(by_score, token_budget=max(params.token_budget - cost, 0))
    context = Context((passage, *around.chunks), around.tokens + cost)
    timings = {"locate": located_ms, **ranking.timings_ms, "scope": elapsed_ms(started)}
    return ContextBundle(
        "ok",
        chunks,
        by_score,
        context,
        filters,
        timings,
        ranking.query_vector,
        selection=match,
        scope_note=resolved.note,
    )


def covering_query(
    session: Session,
    query: str,
    chosen: list[Candidate],
    min_coverage: float,
    collection: str | None,
    *,
    gate: int = COVERAGE_DEPTH,
) -> list[Candidate]:
    """Returns the `chosen` chunks, each with the weighed share of the query's terms it holds
    (weighed by their rarity in `collection`); none when the first `gate` of them hold less
    than `min_coverage` together: near vectors alone are no evidence that a passage is about
    what the query asks."""
    chunk_ids = [candidate.chunk_id for candidate in chosen]
    terms, total_chunks = query_term_stats(
        session, query, chunk_ids, config=TEXT_SEARCH_CONFIG, collection=collection
    )
    groups = [
        query_term_stats(
            session, words, chunk_ids, config=TEXT_SEARCH_CONFIG, collection=collection
        )[0]
        for words in same_words_asked(query)
    ]
    terms = folded(terms, groups)
    best = [candidate.chunk_id for candidate in chosen[:gate]]
    coverage = term_coverage(terms, total_chunks, best)
    if coverage is not None and coverage < min_coverage:
        return []
    return [
        replace(candidate, term_coverage=term_coverage(terms, total_chunks, [candidate.chunk_id]))
        for candidate in chosen
    ]


def candidate_text(candidate: Candidate) -> str:
    """Returns what a candidate says in words: its context header (whose, where) and its text."""
    return f"{candidate.context_header} {candidate.content}"


def named_text(candidate: Candidate) -> str:
    """Returns what a candidate says with its document's title and file name: a chunk of
    "NIST_SP800-223.pdf" writes SP 800-223 though its page does not."""
    return f"{candidate.document_title} {candidate.document_filename} {candidate_text(candidate)}"


BYLINE_PAGES = 2
"""The pages a document's byline is sought on: its title page, after a cover."""


def with_bylines(
    session: Session, said: list[set[str]], candidates: list[Candidate], authored: list[str]
) -> list[set[str]]:
    """Returns each candidate's words (`said`, text_words) with the parts of the authors' names
    the query gives (authored_names) that its document's first BYLINE_PAGES pages say: each
    passage of "Berliner's paper" is of what the query names, though only its title page
    says Berliner."""
    config = literal(TEXT_SEARCH_CONFIG, REGCONFIG)
    documents = {candidate.document_id for candidate in candidates}
    bylines: dict[uuid.UUID, set[str]] = {}
    for name in authored:
        parts = func.to_tsquery(config, literal(name_query(name), String))
        signed = session.scalars(
            select(Chunk.document_id)
            .distinct()
            .where(
                Chunk.document_id.in_(documents),
                Chunk.page_start <= BYLINE_PAGES,
                Chunk.content_tsv.bool_op("@@")(parts),
            )
        )
        for document_id in signed:
            bylines.setdefault(document_id, set()).update(name_parts(name))
    return [
        words | bylines.get(candidate.document_id, set())
        for words, candidate in zip(said, candidates, strict=True)
    ]


def missing_names(session: Session, names: list[str], filters: SearchFilters) -> list[str]:
    """Returns the names of which no chunk under `filters` holds any part (name_query),
    flags aside, nor a document of theirs in its title or file name (names_document): a name
    written otherwise in the text ("PC\u201312/47E" for "PC-12") is not missing, nor one whose
    parts are all stopwords, nor "GMPL" in gmpl.pdf, whose pages say "MathProg"."""
    sought = {name: name_query(name) for name in names}
    if not sought:
        return []
    clauses = filter_clauses(replace(filters, exclude_flags=()), documents_listed=True)
    config = literal(TEXT_SEARCH_CONFIG, REGCONFIG)
    checks = []
    for index, query in enumerate(sought.values()):
        parts = func.to_tsquery(config, literal(query, String))
        # Planned on its own (MATERIALIZED), the match is one bitmap of the text index met by
        # one of the documents'; inside EXISTS the planner expected an early hit and read the
        # scope's chunks in page order, testing each one's words: 100-400 ms a question over
        # the 10-Qs, where a name first stands thousands of chunks in or nowhere.
        matching = (
            select(Chunk.id)
            .where(*clauses, Chunk.content_tsv.bool_op("@@")(parts))
            .cte(f"name_{index}")
            .prefix_with("MATERIALIZED")
        )
        checks.append(or_(func.numnode(parts) == 0, select(matching).exists()))
    found = session.execute(select(*checks)).one()
    unheld = [name for name, held in zip(sought, found, strict=True) if not held]
    if not unheld:
        return []
    in_scope = exists().where(*clauses, Chunk.document_id == Document.id).select_from(Chunk)
    titles = session.execute(select(Document.title, Document.filename).where(in_scope)).all()
    named = [title_words(title, filename) for title, filename in titles]
    return [name for name in unheld if not any(holds_name(words, name) for words in named)]


def has_chunks(session: Session, filters: SearchFilters) -> bool:
    """Returns whether anything at all is stored under `filters`, flags aside."""
    unflagged = replace(filters, exclude_flags=())
    return bool(
        session.scalar(select(exists().where(*filter_clauses(unflagged)).select_from(Chunk)))
    )


def elapsed_ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def embedded_query(embedder: Embedder, query: str) -> tuple[float, FloatArray]:
    """Returns how long embedding `query` took, in ms, and its vector."""
    started = time.perf_counter()
    vector = embed_query(embedder, query)
    return elapsed_ms(started), vector
