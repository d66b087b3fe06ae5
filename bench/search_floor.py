"""Retrieval latency against its floor, and recall, at 10k and 100k synthetic chunks.

    python bench/search_floor.py [--sizes 10000 100000] [--queries 200] [--database-url URL]

The floor is what no search can beat: embedding the query plus the bare pgvector
statement (`ORDER BY embedding <=> q LIMIT 10`, default settings, no filters). Each query
is embedded once and that time is added to both the floor and `search_chunks` (k=10,
overfetch 4), so the two differ only by their SQL. Recall@10 is against an exact scan.

The chunks are synthetic: a topic per hundred chunks, the topics spread over a
32-dimensional subspace (real embeddings cluster, and uniform random 384-d vectors have no
neighbours to find), words drawn from a Zipf distribution, 500 chunks per document in four
collections, the HNSW index built after loading. Query vectors are drawn near topics; the
embedding time is the real model's, on a real sentence. The table prints shared_buffers and
the index size: an index larger than shared_buffers is read from the OS cache, slower.

bench/query.py imports the loader (`store_chunks`) and the realistic data made here from
real passages (`read_passages`, `passage_chunks`, `query_phrases`).
"""

from __future__ import annotations

import argparse
import re
import sys
import tempfile
import uuid
from collections.abc import Callable, Iterable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import sqlalchemy as sa
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.db.models import Chunk, Document
from app.db.terms import POSTINGS
from app.embedding.embedder import embed_query
from app.flows.runtime import Runtime, open_runtime
from app.retrieval.filters import SearchFilters, filter_clauses
from app.retrieval.search import EXACT_SCAN_MAX_ROWS, SearchMode, search_chunks
from bench.kit import (
    database_server,
    fresh_database,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    timed,
    vector_driver,
)

DIM = 384
CHUNKS_PER_DOCUMENT = 500
CHUNKS_PER_TOPIC = 100
INTRINSIC_DIM = 32
COLLECTIONS = ("physics", "history", "law", "poetry")
VOCABULARY = 5_000
WORDS_PER_CHUNK = 60
QUERY_SENTENCE = "what does aristotle say about imagination and action"
PASSAGE_WORDS = 120
"""Words per real passage, and per realistic chunk (about 160 model tokens, as ingested)."""
PASSAGE_NOISE = 0.4
"""Norm of the noise added to a realistic chunk's mixture of two unit passage vectors.

Chosen by local intrinsic dimension, on which HNSW recall depends most: on 503 passages of
../shared/corpus/docs the MLE estimate (20 neighbours) is 12.7; on as many chunks mixed
from 300 of them it is 13.6 with this noise, 15.6 with 0.5 and 12.3 with 0.35."""
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[.,;:)]?")
COPY_COLUMNS = [column for column in Chunk.__table__.columns if column.computed is None]
"""The chunks table's columns a row is written with: all but the generated ones."""
COPY_STATEMENT = (
    f"COPY chunks ({', '.join(column.name for column in COPY_COLUMNS)}) "
    "FROM STDIN WITH (FORMAT BINARY)"
)
COPY_TYPES = sa.text(
    "SELECT attname, atttypid FROM pg_attribute WHERE attrelid = 'chunks'::regclass AND attnum > 0"
)
"""The database's type (oid) of each chunks column: binary COPY writes each value as it."""
BULK_INDEXES = ("ix_chunks_embedding_hnsw", "ix_chunks_content_tsv")
"""Indexes dropped while chunks are copied in and built afterwards."""

Vectors = npt.NDArray[np.float32]


def unit(vectors: npt.NDArray[np.float64]) -> Vectors:
    """Returns `vectors` (along the last axis) scaled to unit length, as float32."""
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    unit_vectors: Vectors = (vectors / norms).astype(np.float32)
    return unit_vectors


