"""Citelock beside the store users would pick instead: LangChain's PGVector (langchain-postgres).

    pip install -e '.[bench]'
    python bench/peer.py [--sizes 10000 100000] [--queries 100] [--rounds 3] [--pool 300]
        [--corpus ../shared/corpus/docs] [--ingest-glob '*.pdf'] [--skip-ingest]
        [--database-url URL] [--output docs/benchmarks.md]

Both sides run in one process, on one PostgreSQL server (each in its own fresh database),
with one embedding model: citelock's (`load_embedder` through `open_runtime`), handed to
LangChain through `ModelEmbeddings`. Measured:

1. Ingestion of the PDFs in --corpus: citelock's pipeline (bench/ingest.py `ingest_files`)
   against LangChain's recipe, PyMuPDFLoader -> RecursiveCharacterTextSplitter ->
   PGVector.add_documents, the splitter at 1,000 characters with 200 of overlap. PGVector
   makes no vector index (its table has a GIN index on the metadata only); the HNSW index
   its users add is built afterwards and timed on its own line. The peer reads only the PDFs
   citelock accepted, so pages are the same.
2. Query latency at each --sizes: the same synthetic chunks (bench/search_floor.py's realistic
   data) in both stores, each with an HNSW index of pgvector's defaults (m 16,
   ef_construction 64) built after a binary COPY; the peer's rows go straight into its own
   table, as `add_embeddings` would write them, with a document id, source and page in its
   metadata. Per query: the floor (embedding + the bare top-10 statement on citelock's
   table, ef_search 40), the same statement on the peer's table (pgvector's defaults
   throughout, whatever citelock's own index is), `retrieve_context` (vector, top_k 10) and
   `similarity_search_with_score(query, k=10)`, in a fresh random order per query and round.
3. Filtered search, interleaved with 2: the chunks of every FILTER_EVERY-th document, k=10;
   citelock's `search_chunks` under `SearchFilters(document_ids=...)` (embedding included),
   the peer's `filter={"document_id": {"$in": [...]}}`. Rows returned and recall@10 against
   an exact scan of the same filtered chunks.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import tempfile
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Sequence
from contextlib import ExitStack, closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import sqlalchemy as sa
from langchain_community.document_loaders import PyMuPDFLoader
from langchain_core.embeddings import Embeddings
from langchain_postgres import PGVector
from langchain_text_splitters import RecursiveCharacterTextSplitter
from pgvector.psycopg import register_vector
from psycopg.types.json import Jsonb

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.contract.schemas import QueryRequest
from app.embedding.embedder import Embedder, embed_query, embed_texts
from app.flows.query import retrieval_params
from app.flows.runtime import Runtime, open_runtime
from app.retrieval.filters import SearchFilters
from app.retrieval.pipeline import RetrievalParams, retrieve_context
from app.retrieval.search import EXACT_SCAN_MAX_ROWS, search_chunks
from bench.ingest import IngestTotals, by_text_source, ingest_each, summed
from bench.kit import (
    BENCHMARKS,
    DEFAULT_CORPUS,
    database_server,
    fresh_database,
    machine_summary,
    percentiles,
    settings_for,
    table_head,
    table_row,
    timed,
    vector_driver,
    write_section,
)
from bench.query import (
    EXACT,
    TOP_K,
    WARM_UP,
    bare_cursor,
    exact_filtered,
    sizes_and_queries,
    top10,
)
from bench.search_floor import (
    CHUNKS_PER_DOCUMENT,
    DIM,
    Vectors,
    chunk_values,
    passage_chunks,
    query_phrases,
    read_passages,
    store_chunks,
)

PEER_COLLECTION = "bench"
PEER_CHUNK_SIZE = 1000
PEER_CHUNK_OVERLAP = 200
"""The splitter of the ten-line pipeline a user writes (RecursiveCharacterTextSplitter's
example values), in characters."""
PEER_TABLE = "langchain_pg_embedding"
PEER_HNSW = (
    f"CREATE INDEX ix_{PEER_TABLE}_hnsw ON {PEER_TABLE} USING hnsw (embedding vector_cosine_ops)"
)
"""The HNSW index the peer gets: pgvector's defaults, cosine, as its store searches by."""
PEER_BARE_SQL = f"SELECT id FROM {PEER_TABLE} ORDER BY embedding <=> %s LIMIT 10"
PEER_COPY = (
    f"COPY {PEER_TABLE} (id, collection_id, embedding, document, cmetadata) "
    "FROM STDIN WITH (FORMAT BINARY)"
)
FILTER_EVERY = 16
"""The filtered search keeps the chunks of every 16th document: 1/16 of them (6.25%) once
there are 16 documents or more (8,000 chunks); fewer documents keep a larger share."""
WARM_UP_TEXTS = 64
"""Only read for the chunk budget; each measurement builds its own with its database."""


