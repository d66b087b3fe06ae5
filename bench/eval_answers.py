"""Answer quality: does citelock's answer state the gold fact, cite a gold page, and stay silent
when nothing answers?

    python bench/eval_answers.py [--every N] [--data-dir DIR] [--reingest] [--database-url URL]
        [--output docs/benchmarks.md]

Every question goes to POST /api/v1/query with top_k 5 and the default settings otherwise
(bench/evalkit.py drives the service in this process): bench/data/questions_docs.jsonl's 120
questions over their 26 documents in one collection, FinanceBench's 29 over its 24 filings in
another (and once more restricted to the question's own filing),
bench/data/metric_questions.jsonl's 10 (a metric asked of one of those filings, the computed
figure its gold fact) over the filings' collection, and bench/data/offtopic.jsonl's 47 over the
documents' collection. The collections are bench/eval_pages.py's: give both the same --data-dir
and neither ingests twice.

- answer-hit: an answer_pattern matches the answer (whitespace collapsed, case ignored). For
  FinanceBench's `computed` questions no sentence of the filing states the answer and the
  patterns match the line items it is computed from; they are counted on their own row.
- citation-hit: one of the answer's citations is in the question's document and its pages
  hold a gold page (`citations` when the response has them, else the `sources` strings).
- answered: a status other than no_matches, no_answer and empty_database, and a non-empty
  answer. confident-wrong: of the answered questions, the share answered with confidence
  >= 0.5 whose answer states no gold fact. Off-topic answered: the share of off-topic
  questions answered.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.evalkit import (
    CORPUS,
    DOCS_COLLECTION,
    FINANCEBENCH_COLLECTION,
    MANUALS_COLLECTION,
    REPOSITORY,
    SEC10Q_COLLECTION,
    Citelock,
    Collection,
    answered,
    cited_ranges,
    data_folder,
    docs_questions,
    every_nth,
    files_of,
    financebench_questions,
    financebench_style_questions,
    first_gold_rank,
    markdown_table,
    metric_questions,
    offtopic_questions,
    percent,
    share,
    states_fact,
    write_results,
)
from bench.evalkit import Question as Answerable
from bench.kit import machine_summary, write_section
from bench.manuals import MANUALS, fetch_manuals

TITLE = "Answer quality"
HISTORY = REPOSITORY / "bench" / "results" / "eval_answers_history.json"
"""One line of figures per labelled run (--label), oldest first: what each change did."""
TOP_K = 5
CONFIDENT = 0.5
HIGH_CONFIDENCE = 0.7
"""The issue's calibration goal: of the answers given with at least this, 85% right."""
CONFIDENCE_BUCKETS = ((0.0, 0.3), (0.3, 0.5), (0.5, 0.7), (0.7, 1.0))
KINDS = ("table", "list", "number", "date", "definition", "howto", "fact")
OWN_FILING = "financebench, own filing"
METRICS = "metrics"
"""bench/data/metric_questions.jsonl's questions, asked over FinanceBench's filings."""
MORE = "financebench-style"
"""bench/data/financebench_more.jsonl's questions, asked over FinanceBench's filings."""
MORE_OWN = "financebench-style, own filing"
HELD = "financebench-held"
"""bench/data/financebench_held.jsonl's questions, kept from tuning, over the same filings."""
HELD_OWN = "financebench-held, own filing"
BLIND = "financebench-blind"
"""bench/data/financebench_blind.jsonl's questions, written blind in session 23 and measured
before any change read them, over the same filings."""
BLIND_OWN = "financebench-blind, own filing"
BLIND2 = "financebench-blind 2"
"""bench/data/financebench_blind2.jsonl's questions, written blind in session 25, over the same
filings."""
BLIND2_OWN = "financebench-blind 2, own filing"
BLIND3 = "financebench-blind 3"
"""bench/data/financebench_blind3.jsonl's questions, written blind in session 27, over the same
filings."""
BLIND3_OWN = "financebench-blind 3, own filing"
BLIND4 = "financebench-blind 4"
"""bench/data/financebench_blind4.jsonl's questions, written blind in session 31, over the same
filings."""
BLIND4_OWN = "financebench-blind 4, own filing"
BLIND5 = "financebench-blind 5"
"""bench/data/financebench_blind5.jsonl's questions, written blind in session 33, over the same
filings: a third of them metrics worked out from the statements."""
BLIND5_OWN = "financebench-blind 5, own filing"
BLIND6 = "financebench-blind 6"
"""bench/data/financebench_blind6.jsonl's questions, written blind in session 34, over the same
filings."""
BLIND6_OWN = "financebench-blind 6, own filing"
BLIND7 = "financebench-blind 7"
"""bench/data/financebench_blind7.jsonl's questions, written blind in session 35, over the same
filings."""
BLIND7_OWN = "financebench-blind 7, own filing"
BLIND8 = "financebench-blind 8"
"""bench/data/financebench_blind8.jsonl's questions, written blind in session 36, over the same
filings."""
BLIND8_OWN = "financebench-blind 8, own filing"
BLIND9 = "financebench-blind 9"
"""bench/data/financebench_blind9.jsonl's questions, written blind in session 37, over the same
filings."""
BLIND9_OWN = "financebench-blind 9, own filing"
STYLE_SETS = (
    ("financebench_more", MORE, MORE_OWN),
    ("financebench_held", HELD, HELD_OWN),
    ("financebench_blind", BLIND, BLIND_OWN),
    ("financebench_blind2", BLIND2, BLIND2_OWN),
    ("financebench_blind3", BLIND3, BLIND3_OWN),
    ("financebench_blind4", BLIND4, BLIND4_OWN),
    ("financebench_blind5", BLIND5, BLIND5_OWN),
    ("financebench_blind6", BLIND6, BLIND6_OWN),
    ("financebench_blind7", BLIND7, BLIND7_OWN),
    ("financebench_blind8", BLIND8, BLIND8_OWN),
    ("financebench_blind9", BLIND9, BLIND9_OWN),
)
"""(file in bench/data, source in one collection, source within the question's filing)."""
SEC_HELD = "10-Q held"
"""bench/data/sec10q_held.jsonl's questions, kept from tuning, over the documents' collection
(whose 10-Qs they ask about)."""
SEC_HELD_OWN = "10-Q held, own filing"
SEC_BLIND_SETS = (
    ("sec10q_blind", "10-Q blind", "10-Q blind, own filing"),
    ("sec10q_blind2", "10-Q blind 2", "10-Q blind 2, own filing"),
    ("sec10q_blind3", "10-Q blind 3", "10-Q blind 3, own filing"),
)
"""(file in bench/data, source in one collection, source within the question's filing): the
questions written blind in sessions 26, 28 and 38 over all 20 of docugami's 10-Qs (their own
collection: the documents' holds 18)."""
STYLED = (
    *(source for _, one, own in STYLE_SETS for source in (one, own)),
    SEC_HELD,
    SEC_HELD_OWN,
    *(source for _, one, own in SEC_BLIND_SETS for source in (one, own)),
)
DOCS_HELD = "docs held"
"""bench/data/docs_held.jsonl's questions over the papers and manuals, kept from tuning."""
DOCS_BLIND = "docs blind"
"""bench/data/docs_blind.jsonl's questions over the papers and manuals, written blind in
session 23."""
DOCS_BLIND2 = "docs blind 2"
"""bench/data/docs_blind2.jsonl's questions over the papers and manuals, written blind in
session 25."""
DOCS_BLIND3 = "docs blind 3"
"""bench/data/docs_blind3.jsonl's questions over the papers and manuals, written blind in
session 40."""
DOCS_APART = (
    (DOCS_HELD, "docs_held"),
    (DOCS_BLIND, "docs_blind"),
    (DOCS_BLIND2, "docs_blind2"),
    (DOCS_BLIND3, "docs_blind3"),
)
"""(source, file in bench/data) of the question sets over the papers and manuals kept apart."""
MANUALS_APART = (
    ("manuals blind", "manuals_blind"),
    ("manuals blind 2", "manuals_blind2"),
    ("manuals blind 3", "manuals_blind3"),
    ("manuals blind 4", "manuals_blind4"),
    ("manuals blind 5", "manuals_blind5"),
    ("manuals blind 6", "manuals_blind6"),
)
"""(source, file in bench/data) of the questions written blind in sessions 46, 48, 49, 50 and 54
over the manuals no other set asks about (bench/manuals.py), asked over their own collection."""
APART = (
    OWN_FILING,
    METRICS,
    *STYLED,
    *(source for source, _ in DOCS_APART),
    *(source for source, _ in MANUALS_APART),
)
"""Sources kept out of the "all" row, which stays the one the history compares."""
SETS = ("docs", "financebench")


