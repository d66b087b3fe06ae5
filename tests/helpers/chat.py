"""A real local chat server speaking the OpenAI protocol (http.server in a thread): it answers
`POST .../chat/completions` as a test sets it up, a reply built from the last user message,
an error status, a body that is not JSON, or no answer for a while."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import threading
import time
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = Callable[[str], str]
"""Builds the model's reply from the request's last user message."""

SLOW_S = 3.0
"""How long the server stalls when slow; a client's timeout in such a test is much shorter."""


@dataclasses.dataclass
class ChatServer:
    url: str
    behaviour: str = "reply"
    """reply, error (HTTP 500), garbage (200 with a body that is not JSON) or slow."""
    reply: Reply = lambda prompt: ""
    requests: list[dict[str, Any]] = dataclasses.field(default_factory=list)


@contextlib.contextmanager
def serve_chat() -> Iterator[ChatServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    state = ChatServer(url=f"http://127.0.0.1:{httpd.server_address[1]}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            state.requests.append(
                {"path": self.path, "auth": self.headers.get("Authorization"), **body}
            )
            if state.behaviour == "slow":
                time.sleep(SLOW_S)
            if state.behaviour == "error":
                self.send_error(500)
                return
            content = state.reply(body["messages"][-1]["content"])
            completion = {
                "id": "chatcmpl-test",
                "object": "chat.completion",
                "model": body["model"],
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": content},
                        "finish_reason": "stop",
                    }
                ],
            }
            data = b"{not json" if state.behaviour == "garbage" else json.dumps(completion).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            # In the slow case the client has given up already.
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                self.wfile.write(data)

        def log_message(self, *_: Any) -> None:
            pass

    httpd.RequestHandlerClass = Handler
    httpd.daemon_threads = True
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield state
    httpd.shutdown()
    httpd.server_close()
