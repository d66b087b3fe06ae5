"""The real model, each distinct text embedded once per test run."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from app.embedding import Embedder
from app.embedding.backends import FloatArray

Vectors = dict[tuple[str, bool, str], FloatArray]
"""Vectors by (model, whether the text was read as a query, text)."""


class RememberingEmbedder:
    """`embedder`, with every vector it gave kept in `vectors` and given again for the same text.

    The suite ingests the same documents into several databases and asks the same questions
    more than once: on 2026-12-02, 4,092 of the 7,859 texts it embedded had been embedded
    before, half of the model's time in a run. A text's vector is the same in any batch but for
    rounding (tests/unit/test_embedder.py).
    """

    def __init__(self, embedder: Embedder, vectors: Vectors) -> None:
        self.embedder = embedder
        self.vectors = vectors
        self.name = embedder.name
        self.dim = embedder.dim
        self.batch_size = embedder.batch_size
        self.parallel_batches = embedder.parallel_batches

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        return self._remembered(texts, False, self.embedder.embed_batch)

    def embed_queries(self, texts: Sequence[str]) -> FloatArray:
        return self._remembered(texts, True, self.embedder.embed_queries)

    def _remembered(
        self, texts: Sequence[str], query: bool, embed: Callable[[Sequence[str]], FloatArray]
    ) -> FloatArray:
        keys = [(self.name, query, text) for text in texts]
        missing = [key for key in dict.fromkeys(keys) if key not in self.vectors]
        if missing:
            vectors = embed([text for _, _, text in missing])
            self.vectors.update(zip(missing, vectors, strict=True))
        return np.stack([self.vectors[key] for key in keys])