def chunk_values(row: int, content: str, vector: Vectors, model: str = "") -> dict[str, Any]:
    """Returns the column values of the corpus's `row`-th chunk, by column name; `model` names
    the embedding model its vector stands for."""
    ordinal = row % CHUNKS_PER_DOCUMENT
    page = ordinal // 3 + 1
    return {
        "id": uuid.UUID(int=(1 << 64) + row),
        "document_id": uuid.UUID(int=row // CHUNKS_PER_DOCUMENT + 1),
        "ordinal": ordinal,
        "page_start": page,
        "page_end": page + (ordinal % 5 == 0),
        "page_span_start": 0,
        "page_span_end": 10,
        "document_span_start": ordinal * 10,
        "document_span_end": ordinal * 10 + 10,
        "bbox": [0.0, 0.0, 1.0, 1.0],
        "line_rects": Jsonb([]),
        "chapter": f"Chapter {ordinal // 50 + 1}",
        "section": f"Section {ordinal // 10 + 1}",
        "content": content,
        # No context header: the phrases the benchmarks query by come from the contents.
        "context_header": "",
        "table_header_start": None,
        "table_header_end": None,
        "content_sha256": "0" * 64,
        "token_count": len(content.split()),
        "flags": ["references"] if ordinal % 40 == 39 else [],
        "embedding": vector,
        "embedding_model": model,
    }


def document_rows(count: int) -> list[dict[str, Any]]:
    """Returns the `documents` rows (ready, CHUNKS_PER_DOCUMENT chunks each) of `count` chunks."""
    return [
        {
            "id": uuid.UUID(int=n + 1),
            "sha256": f"{n:064d}",
            "filename": f"doc{n}.pdf",
            "title": f"Document {n}",
            "collection": COLLECTIONS[n % len(COLLECTIONS)],
            "language": "en",
            "version": "1.0",
            "is_my_copy": False,
            "page_count": 200,
            "chunk_count": CHUNKS_PER_DOCUMENT,
            "byte_size": 1,
            "toc": [],
            "status": "ready",
        }
        for n in range(-(-count // CHUNKS_PER_DOCUMENT))
    ]


STORE_ALL_TERMS = (
    "INSERT INTO document_terms (term, document_id, chunk_count) "
    "SELECT lexeme, document_id, count(*) FROM chunks, unnest(content_tsv) "
    "GROUP BY lexeme, document_id"
)
"""Every document's term counts at once: store_document_terms's figures for a whole load."""


def store_chunks(runtime: Runtime, count: int, chunks: Iterable[tuple[str, Vectors]]) -> None:
    """Stores `count` chunks, given as (content, unit vector), in ready documents of
    CHUNKS_PER_DOCUMENT chunks each, then builds the indexes and runs VACUUM ANALYZE.

    Loaded with binary COPY and indexed afterwards, as pgvector's loading example does: the
    HNSW and full-text indexes are dropped first and rebuilt from their own definitions,
    which is much faster than maintaining them row by row.
    """
    with runtime.sessions.begin() as session:
        session.execute(sa.insert(Document), document_rows(count))
    with runtime.engine.connect() as connection:
        types = dict(connection.execute(COPY_TYPES).tuples().all())
    with vector_driver(runtime.engine) as driver:
        with driver.cursor() as cursor:
            indexes = [
                cursor.execute(f"SELECT pg_get_indexdef('{name}'::regclass)").fetchone()[0]
                for name in BULK_INDEXES
            ]
            cursor.execute(f"DROP INDEX {', '.join(BULK_INDEXES)}")
            with cursor.copy(COPY_STATEMENT) as copy:
                copy.set_types([types[column.name] for column in COPY_COLUMNS])
                for row, (content, vector) in zip(range(count), chunks, strict=False):
                    values = chunk_values(row, content, vector, runtime.embedder.name)
                    copy.write_row([values[column.name] for column in COPY_COLUMNS])
            cursor.execute("SET LOCAL maintenance_work_mem = '1GB'")  # the graph fits: faster
            for index in indexes:
                cursor.execute(index)
            # What ingestion keeps of each document (app.db.terms): the keyword side weighs a
            # query's terms, and leaves the common ones out of its matches, by these counts.
            cursor.execute(STORE_ALL_TERMS)
            cursor.execute(POSTINGS)  # and every chunk's postings
        driver.commit()
        driver.autocommit = True  # VACUUM runs outside a transaction
        driver.execute("VACUUM ANALYZE documents, chunks, document_terms, chunk_terms")
    # Pooled connections fit hnsw.ef_search to the table's size when they open (and then once a
    # minute): new ones see the loaded table at once.
    runtime.engine.dispose()


def load_chunks(runtime: Runtime, count: int, rng: np.random.Generator) -> tuple[Vectors, Any]:
    """Returns the topic vectors and the vocabulary, most frequent first, after storing
    `count` synthetic chunks in ready documents.
    """
    # Topics spread over a low-dimensional subspace, as sentence embeddings are (their
    # intrinsic dimension is a few dozen): neighbouring topics overlap instead of forming
    # orthogonal islands, on which the graph's greedy descent can end in the wrong island.
    basis = rng.normal(size=(INTRINSIC_DIM, DIM))
    topics = unit(rng.normal(size=(count // CHUNKS_PER_TOPIC, INTRINSIC_DIM)) @ basis)
    vocabulary = np.array([f"w{n}x" for n in range(VOCABULARY)])
    zipf = 1.0 / np.arange(1, VOCABULARY + 1)
    words = rng.choice(VOCABULARY, size=(count, WORDS_PER_CHUNK), p=zipf / zipf.sum())

    def chunks() -> Iterator[tuple[str, Vectors]]:
        for row in range(count):
            noise = rng.normal(size=DIM) / np.sqrt(DIM)
            yield " ".join(vocabulary[words[row]]), unit(topics[row // CHUNKS_PER_TOPIC] + noise)

    store_chunks(runtime, count, chunks())
    return topics, vocabulary[np.argsort(-zipf)]


def read_passages(folder: Path, count: int, rng: np.random.Generator) -> list[str]:
    """Returns up to `count` passages of PASSAGE_WORDS words of running text from the PDFs in
    `folder`, spread evenly over the documents.

    A window counts as running text when most of its words are words (not numbers, symbols
    or OCR debris); scanned pages without a text layer give none.
    """
    import pymupdf  # here: only the realistic data needs it

    by_document = []
    for path in sorted(folder.rglob("*.pdf")):
        with pymupdf.Document(path) as document:  # type: ignore[no-untyped-call]
            words = [word for page in document for word in str(page.get_text()).split()]
        windows = [words[s : s + PASSAGE_WORDS] for s in range(0, len(words), PASSAGE_WORDS)]
        by_document.append(
            [
                " ".join(window)
                for window in windows
                if len(window) == PASSAGE_WORDS
                and sum(map(bool, map(WORD.fullmatch, window))) >= 0.7 * PASSAGE_WORDS
            ]
        )
    # Round robin over the documents, so that one long manual does not make up the pool.
    passages: list[str] = []
    for document in by_document:
        rng.shuffle(document)
    for rank in range(max(map(len, by_document), default=0)):
        passages += [document[rank] for document in by_document if rank < len(document)]
    return passages[:count]


def passage_chunks(
    passages: list[str], vectors: Vectors, count: int, rng: np.random.Generator
) -> Iterator[tuple[str, Vectors]]:
    """Yields `count` (content, unit vector) chunks, each a mixture of two passages.

    The vector: w * first + (1 - w) * second, w in [0.5, 1], plus noise of norm PASSAGE_NOISE
    drawn from the passages' own covariance, so it varies along the directions real
    embeddings vary along. At 10k chunks a chunk's nearest neighbour then has a cosine
    similarity of about 0.84 (median) and a 4-9 word phrase of a passage finds its best
    chunk at about 0.48. The content: runs of 3-6 consecutive words from either passage, in
    the same proportion, at random offsets, so that the full-text side finds the same
    neighbourhood without near-duplicate texts (which dedupe would drop)."""
    centred = vectors - vectors.mean(axis=0)
    words = [passage.split() for passage in passages]
    for _ in range(count):
        first, second = rng.integers(len(passages), size=2)
        weight = rng.uniform(0.5, 1.0)
        noise = rng.normal(size=len(passages)) @ centred
        noise *= PASSAGE_NOISE / np.linalg.norm(noise)
        vector = unit(weight * vectors[first] + (1 - weight) * vectors[second] + noise)
        content: list[str] = []
        while len(content) < PASSAGE_WORDS:
            source = words[first if rng.uniform() < weight else second]
            start = int(rng.integers(len(source) - 6))
            content += source[start : start + int(rng.integers(3, 7))]
        yield " ".join(content), vector


def query_phrases(passages: list[str], count: int, rng: np.random.Generator) -> list[str]:
    """Returns `count` queries, each 4-9 consecutive words of a random passage."""
    phrases = []
    for _ in range(count):
        words = passages[int(rng.integers(len(passages)))].split()
        length = int(rng.integers(4, 10))
        start = int(rng.integers(len(words) - length))
        phrases.append(" ".join(words[start : start + length]))
    return phrases


def near(topics: Vectors, chosen: npt.NDArray[np.int64], rng: np.random.Generator) -> Vectors:
    """Returns one query vector near each chosen topic."""
    return unit(topics[chosen] + rng.normal(size=(len(chosen), DIM)) / np.sqrt(DIM))


def measure(runtime: Runtime, count: int, queries: int, rng: np.random.Generator) -> list[str]:
    """Returns the markdown table rows for `count` chunks, after loading and timing them."""
    topics, vocabulary = load_chunks(runtime, count, rng)
    vectors = near(topics, rng.choice(len(topics), size=queries), rng)
    # Topic t is in document t * CHUNKS_PER_TOPIC // CHUNKS_PER_DOCUMENT, whose collection is
    # that number modulo 4: these are the topics of the first collection, then the others'.
    documents = np.arange(len(topics)) * CHUNKS_PER_TOPIC // CHUNKS_PER_DOCUMENT
    in_first = documents % len(COLLECTIONS) == 0
    on_topic = near(topics, rng.choice(np.flatnonzero(in_first), size=queries), rng)
    off_topic = near(topics, rng.choice(np.flatnonzero(~in_first), size=queries), rng)
    # Three words, each drawn from the first 1,000 by frequency: a typical query's mix.
    texts = [" ".join(rng.choice(vocabulary[:1000], size=3)) for _ in range(queries)]
    one_document = SearchFilters(document_ids=(uuid.UUID(int=1),))
    one_collection = SearchFilters(collection=COLLECTIONS[0])

    def bare(vector: Vectors) -> list[Any]:
        nearest = sa.select(Chunk.id).order_by(Chunk.embedding.cosine_distance(vector)).limit(10)
        with runtime.sessions.begin() as session:
            return list(session.scalars(nearest))

    def exact(vector: Vectors, filters: SearchFilters) -> set[Any]:
        query = sa.bindparam("query", vector, type_=Chunk.embedding.type)
        distance = sa.func.cosine_distance(Chunk.embedding, query)  # no index orders by it
        nearest = sa.select(Chunk.id).where(*filter_clauses(filters))
        with runtime.sessions.begin() as session:
            return set(session.scalars(nearest.order_by(distance, Chunk.id).limit(10)))

    def ours(vector: Vectors, text: str, filters: SearchFilters, mode: SearchMode) -> set[Any]:
        with runtime.sessions.begin() as session:
            found = search_chunks(
                session,
                query_vector=vector,
                query_text=text,
                filters=filters,
                k=10,
                overfetch=4,
                mode=mode,
            )
        return {candidate.chunk_id for candidate in found[:10]}

    # name: (its query vectors, what it runs, the filters recall is measured within, if any)
    Case = tuple[Vectors, Callable[[Vectors, str], Any], SearchFilters | None]
    cases: dict[str, Case] = {
        "bare": (vectors, lambda v, t: bare(v), SearchFilters()),
        "vector": (vectors, lambda v, t: ours(v, t, SearchFilters(), "vector"), SearchFilters()),
        "hybrid": (vectors, lambda v, t: ours(v, t, SearchFilters(), "hybrid"), None),
        "document": (vectors, lambda v, t: ours(v, t, one_document, "vector"), one_document),
        "on topic": (on_topic, lambda v, t: ours(v, t, one_collection, "vector"), one_collection),
        "off topic": (off_topic, lambda v, t: ours(v, t, one_collection, "vector"), one_collection),
    }
    for query in range(10):  # warm the caches
        for queries_of_case, case, _ in cases.values():
            case(queries_of_case[query], texts[query])

    # Three passes, so that nothing measured shares the machine with something else: the
    # model's threads keep spinning after a call, and an exact scan evicts the index's pages.
    times: dict[str, list[float]] = {name: [] for name in ["embed", *cases]}
    for _ in range(queries):
        times["embed"].append(timed(embed_query, runtime.embedder, QUERY_SENTENCE)[0])
    found: dict[str, list[Any]] = {name: [] for name in cases}
    for query in range(queries):
        for name, (queries_of_case, case, _) in cases.items():
            ms, hits = timed(case, queries_of_case[query], texts[query])
            found[name].append(hits)
            times[name].append(ms)
    recalls: dict[str, list[float]] = {name: [] for name in cases}
    for name, (queries_of_case, _, filters) in cases.items():
        for vector, hits in zip(queries_of_case, found[name], strict=True):
            if filters is not None:
                recalls[name].append(len(set(hits) & exact(vector, filters)) / 10)

    with runtime.engine.connect() as connection:
        sizes = connection.execute(
            sa.text(
                "SELECT current_setting('shared_buffers'), "
                "pg_size_pretty(pg_table_size('chunks')), "
                "pg_size_pretty(pg_relation_size('ix_chunks_embedding_hnsw'))"
            )
        ).one()
    return table_rows(count, times, recalls, f"shared_buffers {sizes[0]}, chunks {sizes[1]}, "
                      f"HNSW index {sizes[2]}")  # fmt: skip


def table_rows(
    count: int, times: dict[str, list[float]], recalls: dict[str, list[float]], sizes: str
) -> list[str]:
    """Returns the markdown table rows for one corpus size."""
    in_collection = count // len(COLLECTIONS)
    path = "exact" if in_collection <= EXACT_SCAN_MAX_ROWS else "index"

    def row(label: str, samples: Any, name: str = "") -> str:
        recall = f"{np.mean(recalls[name]):.3f}" if recalls.get(name) else ""
        p50, p95, _ = percentiles(samples)
        return table_row(f"{count:,}", label, f"{p50:.2f}", f"{p95:.2f}", recall)

    embed = np.array(times["embed"])
    floor = embed + np.array(times["bare"])
    rows = [
        row("query embedding alone", embed),
        table_row(f"{count:,}", f"({sizes})", "", "", ""),
        row("**floor**: embedding + bare top-10 SQL", floor, "bare"),
    ]
    for name in ("vector", "hybrid"):
        total = embed + np.array(times[name])
        ratio = percentiles(total)[1] / percentiles(floor)[1]
        label = f"embedding + `search_chunks` {name} (p95 **{ratio:.2f}x** floor)"
        rows.append(row(label, total, name))
    for name, label in [
        ("bare", "SQL only: bare top-10 (ef_search 40)"),
        ("vector", "SQL only: `search_chunks` vector, top 40"),
        ("hybrid", "SQL only: `search_chunks` hybrid, top 40 (3-word queries)"),
        ("document", f"SQL only: vector, one document ({CHUNKS_PER_DOCUMENT:,} chunks: exact)"),
        ("on topic", f"SQL only: vector, one collection ({in_collection:,}: {path}), near it"),
        ("off topic", f"SQL only: vector, one collection ({in_collection:,}: {path}), far"),
    ]:
        rows.append(row(label, times[name], name))
    return rows


def run(sizes: list[int], queries: int, server_url: str, data_dir: Path) -> str:
    """Returns the markdown section with the figures for every size."""
    rows: list[str] = []
    for count in sizes:
        url = fresh_database(server_url, f"citelock_bench_search_{count}")
        with closing(open_runtime(settings_for(url, data_dir))) as runtime:
            rows += measure(runtime, count, queries, np.random.default_rng(count))
    return "\n".join(
        [
            f"{queries} queries per size; milliseconds; recall@10 against an exact scan of the "
            "same filtered set. The chunks and query vectors are synthetic (see the script).",
            "",
            *table_head("chunks | what | p50 ms | p95 ms | recall@10", "rlrrr"),
            *rows,
            "",
            machine_summary(),
            "",
            f"Reproduce: `python bench/search_floor.py --sizes {' '.join(map(str, sizes))} "
            f"--queries {queries}`",
        ]
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--database-url", default="")
    args = parser.parse_args()
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as url,
    ):
        print(run(args.sizes, args.queries, url, Path(data_dir)))


if __name__ == "__main__":
    main()
