"""A database of synthetic chunks whose every vector and field is known, for the search tests.

The vectors are random but clustered, a topic per hundred chunks, as real embeddings are.
Uniformly random 384-d vectors have no neighbourhoods to find (the nearest of 6,600 is
barely nearer than the median), so no approximate index reaches 0.98 recall on them."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from sqlalchemy.orm import Session

from app.core.chunks import Candidate
from app.db.models import Chunk
from app.flows.runtime import Runtime
from app.retrieval.filters import SearchFilters
from app.retrieval.search import SearchMode, search_chunks

DIM = 384
SYNTHETIC_MODEL = "synthetic topics"
"""The model the corpus's vectors are said to come from: none, they are drawn at random."""
CHUNKS_PER_DOCUMENT = 600
CHUNKS_PER_TOPIC = 100
TOPICS_PER_DOCUMENT = CHUNKS_PER_DOCUMENT // CHUNKS_PER_TOPIC
RARE_WORD = "zyxomorphic"
RARE_CHUNK = (4, 123)
"""(document number, ordinal) of the one chunk whose text has RARE_WORD."""


# (collection, language, version, is_my_copy, status); the last is still processing.
DOCUMENTS = [
    ("alpha", "en", "1.0", False, "ready"),
    ("alpha", "en", "1.0", True, "ready"),
    ("alpha", "en", "2.0", False, "ready"),
    ("alpha", "en", "1.0", False, "ready"),
    ("beta", "en", "1.0", False, "ready"),
    ("beta", "de", "1.0", False, "ready"),
    ("beta", "de", "2.0", False, "ready"),
    ("gamma", "en", "1.0", False, "ready"),
    ("gamma", "en", "1.0", True, "ready"),
    ("gamma", "en", "1.0", False, "ready"),
    ("alpha", "en", "1.0", False, "processing"),
]
WORDS = ["soul", "action", "motion", "perception", "memory", "reason", "virtue", "habit"]


Keep = Callable[[dict[str, Any]], bool]
"""Says, from a chunk's fields and its document's, whether a filter keeps the chunk."""


def document_id(number: int) -> uuid.UUID:
    return uuid.UUID(int=number + 1)


def chunk_id(number: int, ordinal: int) -> uuid.UUID:
    return uuid.uuid5(uuid.NAMESPACE_OID, f"{number}/{ordinal}")


def unit(vectors: npt.NDArray[np.float64]) -> npt.NDArray[np.float32]:
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    unit_vectors: npt.NDArray[np.float32] = (vectors / norms).astype(np.float32)
    return unit_vectors


@dataclass(frozen=True)
class Corpus:
    """The stored chunks: `fields[i]` describes chunk `ids[i]`."""

    runtime: Runtime
    ids: list[uuid.UUID]
    fields: list[dict[str, Any]]
    topics: npt.NDArray[np.float32]

    def exact(self, query: npt.NDArray[np.float32], keep: Keep, limit: int) -> list[uuid.UUID]:
        """Returns the true nearest `limit` chunks of ready documents that `keep` accepts.

        The distances are pgvector's own, of every chunk (no ORDER BY: no index), so that
        chunks whose float32 distances tie are ordered by id here as in search.
        """
        everything = sa.select(Chunk.id, Chunk.embedding.cosine_distance(query))
        with self.runtime.engine.connect() as connection:
            distances = {row[0]: row[1] for row in connection.execute(everything)}
        fields = dict(zip(self.ids, self.fields, strict=True))
        kept = [i for i, f in fields.items() if f["status"] == "ready" and keep(f)]
        return sorted(kept, key=lambda i: (distances[i], i))[:limit]

    def near_topics(self, documents: range, count: int, seed: int) -> npt.NDArray[np.float32]:
        """Returns `count` queries, each near a different topic of the given documents."""
        rng = np.random.default_rng(seed)
        topics = self.topics[
            documents.start * TOPICS_PER_DOCUMENT : documents.stop * TOPICS_PER_DOCUMENT
        ]
        chosen = topics[rng.choice(len(topics), size=count, replace=False)]
        return unit(chosen + rng.normal(size=chosen.shape) / np.sqrt(DIM))

    def search(
        self,
        query: npt.NDArray[np.float32],
        filters: SearchFilters,
        *,
        k: int = 10,
        mode: SearchMode = "vector",
        text: str = "",
        count_marks: bool = False,
    ) -> list[Candidate]:
        with self.runtime.sessions.begin() as session:
            return search_chunks(
                session,
                query_vector=query,
                query_text=text,
                filters=filters,
                k=k,
                mode=mode,
                count_marks=count_marks,
            )


