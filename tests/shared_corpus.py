"""Where the shared corpus is, and a skip with a reason when it is absent."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED_CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"


def corpus_path(*parts: str) -> Path:
    """Returns a path in ../shared/corpus, skipping the test when the corpus is absent."""
    path = SHARED_CORPUS.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"shared corpus not found at {path} (it sits beside the repository)")
    return path
