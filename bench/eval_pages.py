"""Page-level retrieval: does a gold page come back? citelock beside the ten-line LangChain
pipeline, on FinanceBench's filings and on bench/data's questions over papers, manuals and 10-Qs.

    pip install -e '.[bench]'
    python bench/eval_pages.py [--sets financebench docs] [--every N] [--data-dir DIR]
        [--reingest] [--database-url URL] [--output docs/benchmarks.md]

Citelock is asked through POST /api/v1/query (top_k 10, search "vector" and "hybrid",
settings otherwise the defaults) in this process (bench/evalkit.py). The peer is what a user
writes in ten lines: PyMuPDFLoader, RecursiveCharacterTextSplitter(chunk_size=1000,
chunk_overlap=200), the same all-MiniLM-L6-v2 (bench/peer.py's ModelEmbeddings over
citelock's loaded model), and an exact cosine search: its chunk vectors are held in memory
and every question scores all of them (numpy), so its ranking has no index error at all.

Sets: FinanceBench's 24 filings (29 questions, the dataset's evidence pages) and the 26
documents of bench/data/questions_docs.jsonl (120 questions). Each set is one collection;
each question is asked over the whole collection and restricted to its own document
(citelock: filters.document_ids; the peer: that file's chunks only). A question is a hit at k
when one of the top k chunks is from its document and its pages contain a gold page (the
peer's chunks are each on one page, PyMuPDFLoader's 0-based `page` plus one).

Ingestion pages/s: the wall time of citelock's uploads against the peer's loader, splitter and
embedding over the same files. With --data-dir both sides' ingestion is kept (citelock's
database, the peer's vectors) and reused by the next run, with the figures of the run that
built it; --reingest starts the folder afresh. --every N asks every Nth question.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
from langchain_community.document_loaders import PyMuPDFLoader
from langchain_text_splitters import RecursiveCharacterTextSplitter

from bench.evalkit import (
    CORPUS,
    DOCS_COLLECTION,
    FINANCEBENCH,
    FINANCEBENCH_COLLECTION,
    MANUALS_COLLECTION,
    REPOSITORY,
    SEC10Q_COLLECTION,
    Citelock,
    Collection,
    IngestRecord,
    PageRange,
    Question,
    chunk_ranges,
    data_folder,
    docs_questions,
    every_nth,
    files_of,
    financebench_questions,
    financebench_style_questions,
    first_gold_rank,
    hit_at,
    markdown_table,
    mrr,
    write_results,
)
from bench.kit import machine_summary, timed, write_section
from bench.manuals import MANUALS, SOURCES, fetch_manuals
from bench.peer import PEER_CHUNK_OVERLAP, PEER_CHUNK_SIZE, WARM_UP_TEXTS, ModelEmbeddings

TITLE = "Page hit@k beside the peer"
TOP_K = 10
"""Chunks asked for: MRR@10 needs the top 10."""
KS = (1, 3, 5)
MODES = ("vector", "hybrid")
PEER = "peer"
SETTINGS = ("one collection", "own document")


@dataclass(frozen=True)
class EvalSet:
    name: str
    collection: str
    questions: list[Question]
    """All of the set's questions: its files are those they name, whatever --every keeps."""
    subsets: tuple[tuple[str, Any], ...]
    """(label, predicate) rows reported besides all of the set's questions."""
    searched: tuple[Path, ...] = ()
    """The collection's files when they are more than the questions name (searched by both
    sides in "one collection")."""


BY_QUESTION_TYPE = tuple(
    (kind, lambda q, kind=kind: q.kind == kind)
    for kind in ("domain-relevant", "novel-generated", "metrics-generated")
)
"""The rows of a set in FinanceBench's style, by its question type."""


