"""Ingestion throughput: pages/s and chunks/s for a folder of PDFs, split by stage.

    python bench/ingest.py ../shared/corpus/docs [--database-url URL] [--output docs/benchmarks.md]

Every PDF is ingested into a fresh database (an embedded server in a temporary folder unless
--database-url is given), and the time of each stage is summed: extraction (PyMuPDF, and OCR
where a page has no text layer), chunking (with the model's tokenizer), embedding (the model)
and store (one transaction). Born-digital PDFs and those with a page read by OCR are summed
apart: OCR costs seconds a page, and would hide the rest. For born-digital PDFs the model is
the floor: the goal is a total within 1.25x of embedding time alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from collections.abc import Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import sqlalchemy as sa

from app.core.errors import CitelockError
from app.flows.ingest import DocumentMeta, StageTimings, ingest_file
from app.flows.runtime import Runtime, open_runtime
from bench.kit import (
    BENCHMARKS,
    database_server,
    machine_summary,
    settings_for,
    table_head,
    table_row,
    write_section,
)


@dataclass
class IngestTotals:
    """What ingesting a list of PDFs stored, and how long each stage took in all."""

    ingested: list[Path] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)
    pages: int = 0
    chunks: int = 0
    timings: StageTimings = field(default_factory=StageTimings)
    wall: float = 0.0
    """Seconds for the whole list, hashing and dedupe included."""


def ingest_files(files: list[Path], runtime: Runtime) -> IngestTotals:
    """Returns the totals of ingesting `files` one after the other, as the CLI does."""
    totals = IngestTotals()
    started = time.perf_counter()
    for path in files:
        try:
            result = ingest_file(path, DocumentMeta(filename=path.name), runtime=runtime)
        except CitelockError as error:
            totals.refused.append(f"{path.name} ({error.code})")
            continue
        totals.ingested.append(path)
        totals.pages += result.document.page_count
        totals.chunks += result.document.chunk_count
        add_timings(totals.timings, result.timings)
    totals.wall = time.perf_counter() - started
    return totals


def ingest_each(files: list[Path], runtime: Runtime) -> list[IngestTotals]:
    """Returns the totals of each file, ingested one after the other as the CLI does."""
    return [ingest_files([path], runtime) for path in files]


def summed(parts: Sequence[IngestTotals]) -> IngestTotals:
    """Returns the totals of `parts` together (their walls added)."""
    total = IngestTotals()
    for part in parts:
        total.ingested += part.ingested
        total.refused += part.refused
        total.pages += part.pages
        total.chunks += part.chunks
        total.wall += part.wall
        add_timings(total.timings, part.timings)
    return total


def add_timings(total: StageTimings, more: StageTimings) -> None:
    """Adds each stage's seconds of `more` to `total`'s."""
    for stage in ("extract", "chunk", "embed", "store"):
        setattr(total, stage, getattr(total, stage) + getattr(more, stage))


def by_text_source(
    parts: Sequence[IngestTotals], runtime: Runtime
) -> tuple[IngestTotals, IngestTotals]:
    """Returns the totals of the born-digital files, then of those with a page read by OCR."""
    with runtime.engine.connect() as connection:
        read_by_ocr = set(
            connection.execute(
                sa.text(
                    "SELECT DISTINCT d.filename FROM documents d JOIN pages p "
                    "ON p.document_id = d.id WHERE p.from_ocr"
                )
            ).scalars()
        )
    born_digital: list[IngestTotals] = []
    ocr: list[IngestTotals] = []
    for part in parts:
        read = part.ingested and part.ingested[0].name in read_by_ocr
        (ocr if read else born_digital).append(part)
    return summed(born_digital), summed(ocr)


def stage_table(ingested: IngestTotals) -> list[str]:
    """Returns the lines of one group's table: each stage's seconds, share and rates."""
    totals, pages, chunks, wall = ingested.timings, ingested.pages, ingested.chunks, ingested.wall
    rows = [
        ("extraction (PyMuPDF, OCR)", totals.extract),
        ("chunking (tokenizer)", totals.chunk),
        ("embedding (model)", totals.embed),
        ("store (PostgreSQL)", totals.store),
        ("total (wall, incl. hashing and dedupe)", wall),
    ]
    lines = table_head("stage | seconds | share | pages/s | chunks/s", "lrrrr")
    for name, seconds in rows:
        lines.append(
            table_row(
                name,
                f"{seconds:.2f}",
                f"{seconds / wall:.0%}",
                f"{pages / seconds:.1f}",
                f"{chunks / seconds:.1f}",
            )
        )
    return lines


def run(folder: Path, database_url: str, data_dir: Path) -> str:
    """Returns the markdown section with the figures of one run over `folder`."""
    files = sorted(folder.rglob("*.pdf"))
    with closing(open_runtime(settings_for(database_url, data_dir))) as runtime:
        parts = ingest_each(files, runtime)
        born_digital, ocr = by_text_source(parts, runtime)
    everything = summed(parts)
    lines = [
        f"Corpus: `{folder}`: {len(everything.ingested)} PDFs ingested, {everything.pages} "
        f"pages, {everything.chunks} chunks; refused: {', '.join(everything.refused) or 'none'}.",
    ]
    for name, group in (("Born-digital", born_digital), ("With pages read by OCR", ocr)):
        if group.ingested:
            files_read = ", ".join(path.name for path in group.ingested)
            lines += ["", f"{name}: {group.pages} pages, {group.chunks} chunks ({files_read}).", ""]
            lines += stage_table(group)
    if born_digital.timings.embed:
        over_model = born_digital.wall / born_digital.timings.embed
        lines += [
            "",
            f"Born-digital total / embedding alone: **{over_model:.2f}x** (goal: at most 1.25x).",
        ]
    lines += [
        "",
        machine_summary(),
        "",
        f"Reproduce: `python bench/ingest.py {folder}`",
    ]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--database-url", default="")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as database_url,
    ):
        section = run(args.folder, database_url, Path(data_dir))
    print(section)
    write_section(args.output, "Ingestion", section)


if __name__ == "__main__":
    main()