class ModelEmbeddings(Embeddings):
    """citelock's embedding model behind LangChain's interface; counts the seconds it spends."""

    def __init__(self, embedder: Embedder) -> None:
        self.embedder = embedder
        self.seconds = 0.0

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        started = time.perf_counter()
        vectors: list[list[float]] = embed_texts(self.embedder, texts).tolist()
        self.seconds += time.perf_counter() - started
        return vectors

    def embed_query(self, text: str) -> list[float]:
        vector: list[float] = embed_query(self.embedder, text).tolist()
        return vector


def peer_store(engine: sa.Engine, embeddings: ModelEmbeddings) -> PGVector:
    """Returns the peer's store in `engine`'s database, its tables and collection created."""
    # embedding_length gives the column its dimension, without which no index can be built.
    return PGVector(
        embeddings, connection=engine, embedding_length=DIM, collection_name=PEER_COLLECTION
    )


@dataclass
class PeerIngest:
    """Seconds of the peer's stages over a list of PDFs, and what they made."""

    pages: int = 0
    chunks: int = 0
    characters: int = 0
    load: float = 0.0
    split: float = 0.0
    add: float = 0.0
    """add_documents: embedding (also counted in `embed`) and the INSERT."""
    embed: float = 0.0
    index: float = 0.0

    @property
    def total(self) -> float:
        return self.load + self.split + self.add


def ingest_peer(
    files: Sequence[Path],
    engine: sa.Engine,
    embeddings: ModelEmbeddings,
    splitter: RecursiveCharacterTextSplitter,
) -> PeerIngest:
    """Returns the peer's figures for `files`, one add_documents per PDF, then its HNSW index."""
    store = peer_store(engine, embeddings)
    figures = PeerIngest()
    embeddings.seconds = 0.0
    for path in files:
        load_ms, pages = timed(PyMuPDFLoader(str(path)).load)
        split_ms, chunks = timed(splitter.split_documents, pages)
        add_ms, _ = timed(store.add_documents, chunks)
        figures.load += load_ms / 1000
        figures.split += split_ms / 1000
        figures.add += add_ms / 1000
        figures.pages += len(pages)
        figures.chunks += len(chunks)
        figures.characters += sum(len(chunk.page_content) for chunk in chunks)
    figures.embed = embeddings.seconds
    with engine.begin() as connection:
        index_ms, _ = timed(connection.execute, sa.text(PEER_HNSW))
    figures.index = index_ms / 1000
    return figures


