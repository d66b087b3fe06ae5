"""A chatbot's backend over citelock: a user's message in, a reply with its citations and the
link to the cited lines out.

    pip install ./clients/python fastapi uvicorn
    citelock serve &                                   # or CITELOCK_URL=http://host:8000
    python examples/chatbot_backend.py                 # listens on http://127.0.0.1:8080
    curl -s localhost:8080/chat -H 'content-type: application/json' \
        -d '{"message": "how are trace trees formed?"}'

The reply is citelock's answer: sentences quoted from the documents, each ending with its
marker [n], `citations[n-1]` saying which document and pages [n] stands for. With
OPENAI_MODEL set (and OPENAI_BASE_URL, OPENAI_API_KEY as needed: any OpenAI-compatible chat
server), a language model rewords that answer for the conversation, keeping the markers; a
model that fails, or drops or invents markers, leaves the quoted answer in place.
"""

from __future__ import annotations

import os
import re
from typing import Literal

import httpx
from citelock_client import Client, QueryResponse
from fastapi import FastAPI
from pydantic import BaseModel, Field

NO_ANSWER = "I found nothing in your documents that answers this."
MARKER = re.compile(r"\[(\d+)\]")
REWORDING = (
    "You answer a user's question from their documents. You are given an answer made of "
    "sentences quoted from the documents, each ending with a citation marker like [1], and "
    "the sources the markers stand for. Reword the answer as a short reply to the user. "
    "State nothing the quoted sentences do not say, and end every sentence with the marker "
    "of the sentence it comes from."
)


class ChatRequest(BaseModel):
    message: str = Field(min_length=1, max_length=1000)
    collection: str | None = Field(default=None, description="Only this collection.")


class CitedSource(BaseModel):
    n: int
    """The marker [n] in the reply."""
    source: str
    """In words: "paper.pdf, p. 3"."""
    document_id: str
    document_name: str
    page_start: int
    page_end: int


class ChatReply(BaseModel):
    reply: str
    citations: list[CitedSource]
    viewer_url: str | None
    """The cited lines highlighted on their pages, for an <iframe> or a link."""
    status: str
    """citelock's: ok, or why there is no answer (no_answer, no_matches, empty_database)."""
    written_by: Literal["citelock", "llm"]


class ChatModel:
    """An OpenAI-compatible chat completions endpoint."""

    def __init__(self, *, base_url: str, model: str, api_key: str = "") -> None:
        headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}
        self.http = httpx.Client(base_url=base_url.rstrip("/"), headers=headers, timeout=30.0)
        self.model = model

    def reword(self, message: str, answer: QueryResponse) -> str | None:
        """Returns the model's wording of the cited answer, or None when it fails or its
        markers are not exactly the answer's: a reply must cite what citelock cited."""
        sources = "\n".join(f"[{n}] {source}" for n, source in enumerate(answer.sources, 1))
        prompt = f"Question: {message}\n\nAnswer:\n{answer.answer}\n\nSources:\n{sources}"
        try:
            response = self.http.post(
                "/chat/completions",
                json={
                    "model": self.model,
                    "temperature": 0,
                    "messages": [
                        {"role": "system", "content": REWORDING},
                        {"role": "user", "content": prompt},
                    ],
                },
            )
            response.raise_for_status()
            reply = str(response.json()["choices"][0]["message"]["content"]).strip()
        except (httpx.HTTPError, ValueError, KeyError, IndexError, TypeError):
            return None
        if set(MARKER.findall(reply)) != set(MARKER.findall(answer.answer)):
            return None
        return reply


def create_app(citelock: Client, chat_model: ChatModel | None = None) -> FastAPI:
    app = FastAPI(title="citelock chatbot backend")

    @app.post("/chat")
    def chat(request: ChatRequest) -> ChatReply:
        filters = {"collection": request.collection} if request.collection else None
        answer = citelock.query(request.message, filters=filters)
        if not answer.answer:
            return ChatReply(
                reply=NO_ANSWER,
                citations=[],
                viewer_url=None,
                status=answer.status,
                written_by="citelock",
            )
        reworded = chat_model.reword(request.message, answer) if chat_model else None
        citations = [
            CitedSource(
                n=citation.n,
                source=answer.sources[citation.n - 1],
                document_id=str(citation.document_id),
                document_name=citation.document_name,
                page_start=citation.page_start,
                page_end=citation.page_end,
            )
            for citation in answer.citations
        ]
        return ChatReply(
            reply=reworded or answer.answer,
            citations=citations,
            # The service's own link: it carries the signed token a browser needs when the
            # service has API keys.
            viewer_url=f"{citelock.base_url}{answer.viewer_url}" if answer.viewer_url else None,
            status=answer.status,
            written_by="llm" if reworded else "citelock",
        )

    return app


def app_from_environment() -> FastAPI:
    """Returns the app on CITELOCK_URL (and CITELOCK_API_KEY), with a language model when
    OPENAI_MODEL is set."""
    citelock = Client(
        os.environ.get("CITELOCK_URL", "http://127.0.0.1:8000"),
        api_key=os.environ.get("CITELOCK_API_KEY") or None,
    )
    chat_model = None
    if os.environ.get("OPENAI_MODEL"):
        chat_model = ChatModel(
            base_url=os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
            model=os.environ["OPENAI_MODEL"],
            api_key=os.environ.get("OPENAI_API_KEY", ""),
        )
    return create_app(citelock, chat_model)


if __name__ == "__main__":
    import uvicorn

    uvicorn.run(app_from_environment(), host="127.0.0.1", port=8080)
