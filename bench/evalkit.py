"""What bench/eval_pages.py and bench/eval_answers.py share: the question files, citelock driven
through its HTTP interface in this process, ingested collections kept between runs, and the
hit, rank and table helpers.

citelock is reached only through `/api/v1` (a TestClient over `create_app`), so these
benchmarks keep working while the service's internals move. With `--data-dir DIR` the
embedded PostgreSQL lives in DIR/citelock and stays there between runs, with what each file's
ingestion took recorded in DIR/ingest.json; a file already stored in its collection is not
uploaded again, so a second run asks its questions at once. Both scripts use the same
collections, so they share one DIR.
"""

from __future__ import annotations

import json
import re
import shutil
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient

import app
from app.core.config import Settings
from app.main import create_app

REPOSITORY = Path(__file__).resolve().parents[1]
CORPUS = REPOSITORY.parent / "shared" / "corpus"
DATA = REPOSITORY / "bench" / "data"
RESULTS = REPOSITORY / "bench" / "results"
FINANCEBENCH = CORPUS / "eval" / "financebench_dev"
DOCS_COLLECTION = "eval-docs"
FINANCEBENCH_COLLECTION = "eval-financebench"
MANUALS_COLLECTION = "eval-manuals"
"""bench.manuals' sixteen manuals, for the manuals_blind sets' questions."""
SEC10Q_COLLECTION = "eval-sec10q"
"""All 20 of docugami's 10-Qs, for sec10q_blind's and sec10q_blind2's questions (the docs
collection holds 18)."""
INGEST_RECORD = "ingest.json"
NOT_ANSWERED = frozenset({"no_matches", "no_answer", "empty_database"})
"""Statuses under which the service gives no answer, whatever the answer field holds."""
SOURCE = re.compile(r"^(?P<name>.+), pp?\. (?P<first>\d+)(?:-(?P<last>\d+))?$")
"""A `sources` string: "name.pdf, p. 3" or "name.pdf, pp. 3-4"."""


@dataclass(frozen=True)
class Question:
    """One answerable question with its gold pages and the patterns of its gold fact."""

    id: str
    question: str
    path: Path
    """The PDF the answer is in."""
    gold_pages: frozenset[int]
    """1-based pages on which the answer is written."""
    answer_patterns: tuple[str, ...]
    source: str
    """"docs", "10-Q" or "financebench"."""
    kind: str = ""
    """table, list, number, date, definition, howto or fact; empty for FinanceBench."""
    in_table: bool = False
    computed: bool = False
    """FinanceBench: no sentence states the answer, the patterns match its line items."""
    result_patterns: tuple[str, ...] = ()
    """For a computed question, the patterns of the computed figure itself."""

    @property
    def filename(self) -> str:
        return self.path.name


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def docs_questions(
    name: str = "questions_docs", source: str = "docs", root: Path = CORPUS
) -> list[Question]:
    """Returns bench/data/`name`.jsonl's questions over the papers and manuals (`source`) and
    the 10-Qs ("10-Q"), their `file` under `root`: questions_docs' 120, docs_held's 30
    (session 21, written blind and kept from tuning), docs_blind's 24 (session 23, written
    blind), docs_blind2's 32 (session 25, written blind), docs_blind3's 20 (session 40,
    written blind), or manuals_blind's 25 and manuals_blind2's 24 (session 46),
    manuals_blind3's 35 (session 48), manuals_blind4's 35 (session 49), manuals_blind5's 35
    (session 50) and manuals_blind6's 35 (session 54) over bench.manuals' PDFs, written blind
    over manuals no set had asked about."""
    return [
        Question(
            id=row["id"],
            question=row["question"],
            path=root / row["file"],
            gold_pages=frozenset(row["gold_pages"]),
            answer_patterns=tuple(row["answer_patterns"]),
            source="10-Q" if "docugami_sec10q" in row["file"] else source,
            kind=row["kind"],
            in_table=row["in_table"],
        )
        for row in read_jsonl(DATA / f"{name}.jsonl")
    ]