def ingestion(args: argparse.Namespace, server_url: str, data_dir: Path) -> str:
    """Returns the ingestion comparison's markdown: born-digital PDFs, then those with pages
    read by OCR (from which the peer's loader reads no text), each group on its own."""
    files = sorted(args.corpus.rglob(args.ingest_glob))
    url = fresh_database(server_url, "citelock_bench_peer_ingest")
    splitter = RecursiveCharacterTextSplitter(
        chunk_size=PEER_CHUNK_SIZE, chunk_overlap=PEER_CHUNK_OVERLAP
    )
    compared: list[tuple[str, IngestTotals, int, PeerIngest]] = []
    with closing(open_runtime(settings_for(url, data_dir))) as runtime:
        embed_texts(runtime.embedder, ["warming the model up"] * WARM_UP_TEXTS)
        parts = ingest_each(files, runtime)
        born_digital, ocr = by_text_source(parts, runtime)
        for name, ours in (("born-digital", born_digital), ("with pages read by OCR", ocr)):
            if not ours.ingested:
                continue
            peer_engine = sa.create_engine(
                fresh_database(server_url, f"langchain_bench_peer_ingest_{len(compared)}")
            )
            try:
                theirs = ingest_peer(
                    ours.ingested, peer_engine, ModelEmbeddings(runtime.embedder), splitter
                )
            finally:
                peer_engine.dispose()
            compared.append((name, ours, stored_characters(runtime, ours.ingested), theirs))
    refused = summed(parts).refused

    def row(name: str, pages: int, chunks: int, chars: int, seconds: float, embed: float) -> str:
        return table_row(
            name, pages, chunks, f"{chars / max(chunks, 1):.0f}", f"{seconds:.2f}",
            f"{pages / seconds:.2f}", f"{chunks / seconds:.1f}", f"{embed:.2f}",
        )  # fmt: skip

    lines = [
        f"Corpus: `{args.corpus}` (`{args.ingest_glob}`): {len(files) - len(refused)} PDFs; "
        f"refused by citelock (and so not given to the peer): {', '.join(refused) or 'none'}."
        " One PDF at a time, the model warmed up first. The peer's splitter: chunk_size "
        f"{PEER_CHUNK_SIZE}, chunk_overlap {PEER_CHUNK_OVERLAP} characters.",
        "",
        *table_head(
            "PDFs | store | pages | chunks | characters per chunk | seconds | pages/s "
            "| chunks/s | of which embedding, s",
            "llrrrrrrr",
        ),
    ]
    notes = []
    for name, ours, characters, theirs in compared:
        lines += [
            f"| {name} " + row(
                "citelock (extract, chunk, embed, store; HNSW maintained)",
                ours.pages, ours.chunks, characters, ours.wall, ours.timings.embed,
            ),
            f"| {name} " + row(
                "LangChain PGVector (load, split, add_documents; no vector index)",
                theirs.pages, theirs.chunks, theirs.characters, theirs.total, theirs.embed,
            ),
            f"| {name} " + row(
                "LangChain PGVector + building its HNSW index afterwards",
                theirs.pages, theirs.chunks, theirs.characters, theirs.total + theirs.index,
                theirs.embed,
            ),
        ]  # fmt: skip
        notes.append(
            f"- {name} ({', '.join(path.name for path in ours.ingested)}): peer stages, "
            f"seconds: PyMuPDFLoader {theirs.load:.2f}, splitter {theirs.split:.2f}, "
            f"add_documents {theirs.add:.2f} (embedding {theirs.embed:.2f}), HNSW build "
            f"{theirs.index:.2f}. Citelock: extraction {ours.timings.extract:.2f}, chunking "
            f"{ours.timings.chunk:.2f}, embedding {ours.timings.embed:.2f}, store "
            f"{ours.timings.store:.2f}."
        )
    return "\n".join([*lines, "", *notes])


def stored_characters(runtime: Runtime, files: Sequence[Path]) -> int:
    """Returns the characters of the chunks citelock stored from `files`."""
    with runtime.engine.connect() as connection:
        characters = connection.execute(
            sa.text(
                "SELECT coalesce(sum(length(c.content)), 0) FROM chunks c "
                "JOIN documents d ON d.id = c.document_id WHERE d.filename = ANY(:names)"
            ),
            {"names": [path.name for path in files]},
        ).scalar_one()
    return int(characters)


