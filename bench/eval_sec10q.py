"""Search mode by measurement: document-level retrieval quality on docugami's SEC 10-Q set.

    python bench/eval_sec10q.py ../shared/corpus/eval/docugami_sec10q [--database-url URL]
        [--output docs/benchmarks.md] [--every N]

The 20 filings under docs/ are ingested into a fresh database (an embedded server in a
temporary folder unless --database-url is given), then every question of qna_data.csv is
asked in each search mode ("vector", "hybrid") with top_k 5 and 10, under the service's
default settings otherwise. Relevance is document-level, as the set gives it: a chunk is
relevant when its document matches the question's `Source Docs` glob. Reported per mode and
top_k: hit (any relevant chunk), MRR of the first relevant chunk (0 when none), the share of
source documents covered (multi-document questions) and the p50 latency of retrieve_context;
then hit and MRR per question type, and how many questions the keyword side of "hybrid" can
match at all. The four configurations take turns question by question. --every N keeps every
Nth question, for a quicker run.
"""

from __future__ import annotations

import argparse
import csv
import fnmatch
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import func, literal, select
from sqlalchemy.dialects.postgresql import REGCONFIG

from app.core.config import Settings
from app.db.models import Chunk
from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime, open_runtime
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.pipeline import RetrievalParams, retrieve_context
from app.retrieval.search import TEXT_SEARCH_CONFIG, SearchMode
from bench.kit import (
    BENCHMARKS,
    database_server,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    timed,
    write_section,
)

MODES: tuple[SearchMode, ...] = ("vector", "hybrid")
TOP_KS = (5, 10)
COLLECTION = "sec10q"
TITLE = "Search mode on docugami SEC 10-Q"


@dataclass(frozen=True)
class Question:
    text: str
    kind: str
    """The set's `Question Type`: Multi-Doc RAG, Single-Doc Single-Chunk RAG, ..."""
    chunk_type: str
    sources: frozenset[str]
    """The PDF file names (as stored here, with `_` for spaces) the answer comes from."""


@dataclass
class Outcome:
    """One question asked once: where its first relevant chunk ranked and what it covered."""

    question: Question
    first_relevant: int | None
    """1-based rank of the first chunk from a source document; None when no chunk is."""
    covered: float
    """The share of the question's source documents with at least one chunk returned."""
    latency_ms: float


@dataclass
class Run:
    """Every question asked under one configuration, in the order of the question list."""

    mode: SearchMode
    top_k: int
    outcomes: list[Outcome] = field(default_factory=list)


def load_questions(csv_path: Path, pdf_names: Iterable[str]) -> list[Question]:
    """Returns every question of `csv_path` with its source globs resolved to file names.

    Upstream names the files `2023 Q3 AAPL.pdf` and the globs follow that; the copies here
    use `_` for the spaces, so the glob is matched against the upstream name.
    """
    upstream = {name: name.replace("_", " ") for name in pdf_names}
    questions = []
    # utf-8-sig: the file starts with a byte-order mark, which would stick to "Question".
    with csv_path.open(encoding="utf-8-sig", newline="") as handle:
        for row in csv.DictReader(handle):
            globs = [g.strip() for g in row["Source Docs"].split(",") if g.strip()]
            sources = frozenset(
                name
                for name, original in upstream.items()
                if any(fnmatch.fnmatchcase(original, glob) for glob in globs)
            )
            if not sources:
                raise ValueError(f"no PDF matches {row['Source Docs']!r}: {row['Question']!r}")
            questions.append(
                Question(
                    row["Question"].strip(),
                    row["Question Type"].strip(),
                    row["Source Chunk Type"].strip(),
                    sources,
                )
            )
    return questions


def ingest_all(runtime: Runtime, pdfs: Sequence[Path]) -> tuple[int, int, int, float]:
    """Returns the files, pages, chunks and seconds of ingesting `pdfs`, printing progress.

    A refused filing raises: every question's relevance depends on all of them being there.
    """
    pages = chunks = 0
    started = time.perf_counter()
    for number, path in enumerate(pdfs, 1):
        result = ingest_file(
            path, DocumentMeta(filename=path.name, collection=COLLECTION), runtime=runtime
        )
        pages += result.document.page_count
        chunks += result.document.chunk_count
        print(
            f"[{number}/{len(pdfs)}] {path.name}: {result.document.page_count} pages, "
            f"{result.document.chunk_count} chunks, {time.perf_counter() - started:.0f}s",
            flush=True,
        )
    return len(pdfs), pages, chunks, time.perf_counter() - started


def ask(runtime: Runtime, question: Question, params: RetrievalParams) -> Outcome:
    """Returns how one retrieve_context call did on `question`, timed as the service calls it."""
    with runtime.sessions.begin() as session:
        latency_ms, bundle = timed(
            lambda: retrieve_context(
                question.text, params, session=session, embedder=runtime.embedder
            )
        )
    found = [chunk.document_filename for chunk in bundle.chunks]
    first = next((rank for rank, name in enumerate(found, 1) if name in question.sources), None)
    covered = len(question.sources & set(found)) / len(question.sources)
    return Outcome(question, first, covered, latency_ms)


