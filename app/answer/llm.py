"""Answers written by a language model, held to the chunks it was given.

The model (any OpenAI-compatible `POST /v1/chat/completions`) sees the context chunks
numbered [1]..[n] and is asked to end every sentence with the number of the chunk it rests
on. Its reply is then held to that: a sentence is kept only when it ends with a marker [k]
for a chunk it was given, and when that chunk has a sentence supporting it, one that holds at
least SUPPORT_FLOOR of the claim's terms (synthesis.terms). The answer keeps the model's
words; the claim's evidence is the supporting sentence, so a paraphrase is highlighted at the
sentence it paraphrases and a claim no sentence supports is dropped. Markers are renumbered to
the answer's sources, which come from the chunks' stored page provenance, as in extractive
answers. A reply with no sentence left, like a model that cannot be reached, is a failure
(ChatFailed): the caller falls back to the extractive answer.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

import httpx

from app.answer.synthesis import (
    Answer,
    Quote,
    chunk_sentences,
    cite,
    source_label,
    terms,
)
from app.core.chunks import Candidate
from app.core.geometry import page_break_at
from app.core.sentences import split_sentences

SUPPORT_FLOOR = 0.5
"""A claim stands when one sentence of its chunk holds at least this share of its terms."""

SYSTEM_PROMPT = (
    "You answer questions from numbered sources only. Write a few short sentences. End every "
    "sentence with the number of the one source it rests on, in square brackets, like [2]. "
    "Use the sources' own words where you can. Write nothing that no source says."
)

_MARKERS = re.compile(r"((?:\s*\[\d+\])+)([.!?]*)")
_LIST_ITEM = re.compile(r"^(?:[-*\u2022]|\d+[.)])\s+")


class ChatFailed(Exception):
    """The model could not be asked, or gave no usable answer; the message names why."""


@dataclass(frozen=True)
class ChatModel:
    base_url: str
    model: str
    api_key: str
    timeout: float


def chat_messages(query: str, context: Sequence[Candidate]) -> list[dict[str, str]]:
    """Returns the chat request's messages: the rules, then the numbered chunks and the question."""
    sources = "\n\n".join(
        f"[{number}] {source_label(c.document_filename, c.page_start, c.page_end)}\n{c.content}"
        for number, c in enumerate(context, 1)
    )
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"Sources:\n\n{sources}\n\nQuestion: {query}"},
    ]


def request_reply(chat: ChatModel, messages: list[dict[str, str]]) -> str:
    """Returns the text of the model's reply, or raises ChatFailed."""
    base = chat.base_url.rstrip("/")
    url = base + ("/chat/completions" if base.endswith("/v1") else "/v1/chat/completions")
    headers = {"Authorization": f"Bearer {chat.api_key}"} if chat.api_key else {}
    # temperature 0: the same question over the same chunks should read the same.
    body = {"model": chat.model, "messages": messages, "temperature": 0}
    try:
        response = httpx.post(url, json=body, headers=headers, timeout=chat.timeout)
        response.raise_for_status()
        content = response.json()["choices"][0]["message"]["content"]
    except httpx.HTTPStatusError as exc:
        raise ChatFailed(f"the chat server answered {exc.response.status_code}") from exc
    except httpx.HTTPError as exc:
        raise ChatFailed(f"cannot reach the chat server at {url} ({type(exc).__name__})") from exc
    except (ValueError, LookupError, TypeError) as exc:
        raise ChatFailed("the chat server's reply is not a chat completion") from exc
    if not isinstance(content, str):
        raise ChatFailed("the chat server's reply has no text")
    return content


def cited_sentences(reply: str) -> list[tuple[str, list[int]]]:
    """Returns each sentence of `reply` that ends with citation markers, with their numbers.

    A marker may stand before or after the closing period ("... loops [1]." or "... loops. [1]");
    the sentence is returned with its period and without the markers. Sentences with no marker
    of their own, and whatever follows the last marker, are left out.
    """
    found: list[tuple[str, list[int]]] = []
    cursor = 0
    for match in _MARKERS.finditer(reply):
        before = reply[cursor : match.start()]
        cursor = match.end()
        spans = split_sentences(before)
        if not spans:
            continue
        start, end = spans[-1]
        sentence = _LIST_ITEM.sub("", " ".join(before[start:end].split())) + match.group(2)
        found.append((sentence, [int(n) for n in re.findall(r"\d+", match.group(1))]))
    return found


def supporting_sentence(claim: str, chunk: Candidate) -> tuple[int, int, float] | None:
    """Returns the span of the chunk's sentence that best supports `claim`, and its support.

    Support is the share of the claim's terms the sentence holds; a sentence the claim quotes
    word for word wins outright, ties go to the earlier sentence. None below SUPPORT_FLOOR.
    """
    claim_terms = terms(claim)
    if not claim_terms:
        return None
    wording = " ".join(claim.split())
    best: tuple[int, int, float] | None = None
    for start, end in chunk_sentences(chunk.content, page_break_at(chunk)):
        sentence = chunk.content[start:end]
        if " ".join(sentence.split()) == wording:
            return start, end, 1.0
        support = len(claim_terms & terms(sentence)) / len(claim_terms)
        if best is None or support > best[2]:
            best = (start, end, support)
    return best if best is not None and best[2] >= SUPPORT_FLOOR else None


def synthesize_with_model(query: str, context: Sequence[Candidate], chat: ChatModel) -> Answer:
    """Returns the model's answer to `query` over `context`, every claim supported and cited.

    Raises ChatFailed when the model cannot be asked or no sentence of its reply stands.
    """
    if not context:
        return cite([], set())
    reply = request_reply(chat, chat_messages(query, context))
    quotes: list[Quote] = []
    for sentence, numbers in cited_sentences(reply):
        supported = [
            (found, context[number - 1])
            for number in numbers
            if 1 <= number <= len(context)
            and (found := supporting_sentence(sentence, context[number - 1])) is not None
        ]
        if supported:
            (start, end, _), chunk = max(supported, key=lambda pair: pair[0][2])
            quotes.append(Quote(chunk, start, end, sentence))
    if not quotes:
        raise ChatFailed("no sentence of the model's reply cites a given chunk that supports it")
    return cite(quotes, terms(query))