def load_peer(engine: sa.Engine, chunks: Sequence[tuple[str, Vectors]]) -> None:
    """Copies the chunks into the peer's table as add_embeddings would store them (same ids
    as citelock's chunks, the document id in the metadata), then indexes and analyses it."""
    with engine.connect() as connection:
        collection = connection.execute(
            sa.text("SELECT uuid FROM langchain_pg_collection WHERE name = :name"),
            {"name": PEER_COLLECTION},
        ).scalar_one()
    with vector_driver(engine) as driver:
        with driver.cursor() as cursor, cursor.copy(PEER_COPY) as copy:
            copy.set_types(["varchar", "uuid", "vector", "varchar", "jsonb"])
            for row, (content, vector) in enumerate(chunks):
                ours = chunk_values(row, content, vector)
                document_id = ours["document_id"]
                metadata = {
                    "document_id": str(document_id),
                    "source": f"doc{document_id.int - 1}.pdf",
                    "page": ours["page_start"],
                }
                copy.write_row([str(ours["id"]), collection, vector, content, Jsonb(metadata)])
        driver.commit()
        driver.autocommit = True  # VACUUM runs outside a transaction
        driver.execute("SET maintenance_work_mem = '1GB'")  # as store_chunks builds citelock's
        driver.execute(PEER_HNSW)
        driver.execute(f"VACUUM ANALYZE {PEER_TABLE}")


@dataclass
class Measured:
    """One size's latencies (ms, by variant), rows returned, recalls and notes."""

    times: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    rows: dict[str, list[int]] = field(default_factory=lambda: defaultdict(list))
    recalls: dict[str, float] = field(default_factory=dict)
    filtered_share: float = 0.0
    notes: str = ""


def ids_of(result: Any) -> list[str]:
    """Returns the chunk ids a variant found, as strings, best first."""
    if isinstance(result, list) and result and isinstance(result[0], tuple):
        return [str(document.id) for document, _ in result]  # the peer's (Document, score)
    chunks = getattr(result, "chunks", result)  # retrieve_context's bundle, or a list
    return [str(getattr(chunk, "chunk_id", chunk)) for chunk in chunks]