def evaluate(runtime: Runtime, questions: Sequence[Question]) -> list[Run]:
    """Returns one Run per (mode, top_k), every question asked in each.

    The configurations take turns question by question, so a change in the machine's load
    during the run weighs on all of them alike instead of on whichever ran last.
    """
    settings = runtime.settings
    filters = SearchFilters(collection=COLLECTION, exclude_flags=settings.excluded_flags)
    runs = [
        (
            Run(mode, top_k),
            RetrievalParams(
                top_k=top_k,
                overfetch=settings.search_overfetch,
                mode=mode,
                filters=filters,
                min_similarity=settings.min_similarity,
                token_budget=settings.context_token_budget,
            ),
        )
        for mode in MODES
        for top_k in TOP_KS
    ]
    # One untimed call per configuration: the first pays for building its statements, and
    # the very first for the model's and the connection pool's warm-up.
    for _, params in runs:
        ask(runtime, questions[0], params)
    started = time.perf_counter()
    for number, question in enumerate(questions, 1):
        for run, params in runs:
            run.outcomes.append(ask(runtime, question, params))
        if number % 50 == 0 or number == len(questions):
            print(
                f"asked {number}/{len(questions)} questions, {time.perf_counter() - started:.0f}s",
                flush=True,
            )
    return [run for run, _ in runs]


def keyword_matches(runtime: Runtime, questions: Sequence[Question]) -> list[int]:
    """Returns, per question, how many chunks its full-text query matches in the collection.

    The same query the "hybrid" keyword side runs (websearch_to_tsquery, which requires
    every word), counted outside retrieve_context: it explains how much that side can add.
    """
    filters = SearchFilters(collection=COLLECTION, exclude_flags=runtime.settings.excluded_flags)
    counts = []
    with runtime.sessions.begin() as session:
        for question in questions:
            query = func.websearch_to_tsquery(literal(TEXT_SEARCH_CONFIG, REGCONFIG), question.text)
            statement = (
                select(func.count())
                .select_from(Chunk)
                .where(Chunk.content_tsv.bool_op("@@")(query), *filter_clauses(filters))
            )
            counts.append(int(session.scalar(statement) or 0))
    return counts


def hit_rate(outcomes: Sequence[Outcome]) -> float:
    """Returns the share of outcomes with at least one relevant chunk."""
    return sum(o.first_relevant is not None for o in outcomes) / len(outcomes)


def mrr(outcomes: Sequence[Outcome]) -> float:
    """Returns the mean reciprocal rank of the first relevant chunk, 0 for a question with none."""
    return statistics.fmean(1 / o.first_relevant if o.first_relevant else 0.0 for o in outcomes)


def coverage(outcomes: Sequence[Outcome]) -> float:
    """Returns the mean share of source documents covered, over multi-document questions."""
    multi = [o.covered for o in outcomes if len(o.question.sources) > 1]
    return statistics.fmean(multi) if multi else float("nan")


def p50(outcomes: Sequence[Outcome]) -> float:
    """Returns the median latency in milliseconds."""
    return percentiles([o.latency_ms for o in outcomes])[0]


def report(
    folder: Path,
    runs: Sequence[Run],
    questions: Sequence[Question],
    total_questions: int,
    ingest: tuple[int, int, int, float],
    settings: Settings,
    every: int,
    keyword_counts: Sequence[int],
) -> str:
    """Returns the markdown section: the tables, the machine, how to reproduce, the verdict."""
    filings, pages, chunks, seconds = ingest
    asked = (
        f"all {len(questions)} questions"
        if len(questions) == total_questions
        else f"{len(questions)} of {total_questions} questions (one in {every})"
    )
    lines = [
        f"Corpus: `{folder}`: {filings} 10-Q filings, {pages} pages, {chunks} chunks "
        f"(ingested in {seconds:.0f} s); {asked}. Relevance is document-level: a chunk "
        "counts when its filing matches the question's `Source Docs`. Settings otherwise the "
        f"defaults (overfetch {settings.search_overfetch}, min_similarity "
        f"{settings.min_similarity}, excluded flags {', '.join(settings.excluded_flags)}).",
        "",
        *table_head("mode | top_k | hit | MRR | multi-doc coverage | p50 ms", "lrrrrr"),
    ]
    for run in runs:
        lines.append(
            table_row(
                run.mode,
                run.top_k,
                f"{hit_rate(run.outcomes):.3f}",
                f"{mrr(run.outcomes):.3f}",
                f"{coverage(run.outcomes):.3f}",
                f"{p50(run.outcomes):.1f}",
            )
        )
    kinds = sorted({q.kind for q in questions})
    by_key = {(run.mode, run.top_k): run for run in runs}
    lines += [
        "",
        "Per question type (hit@k and MRR within the top k):",
        "",
        *table_head("question type | n | mode | hit@5 | hit@10 | MRR@10", "lrlrrr"),
    ]
    for kind in kinds:
        for mode in MODES:
            at5 = [o for o in by_key[mode, 5].outcomes if o.question.kind == kind]
            at10 = [o for o in by_key[mode, 10].outcomes if o.question.kind == kind]
            lines.append(
                table_row(
                    kind,
                    len(at5),
                    mode,
                    f"{hit_rate(at5):.3f}",
                    f"{hit_rate(at10):.3f}",
                    f"{mrr(at10):.3f}",
                )
            )
    every_flag = f" --every {every}" if every > 1 else ""
    matched = sum(count > 0 for count in keyword_counts)
    lines += [
        "",
        f"Keyword side: the full-text query (every word required) matches at least one chunk "
        f"for {matched} of {len(keyword_counts)} questions (median "
        f'{statistics.median(keyword_counts):.0f} chunks); for the others "hybrid" '
        "ranks by the vector search alone.",
        "",
        "MRR: reciprocal rank of the first chunk from a source filing, 0 when none is in the "
        "top k. Multi-doc coverage: the mean share of a multi-document question's filings "
        "(all four of a company's) with a chunk in the top k; one search of top 5 can touch at "
        "most five filings, so it is the harder figure.",
        "",
        machine_summary(),
        "",
        f"Reproduce: `python bench/eval_sec10q.py {folder}{every_flag}`",
        "",
        conclusion(by_key),
    ]
    return "\n".join(lines)


