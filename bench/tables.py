"""What finding tables costs a page: citelock's line-based finder beside PyMuPDF's `find_tables`.

    python bench/tables.py [--every 4] [--output docs/benchmarks.md]

Over the docugami 10-Qs and the FinanceBench filings of ../shared/corpus/eval, every `--every`th
page: the milliseconds to read the page as citelock does (app.pdf.reader.extract_page), to find
its tables in the lines it read (app.chunking.tables.find_tables, with the lines' boxes), and
PyMuPDF's `page.find_tables()` on the same page. Pages are read once each, in one process.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import pymupdf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.chunking.tables import find_tables
from app.core.geometry import page_lines
from app.pdf.reader import extract_page
from bench.kit import BENCHMARKS, machine_summary, table_head, table_row, write_section

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpus" / "eval"
SETS = {
    "docugami 10-Qs": CORPUS / "docugami_sec10q" / "docs",
    "FinanceBench filings": CORPUS / "financebench_dev" / "pdfs",
}


def milliseconds(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure(folder: Path, every: int) -> dict[str, object]:
    """Returns the per-page milliseconds of each step over every `every`th page of `folder`."""
    read, ours, pymupdf_tables = [], [], []
    pages = tables = with_tables = their_tables = 0
    for path in sorted(folder.glob("*.pdf")):
        with pymupdf.open(path) as document:
            for index in range(0, document.page_count, every):
                page = document[index]
                started = time.perf_counter()
                text = extract_page(page)
                read.append(milliseconds(started))
                started = time.perf_counter()
                found = find_tables(page_lines(text))
                ours.append(milliseconds(started))
                started = time.perf_counter()
                theirs = page.find_tables()
                pymupdf_tables.append(milliseconds(started))
                pages += 1
                tables += len(found)
                with_tables += bool(found)
                their_tables += len(theirs.tables)
    return {
        "pages": pages,
        "read": float(np.mean(read)),
        "ours": float(np.mean(ours)),
        "pymupdf": float(np.mean(pymupdf_tables)),
        "tables": tables,
        "with_tables": with_tables,
        "their_tables": their_tables,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--every", type=int, default=4, help="measure every n-th page")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    started = time.perf_counter()
    lines = [
        "Per page, in milliseconds, mean over every "
        f"{args.every}th page: reading it as citelock does (characters, boxes, reading order), "
        "finding its tables in the lines read (app.chunking.tables: rows told from prose by their "
        "text, headers by their boxes), and PyMuPDF's `page.find_tables()` on the same page "
        "(not run by citelock).",
        "",
        *table_head(
            "set | pages | read | find tables (citelock) | find_tables (PyMuPDF) | "
            "tables found (citelock) | pages with tables | tables found (PyMuPDF)",
            "lrrrrrrr",
        ),
    ]
    for name, folder in SETS.items():
        if not folder.is_dir():
            continue
        figures = measure(folder, args.every)
        lines.append(
            table_row(
                name,
                figures["pages"],
                f"{figures['read']:.1f}",
                f"{figures['ours']:.2f}",
                f"{figures['pymupdf']:.1f}",
                figures["tables"],
                figures["with_tables"],
                figures["their_tables"],
            )
        )
    lines += [
        "",
        f"This run: {time.perf_counter() - started:.0f} s.",
        "",
        machine_summary(shared=True),
        "",
        f"Reproduce: `python bench/tables.py --every {args.every}`",
    ]
    write_section(args.output, "Finding tables", "\n".join(lines))
    print("\n".join(lines))


if __name__ == "__main__":
    main()