def measure(
    urls: tuple[str, str], data_dir: Path, count: int, queries: int, rounds: int,
    passages: list[str], pool: Vectors | None,
) -> tuple[Measured, Vectors]:  # fmt: skip
    """Returns one size's figures, and the pool's vectors (embedded on the first call)."""
    settings = settings_for(urls[0], data_dir)
    runtime: Runtime = open_runtime(settings)
    measured = Measured()
    rng = np.random.default_rng(count)
    with ExitStack() as stack:
        stack.callback(runtime.close)
        peer_engine = sa.create_engine(urls[1])
        stack.callback(peer_engine.dispose)
        if pool is None:
            pool = embed_texts(runtime.embedder, passages)
        chunks = list(passage_chunks(passages, pool, count, rng))
        ours_ms, _ = timed(store_chunks, runtime, count, chunks)
        store = peer_store(peer_engine, ModelEmbeddings(runtime.embedder))
        theirs_ms, _ = timed(load_peer, peer_engine, chunks)
        del chunks
        texts = query_phrases(passages, queries, rng)
        vectors = [embed_query(runtime.embedder, text) for text in texts]
        bare = bare_cursor(runtime, stack, 40)
        peer_bare = stack.enter_context(
            peer_engine.connect().execution_options(isolation_level="AUTOCOMMIT")
        )
        register_vector(peer_bare.connection.driver_connection)
        params = retrieval_params(QueryRequest(query="-", top_k=TOP_K, search="vector"), settings)
        documents = -(-count // CHUNKS_PER_DOCUMENT)
        kept = tuple(uuid.UUID(int=n + 1) for n in range(0, documents, FILTER_EVERY))
        kept_filters = SearchFilters(document_ids=kept)
        peer_filter = {"document_id": {"$in": [str(document) for document in kept]}}

        def library(text: str) -> object:
            with runtime.sessions.begin() as session:
                return retrieve_context(text, params, session=session, embedder=runtime.embedder)

        def filtered(text: str) -> object:
            vector = embed_query(runtime.embedder, text)
            with runtime.sessions.begin() as session:
                return search_chunks(
                    session, query_vector=vector, query_text=text, filters=kept_filters,
                    k=TOP_K, overfetch=params.overfetch, mode="vector",
                )[:TOP_K]  # fmt: skip

        variants: dict[str, Callable[[int], object]] = {
            "embed": lambda i: embed_query(runtime.embedder, texts[i]),
            "bare": lambda i: top10(bare, vectors[i]),
            "peer bare": lambda i: (
                peer_bare.exec_driver_sql(PEER_BARE_SQL, (vectors[i],)).scalars().all()
            ),
            "citelock": lambda i: library(texts[i]),
            "peer": lambda i: store.similarity_search_with_score(texts[i], k=TOP_K),
            "citelock filtered": lambda i: filtered(texts[i]),
            "peer filtered": lambda i: store.similarity_search_with_score(
                texts[i], k=TOP_K, filter=peer_filter
            ),
        }
        for i in range(min(WARM_UP, queries)):  # caches, prepared statements, thread pools
            for variant in variants.values():
                variant(i)
        found: dict[str, dict[int, list[str]]] = defaultdict(dict)
        for _ in range(rounds):
            for i in rng.permutation(queries):
                for name in rng.permutation(list(variants)):
                    ms, result = timed(variants[name], int(i))
                    measured.times[name].append(ms)
                    if name != "embed":
                        found[name].setdefault(int(i), ids_of(result))
        measured.recalls = recalls(runtime, texts, vectors, found, params, kept_filters)
        measured.rows = {
            name: [len(ids) for ids in by_query.values()] for name, by_query in found.items()
        }
        with runtime.engine.connect() as connection:
            share = connection.execute(
                sa.text("SELECT avg((document_id = ANY(:kept))::int) FROM chunks"),
                {"kept": list(kept)},
            ).scalar_one()
        measured.filtered_share = float(share)
        measured.notes = (
            f"loaded and indexed in {ours_ms / 1000:.0f} s (citelock) and "
            f"{theirs_ms / 1000:.0f} s (peer); "
            + index_notes(runtime.engine, peer_engine)
            + "; "
            + peer_plans(
                peer_engine,
                {
                    name: functools.partial(variants[name], 0)
                    for name in ("peer bare", "peer", "peer filtered")
                },
            )
        )
    return measured, pool


def recalls(
    runtime: Runtime, texts: list[str], vectors: list[Vectors],
    found: dict[str, dict[int, list[str]]], params: RetrievalParams, kept: SearchFilters,
) -> dict[str, float]:  # fmt: skip
    """Returns recall@10 by variant against exact scans; citelock's unfiltered figure is that
    of the index path `retrieve_context` takes (`search_chunks` under the app's filters),
    since what it returns is also thinned by min_similarity and dedupe."""
    scores: dict[str, list[float]] = defaultdict(list)
    with runtime.sessions.begin() as session:
        for i, (text, vector) in enumerate(zip(texts, vectors, strict=True)):
            truth = {str(row[0]) for row in session.execute(EXACT, {"query": vector})}
            for name in ("bare", "peer bare", "peer"):
                scores[name].append(len(truth & set(found[name][i])) / TOP_K)
            truth = {
                str(chunk) for chunk in session.scalars(exact_filtered(kept), {"query": vector})
            }
            for name in ("citelock filtered", "peer filtered"):
                scores[name].append(len(truth & set(found[name][i])) / TOP_K)
            truth = {
                str(c) for c in session.scalars(exact_filtered(params.filters), {"query": vector})
            }
            ours = search_chunks(
                session, query_vector=vector, query_text=text, filters=params.filters, k=TOP_K,
                overfetch=params.overfetch, mode="vector",
            )  # fmt: skip
            scores["citelock"].append(len(truth & set(ids_of(ours[:TOP_K]))) / TOP_K)
    return {name: float(np.mean(values)) for name, values in scores.items()}


def index_notes(ours: sa.Engine, theirs: sa.Engine) -> str:
    """Returns a line naming pgvector's version and both stores' vector indexes and sizes."""
    indexes = sa.text(
        "SELECT indexdef, pg_size_pretty(pg_relation_size(indexname::regclass)) FROM pg_indexes "
        "WHERE indexdef LIKE '%USING hnsw%'"
    )
    described = []
    for name, engine in (("citelock", ours), ("peer", theirs)):
        with engine.connect() as connection:
            for definition, size in connection.execute(indexes):
                described.append(f"{name}: `{definition}` ({size})")
    with ours.connect() as connection:
        version = connection.execute(
            sa.text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        ).scalar_one()
    return f"pgvector {version}; " + "; ".join(described)


def peer_plans(engine: sa.Engine, searches: dict[str, Callable[[], object]]) -> str:
    """Returns how PostgreSQL's planner reads the peer's table in each of `searches`: the
    peer's SQL is its own, so whether its HNSW index serves a search is the planner's call."""
    statements: list[tuple[str, Any]] = []

    def capture(*event: Any) -> None:
        statement, parameters = event[2:4]
        if "ORDER BY" in statement:
            statements.append((statement, parameters))

    plans = []
    for name, search in searches.items():
        sa.event.listen(engine, "before_cursor_execute", capture)
        try:
            search()
        finally:
            sa.event.remove(engine, "before_cursor_execute", capture)
        statement, parameters = statements[-1]
        with engine.connect() as connection:
            register_vector(connection.connection.driver_connection)  # the bare one's vector
            lines = connection.exec_driver_sql("EXPLAIN " + statement, parameters).scalars()
            scans = [
                line.split("  (")[0].strip().removeprefix("->").strip()
                for line in lines
                if f"on {PEER_TABLE} " in line
            ]
        plans.append(f"{name}: {', '.join(scans)}")
    return "the peer's plans: " + "; ".join(plans)


LATENCY_LABELS = (
    ("embed", "query embedding alone"),
    ("bare", "bare top-10 SQL on citelock's table (HNSW, ef_search 40)"),
    ("floor", "**floor**: embedding + bare top-10 SQL"),
    ("peer bare", "bare top-10 SQL on the peer's table (its HNSW index, ef_search 40)"),
    ("citelock", "citelock `retrieve_context`, vector, top_k 10"),
    ("peer", "LangChain `similarity_search_with_score`, k=10"),
)


def latency_rows(count: int, measured: Measured) -> list[str]:
    """Returns the unfiltered latency table's rows for one size."""
    times = measured.times
    floor = list(np.add(times["embed"], times["bare"]))  # paired: same query, same round
    floor_p95 = percentiles(floor)[1]
    rows = []
    for name, label in LATENCY_LABELS:
        p50, p95, _ = percentiles(floor if name == "floor" else times[name])
        ratio = f"{p95 / floor_p95:.2f}x" if name in ("floor", "citelock", "peer") else ""
        returned = f"{np.mean(measured.rows[name]):.1f}" if name in measured.rows else ""
        recall = f"{measured.recalls[name]:.3f}" if name in measured.recalls else ""
        rows.append(
            table_row(f"{count:,}", label, f"{p50:.1f}", f"{p95:.1f}", ratio, returned, recall)
        )
    return rows


def filtered_rows(count: int, measured: Measured) -> list[str]:
    """Returns the filtered search table's rows for one size."""
    rows = []
    for name, label in (
        ("citelock filtered", "citelock `search_chunks`, `document_ids` filter"),
        ("peer filtered", 'LangChain `similarity_search_with_score`, `filter={"document_id": '
         '{"$in": ...}}`'),
    ):  # fmt: skip
        p50, p95, _ = percentiles(measured.times[name])
        rows.append(
            table_row(
                f"{count:,}", f"{measured.filtered_share:.1%}", label, f"{p50:.1f}",
                f"{p95:.1f}", f"{np.mean(measured.rows[name]):.1f}",
                f"{measured.recalls[name]:.3f}",
            )
        )  # fmt: skip
    return rows


def queries_section(args: argparse.Namespace, results: dict[int, Measured]) -> str:
    """Returns the query latency and filtered search markdown for every size."""
    latency = table_head(
        "chunks | what | p50 ms | p95 ms | p95 / floor | rows returned | recall@10", "rlrrrrr"
    )
    filtered = table_head(
        "chunks | kept by the filter | what | p50 ms | p95 ms | rows returned | recall@10",
        "rrlrrrr",
    )
    notes = []
    for count, measured in results.items():
        latency += latency_rows(count, measured)
        filtered += filtered_rows(count, measured)
        notes.append(f"- {count:,} chunks: {measured.notes}")
    per_size = ", ".join(f"{q} at {c:,} chunks" for c, q in sizes_and_queries(args))
    return "\n".join(
        [
            f"Distinct query phrases: {per_size}; {args.rounds} rounds, every variant (both "
            "tables below) run for each query in a fresh random order per query and round. The "
            "floor pairs each query's embedding and bare SQL times from the same round. Rows "
            "returned and recall@10 (against an exact scan) are from each query's first run; "
            "`retrieve_context` returns fewer than 10 where chunks fall under min_similarity "
            "or are near-duplicates, and its recall is that of `search_chunks`, the index path "
            "it takes (see bench/query.py).",
            "",
            *latency,
            "",
            f"Filtered search, interleaved with the above: the chunks of every {FILTER_EVERY}th "
            "document, k=10, embedding included. Recall@10 against an exact scan of the "
            "filtered chunks. Where the planner gives the peer's statement its HNSW index, "
            "pgvector's plain index scan (ef_search 40) filters the ~40 candidates its walk "
            "returns, so fewer than k can come back; where it plans a sequential scan instead "
            "(the peer's plans are under Data), the result is exact and its cost grows with the "
            f"table. Citelock scans filtered sets of up to {EXACT_SCAN_MAX_ROWS:,} chunks exactly "
            "and larger ones "
            "with pgvector's iterative index scan, falling back to the exact scan when that "
            "comes up short.",
            "",
            *filtered,
            "",
            "Data:",
            *notes,
        ]
    )


def run_queries(args: argparse.Namespace, server_url: str, data_dir: Path) -> dict[int, Measured]:
    """Returns each size's measurements, both stores in fresh databases per size."""
    passages = read_passages(args.corpus, args.pool, np.random.default_rng(0))
    pool: Vectors | None = None
    results: dict[int, Measured] = {}
    for count, queries in sizes_and_queries(args):
        urls = (
            fresh_database(server_url, f"citelock_bench_peer_{count}"),
            fresh_database(server_url, f"langchain_bench_peer_{count}"),
        )
        results[count], pool = measure(urls, data_dir, count, queries, args.rounds, passages, pool)
        print("\n".join(latency_rows(count, results[count])), flush=True)
        print("\n".join(filtered_rows(count, results[count])), flush=True)
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000])
    parser.add_argument("--queries", type=int, nargs="+", default=[100])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--pool", type=int, default=300, help="passages embedded for real")
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    parser.add_argument("--ingest-glob", default="*.pdf", help="the PDFs ingested, under --corpus")
    parser.add_argument("--skip-ingest", action="store_true")
    parser.add_argument("--database-url", default="")
    parser.add_argument("--output", type=Path, default=BENCHMARKS)
    args = parser.parse_args()
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parts = []
    with (
        tempfile.TemporaryDirectory() as data_dir,
        database_server(args.database_url, Path(data_dir)) as server_url,
    ):
        if not args.skip_ingest:
            parts += ["### Ingestion", "", ingestion(args, server_url, Path(data_dir)), ""]
            print(parts[-2], flush=True)
        if args.sizes:
            results = run_queries(args, server_url, Path(data_dir))
            parts += ["### Queries", "", queries_section(args, results), ""]
    command = ["python bench/peer.py", "--sizes", *map(str, args.sizes)]
    command += ["--queries", *map(str, args.queries), "--rounds", str(args.rounds)]
    command += ["--pool", str(args.pool)]
    if args.ingest_glob != "*.pdf":
        command += ["--ingest-glob", f"'{args.ingest_glob}'"]
    if args.skip_ingest:
        command.append("--skip-ingest")
    text = "\n".join(
        [
            "Citelock beside LangChain's PGVector store (langchain-postgres), the store users "
            "would otherwise pick: same embedding model, same PostgreSQL server (a database "
            "each), same machine, one run. See bench/peer.py for what each side does.",
            "",
            *parts,
            machine_summary(shared=True),
            "",
            f"Reproduce: `pip install -e '.[bench]' && {' '.join(command)}`",
        ]
    )
    print(text)
    write_section(args.output, "Peer comparison", text)


if __name__ == "__main__":
    main()