@contextmanager
def captured_statements(runtime: Runtime) -> Iterator[list[tuple[str, Any]]]:
    """Yields the list of (SQL, parameters) the runtime's engine sends while inside."""
    statements: list[tuple[str, Any]] = []

    def capture(conn: Any, cursor: Any, statement: str, parameters: Any, *args: Any) -> None:
        statements.append((statement, parameters))

    sa.event.listen(runtime.engine, "before_cursor_execute", capture)
    try:
        yield statements
    finally:
        sa.event.remove(runtime.engine, "before_cursor_execute", capture)


@contextmanager
def index_scans_preferred(runtime: Runtime) -> Iterator[None]:
    """Makes the planner take the HNSW index wherever it can while inside.

    With the app's ef_search, PostgreSQL rightly prefers to read a table this small (6,600
    chunks), or the part a filter keeps, and sort it, to an index walk; the tests of the walk
    itself turn sequential scans and sorts off, as pgvector's documentation turns sequential
    scans off to check that a statement can use the index.
    """

    def prefer_index(session: Session, transaction: Any, connection: Any) -> None:
        # On the driver's connection: not among the statements captured_statements sees.
        driver = connection.connection.driver_connection
        driver.execute("SET LOCAL enable_seqscan = off")
        driver.execute("SET LOCAL enable_sort = off")

    sa.event.listen(runtime.sessions, "after_begin", prefer_index)
    try:
        yield
    finally:
        sa.event.remove(runtime.sessions, "after_begin", prefer_index)


def explain(session: Session, statement: tuple[str, Any]) -> str:
    """Returns the plan PostgreSQL makes for a captured statement, in this session's settings."""
    sql, parameters = statement
    return "\n".join(
        row[0] for row in session.connection().exec_driver_sql(f"EXPLAIN {sql}", parameters)
    )


def document_row(number: int) -> dict[str, Any]:
    collection, language, version, mine, status = DOCUMENTS[number]
    return {
        "id": document_id(number),
        "sha256": f"{number:064d}",
        "filename": f"doc{number}.pdf",
        "title": f"Document {number}",
        "collection": collection,
        "language": language,
        "version": version,
        "is_my_copy": mine,
        "page_count": CHUNKS_PER_DOCUMENT // 4 + 1,
        "chunk_count": CHUNKS_PER_DOCUMENT,
        "byte_size": 1,
        "toc": [],
        "status": status,
    }


def chunk_row(number: int, ordinal: int, content: str, vector: list[float]) -> dict[str, Any]:
    page = ordinal // 4 + 1
    chapter = f"Chapter {ordinal // 100 + 1}"
    return {
        "id": chunk_id(number, ordinal),
        "document_id": document_id(number),
        "ordinal": ordinal,
        "page_start": page,
        "page_end": page + (ordinal % 7 == 0),
        "page_span_start": 0,
        "page_span_end": 10,
        "document_span_start": ordinal * 10,
        "document_span_end": ordinal * 10 + 10,
        "bbox": [0.0, 0.0, 1.0, 1.0],
        "line_rects": [],
        # Odd documents spell their titles in capitals: the filters ignore case.
        "chapter": chapter.upper() if number % 2 else chapter,
        "section": f"Section {ordinal // 20 + 1}",
        "content": content,
        "content_sha256": "0" * 64,
        "token_count": 30,
        "flags": ["references"] if ordinal % 25 == 0 else [],
        "embedding": vector,
        "embedding_model": SYNTHETIC_MODEL,
    }