def metric_questions() -> list[Question]:
    """Returns bench/data/metric_questions.jsonl's questions: a metric asked of one of
    FinanceBench's filings, the computed figure the gold fact (its patterns match it)."""
    return [
        Question(
            id=row["id"],
            question=row["question"],
            path=FINANCEBENCH / row["pdf"],
            gold_pages=frozenset(row["gold_pages"]),
            answer_patterns=tuple(row["answer_patterns"]),
            source="metrics",
        )
        for row in read_jsonl(DATA / "metric_questions.jsonl")
    ]


def financebench_questions() -> list[Question]:
    """Returns FinanceBench's 29 development questions, with bench/data's answer patterns."""
    facts = {row["financebench_id"]: row for row in read_jsonl(DATA / "financebench_facts.jsonl")}
    questions = []
    for row in read_jsonl(FINANCEBENCH / "questions.jsonl"):
        fact = facts[row["financebench_id"]]
        questions.append(
            Question(
                id=row["financebench_id"],
                question=row["question"],
                path=FINANCEBENCH / row["pdf"],
                gold_pages=frozenset(evidence["page"] for evidence in row["evidence"]),
                answer_patterns=tuple(fact["answer_patterns"]),
                source="financebench",
                computed=fact["computed"],
                result_patterns=tuple(fact.get("result_patterns", ())),
            )
        )
    return questions


def financebench_style_questions(
    name: str = "financebench_more", root: Path = FINANCEBENCH
) -> list[Question]:
    """Returns bench/data/`name`.jsonl's questions in FinanceBench's style, written blind
    (bench/data/README.md), their `pdf` under `root`: financebench_more's 45 (session 18) and
    financebench_held's 30 (session 19, kept from tuning) and financebench_blind's 24
    (session 23) over FinanceBench's filings,
    sec10q_held's 30 (session 20, kept from tuning), sec10q_blind's 30 (session 26) and
    sec10q_blind2's 30 (session 28) over docugami's 10-Qs under CORPUS; a
    computed one's `answer_patterns` are those of its line items, as in
    financebench_facts.jsonl, its result's in `result_patterns`."""
    questions = []
    for row in read_jsonl(DATA / f"{name}.jsonl"):
        items = tuple(row.get("line_item_patterns", ()))
        questions.append(
            Question(
                id=row["id"],
                question=row["question"],
                path=root / row["pdf"],
                gold_pages=frozenset(row["gold_pages"]),
                answer_patterns=items or tuple(row["answer_patterns"]),
                source=name.replace("_", "-"),
                kind=row["question_type"],
                in_table=row["in_table"],
                computed=bool(items),
                result_patterns=tuple(row["answer_patterns"]) if items else (),
            )
        )
    return questions


def offtopic_questions() -> list[tuple[str, str]]:
    """Returns (id, question) of the 47 questions nothing in the docs collection answers."""
    return [(row["id"], row["question"]) for row in read_jsonl(DATA / "offtopic.jsonl")]


def files_of(questions: Iterable[Question]) -> list[Path]:
    """Returns the PDFs the questions are about, each once, sorted."""
    return sorted({question.path for question in questions})


def every_nth(items: Sequence[Any], every: int) -> list[Any]:
    return list(items[:: max(every, 1)])


# --- figures ---------------------------------------------------------------------------------

PageRange = tuple[str, int, int]
"""(document file name, first page, last page) of a chunk or a citation."""


def first_gold_rank(ranked: Sequence[PageRange], question: Question, depth: int = 10) -> int | None:
    """Returns the 1-based rank of the first of the top `depth` ranges that is in the question's
    document and contains a gold page; None when none is."""
    for rank, (name, first, last) in enumerate(ranked[:depth], 1):
        if name == question.filename and any(first <= page <= last for page in question.gold_pages):
            return rank
    return None


def hit_at(ranks: Sequence[int | None], k: int) -> float:
    """Returns the share of questions whose first gold rank is within k."""
    return sum(rank is not None and rank <= k for rank in ranks) / len(ranks) if ranks else 0.0


def mrr(ranks: Sequence[int | None], depth: int = 10) -> float:
    """Returns the mean reciprocal rank of the first gold page, 0 for none within `depth`."""
    if not ranks:
        return 0.0
    return sum(1 / rank for rank in ranks if rank is not None and rank <= depth) / len(ranks)


