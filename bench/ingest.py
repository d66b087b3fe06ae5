"""Ingestion throughput: pages/s and chunks/s for a folder of PDFs, split by stage.

    python bench/ingest.py ../shared/corpus/docs [--database-url URL] [--output docs/benchmarks.md]

Every PDF is ingested into a fresh database (an embedded server in a temporary folder unless
--database-url is given), and the time of each stage is summed: extraction (PyMuPDF),
chunking (with the model's tokenizer), embedding (the model) and store (one transaction).
The model is the floor: the goal is a total within 1.25x of embedding time alone.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.core.errors import CitelockError
from app.flows.ingest import DocumentMeta, StageTimings, ingest_file
from app.flows.runtime import Runtime, open_runtime
from bench.kit import (
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
        summed = totals.timings
        for stage in ("extract", "chunk", "embed", "store"):
            setattr(summed, stage, getattr(summed, stage) + getattr(result.timings, stage))
    totals.wall = time.perf_counter() - started
    return totals


def run(folder: Path, database_url: str, data_dir: Path) -> str:
    """Returns the markdown section with the figures of one run over `folder`."""
    files = sorted(folder.rglob("*.pdf"))
    with closing(open_runtime(settings_for(database_url, data_dir))) as runtime:
        ingested = ingest_files(files, runtime)
    totals, pages, chunks, wall = ingested.timings, ingested.pages, ingested.chunks, ingested.wall

    rows = [
        ("extraction (PyMuPDF)", totals.extract),
        ("chunking (tokenizer)", totals.chunk),
        ("embedding (model)", totals.embed),
        ("store (PostgreSQL)", totals.store),
    ]
    lines = [
        f"Corpus: `{folder}`: {len(ingested.ingested)} PDFs ingested, {pages} pages, "
        f"{chunks} chunks; refused: {', '.join(ingested.refused) or 'none'}.",
        "",
        *table_head("stage | seconds | share | pages/s | chunks/s", "lrrrr"),
    ]
    for name, seconds in [*rows, ("total (wall, incl. hashing and dedupe)", wall)]:
        lines.append(
            table_row(
                name,
                f"{seconds:.2f}",
                f"{seconds / wall:.0%}",
                f"{pages / seconds:.1f}",
                f"{chunks / seconds:.1f}",
            )
        )
    lines += [
        "",
        f"Total / embedding alone: **{wall / totals.embed:.2f}x** (goal: at most 1.25x).",
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
    parser.add_argument("--output", type=Path, default=Path("docs/benchmarks.md"))
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