def eval_sets() -> dict[str, EvalSet]:
    return {
        "financebench": EvalSet(
            "financebench", FINANCEBENCH_COLLECTION, financebench_questions(), ()
        ),
        **{
            name.replace("_", "-"): EvalSet(
                name.replace("_", "-"),
                FINANCEBENCH_COLLECTION,
                financebench_style_questions(name),
                BY_QUESTION_TYPE,
            )
            for name in (
                "financebench_more",
                "financebench_held",
                "financebench_blind",
                "financebench_blind2",
                "financebench_blind3",
                "financebench_blind4",
                "financebench_blind5",
                "financebench_blind6",
                "financebench_blind7",
                "financebench_blind8",
                "financebench_blind9",
            )
        },
        "sec10q-held": EvalSet(
            "sec10q-held",
            DOCS_COLLECTION,
            financebench_style_questions("sec10q_held", CORPUS),
            BY_QUESTION_TYPE,
            tuple(files_of(docs_questions())),
        ),
        **{
            name.replace("_", "-"): EvalSet(
                name.replace("_", "-"),
                SEC10Q_COLLECTION,
                financebench_style_questions(name, CORPUS),
                BY_QUESTION_TYPE,
            )
            for name in ("sec10q_blind", "sec10q_blind2", "sec10q_blind3")
        },
        **{
            name.replace("_", "-"): EvalSet(
                name.replace("_", "-"),
                DOCS_COLLECTION,
                docs_questions(name),
                (("in a table", lambda q: q.in_table),),
                tuple(files_of(docs_questions())),
            )
            for name in ("docs_held", "docs_blind", "docs_blind2", "docs_blind3")
        },
        **{
            name.replace("_", "-"): EvalSet(
                name.replace("_", "-"),
                MANUALS_COLLECTION,
                docs_questions(name, "manuals", MANUALS),
                (("in a table", lambda q: q.in_table),),
                tuple(MANUALS / manual.name for manual in SOURCES),
            )
            for name in (
                "manuals_blind",
                "manuals_blind2",
                "manuals_blind3",
                "manuals_blind4",
                "manuals_blind5",
                "manuals_blind6",
            )
        },
        "docs": EvalSet(
            "docs",
            DOCS_COLLECTION,
            docs_questions(),
            (
                ("in a table", lambda q: q.in_table),
                ("10-Q", lambda q: q.source == "10-Q"),
            ),
        ),
    }


@dataclass
class PeerIndex:
    """The peer's chunks of one set in memory: unit vectors, file names, 1-based pages."""

    vectors: np.ndarray
    files: np.ndarray
    pages: np.ndarray

    def ranked(
        self, query: np.ndarray, filename: str | None, depth: int = TOP_K
    ) -> list[PageRange]:
        """Returns the top `depth` chunks by exact cosine, within `filename` when given."""
        scores = self.vectors @ (query / np.linalg.norm(query))
        candidates = np.flatnonzero(self.files == filename) if filename else np.arange(len(scores))
        # Stable sort: ties keep the chunks' order, so the ranking is the same every run.
        best = candidates[np.argsort(-scores[candidates], kind="stable")[:depth]]
        return [(str(self.files[i]), int(self.pages[i]), int(self.pages[i])) for i in best]


def peer_index(
    files: Sequence[Path], collection: str, folder: Path, embeddings: ModelEmbeddings,
    record: IngestRecord,
) -> PeerIndex:  # fmt: skip
    """Returns the peer's index of `files`: each file's chunks loaded from `folder` when an
    earlier run kept them, else built (and timed) and kept, so an interrupted run resumes."""
    cache = folder / "peer" / collection
    cache.mkdir(parents=True, exist_ok=True)
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=PEER_CHUNK_SIZE, chunk_overlap=PEER_CHUNK_OVERLAP
    )
    vectors, file_names, pages = [], [], []
    for number, path in enumerate(files, 1):
        kept = cache / f"{path.name}.npz"
        if not kept.exists():
            load_ms, loaded = timed(PyMuPDFLoader(str(path)).load)
            split_ms, chunks = timed(splitter.split_documents, loaded)
            embed_ms, embedded = timed(
                embeddings.embed_documents, [chunk.page_content for chunk in chunks]
            )
            matrix = np.asarray(embedded, dtype=np.float32).reshape(-1, embeddings.embedder.dim)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            np.savez(
                kept,
                vectors=matrix,
                pages=np.array([chunk.metadata["page"] + 1 for chunk in chunks], dtype=np.int32),
            )
            seconds = (load_ms + split_ms + embed_ms) / 1000
            record.note(
                PEER, collection, path.name,
                {"pages": len(loaded), "chunks": len(chunks), "seconds": seconds,
                 "load": load_ms / 1000, "split": split_ms / 1000, "embed": embed_ms / 1000},
            )  # fmt: skip
            print(
                f"[peer {collection} {number}/{len(files)}] {path.name}: {len(loaded)} pages, "
                f"{len(chunks)} chunks, {seconds:.1f}s",
                flush=True,
            )
        stored = np.load(kept)
        vectors.append(stored["vectors"])
        pages.append(stored["pages"])
        file_names += [path.name] * len(stored["pages"])
    return PeerIndex(np.concatenate(vectors), np.array(file_names), np.concatenate(pages))


Ranks = dict[str, dict[str, list[int | None]]]
"""First gold rank per question, by setting and system, in the order of the questions."""


