"""Embedding models side by side: page hit@k, ingestion pages/s and query embedding latency of
each EMBEDDING_BACKEND on the docs set (bench/data/questions_docs.jsonl, 26 documents).

    python bench/embedding_models.py [--backends onnx e5] [--data-dir DIR] [--reingest]
        [--every N] [--files NAME ...] [--kept-figures] [--output docs/benchmarks.md]

Each backend gets its own database, in DIR/<backend> (kept for the next run, as
bench/eval_pages.py keeps its sets) or a temporary folder, into which the service, in this
process with its default settings but the backend, ingests the set's files one after the
other, each in its request. Every question is then asked through POST /api/v1/query (top_k
10, search `hybrid`, the default, and `vector`) over the whole collection and restricted to its
own document; a hit at k is a top-k chunk from its document whose pages hold a gold page.
Query embedding latency: each question embedded alone as a query, after a warm-up, as the
query path embeds it.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core.config import EmbeddingBackend
from app.embedding import embed_query
from bench.evalkit import (
    DOCS_COLLECTION,
    REPOSITORY,
    Citelock,
    Collection,
    Question,
    chunk_ranges,
    data_folder,
    docs_questions,
    every_nth,
    files_of,
    first_gold_rank,
    hit_at,
    markdown_table,
    mrr,
)
from bench.kit import machine_summary, percentiles, timed, write_section

TITLE = "Embedding models"
TOP_K = 10
KS = (1, 3, 5)
MODES = ("hybrid", "vector")
SETTINGS = ("one collection", "own document")
WARM_UP_QUERIES = 10
MEASURED = "measured.json"
"""Each backend's figures, kept in its folder: backends can be measured in separate runs."""
INGESTION_LIMIT = 1.5
"""How much slower than the default's an ingestion may be for a model to replace it."""


@dataclass(frozen=True)
class Measured:
    model: str
    ranks: dict[str, dict[str, int | None]]
    """First gold rank of each question asked, by question id, under "setting/mode"."""
    files: dict[str, tuple[int, int, float]]
    """Pages, chunks and ingestion seconds of each stored file whose ingestion is recorded."""
    latency: tuple[float, float, float]
    """Query embedding p50, p95, p99 in ms."""

    def save(self, path: Path) -> None:
        path.write_text(json.dumps(asdict(self)) + "\n")

    @classmethod
    def load(cls, path: Path) -> Measured:
        figures = json.loads(path.read_text())
        files = {name: tuple(row) for name, row in figures.pop("files").items()}
        return cls(**figures | {"files": files, "latency": tuple(figures["latency"])})


def rank(
    citelock: Citelock, collection: Collection, question: Question, mode: str, *, own: bool
) -> int | None:
    """Returns the rank of the question's first gold chunk in the service's top 10, if any."""
    own_document = [collection.ids[question.filename]] if own else []
    response = citelock.query(
        question.question, collection.name, TOP_K, document_ids=own_document, search=mode
    )
    return first_gold_rank(chunk_ranges(response), question)


def measure(
    backend: str,
    folder: Path | None,
    questions: list[Question],
    *,
    reingest: bool,
    only: set[str],
) -> Measured:
    """Returns one backend's ranks by setting and mode, its ingestion and its query latency;
    with `only` file names, over those files and their questions."""
    files = [path for path in files_of(docs_questions()) if not only or path.name in only]
    with (
        data_folder(folder, reingest) as kept,
        Citelock(kept, embedding_backend=backend, enable_highlights=False) as citelock,
    ):
        collection = citelock.ensure_collection(DOCS_COLLECTION, files)
        stored = citelock.stored(DOCS_COLLECTION)
        asked = [question for question in questions if question.filename in collection.ids]
        ranks = {
            f"{setting}/{mode}": {
                question.id: rank(
                    citelock, collection, question, mode, own=setting == "own document"
                )
                for question in asked
            }
            for setting in SETTINGS
            for mode in MODES
        }
        recorded = citelock.record.files("citelock", DOCS_COLLECTION)
        embedder = citelock.embedder
        for question in asked[:WARM_UP_QUERIES]:
            embed_query(embedder, question.question)
        latencies = [timed(embed_query, embedder, q.question)[0] for q in asked]
        return Measured(
            model=embedder.name,
            ranks=ranks,
            files={
                path.name: (
                    stored[path.name]["page_count"],
                    stored[path.name]["chunk_count"],
                    recorded[path.name]["seconds"],
                )
                for path in files
                if path.name in recorded
            },
            latency=percentiles(latencies),
        )


