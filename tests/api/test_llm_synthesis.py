"""SYNTHESIS=llm against a real local chat server that speaks the OpenAI protocol.

The server (tests/helpers/chat.py) answers `POST /v1/chat/completions` as each test sets it
up: a reply built from the numbered chunks it was sent, an error status, a body that is not
JSON, or no answer within LLM_TIMEOUT.
"""

from __future__ import annotations

import dataclasses
import re
import socket
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import SecretStr

from app.core.config import Synthesis
from app.flows.runtime import Runtime
from tests.helpers.chat import SLOW_S, ChatServer
from tests.helpers.clients import QUERY, ask, claims_of, client_for, page_texts, upload


def sources_of(prompt: str) -> list[str]:
    """Returns the chunk texts of a user message, in their numbered order."""
    found = re.findall(r"\[\d+\] [^\n]*\n(.*?)(?=\n\n\[\d+\] |\n\nQuestion: )", prompt, re.S)
    return [str(text) for text in found]


def llm_client(runtime: Runtime, url: str, **settings: Any) -> TestClient:
    changed = runtime.settings.model_copy(
        update={
            "synthesis": Synthesis.llm,
            "llm_base_url": url,
            "llm_model": "test-model",
            "llm_api_key": SecretStr("secret-key"),
            "llm_timeout": 10.0,
            **settings,
        }
    )
    return client_for(dataclasses.replace(runtime, settings=changed))


def numbered(prompt: str, words: str) -> int:
    """Returns the number of the first chunk of the prompt that contains `words`."""
    chunks = sources_of(prompt)
    return next(n for n, text in enumerate(chunks, 1) if words in " ".join(text.split()))


COMPILER = (
    "A tracing compiler turns those recorded loops into fast native code for later iterations."
)


def test_llm_answer_keeps_supported_cited_sentences(
    runtime: Runtime, chat_server: ChatServer, sample_pdf: bytes
) -> None:
    chat_server.reply = lambda prompt: (
        "Here is what the sources say. "
        f"{COMPILER} [{numbered(prompt, 'tracing compiler')}] "
        f"The moon is made of green cheese [{numbered(prompt, 'tracing compiler')}]. "
        f"Trace trees record hot loops [{len(sources_of(prompt)) + 5}]. "
        "An uncited closing sentence."
    )
    with llm_client(runtime, chat_server.url) as client:
        upload(client, sample_pdf)
        body = ask(client)
    assert body["synthesis"] == "llm"
    assert claims_of(body["answer"]) == [(COMPILER, 1)]
    assert re.fullmatch(r"sample\.pdf, p\. \d", body["sources"][0])
    [request] = chat_server.requests
    assert request["path"] == "/v1/chat/completions" and request["model"] == "test-model"
    assert request["auth"] == "Bearer secret-key" and request["temperature"] == 0
    [item] = body["highlighted_sources"]
    [(start, end)] = item["page_spans"]
    page = page_texts(runtime)[(item["document_id"], item["page_number"])]
    assert " ".join(page[start:end].split()) == COMPILER
    assert item["rects"]


def test_llm_paraphrase_is_highlighted_at_the_sentence_it_rests_on(
    runtime: Runtime, chat_server: ChatServer, sample_pdf: bytes
) -> None:
    paraphrase = "The tracing compiler turns recorded loops into native code."
    chat_server.reply = lambda prompt: f"{paraphrase} [{numbered(prompt, 'tracing compiler')}]"
    with llm_client(runtime, chat_server.url + "/v1/") as client:
        upload(client, sample_pdf)
        body = ask(client)
    assert body["synthesis"] == "llm"
    assert body["answer"] == f"{paraphrase} [1]"
    assert chat_server.requests[0]["path"] == "/v1/chat/completions"
    [item] = body["highlighted_sources"]
    [(start, end)] = item["highlight_spans"]
    assert " ".join(item["text_snippet"][start:end].split()) == COMPILER


def closed_port_url() -> str:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"http://127.0.0.1:{probe.getsockname()[1]}"


@pytest.mark.parametrize("failure", ["unreachable", "error", "garbage", "slow", "uncited"])
def test_llm_failure_returns_the_extractive_answer(
    runtime: Runtime, chat_server: ChatServer, sample_pdf: bytes, failure: str
) -> None:
    with client_for(runtime) as client:
        upload(client, sample_pdf)
        extractive = ask(client, QUERY)
    chat_server.behaviour = failure if failure in ("error", "garbage", "slow") else "reply"
    chat_server.reply = lambda prompt: "A fine answer with no citation at all."
    url = closed_port_url() if failure == "unreachable" else chat_server.url
    with llm_client(runtime, url, llm_timeout=SLOW_S / 6) as client:
        fallback = ask(client, QUERY)
    assert extractive["synthesis"] == "extractive"
    assert fallback["synthesis"] == "extractive_fallback"
    assert fallback["status"] == extractive["status"] == "ok"
    for field in ("answer", "sources", "confidence", "highlighted_sources", "chunks"):
        assert fallback[field] == extractive[field]
