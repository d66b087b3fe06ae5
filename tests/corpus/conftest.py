"""The shared corpus's documents, ingested once per test run into their own database."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import pytest

from app.core.errors import CitelockError
from app.flows.ingest import DocumentMeta, ingest_file
from app.flows.runtime import Runtime
from tests.helpers.corpus import SHARED_CORPUS, IngestedCorpus


@pytest.fixture(scope="session")
def ingested_docs(open_test_runtime: Callable[[str], Runtime]) -> IngestedCorpus:
    folder = SHARED_CORPUS / "docs"
    if not folder.is_dir():
        pytest.skip(f"shared corpus not found at {folder} (it sits beside the repository)")
    # OCR off: reading the scans would double the fixture's time, and the noisy sample keeps
    # the scanner's text layer that the flag tests expect.
    runtime = open_test_runtime("citelock_corpus")
    off = runtime.settings.model_copy(update={"ocr": "off"})
    corpus = IngestedCorpus(dataclasses.replace(runtime, settings=off))
    for path in sorted(folder.glob("*.pdf")):
        try:
            corpus.documents[path.name] = ingest_file(
                path, DocumentMeta(filename=path.name, collection="docs"), runtime=corpus.runtime
            )
        except CitelockError as error:
            corpus.refused[path.name] = error.code
    return corpus