def interleaved_ingestion(
    backends: list[str], names: list[str], rounds: int
) -> dict[str, list[float]]:
    """Returns each backend's ingestion seconds of the named files, one figure per round, the
    backends taking turns within a round so that both meet the same load on a shared machine;
    each round ingests into fresh temporary databases."""
    files = [path for path in files_of(docs_questions()) if path.name in names]
    seconds: dict[str, list[float]] = {backend: [] for backend in backends}
    # One parent folder made up front: the service points tempfile at its own spool folder,
    # which goes with each round's database.
    with tempfile.TemporaryDirectory(prefix="citelock-interleaved-") as parent:
        for round_number in range(rounds):
            for backend in backends:
                folder = Path(parent) / f"{backend}-{round_number}"
                folder.mkdir()
                with Citelock(
                    folder, embedding_backend=backend, enable_highlights=False
                ) as citelock:
                    collection = citelock.ensure_collection("interleaved", files)
                    seconds[backend].append(collection.ingested_seconds)
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument(
        "--backends", nargs="+", default=["onnx", "e5"], choices=[b.value for b in EmbeddingBackend]
    )
    parser.add_argument("--every", type=int, default=1, help="ask every Nth question")
    parser.add_argument("--data-dir", type=Path, help="keep each backend's database here")
    parser.add_argument("--reingest", action="store_true", help="empty --data-dir first")
    parser.add_argument(
        "--files", nargs="+", help="only these of the set's files (names) and their questions"
    )
    parser.add_argument(
        "--interleave",
        nargs="+",
        metavar="NAME",
        help="also time these files' ingestion with the backends taking turns",
    )
    parser.add_argument("--rounds", type=int, default=2, help="turns of --interleave")
    parser.add_argument(
        "--kept-figures",
        action="store_true",
        help="report the figures a run left in --data-dir instead of measuring again",
    )
    parser.add_argument("--output", type=Path, default=REPOSITORY / "docs" / "benchmarks.md")
    args = parser.parse_args()
    questions = every_nth(docs_questions(), args.every)
    results: dict[str, Measured] = {}
    for backend in args.backends:
        folder = args.data_dir / backend if args.data_dir else None
        kept = folder / MEASURED if folder else None
        if args.kept_figures and kept is not None and kept.exists():
            results[backend] = Measured.load(kept)
            continue
        results[backend] = measure(
            backend, folder, questions, reingest=args.reingest, only=set(args.files or ())
        )
        if kept is not None:
            results[backend].save(kept)

    # Compared over what every backend has: all of it, unless a run was cut short.
    common_files = set.intersection(*(set(result.files) for result in results.values()))
    first = next(iter(results.values()))
    common_questions = [
        question
        for question in first.ranks[f"{SETTINGS[-1]}/{MODES[0]}"]
        if all(
            question in result.ranks[f"{SETTINGS[-1]}/{MODES[0]}"] for result in results.values()
        )
    ]
    whole = len(common_questions) == len(questions)
    # A collection that lacks documents has fewer to confuse a question with.
    settings = SETTINGS if whole else SETTINGS[-1:]
    quality_rows, cost_rows = [], []
    baseline_seconds = 0.0
    for backend, result in results.items():
        for setting in settings:
            for mode in MODES:
                by_question = result.ranks[f"{setting}/{mode}"]
                ranks = [by_question[question] for question in common_questions]
                cells = [f"{hit_at(ranks, k):.3f}" for k in KS] + [f"{mrr(ranks, TOP_K):.3f}"]
                quality_rows.append([backend, result.model, setting, mode, *cells])
        pages, chunks, seconds = (
            sum(result.files[name][i] for name in common_files) for i in range(3)
        )
        baseline_seconds = baseline_seconds or seconds
        p50, p95, _ = result.latency
        cost_rows.append(
            [backend, result.model, len(common_files), pages, chunks, f"{seconds:.0f}",
             f"{pages / seconds:.2f}" if seconds else "-",
             f"{seconds / baseline_seconds:.2f}x" if baseline_seconds else "-",
             f"{p50:.1f}", f"{p95:.1f}"]
        )  # fmt: skip
    scope = (
        f"{len(common_questions)} of bench/data/questions_docs.jsonl's questions over its 26 "
        "documents"
        if whole
        else f"the {len(common_questions)} questions on {len(common_files)} of its 26 documents, "
        "own document only: a collection missing documents has fewer to confuse a question with"
    )
    command = (
        "python bench/embedding_models.py"
        + (f" --backends {' '.join(args.backends)}" if args.backends != ["onnx", "e5"] else "")
        + (f" --every {args.every}" if args.every > 1 else "")
        + (f" --files {' '.join(args.files)}" if args.files else "")
        + (f" --interleave {' '.join(args.interleave)}" if args.interleave else "")
    )
    interleaved = interleaved_text(args)
    text = "\n".join(
        [
            f"The docs set ({scope}) ingested and asked once per EMBEDDING_BACKEND, everything "
            f"else at its default: page hit@k and MRR@10 of POST /api/v1/query (top_k {TOP_K}), "
            + ("over the whole collection and " if whole else "")
            + "restricted to the question's own document, with "
            "`hybrid` search (the default) and `vector`. A hit at k: one of the top k chunks "
            "is from the question's document and its pages hold a gold page.",
            "",
            markdown_table(
                ["backend", "model", "setting", "search", "hit@1", "hit@3", "hit@5", "MRR@10"],
                quality_rows,
                numeric_from=4,
            ),
            "",
            "Ingestion (each file uploaded and ingested in its request, one after the other: "
            "extract, chunk, embed, store) and query embedding (one question embedded alone, "
            f"as the query path does, after {WARM_UP_QUERIES} warm-up questions):",
            "",
            markdown_table(
                [
                    "backend",
                    "model",
                    "files",
                    "pages",
                    "chunks",
                    "seconds",
                    "pages/s",
                    f"time vs {args.backends[0]}",
                    "query embed p50 ms",
                    "p95 ms",
                ],
                cost_rows,
                numeric_from=2,
            ),
            "",
            *interleaved,
            f"A model replaces the default only if it wins on hit@5 with an ingestion at most "
            f"{INGESTION_LIMIT}x as long.",
            "",
            machine_summary(shared=True),
            "",
            f"Reproduce: `pip install -e '.[e5]' && {command}` (add `--data-dir DIR` to keep "
            "each backend's database for the next run)",
        ]
    )
    print(text)
    write_section(args.output, TITLE, text)


def interleaved_text(args: argparse.Namespace) -> list[str]:
    """Returns the paragraph and table of --interleave's turns, or nothing without it."""
    if not args.interleave:
        return []
    seconds = interleaved_ingestion(args.backends, args.interleave, args.rounds)
    baseline = sum(seconds[args.backends[0]])
    rows = [
        [backend, *(f"{value:.1f}" for value in values), f"{sum(values) / baseline:.2f}x"]
        for backend, values in seconds.items()
    ]
    rounds = [f"round {number} s" for number in range(1, args.rounds + 1)]
    return [
        f"The same files' ingestion with the backends taking turns ({', '.join(args.interleave)};"
        " each round a fresh database per backend), so that both meet the same load:",
        "",
        markdown_table(["backend", *rounds, f"time vs {args.backends[0]}"], rows, numeric_from=1),
        "",
    ]


if __name__ == "__main__":
    main()
