"""The synthetic chunks database of the search tests (tests/helpers/search_corpus.py)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import numpy.typing as npt
import pytest
import sqlalchemy as sa
from sqlalchemy import insert

from app.db.models import Chunk, Document
from app.db.terms import store_document_terms
from app.flows.runtime import Runtime
from tests.helpers.search_corpus import (
    CHUNKS_PER_DOCUMENT,
    CHUNKS_PER_TOPIC,
    DIM,
    DOCUMENTS,
    RARE_CHUNK,
    RARE_WORD,
    WORDS,
    Corpus,
    chunk_row,
    document_row,
    index_scans_preferred,
    unit,
)


@pytest.fixture(scope="session")
def corpus(open_test_runtime: Callable[[str], Runtime]) -> Corpus:
    runtime = open_test_runtime("citelock_search")
    rng = np.random.default_rng(20261122)
    count = len(DOCUMENTS) * CHUNKS_PER_DOCUMENT
    topics = unit(rng.normal(size=(count // CHUNKS_PER_TOPIC, DIM)))
    noise = rng.normal(size=(count, DIM)) / np.sqrt(DIM)
    vectors = unit(np.repeat(topics, CHUNKS_PER_TOPIC, axis=0) + noise)

    documents = [document_row(number) for number in range(len(DOCUMENTS))]
    chunks: list[dict[str, Any]] = []
    for number in range(len(DOCUMENTS)):
        for ordinal in range(CHUNKS_PER_DOCUMENT):
            content = " ".join(rng.choice(WORDS, size=30))
            if (number, ordinal) == RARE_CHUNK:
                content += f" {RARE_WORD}"
            # tolist(): pgvector formats Python floats several times faster than numpy's.
            vector = vectors[len(chunks)].tolist()
            chunks.append(chunk_row(number, ordinal, content, vector))

    # Loaded first and indexed after, as pgvector advises: inserting into the graph row by
    # row would take most of these tests' time. The index is rebuilt from its own definition.
    with runtime.sessions.begin() as session:
        definition = "SELECT pg_get_indexdef('ix_chunks_embedding_hnsw'::regclass)"
        index = session.execute(sa.text(definition)).scalar_one()
        session.execute(sa.text("DROP INDEX ix_chunks_embedding_hnsw"))
        session.execute(insert(Document), documents)
        session.execute(insert(Chunk), chunks)
        for document in documents:
            store_document_terms(session, document["id"])
        session.execute(sa.text(index))
    # The planner needs statistics to prefer the index, as autovacuum would give it in time.
    with runtime.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as connection:
        connection.execute(sa.text("ANALYZE documents, chunks"))

    by_id = {document["id"]: document for document in documents}
    fields = [{**by_id[chunk["document_id"]], **chunk, "id": chunk["id"]} for chunk in chunks]
    return Corpus(runtime, [chunk["id"] for chunk in chunks], fields, topics)


@pytest.fixture(scope="session")
def queries(corpus: Corpus) -> npt.NDArray[np.float32]:
    """Returns 50 queries near topics of the ready documents."""
    return corpus.near_topics(range(10), 50, seed=7)


@pytest.fixture
def index_walk(corpus: Corpus) -> Iterator[None]:
    """For a test of the index walk itself: see index_scans_preferred."""
    with index_scans_preferred(corpus.runtime):
        yield