@dataclass
class Outcome:
    """One question asked once, and how the answer did."""

    id: str
    source: str
    """docs, 10-Q, financebench (one collection), financebench, own filing, or off-topic."""
    kind: str
    computed: bool
    status: str
    answer: str
    confidence: float
    answered: bool
    answer_hit: bool | None
    """None for off-topic questions, which have no gold fact."""
    citation_hit: bool | None
    timings_ms: dict[str, float]
    """What each stage took, as the service reports it."""
    result_hit: bool | None = None
    """For a computed question, whether the answer states the computed figure itself."""

    @property
    def counted(self) -> bool:
        """Whether answer-hit here means stating the gold fact itself (not a line item)."""
        return self.answer_hit is not None and not self.computed


def judge(question: Answerable, source: str, response: dict[str, Any]) -> Outcome:
    gave = answered(response)
    citations = cited_ranges(response)
    return Outcome(
        id=question.id,
        source=source,
        kind=question.kind,
        computed=question.computed,
        status=response["status"],
        answer=response["answer"],
        confidence=response["confidence"],
        answered=gave,
        answer_hit=gave and states_fact(response["answer"], question.answer_patterns),
        citation_hit=gave and first_gold_rank(citations, question, len(citations)) is not None,
        timings_ms=response["timings_ms"],
        result_hit=gave and states_fact(response["answer"], question.result_patterns)
        if question.computed
        else None,
    )


