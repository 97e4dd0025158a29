"""A tiny OpenAI-compatible chat-completions server for tests, on 127.0.0.1 (stdlib only).

Replies are scripted: each request takes the next :class:`Reply` of the script (or, when the
script is empty, the ``default``); a reply may also be a function of the request. Every request
is recorded, so tests can count retries and read what the judge sent.

```python
with FakeOpenAIServer([error(500), completion('{"score": 0.9, "reason": "ok"}')]) as server:
    judge = LLMJudge(base_url=server.base_url)
    ...
    assert len(server.requests) == 2
```
"""

from __future__ import annotations

import json
import sys
import threading
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from typing_extensions import Self


@dataclass(frozen=True)
class Reply:
    """What the server answers to one request."""

    status: int = 200
    body: Any = None
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    #: Send the body ``(bytes, seconds)`` at a time: e.g. 12 bytes every 0.4 s after the headers.
    trickle: tuple[int, float] | None = None
    #: Send the header block one padding line every this many seconds before the real headers.
    trickle_headers: float | None = None


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received."""

    path: str
    headers: dict[str, str]
    json: dict[str, Any]


Script = Reply | Callable[[RecordedRequest], Reply]


def completion(
    content: str | None,
    *,
    prompt_tokens: int = 42,
    completion_tokens: int = 7,
    finish_reason: str = "stop",
    refusal: str | None = None,
    delay: float = 0.0,
) -> Reply:
    """A successful chat completion whose message content is ``content``."""
    body = {
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": "gpt-4o-mini-test",
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content, "refusal": refusal},
                "finish_reason": finish_reason,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }
    return Reply(200, body, delay=delay)


def verdict(score: float, reason: str = "looks fine") -> Reply:
    """A completion whose content is the JSON verdict ``{"score": ..., "reason": ...}``."""
    return completion(json.dumps({"reason": reason, "score": score}))


def error(
    status: int,
    message: str = "boom",
    *,
    headers: dict[str, str] | None = None,
    retry_after_ms: int | None = 1,
) -> Reply:
    """An OpenAI-style error body with ``status``.

    ``retry_after_ms`` is sent as the ``retry-after-ms`` header the openai SDK honours, so tests
    that retry do not wait for the SDK's default backoff (None: no such header).
    """
    body = {"error": {"message": message, "type": "test_error", "param": None, "code": None}}
    sent = {} if retry_after_ms is None else {"retry-after-ms": str(retry_after_ms)}
    return Reply(status, body, headers={**sent, **(headers or {})})


def trickled(reply: Reply, *, chunk: int = 12, every: float = 0.4) -> Reply:
    """``reply`` with its body sent ``chunk`` bytes every ``every`` seconds after the headers."""
    return replace(reply, trickle=(chunk, every))


class FakeOpenAIServer:
    """An OpenAI-compatible ``/v1/chat/completions`` endpoint in a background thread."""

    def __init__(self, script: Iterable[Script] = (), *, default: Script | None = None) -> None:
        self._script: deque[Script] = deque(script)
        self._default = default
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self.requests: list[RecordedRequest] = []
        self._server = _QuietServer(("127.0.0.1", 0), _handler_class(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True
        )

    @property
    def base_url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}/v1"

    def script(self, *replies: Script) -> None:
        """Append replies to the script."""
        with self._lock:
            self._script.extend(replies)

    def start(self) -> FakeOpenAIServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def next_reply(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            step = self._script.popleft() if self._script else self._default
        if step is None:
            return error(500, "test server: the script is exhausted")
        return step(request) if callable(step) else step

    def wait(self, seconds: float) -> None:
        """Sleep, but wake up when the server stops."""
        self._stopping.wait(seconds)


class _QuietServer(ThreadingHTTPServer):
    """Does not print the tracebacks of clients that hung up (a judge that timed out, gave up)."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        if not isinstance(sys.exc_info()[1], (BrokenPipeError, ConnectionResetError)):
            super().handle_error(request, client_address)


def _handler_class(server: FakeOpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        # Headers and body go out as separate writes: without this, Nagle and the client's
        # delayed ACK add ~40 ms to every reply.
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length") or 0)
            raw = self.rfile.read(length)
            payload = json.loads(raw or b"{}")
            headers = {name.lower(): value for name, value in self.headers.items()}
            request = RecordedRequest(self.path, headers, payload)
            reply = server.next_reply(request)
            if reply.delay:
                server.wait(reply.delay)
            self._send(reply)

        def _send(self, reply: Reply) -> None:
            body = reply.body if isinstance(reply.body, str) else json.dumps(reply.body)
            data = body.encode()
            try:
                self.send_response(reply.status)
                if reply.trickle_headers is not None:
                    for line in range(50):
                        self.flush_headers()
                        self.send_header(f"x-padding-{line}", "slow")
                        server.wait(reply.trickle_headers)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                if reply.trickle is None:
                    self.wfile.write(data)
                    return
                size, every = reply.trickle
                for start in range(0, len(data), size):
                    self.wfile.write(data[start : start + size])
                    self.wfile.flush()
                    server.wait(every)
            except (BrokenPipeError, ConnectionResetError):  # the client timed out and left
                pass

        def log_message(self, format: str, *args: Any) -> None:  # quiet
            pass

    return Handler