def ask_all(
    citelock: Citelock, collection: Collection, peer: PeerIndex, questions: Sequence[Question],
    embeddings: ModelEmbeddings,
) -> Ranks:  # fmt: skip
    """Returns every question's first gold rank in each setting, for each system."""
    ranks: Ranks = {setting: {system: [] for system in (*MODES, PEER)} for setting in SETTINGS}
    started = time.perf_counter()
    for number, question in enumerate(questions, 1):
        query_vector = np.asarray(embeddings.embed_query(question.question), dtype=np.float32)
        for setting in SETTINGS:
            own = setting == "own document"
            for mode in MODES:
                response = citelock.query(
                    question.question, collection.name, TOP_K,
                    document_ids=[collection.ids[question.filename]] if own else (),
                    search=mode,
                )  # fmt: skip
                ranks[setting][mode].append(first_gold_rank(chunk_ranges(response), question))
            found = peer.ranked(query_vector, question.filename if own else None)
            ranks[setting][PEER].append(first_gold_rank(found, question))
        if number % 20 == 0 or number == len(questions):
            print(
                f"asked {number}/{len(questions)}, {time.perf_counter() - started:.0f}s", flush=True
            )
    return ranks


def figures(ranks: Sequence[int | None]) -> dict[str, float]:
    values = {f"hit@{k}": hit_at(ranks, k) for k in KS}
    values["MRR@10"] = mrr(ranks, TOP_K)
    return values


def points(difference: float) -> str:
    """Returns a difference of shares in signed points, with no "-0.0"."""
    rounded = round(100 * difference, 1)
    return f"{rounded + 0.0:+.1f}"


def system_label(system: str) -> str:
    return "peer (LangChain, exact)" if system == PEER else f"citelock {system}"


def figure_rows(eval_set: EvalSet, questions: Sequence[Question], ranks: Ranks) -> list[list[str]]:
    """Returns the table's rows: per subset and setting, the peer's figures, then each of
    citelock's with its difference to the peer in points."""
    rows = []
    subsets = (("all", lambda q: True), *eval_set.subsets)
    for label, keep in subsets:
        kept = [i for i, question in enumerate(questions) if keep(question)]
        for setting in SETTINGS:
            peer = figures([ranks[setting][PEER][i] for i in kept])
            for system in (PEER, *MODES):
                mine = figures([ranks[setting][system][i] for i in kept])
                cells = [
                    f"{value:.3f}"
                    if system == PEER
                    else f"{value:.3f} ({points(value - peer[name])})"
                    for name, value in mine.items()
                ]
                rows.append([label, setting, system_label(system), str(len(kept)), *cells])
    return rows


def ingestion_rows(
    eval_set: EvalSet, collection: Collection, record: IngestRecord, files: Sequence[Path]
) -> list[list[str]]:
    peer = record.totals(PEER, eval_set.collection, [path.name for path in files])
    rows = []
    for side, pages, chunks, seconds in (
        ("citelock (upload: extract, chunk, embed, store)", collection.ingested_pages,
         collection.chunks, collection.ingested_seconds),
        ("peer (load, split, embed)", int(peer.get("pages", 0)), int(peer.get("chunks", 0)),
         peer.get("seconds", 0.0)),
    ):  # fmt: skip
        rows.append(
            [eval_set.name, side, str(len(files)), str(pages), str(chunks), f"{seconds:.0f}",
             f"{pages / seconds:.2f}" if seconds else "-"]
        )  # fmt: skip
    return rows