def computed_results(outcomes: Sequence[Outcome]) -> str:
    """Returns how many of the computed questions (FinanceBench's, and bench/data's in its
    style) the answer states the figure of, in one collection and within the question's own
    filing."""
    parts = []
    for source in ("financebench", OWN_FILING, *STYLED):
        computed = [o for o in outcomes if o.source == source and o.computed]
        if computed:
            stated = sum(bool(o.result_hit) for o in computed)
            parts.append(f"{stated} of {len(computed)} ({source})")
    if not parts:
        return ""
    return (
        "Computed questions whose answer states the computed figure itself "
        '(`result_patterns`: "0.66", not a line item): ' + ", ".join(parts) + "."
    )


def offtopic(identifier: str, response: dict[str, Any]) -> Outcome:
    return Outcome(
        id=identifier,
        source="off-topic",
        kind="",
        computed=False,
        status=response["status"],
        answer=response["answer"],
        confidence=response["confidence"],
        answered=answered(response),
        answer_hit=None,
        citation_hit=None,
        timings_ms=response["timings_ms"],
    )


STAGES = ("embed", "search", "assemble", "answer")
"""The stages of a query timed here, in `timings_ms`'s names (the store of the response and
the HTTP layer aside)."""


def stage_times(outcomes: Sequence[Outcome]) -> str:
    """Returns what each stage took over every question asked: real questions name companies,
    years and terms that synthetic ones (bench/query.py) do not (the machine's load counts:
    compare runs of one session)."""
    figures = ", ".join(
        f"{stage} p50 {np.percentile(times, 50):.0f} ms, p95 {np.percentile(times, 95):.0f} ms"
        for stage in STAGES
        for times in [[o.timings_ms.get(stage, 0.0) for o in outcomes]]
    )
    return (
        f"The stages' times (`timings_ms`: the query embedded, the chunks searched, ranked and "
        f"assembled, the answer's claim units scored and chosen), over the {len(outcomes)} "
        f"questions: {figures}."
    )


