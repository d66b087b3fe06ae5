"""Where the shared corpus is, a skip with a reason when it is absent, and what ingesting it
stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.flows.ingest import IngestResult
from app.flows.runtime import Runtime

SHARED_CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


def corpus_path(*parts: str) -> Path:
    """Returns a path in ../shared/corpus, skipping the test when the corpus is absent."""
    path = SHARED_CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared corpus not found at {path} (it sits beside the repository)")
    return path


def corpus_pages(name: str, numbers: tuple[int, ...], into: Path) -> Path:
    """Returns a copy of the pages `numbers` (1-based) of ../shared/corpus/docs/`name`, written
    under `into` with the same file name: OCR reads a page in seconds, so a test reads only the
    pages that hold what it checks."""
    import pymupdf

    path = into / name
    with pymupdf.open(corpus_path("docs", name)) as whole:
        whole.select([number - 1 for number in numbers])
        whole.save(path)
    return path


SCANS = {"scan_huckfinn_multipage.pdf"}
"""Image-only documents: refused with no_text_layer when OCR is off, as it is for the corpus
ingested once per run (OCR of scans is tested on its own, tests/corpus/test_ocr_corpus.py)."""


@dataclass
class IngestedCorpus:
    runtime: Runtime
    documents: dict[str, IngestResult] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)