def command_line(args: argparse.Namespace) -> str:
    command = ["python bench/eval_pages.py"]
    if sorted(args.sets) != sorted(eval_sets()):
        command += ["--sets", *args.sets]
    if args.every > 1:
        command += ["--every", str(args.every)]
    return " ".join(command)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sets", nargs="+", choices=tuple(eval_sets()),
                        default=list(eval_sets()))  # fmt: skip
    parser.add_argument("--every", type=int, default=1, help="ask every Nth question")
    parser.add_argument("--data-dir", type=Path, help="keep the ingested sets here and reuse them")
    parser.add_argument("--reingest", action="store_true", help="empty --data-dir first")
    parser.add_argument("--database-url", default="", help="a server instead of the embedded one")
    parser.add_argument("--output", type=Path, default=REPOSITORY / "docs" / "benchmarks.md")
    args = parser.parse_args()
    started = time.perf_counter()
    sets = eval_sets()
    figure_table, ingest_table, per_question, notes = [], [], [], []
    ingest_seconds = query_seconds = 0.0
    reported: set[str] = set()
    with (
        data_folder(args.data_dir, args.reingest) as folder,
        Citelock(
            folder,
            args.database_url,
            enable_highlights=False,  # evidence spans are not scored here
        ) as citelock,
    ):
        embeddings = ModelEmbeddings(citelock.embedder)
        embeddings.embed_documents(["warming the model up"] * WARM_UP_TEXTS)
        if any(name.startswith("manuals") for name in args.sets):
            fetch_manuals()
        for name in args.sets:
            eval_set = sets[name]
            files = list(eval_set.searched) or files_of(eval_set.questions)
            phase = time.perf_counter()
            collection = citelock.ensure_collection(eval_set.collection, files)
            peer = peer_index(files, eval_set.collection, folder, embeddings, citelock.record)
            ingest_seconds += time.perf_counter() - phase
            questions = every_nth(eval_set.questions, args.every)
            phase = time.perf_counter()
            ranks = ask_all(citelock, collection, peer, questions, embeddings)
            query_seconds += time.perf_counter() - phase
            rows = figure_rows(eval_set, questions, ranks)
            figure_table += [[name, *row] for row in rows]
            # A set over a collection already reported shares its ingestion.
            if eval_set.collection not in reported:
                reported.add(eval_set.collection)
                ingest_table += ingestion_rows(eval_set, collection, citelock.record, files)
            print(markdown_table(FIGURE_HEADER, figure_table, numeric_from=4), flush=True)
            notes.append(
                f"{name}: {len(questions)} of {len(eval_set.questions)} questions over "
                f"{len(files)} documents ({collection.pages:,} pages) in one collection; "
                f"{collection.ingested_now} documents ingested by this run."
            )
            for i, question in enumerate(questions):
                per_question.append(
                    {"set": name, "id": question.id, "file": question.filename,
                     "gold_pages": sorted(question.gold_pages),
                     **({"kind": question.kind, "in_table": question.in_table}
                        if question.kind else {}),
                     "rank": {setting: {system: ranks[setting][system][i]
                                        for system in (*MODES, PEER)}
                              for setting in SETTINGS}}
                )  # fmt: skip
    elapsed = time.perf_counter() - started
    write_results("eval_pages", {"command": command_line(args), "top_k": TOP_K,
                                 "questions": per_question})  # fmt: skip
    text = "\n".join(
        [
            "Does a gold page come back? Citelock's POST /api/v1/query (top_k "
            f"{TOP_K}, default settings, search `vector` and `hybrid`) beside the ten-line "
            "LangChain pipeline: PyMuPDFLoader, RecursiveCharacterTextSplitter(chunk_size="
            f"{PEER_CHUNK_SIZE}, chunk_overlap={PEER_CHUNK_OVERLAP}), the same "
            "all-MiniLM-L6-v2, exact cosine over all its chunk vectors (numpy in memory: no "
            "index error). A hit at k: one of the top k chunks is from the question's document "
            "and its pages hold a gold page; MRR@10: 1/rank of the first such chunk, 0 when "
            "none is in the top 10. Citelock's cells give, in brackets, its difference to the "
            'peer in points. "one collection": all of the set\'s documents searched at once; '
            '"own document": restricted to the question\'s document (citelock: '
            "`filters.document_ids`; the peer: that file's chunks). Citelock returns fewer "
            "than 10 chunks when fewer pass its similarity floor; the peer always returns 10.",
            "",
            f"Sets: financebench = `../{FINANCEBENCH.relative_to(REPOSITORY.parent)}` "
            "(questions.jsonl, the dataset's evidence pages); financebench-more = "
            "`bench/data/financebench_more.jsonl`, 45 questions in FinanceBench's style over "
            "the same filings, written blind (by question type); financebench-held = "
            "`bench/data/financebench_held.jsonl`, 30 more written blind in session 19 and "
            "kept from tuning; sec10q-held = `bench/data/sec10q_held.jsonl`, 30 in the same "
            "style over 18 of docugami's 10-Qs (the docs collection), written blind in session "
            "20 and kept from tuning; sec10q-blind = `bench/data/sec10q_blind.jsonl`, 30 in the "
            "same style over all 20 of docugami's 10-Qs (a collection of their own), written "
            "blind in session 26; sec10q-blind2 = `bench/data/sec10q_blind2.jsonl`, 30 more "
            "over the same 20, written blind in session 28; sec10q-blind3 = "
            "`bench/data/sec10q_blind3.jsonl`, 30 more over the same 20, written blind in "
            "session 38; docs-held = "
            "`bench/data/docs_held.jsonl`, 30 over the "
            "papers and manuals, written blind in session 21 and kept from tuning; "
            "financebench-blind and docs-blind = `bench/data/financebench_blind.jsonl` (24) and "
            "`bench/data/docs_blind.jsonl` (24), written blind in session 23; financebench-blind2 "
            "and docs-blind2 = `bench/data/financebench_blind2.jsonl` (24) and "
            "`bench/data/docs_blind2.jsonl` (32), written blind in session 25; docs-blind3 = "
            "`bench/data/docs_blind3.jsonl` (20), written blind in session 40; "
            "financebench-blind3 = `bench/data/financebench_blind3.jsonl` (24), written blind in "
            "session 27; financebench-blind4 = `bench/data/financebench_blind4.jsonl` (24), "
            "written blind in session 31; financebench-blind5 = "
            "`bench/data/financebench_blind5.jsonl` (24), written blind in session 33; "
            "financebench-blind6 = `bench/data/financebench_blind6.jsonl` (24), written blind in "
            "session 34; financebench-blind7 = `bench/data/financebench_blind7.jsonl` (20), "
            "written blind in session 35; financebench-blind8 = "
            "`bench/data/financebench_blind8.jsonl` (20), written blind in session 36; "
            "financebench-blind9 = `bench/data/financebench_blind9.jsonl` (20), written blind in "
            "session 37; manuals-blind = `bench/data/manuals_blind.jsonl` (25) and "
            "manuals-blind2 = `bench/data/manuals_blind2.jsonl` (24), written blind in "
            "session 46 over nine manuals no other set asks about, manuals-blind3 = "
            "`bench/data/manuals_blind3.jsonl` (35), written blind in session 48 over seven "
            "more, manuals-blind4 = `bench/data/manuals_blind4.jsonl` (35), written blind "
            "in session 49 over five more, manuals-blind5 = "
            "`bench/data/manuals_blind5.jsonl` (35), written blind in session 50 over five "
            "more, and manuals-blind6 = `bench/data/manuals_blind6.jsonl` (35), written blind "
            "in session 54 over five more, one collection (bench/manuals.py fetches them "
            "from Debian's documentation packages: the R language definition, FAQ, "
            "installation and data import guides, "
            "GLPK's reference and its MathProg reference, the manuals of gnuplot and "
            "Asymptote, the Debian Reference; a history of Debian, Debian's packaging "
            "tutorial (slides), the paper introducing CVS, SuiteSparse's KLU guide, "
            "SystemTap's language reference, Network UPS Tools' FAQ and blktrace's btt "
            "guide; BoolNet's vignette, bash's man page, KiNG's manual, the kinemage format's "
            "specification and the Linux kernel's coding style; xcolor's documentation, pscl's "
            "paper on count regression, a TUGboat article on widows, LilyPond's release notes "
            "and its essay on engraving; LaTeX's font selection guide, nauty and Traces' "
            "user's guide, Camlidl's manual, Gutenprint's user's manual and the FASTA "
            "package's guide); docs = "
            "`bench/data/questions_docs.jsonl` over its 8 papers and manuals and 18 docugami "
            '10-Qs ("in a table": `in_table` true; "10-Q": the docugami questions).',
            "",
            markdown_table(FIGURE_HEADER, figure_table, numeric_from=4),
            "",
            "Ingestion of the same files, one after the other (citelock: the wall time of "
            "each upload, ingested in its request; the peer: loader, splitter and embedding, "
            "nothing stored):",
            "",
            markdown_table(
                ["set", "side", "files", "pages", "chunks", "seconds", "pages/s"],
                ingest_table,
                numeric_from=2,
            ),
            "",
            *[f"- {note}" for note in notes],
            f"- This run: {elapsed:.0f} s in all, {ingest_seconds:.0f} s of it ingesting or "
            f"loading the kept sets, {query_seconds:.0f} s asking. Per-question ranks: "
            "`bench/results/eval_pages.json`.",
            "",
            machine_summary() + " The machine is shared with other work, so times are noisy.",
            "",
            f"Reproduce: `pip install -e '.[bench]' && {command_line(args)}` "
            "(add `--data-dir DIR` to keep the ingested sets for the next run)",
        ]
    )
    print(text)
    write_section(args.output, TITLE, text)


FIGURE_HEADER = ["set", "questions", "setting", "system", "n", "hit@1", "hit@3", "hit@5", "MRR@10"]


if __name__ == "__main__":
    main()