def ask_all(
    citelock: Citelock, sets: Sequence[str], every: int
) -> tuple[list[Outcome], dict[str, tuple[int, int]]]:
    """Returns every question's outcome, and the (documents, pages) of each collection."""
    outcomes = []
    sizes = {}
    started = time.perf_counter()
    if "docs" in sets:
        docs = docs_questions()
        collection = citelock.ensure_collection(DOCS_COLLECTION, files_of(docs))
        sizes[DOCS_COLLECTION] = (len(collection.ids), collection.pages)
        for question in every_nth(docs, every):
            response = citelock.query(question.question, DOCS_COLLECTION, TOP_K)
            outcomes.append(judge(question, question.source, response))
        for identifier, text in every_nth(offtopic_questions(), every):
            outcomes.append(offtopic(identifier, citelock.query(text, DOCS_COLLECTION, TOP_K)))
        for question in every_nth(financebench_style_questions("sec10q_held", CORPUS), every):
            outcomes += ask_both(citelock, question, collection, (SEC_HELD, SEC_HELD_OWN))
        for source, name in DOCS_APART:
            for question in every_nth(docs_questions(name, source), every):
                response = citelock.query(question.question, DOCS_COLLECTION, TOP_K)
                outcomes.append(judge(question, source, response))
        blind_10qs = {
            name: financebench_style_questions(name, CORPUS) for name, _, _ in SEC_BLIND_SETS
        }
        quarterlies = citelock.ensure_collection(
            SEC10Q_COLLECTION, files_of(blind_10qs["sec10q_blind"])
        )
        sizes[SEC10Q_COLLECTION] = (len(quarterlies.ids), quarterlies.pages)
        for name, source, own_source in SEC_BLIND_SETS:
            for question in every_nth(blind_10qs[name], every):
                outcomes += ask_both(citelock, question, quarterlies, (source, own_source))
        manuals = citelock.ensure_collection(MANUALS_COLLECTION, fetch_manuals())
        sizes[MANUALS_COLLECTION] = (len(manuals.ids), manuals.pages)
        for source, name in MANUALS_APART:
            for question in every_nth(docs_questions(name, source, MANUALS), every):
                response = citelock.query(question.question, MANUALS_COLLECTION, TOP_K)
                outcomes.append(judge(question, source, response))
    if "financebench" in sets:
        financebench = financebench_questions()
        filings = citelock.ensure_collection(FINANCEBENCH_COLLECTION, files_of(financebench))
        sizes[FINANCEBENCH_COLLECTION] = (len(filings.ids), filings.pages)
        for question in every_nth(financebench, every):
            outcomes += ask_both(citelock, question, filings, ("financebench", OWN_FILING))
        for question in every_nth(metric_questions(), every):
            response = citelock.query(question.question, FINANCEBENCH_COLLECTION, TOP_K)
            outcomes.append(judge(question, METRICS, response))
        for name, source, own_source in STYLE_SETS:
            for question in every_nth(financebench_style_questions(name), every):
                outcomes += ask_both(citelock, question, filings, (source, own_source))
    print(f"asked {len(outcomes)} questions, {time.perf_counter() - started:.0f}s", flush=True)
    return outcomes, sizes


def ask_both(
    citelock: Citelock, question: Answerable, collection: Collection, sources: tuple[str, str]
) -> list[Outcome]:
    """Returns the outcomes of `question` asked over the whole collection and within its own
    document, as the two `sources`."""
    whole = citelock.query(question.question, collection.name, TOP_K)
    own = citelock.query(
        question.question, collection.name, TOP_K, document_ids=[collection.ids[question.filename]]
    )
    return [judge(question, sources[0], whole), judge(question, sources[1], own)]


def figure_row(label: str, outcomes: Sequence[Outcome]) -> list[str]:
    """Returns n, answer-hit, citation-hit, answered, confident-wrong of `outcomes`."""
    gave = [o for o in outcomes if o.answered]
    return [
        label,
        str(len(outcomes)),
        percent(share(o.answer_hit is True for o in outcomes)),
        percent(share(o.citation_hit is True for o in outcomes)),
        percent(share(o.answered for o in outcomes)),
        percent(share(o.confidence >= CONFIDENT and not o.answer_hit for o in gave)),
    ]


