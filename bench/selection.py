"""Selection mode without its pages: how fast, and how often right, a selection is located when
the viewer names only its document, or nothing at all.

    python bench/selection.py [--corpus ../shared/corpus/docs] [--copies 1 8] [--selections 300]
        [--database-url URL] [--output docs/benchmarks.md]

The PDFs of --corpus are read (PyMuPDF, as ingestion reads them, no OCR) and their page
texts stored as documents and pages, --copies times over, each copy a document of its own
(the same texts, as a library holding several copies would): the locator reads only pages,
so no chunk is made or embedded. A selection is a run of 5 to 60 words of a random page, one
in three from the page's very first word (its running header, where it has one), sometimes
running onto the next page. It is located by `resolve_selection` with its document named, and
with nothing named (every copy searched); it is right when it is found on the pages it was
taken from, in its own document (named) or in a copy of it (nothing named: the copies hold
the same text).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np
import pymupdf
from sqlalchemy import insert

from app.core.records import PAGE_BREAK
from app.db.models import Document, Page
from app.flows.runtime import Runtime, open_runtime
from app.pdf.reader import extract_document_as
from app.retrieval.filters import SearchFilters
from app.retrieval.selection import Selection, normalize
from app.retrieval.selection_scope import Located, resolve_selection
from bench.kit import (
    BENCHMARKS,
    DEFAULT_CORPUS,
    database_server,
    fresh_database,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    write_section,
)

MIN_WORDS, MAX_WORDS = 5, 60
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Drawn:
    document: int
    """Index of the drawn file."""
    first: int
    last: int
    text: str


def pdf_page_texts(folder: Path) -> dict[str, list[str]]:
    """Returns the PDFs' page texts as their text layers read (no OCR), by file name: a scan's
    pages are empty, and no selection is drawn from them."""
    texts = {}
    for path in sorted(folder.glob("*.pdf")):
        with pymupdf.open(path) as pdf:
            texts[path.name] = [page.text for page in extract_document_as(pdf, lambda p: p).pages]
    return texts


def store(runtime: Runtime, texts: dict[str, list[str]], copies: int) -> list[list[uuid.UUID]]:
    """Stores `copies` documents per file; returns their ids, [copy][file]."""
    ids: list[list[uuid.UUID]] = []
    with runtime.sessions.begin() as session:
        for copy in range(copies):
            ids.append([])
            for number, (name, pages) in enumerate(texts.items()):
                document_id = uuid.uuid4()
                ids[-1].append(document_id)
                session.execute(
                    insert(Document).values(
                        id=document_id, sha256=f"{copy:032d}{number:032d}", filename=name,
                        title=name, collection=f"copy-{copy}", language="en", version="",
                        is_my_copy=False, page_count=len(pages), chunk_count=0, byte_size=0,
                        toc=[], status="ready",
                    )
                )  # fmt: skip
                session.execute(
                    insert(Page),
                    [
                        {"document_id": document_id, "page_number": page, "text": text,
                         "width": 0.0, "height": 0.0, "char_boxes": b"", "line_ids": b""}
                        for page, text in enumerate(pages, 1)
                    ],
                )  # fmt: skip
    return ids


def draw(texts: list[list[str]], rng: np.random.Generator) -> Drawn:
    while True:
        document = int(rng.integers(len(texts)))
        pages = texts[document]
        first = int(rng.integers(1, len(pages) + 1))
        last = min(first + int(rng.random() < 0.2), len(pages))
        text = PAGE_BREAK.join(pages[first - 1 : last])
        words = [found.span() for found in _WORD.finditer(text)]
        if len(words) < MIN_WORDS:
            continue
        start = 0 if rng.random() < 1 / 3 else int(rng.integers(len(words) - MIN_WORDS + 1))
        count = int(rng.integers(MIN_WORDS, MAX_WORDS + 1))
        end = min(start + count, len(words)) - 1
        # Page `first + 1` begins past the first page's text and the break.
        second = len(pages[first - 1]) + len(PAGE_BREAK)
        return Drawn(
            document,
            first + (words[start][0] >= second),
            first + (words[end][0] >= second),
            text[words[start][0] : words[end][1]],
        )


def run(corpus: Path, copies: list[int], selections: int, database_url: str, data_dir: Path) -> str:
    texts = pdf_page_texts(corpus)
    ordered = list(texts.values())
    rng = np.random.default_rng(20261202)
    drawn = [draw(ordered, rng) for _ in range(selections)]
    head = table_head(
        "pages stored | named | selections | p50 ms | p95 ms | p99 ms | on its pages "
        "| where it stands",
        "rlrrrrrr",
    )
    rows = []
    for count in copies:
        runtime = open_runtime(
            settings_for(fresh_database(database_url, f"selection_{count}"), data_dir)
        )
        try:
            ids = store(runtime, texts, count)
            copy_of = {document_id: n for each in ids for n, document_id in enumerate(each)}
            pages = count * sum(len(pages) for pages in ordered)
            for named in ("document", "nothing"):
                times, right, stands = [], 0, 0
                for selection in drawn:
                    document_id = ids[-1][selection.document] if named == "document" else None
                    wanted = Selection(selection.text, document_id)
                    with runtime.autocommit_sessions() as session:  # as the query route has it
                        started = time.perf_counter()
                        found = resolve_selection(session, wanted, SearchFilters())
                        times.append((time.perf_counter() - started) * 1000)
                    if not isinstance(found, Located):
                        continue
                    match = found.match
                    stands += normalize(selection.text).text in normalize(match.text).text
                    right += copy_of[match.document_id] == selection.document and (
                        match.start_page,
                        match.end_page,
                    ) == (selection.first, selection.last)
                p50, p95, p99 = percentiles(times)
                rows.append(
                    table_row(
                        f"{pages:,}", named, len(drawn), f"{p50:.1f}", f"{p95:.1f}",
                        f"{p99:.1f}", f"{right / len(drawn):.3f}", f"{stands / len(drawn):.3f}",
                    )
                )  # fmt: skip
                print(rows[-1], flush=True)
        finally:
            runtime.close()
    command = "python bench/selection.py"
    if copies != [1, 8]:
        command += " --copies " + " ".join(map(str, copies))
    if selections != 300:
        command += f" --selections {selections}"
    return "\n".join(
        [
            f"`resolve_selection` for a selection given without its pages (bench/selection.py): "
            f"{selections} selections of the {len(texts)} PDFs of the shared "
            f"corpus, their page texts stored {' and '.join(map(str, copies))} times over (each "
            "copy a document). "
            '"document": the selection names its document (the pages searched are that '
            'document\'s); "nothing": every stored page is searched. On its pages: found on the '
            "pages it was taken from, in its document (or, naming nothing, a copy of it). Where "
            "it stands: found on pages that hold it, which a selection standing on several pages "
            "(a running header alone) may be without being on its own.",
            "",
            *head,
            *rows,
            "",
            machine_summary(),
            "",
            f"Reproduce: `{command}`",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--copies", type=int, nargs="+", default=[1, 8])
    parser.add_argument("--selections", type=int, default=300)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as database_url,
    ):
        section = run(args.corpus, args.copies, args.selections, database_url, Path(data_dir))
    print(section)
    write_section(args.output, "Selection without its pages", section)


if __name__ == "__main__":
    main()