MRR_NOISE = 0.01
"""MRR differences below this are called noise: one of 195 questions moving from rank 1 to
rank 2 changes MRR by 0.0026, so 0.01 is about four such moves."""


def paired(best: Run, other: Run) -> tuple[int, int]:
    """Returns how many questions `best` finds a source filing for that `other` misses, and
    how many the other way round: the same questions in both, so these say how many
    questions a difference in hit rate rests on."""
    won = lost = 0
    for mine, theirs in zip(best.outcomes, other.outcomes, strict=True):
        won += mine.first_relevant is not None and theirs.first_relevant is None
        lost += mine.first_relevant is None and theirs.first_relevant is not None
    return won, lost


def conclusion(by_key: dict[tuple[SearchMode, int], Run]) -> str:
    """Returns the one-line verdict: the mode ahead on hit@5, then MRR@5, hit@10 and MRR@10,
    with its margin, and whether that margin is within noise."""

    def score(mode: SearchMode) -> tuple[float, float, float, float]:
        at5, at10 = by_key[mode, 5].outcomes, by_key[mode, 10].outcomes
        return hit_rate(at5), mrr(at5), hit_rate(at10), mrr(at10)

    best, other = sorted(MODES, key=score, reverse=True)
    hit5, mrr5, hit10, _ = score(best)
    other_hit5, other_mrr5, other_hit10, _ = score(other)
    won5, lost5 = paired(by_key[best, 5], by_key[other, 5])
    won10, lost10 = paired(by_key[best, 10], by_key[other, 10])
    noun = "question" if won5 == 1 else "questions"
    margins = (
        f"hit@5 {hit5:.3f} vs {other_hit5:.3f} ({won5} {noun} found only by {best}, "
        f"{lost5} only by {other}), MRR@5 {mrr5:.3f} vs {other_mrr5:.3f}, hit@10 {hit10:.3f} "
        f"vs {other_hit10:.3f} ({won10} vs {lost10}); p50 at top 5 "
        f"{p50(by_key[best, 5].outcomes):.1f} vs {p50(by_key[other, 5].outcomes):.1f} ms"
    )
    if abs(won5 - lost5) <= 1 and abs(won10 - lost10) <= 1 and abs(mrr5 - other_mrr5) < MRR_NOISE:
        return (
            f"Conclusion: no measurable difference; **{best}** is ahead only within noise: "
            f"{margins}."
        )
    return f"Conclusion: **{best}** is the better default: {margins}."


def run(folder: Path, database_url: str, data_dir: Path, every: int) -> str:
    """Returns the markdown section with the figures of one run over `folder`."""
    settings = settings_for(database_url, data_dir)
    pdfs = sorted((folder / "docs").glob("*.pdf"))
    all_questions = load_questions(folder / "qna_data.csv", [p.name for p in pdfs])
    questions = all_questions[::every]
    with closing(open_runtime(settings)) as runtime:
        ingest = ingest_all(runtime, pdfs)
        runs = evaluate(runtime, questions)
        counts = keyword_matches(runtime, questions)
    return report(folder, runs, questions, len(all_questions), ingest, settings, every, counts)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    parser.add_argument("--every", type=int, default=1, help="keep every Nth question")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as database_url,
    ):
        section = run(args.folder, database_url, Path(data_dir), max(args.every, 1))
    print(section)
    write_section(args.output, TITLE, section)


if __name__ == "__main__":
    main()