def share(flags: Iterable[bool]) -> float | None:
    """Returns the share of true flags; None for no flags at all."""
    values = list(flags)
    return sum(values) / len(values) if values else None


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def states_fact(answer: str, patterns: Sequence[str]) -> bool:
    """Returns whether the answer states the gold fact: any pattern matches it, whitespace
    collapsed, case ignored (bench/data/README.md's semantics)."""
    text = re.sub(r"\s+", " ", answer)
    return any(re.search(pattern, text, re.IGNORECASE) for pattern in patterns)


def answered(response: dict[str, Any]) -> bool:
    """Returns whether the service gave an answer: a status that answers and a non-empty text."""
    return response["status"] not in NOT_ANSWERED and bool(response["answer"].strip())


def cited_ranges(response: dict[str, Any]) -> list[PageRange]:
    """Returns the pages the answer cites, in marker order: from `citations` when the service
    sends them, else parsed from the `sources` strings."""
    if response.get("citations") is not None:
        return [
            (citation["document_name"], citation["page_start"], citation["page_end"])
            for citation in response["citations"]
        ]
    ranges = []
    for source in response["sources"]:
        found = SOURCE.match(source)
        if found is None:
            raise ValueError(f"a source that is not 'name, p. N' or 'name, pp. N-M': {source!r}")
        first = int(found["first"])
        ranges.append((found["name"], first, int(found["last"] or first)))
    return ranges


def chunk_ranges(response: dict[str, Any]) -> list[PageRange]:
    """Returns the retrieved chunks' pages, in rank order."""
    return [
        (chunk["document_name"], chunk["page_start"], chunk["page_end"])
        for chunk in response["chunks"]
    ]


def markdown_table(
    header: Sequence[str], rows: Iterable[Sequence[Any]], numeric_from: int = 1
) -> str:
    """Returns a markdown table; columns from `numeric_from` on are right-aligned."""
    align = ["---" if i < numeric_from else "---:" for i in range(len(header))]
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(align) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def write_results(name: str, payload: Any) -> Path:
    """Writes bench/results/<name>.json (committed, so later runs compare question by question)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    path = RESULTS / f"{name}.json"
    path.write_text(json.dumps(payload, indent=1, ensure_ascii=False) + "\n")
    return path


# --- citelock over HTTP, with its collections kept in a data folder -------------------------


@contextmanager
def data_folder(kept: Path | None, reingest: bool) -> Iterator[Path]:
    """Yields the folder holding the ingested databases: `kept` (emptied first on `reingest`)
    or, without one, a temporary folder removed afterwards."""
    if kept is None:
        with tempfile.TemporaryDirectory(prefix="citelock-eval-") as temporary:
            yield Path(temporary)
        return
    if reingest and kept.exists():
        shutil.rmtree(kept)
    kept.mkdir(parents=True, exist_ok=True)
    yield kept


class IngestRecord:
    """What each file's ingestion took, per side and collection, kept in DIR/ingest.json so a
    run that reuses the databases still reports the pages/s they were built at."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / INGEST_RECORD
        self.data: dict[str, dict[str, dict[str, dict[str, float]]]] = (
            json.loads(self.path.read_text()) if self.path.exists() else {}
        )

    def files(self, side: str, group: str) -> dict[str, dict[str, float]]:
        return self.data.setdefault(side, {}).setdefault(group, {})

    def note(self, side: str, group: str, filename: str, figures: dict[str, float]) -> None:
        self.files(side, group)[filename] = figures
        self.path.write_text(json.dumps(self.data, indent=1, sort_keys=True) + "\n")

    def totals(self, side: str, group: str, names: Iterable[str]) -> dict[str, float]:
        """Returns the summed figures of the named files that have a record."""
        summed: dict[str, float] = {}
        recorded = self.files(side, group)
        for name in names:
            for key, value in recorded.get(name, {}).items():
                summed[key] = summed.get(key, 0.0) + value
        return summed