FIGURE_HEADER = ["questions", "n", "answer-hit", "citation-hit", "answered", "confident-wrong"]


def select(outcomes: Sequence[Outcome], keep: Callable[[Outcome], bool]) -> list[Outcome]:
    return [outcome for outcome in outcomes if keep(outcome)]


def reliability_rows(outcomes: Sequence[Outcome]) -> list[list[str]]:
    """Returns, per confidence bucket of the answered questions, how many and the share right."""
    rows = []
    for low, high in CONFIDENCE_BUCKETS:
        last = high == CONFIDENCE_BUCKETS[-1][1]
        inside = [
            o for o in outcomes
            if o.answered and low <= o.confidence and (o.confidence < high or last)
        ]  # fmt: skip
        rows.append(
            [f"{low:.1f}-{high:.1f}", str(len(inside)),
             percent(share(bool(o.answer_hit) for o in inside))]
        )  # fmt: skip
    return rows


def headline(outcomes: Sequence[Outcome]) -> dict[str, float | None]:
    """Returns the goals' four figures: answer-hit, citation-hit and confident-wrong over the
    "all" row's questions, and the share of off-topic questions answered."""
    main = select(outcomes, lambda o: o.counted and o.source not in APART)
    off = select(outcomes, lambda o: o.source == "off-topic")
    gave = [o for o in main if o.answered]
    return {
        "answer_hit": share(o.answer_hit is True for o in main),
        "citation_hit": share(o.citation_hit is True for o in main),
        "confident_wrong": share(o.confidence >= CONFIDENT and not o.answer_hit for o in gave),
        "offtopic_answered": share(o.answered for o in off),
        "high_confidence_right": share(
            bool(o.answer_hit) for o in gave if o.confidence >= HIGH_CONFIDENCE
        ),
    }


def record(label: str, every: int, outcomes: Sequence[Outcome]) -> None:
    """Adds this run's headline figures under `label` to the history (replacing a run of the
    same label and sampling)."""
    runs = json.loads(HISTORY.read_text()) if HISTORY.exists() else []
    runs = [run for run in runs if (run["label"], run["every"]) != (label, every)]
    runs.append({"label": label, "every": every, **headline(outcomes)})
    HISTORY.parent.mkdir(parents=True, exist_ok=True)
    HISTORY.write_text(json.dumps(runs, indent=1) + "\n")


def history_rows() -> list[list[str]]:
    runs = json.loads(HISTORY.read_text()) if HISTORY.exists() else []
    return [
        [run["label"] + ("" if run["every"] <= 1 else f" (every {run['every']}th)"),
         percent(run["answer_hit"]), percent(run["citation_hit"]),
         percent(run["confident_wrong"]), percent(run["offtopic_answered"]),
         percent(run.get("high_confidence_right"))]
        for run in runs
    ]  # fmt: skip


HISTORY_HEADER = ["run", "answer-hit", "citation-hit", "confident-wrong", "off-topic answered",
                  "right at confidence >= 0.7"]  # fmt: skip


