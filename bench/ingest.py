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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.config import Settings
from app.errors import CitelockError
from app.ingest.pipeline import DocumentMeta, StageTimings
from app.ingest.service import ingest_file
from app.runtime import open_runtime
from bench.report import machine_summary, write_section


def run(folder: Path, database_url: str, data_dir: Path) -> str:
    """Returns the markdown section with the figures of one run over `folder`."""
    settings = Settings(database_url=database_url, citelock_data_dir=data_dir, _env_file=None)  # type: ignore[call-arg]
    runtime = open_runtime(settings)
    totals = StageTimings()
    pages = chunks = 0
    refused: list[str] = []
    files = sorted(folder.rglob("*.pdf"))
    started = time.perf_counter()
    try:
        for path in files:
            try:
                result = ingest_file(path, DocumentMeta(filename=path.name), runtime=runtime)
            except CitelockError as error:
                refused.append(f"{path.name} ({error.code})")
                continue
            pages += result.document.page_count
            chunks += result.document.chunk_count
            for stage in ("extract", "chunk", "embed", "store"):
                setattr(totals, stage, getattr(totals, stage) + getattr(result.timings, stage))
    finally:
        runtime.close()
    wall = time.perf_counter() - started

    rows = [
        ("extraction (PyMuPDF)", totals.extract),
        ("chunking (tokenizer)", totals.chunk),
        ("embedding (model)", totals.embed),
        ("store (PostgreSQL)", totals.store),
    ]
    lines = [
        f"Corpus: `{folder}`: {len(files) - len(refused)} PDFs ingested, {pages} pages, "
        f"{chunks} chunks; refused: {', '.join(refused) or 'none'}.",
        "",
        "| stage | seconds | share | pages/s | chunks/s |",
        "|---|---:|---:|---:|---:|",
    ]
    for name, seconds in [*rows, ("total (wall, incl. hashing and dedupe)", wall)]:
        lines.append(
            f"| {name} | {seconds:.2f} | {seconds / wall:.0%} | "
            f"{pages / seconds:.1f} | {chunks / seconds:.1f} |"
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
    with tempfile.TemporaryDirectory() as data_dir:
        database_url = args.database_url
        if not database_url:
            from app.db.embedded import embedded_database_url, start_embedded_postgres

            database_url = embedded_database_url(start_embedded_postgres(Path(data_dir)))
        section = run(args.folder, database_url, Path(data_dir))
    print(section)
    write_section(args.output, "Ingestion", section)


if __name__ == "__main__":
    main()
