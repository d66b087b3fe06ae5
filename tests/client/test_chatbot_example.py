"""examples/chatbot_backend.py against the real service, with no language model configured:
its reply is citelock's answer, with the same citations and a viewer link that opens."""

from __future__ import annotations

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import httpx
import pytest
from citelock_client import Client
from fastapi.testclient import TestClient

from tests.helpers.chat import ChatServer

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "chatbot_backend.py"
QUESTION = "What does citation locking tie every claim to?"


@pytest.fixture(scope="module")
def example() -> Iterator[ModuleType]:
    """The example imported from its file, as `python examples/chatbot_backend.py` runs it;
    registered while in use, so pydantic finds the classes its annotations name."""
    spec = importlib.util.spec_from_file_location("chatbot_backend", EXAMPLE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    yield module
    del sys.modules[spec.name]


@pytest.fixture
def citelock(service_url: str, sample_path: Path) -> Iterator[Client]:
    with Client(service_url) as client:
        client.upload(sample_path, collection="papers")
        yield client


def test_the_reply_is_the_cited_answer(example: ModuleType, citelock: Client) -> None:
    with TestClient(example.create_app(citelock)) as chatbot:
        reply = chatbot.post("/chat", json={"message": QUESTION, "collection": "papers"})
    assert reply.status_code == 200, reply.text
    body = reply.json()
    answer = citelock.query(QUESTION, filters={"collection": "papers"})
    assert (body["status"], body["written_by"]) == ("ok", "citelock")
    assert body["reply"] == answer.answer
    assert "Citation locking ties every claim" in body["reply"]
    assert [(c["n"], c["source"], c["page_start"]) for c in body["citations"]] == [
        (c.n, answer.sources[c.n - 1], c.page_start) for c in answer.citations
    ]
    viewer = httpx.get(body["viewer_url"])
    assert viewer.status_code == 200 and "text/html" in viewer.headers["content-type"]


def test_a_question_the_documents_do_not_answer(example: ModuleType, citelock: Client) -> None:
    with TestClient(example.create_app(citelock)) as chatbot:
        body = chatbot.post("/chat", json={"message": "What is the recipe for a cake?"}).json()
    assert body["reply"] == example.NO_ANSWER
    assert (body["citations"], body["viewer_url"]) == ([], None)
    assert body["status"] in ("no_answer", "no_matches")


def test_no_language_model_without_openai_model(
    example: ModuleType, monkeypatch: pytest.MonkeyPatch, service_url: str
) -> None:
    monkeypatch.setenv("CITELOCK_URL", service_url)
    monkeypatch.delenv("OPENAI_MODEL", raising=False)
    with TestClient(example.app_from_environment()) as chatbot:
        body = chatbot.post("/chat", json={"message": QUESTION}).json()
    assert body["status"] == "empty_database" and body["written_by"] == "citelock"


def test_a_language_model_rewords_the_answer_keeping_its_markers(
    example: ModuleType, citelock: Client, chat_server: ChatServer
) -> None:
    answer = citelock.query(QUESTION)
    markers = " ".join(f"[{citation.n}]" for citation in answer.citations)
    chat_server.reply = lambda prompt: f"Each claim is tied to its page. {markers}"
    model = example.ChatModel(base_url=chat_server.url, model="test-model", api_key="key")
    with TestClient(example.create_app(citelock, model)) as chatbot:
        body = chatbot.post("/chat", json={"message": QUESTION}).json()
    assert (body["reply"], body["written_by"]) == (chat_server.reply(""), "llm")
    assert [c["n"] for c in body["citations"]] == [c.n for c in answer.citations]
    [request] = chat_server.requests
    assert request["path"] == "/chat/completions" and request["auth"] == "Bearer key"
    assert answer.answer in request["messages"][-1]["content"]


@pytest.mark.parametrize("behaviour", ["error", "garbage", "invented marker"])
def test_a_failing_language_model_leaves_the_quoted_answer(
    example: ModuleType, citelock: Client, chat_server: ChatServer, behaviour: str
) -> None:
    chat_server.behaviour = behaviour if behaviour != "invented marker" else "reply"
    chat_server.reply = lambda prompt: "Claims are tied to pages. [1] And to the moon. [9]"
    model = example.ChatModel(base_url=chat_server.url, model="test-model")
    with TestClient(example.create_app(citelock, model)) as chatbot:
        body = chatbot.post("/chat", json={"message": QUESTION}).json()
    assert body["written_by"] == "citelock"
    assert body["reply"] == citelock.query(QUESTION).answer