def section(
    outcomes: list[Outcome], sizes: dict[str, tuple[int, int]], sets: Sequence[str], every: int,
    elapsed: float,
) -> str:  # fmt: skip
    """Returns the markdown: figures by source and by kind, reliability, off-topic."""
    main = select(outcomes, lambda o: o.counted and o.source not in APART)
    by_source = [figure_row("all (docs + 10-Q + financebench stated)", main)]
    for source, label in (
        ("docs", "docs (papers, manuals, register)"),
        ("10-Q", "10-Q (docugami)"),
        ("financebench", "financebench, stated in the filing"),
    ):
        by_source.append(figure_row(label, [o for o in main if o.source == source]))
    by_source.append(
        figure_row(
            "financebench, computed (hit = quotes a line item)",
            select(outcomes, lambda o: o.source == "financebench" and o.computed),
        )
    )
    by_source.append(
        figure_row(
            "financebench, own filing, stated",
            select(outcomes, lambda o: o.source == OWN_FILING and not o.computed),
        )
    )
    by_source.append(
        figure_row(
            "financebench, own filing, computed (line item)",
            select(outcomes, lambda o: o.source == OWN_FILING and o.computed),
        )
    )
    by_source.append(
        figure_row(
            "metrics asked of the filings (bench/data; hit = states the figure)",
            select(outcomes, lambda o: o.source == METRICS),
        )
    )
    for source in STYLED:
        for computed, label in ((False, "stated"), (True, "computed (hit = quotes a line item)")):
            by_source.append(
                figure_row(
                    f"{source} (bench/data), {label}",
                    select(
                        outcomes, lambda o, s=source, c=computed: (o.source, o.computed) == (s, c)
                    ),
                )
            )
    for source, _ in DOCS_APART:
        by_source.append(
            figure_row(
                f"{source} (bench/data; papers and manuals)",
                [outcome for outcome in outcomes if outcome.source == source],
            )
        )
    for source, _ in MANUALS_APART:
        by_source.append(
            figure_row(
                f"{source} (bench/data; manuals no other set asks about)",
                [outcome for outcome in outcomes if outcome.source == source],
            )
        )
    by_kind = [
        figure_row(kind, [o for o in main if o.kind == kind])
        for kind in KINDS
        if any(o.kind == kind for o in main)
    ]
    off = select(outcomes, lambda o: o.source == "off-topic")
    off_answered = [o for o in off if o.answered]
    by_source = [row for row in by_source if row[1] != "0"]
    collections = []
    if DOCS_COLLECTION in sizes:
        files, pages = sizes[DOCS_COLLECTION]
        collections.append(
            f"the {files} documents of `bench/data/questions_docs.jsonl` ({pages:,} pages; "
            "the docs and 10-Q questions, the off-topic ones, `bench/data/docs_held.jsonl`'s, "
            "`bench/data/docs_blind.jsonl`'s, `bench/data/docs_blind2.jsonl`'s, "
            "`bench/data/docs_blind3.jsonl`'s and "
            "`bench/data/sec10q_held.jsonl`'s are asked "
            "over all of them, the last again restricted to the question's filing)"
        )
    if SEC10Q_COLLECTION in sizes:
        files, pages = sizes[SEC10Q_COLLECTION]
        collections.append(
            f"docugami's {files} 10-Qs ({pages:,} pages; `bench/data/sec10q_blind.jsonl`'s, "
            "`bench/data/sec10q_blind2.jsonl`'s and `bench/data/sec10q_blind3.jsonl`'s "
            "questions are asked over all of them, and again restricted to the question's "
            "filing)"
        )
    if MANUALS_COLLECTION in sizes:
        files, pages = sizes[MANUALS_COLLECTION]
        collections.append(
            f"the {files} manuals bench/manuals.py fetches from Debian's documentation "
            f"packages ({pages:,} pages; `bench/data/manuals_blind.jsonl`'s, "
            "`bench/data/manuals_blind2.jsonl`'s, `bench/data/manuals_blind3.jsonl`'s, "
            "`bench/data/manuals_blind4.jsonl`'s, `bench/data/manuals_blind5.jsonl`'s and "
            "`bench/data/manuals_blind6.jsonl`'s questions)"
        )
    if FINANCEBENCH_COLLECTION in sizes:
        files, pages = sizes[FINANCEBENCH_COLLECTION]
        collections.append(
            f"FinanceBench's {files} filings ({pages:,} pages; FinanceBench's questions and "
            "bench/data's financebench_more, financebench_held, financebench_blind, "
            "financebench_blind2, financebench_blind3, financebench_blind4, financebench_blind5, "
            "financebench_blind6, financebench_blind7, financebench_blind8 and "
            "financebench_blind9 are asked "
            "over all of them, and again restricted to the question's filing)"
        )
    asked = "every question" if every <= 1 else f"every {every}th question"
    command = "python bench/eval_answers.py"
    if sorted(sets) != sorted(SETS):
        command += " --sets " + " ".join(sets)
    if every > 1:
        command += f" --every {every}"
    return "\n".join(
        [
            f"Citelock's POST /api/v1/query, top_k {TOP_K}, default settings (extractive "
            f"answers), {asked}. Collections: " + "; ".join(collections) + ".",
            "",
            "answer-hit: an answer pattern matches the answer; citation-hit: a citation is on "
            "a gold page of the question's document; answered: status neither `no_matches`, "
            "`no_answer` nor `empty_database`, and a non-empty answer; confident-wrong: of "
            f"the answered, the share with confidence >= {CONFIDENT} whose answer states no "
            'gold fact. The "all" row and the tables by kind and of reliability count only '
            "questions whose gold fact is printed: FinanceBench's 17 `computed` questions "
            "(ratios no sentence states) are on rows of their own, where a hit means the "
            "answer quotes one of the line items the ratio is computed from.",
            "",
            markdown_table(FIGURE_HEADER, by_source),
            "",
            computed_results(outcomes),
            "",
            "By kind (docs and 10-Q questions):",
            "",
            markdown_table(["kind", *FIGURE_HEADER[1:]], by_kind),
            "",
            'Reliability: the answered questions of the "all" row by confidence, and the '
            "share of them that state the gold fact:",
            "",
            markdown_table(["confidence", "answered", "right"], reliability_rows(main)),
            "",
            stage_times(outcomes),
            "",
            f"Off-topic (`bench/data/offtopic.jsonl`, over the docs collection): "
            f"{len(off_answered)} of {len(off)} answered "
            f"({percent(share(o.answered for o in off))}); statuses: "
            + ", ".join(
                f"{status} {sum(o.status == status for o in off)}"
                for status in sorted({o.status for o in off})
            )
            + ".",
            "",
            "Feature by feature (`--label`; the goals: answer-hit >= 70%, citation-hit >= "
            "85%, confident-wrong <= 5%, off-topic answered <= 10%, right at confidence >= "
            "0.7 >= 85%):",
            "",
            markdown_table(HISTORY_HEADER, history_rows()),
            "",
            f"This run: {elapsed:.0f} s. Per question (id, status, answer, confidence, "
            "answer_hit, citation_hit): `bench/results/eval_answers.json`.",
            "",
            machine_summary() + " The machine is shared with other work.",
            "",
            f"Reproduce: `{command}` (add `--data-dir DIR`, the same as bench/eval_pages.py's, "
            "to reuse the ingested collections)",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(SETS))
    parser.add_argument("--every", type=int, default=1, help="ask every Nth question")
    parser.add_argument("--data-dir", type=Path, help="keep the ingested sets here and reuse them")
    parser.add_argument("--reingest", action="store_true", help="empty --data-dir first")
    parser.add_argument("--database-url", default="", help="a server instead of the embedded one")
    parser.add_argument("--output", type=Path, default=REPOSITORY / "docs" / "benchmarks.md")
    parser.add_argument("--label", help="add this run's figures to the history under LABEL")
    args = parser.parse_args()
    started = time.perf_counter()
    with (
        data_folder(args.data_dir, args.reingest) as folder,
        Citelock(folder, args.database_url) as citelock,
    ):
        outcomes, sizes = ask_all(citelock, args.sets, args.every)
    elapsed = time.perf_counter() - started
    write_results(
        "eval_answers",
        {"top_k": TOP_K, "sets": args.sets, "every": args.every,
         "questions": [
             {"id": o.id, "source": o.source, "kind": o.kind, "computed": o.computed,
             "result_hit": o.result_hit,
              "status": o.status, "answer": o.answer, "confidence": round(o.confidence, 4),
              "answer_hit": o.answer_hit, "citation_hit": o.citation_hit}
             for o in outcomes
         ]},
    )  # fmt: skip
    if args.label:
        record(args.label, args.every, outcomes)
    text = section(outcomes, sizes, args.sets, args.every, elapsed)
    print(text)
    write_section(args.output, TITLE, text)


if __name__ == "__main__":
    main()