@dataclass
class Collection:
    name: str
    ids: dict[str, str]
    """Document id by file name."""
    pages: int
    chunks: int
    ingested_pages: int
    ingested_seconds: float
    """Upload wall time and pages of the files whose ingestion is recorded (by this run or the
    one that built the database); a file stored some other way has no record."""
    ingested_now: int
    """How many files this run uploaded."""


class Citelock:
    """The service in this process, over an embedded PostgreSQL in `folder`/citelock (or the
    server at `database_url`), driven through its HTTP routes only."""

    def __init__(self, folder: Path, database_url: str = "", **overrides: Any) -> None:
        settings = Settings(
            _env_file=None,
            database_url=database_url,
            citelock_data_dir=folder / "citelock",
            # Every upload ingested in its request, so its wall time is its ingestion's.
            background_page_threshold=100_000,
            in_process_worker=False,
            ingest_timeout_seconds=3600,
            log_level="WARNING",
            **overrides,
        )
        self.record = IngestRecord(folder)
        self.client = TestClient(create_app(settings))
        print(f"citelock from {app.__file__}", flush=True)

    def __enter__(self) -> Citelock:
        self.client.__enter__()
        return self

    def __exit__(self, *exc: object) -> None:
        self.client.__exit__(*exc)

    @property
    def embedder(self) -> Any:
        """The service's loaded embedding model, for a peer that must use the very same one."""
        return self.client.app.state.runtime.embedder  # type: ignore[attr-defined]

    def stored(self, collection: str) -> dict[str, dict[str, Any]]:
        """Returns the documents stored in `collection`, by file name."""
        response = self.client.get(
            "/api/v1/documents", params={"collection": collection, "limit": 1000}
        )
        response.raise_for_status()
        return {document["filename"]: document for document in response.json()["data"]}

    def ensure_collection(self, collection: str, files: Sequence[Path]) -> Collection:
        """Returns `collection` holding `files`, uploading those not stored yet. A refused file
        raises: every question's gold page depends on its document being there."""
        stored = self.stored(collection)
        ingested_now = 0
        for number, path in enumerate(files, 1):
            if path.name in stored and stored[path.name]["status"] == "ready":
                continue
            if path.name in stored:  # left half-done by an interrupted run
                self.client.delete(f"/api/v1/documents/{stored[path.name]['id']}")
            started = time.perf_counter()
            with path.open("rb") as handle:
                response = self.client.post(
                    "/api/v1/documents",
                    files={"file": (path.name, handle, "application/pdf")},
                    data={"collection": collection},
                )
            seconds = time.perf_counter() - started
            if response.status_code not in (200, 201):
                raise RuntimeError(f"{path.name}: {response.status_code} {response.text[:300]}")
            document = response.json()
            stored[path.name] = document
            if response.status_code == 201:
                ingested_now += 1
                self.record.note(
                    "citelock", collection, path.name,
                    {"pages": document["page_count"], "seconds": seconds},
                )  # fmt: skip
            print(
                f"[{collection} {number}/{len(files)}] {path.name}: {document['page_count']} "
                f"pages, {document['chunk_count']} chunks, {seconds:.1f}s",
                flush=True,
            )
        names = [path.name for path in files]
        totals = self.record.totals("citelock", collection, names)
        return Collection(
            name=collection,
            ids={name: str(stored[name]["id"]) for name in names},
            pages=sum(stored[name]["page_count"] for name in names),
            chunks=sum(stored[name]["chunk_count"] for name in names),
            ingested_pages=int(totals.get("pages", 0)),
            ingested_seconds=totals.get("seconds", 0.0),
            ingested_now=ingested_now,
        )

    def query(
        self,
        text: str,
        collection: str,
        top_k: int,
        document_ids: Sequence[str] = (),
        search: str | None = None,
    ) -> dict[str, Any]:
        """Returns the service's answer to `text` within `collection` (and `document_ids`)."""
        filters: dict[str, Any] = {"collection": collection}
        if document_ids:
            filters["document_ids"] = list(document_ids)
        body: dict[str, Any] = {"query": text, "top_k": top_k, "filters": filters}
        if search is not None:
            body["search"] = search
        response = self.client.post("/api/v1/query", json=body)
        response.raise_for_status()
        result: dict[str, Any] = response.json()
        return result
