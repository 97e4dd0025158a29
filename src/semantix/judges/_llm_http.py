"""The LLM judge's HTTP deadline: ``request_timeout`` bounds a whole attempt, connect to last
byte (httpx's timeouts bound each read: docs/judges/llm.md). Past it an attempt is a retried
``ReadTimeout``; its body stream checks the clock and the size at every chunk, so an abandoned
attempt stops at the next one and frees its connection."""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Iterator
from typing import Any

from semantix._cache import memo
from semantix.judges._deadline import run_with_deadline
from semantix.models._deps import require

__all__ = ["MAX_RESPONSE_BYTES", "ReplyTooLargeError", "deadline_http_client"]

MAX_RESPONSE_BYTES = 1_000_000  # largest HTTP response body read (a verdict is a few hundred)


class ReplyTooLargeError(Exception):
    """The server sent more than `MAX_RESPONSE_BYTES`; not retried (it would again)."""


def deadline_http_client(seconds: float, *, max_bytes: int = MAX_RESPONSE_BYTES) -> Any:
    """An HTTP client for ``openai.OpenAI(http_client=...)``: the SDK's default client (its limits,
    redirects and proxies) whose requests end by ``seconds``, each body capped at ``max_bytes``."""
    return _deadline_client_class()(deadline=seconds, max_bytes=max_bytes)


@memo(maxsize=1)
def _deadline_client_class() -> Any:
    openai = require("openai", extra="openai", feature="LLMJudge")
    base = openai.DefaultHttpxClient
    # httpx for openai 1.x, httpx2 for later SDKs: whichever the SDK's default client is built on.
    http = importlib.import_module(base.__mro__[1].__module__.partition(".")[0])

    class ClockedStream(http.SyncByteStream):  # type: ignore[misc,name-defined]
        """A response body that stops at the deadline, when abandoned, or when too large."""

        def __init__(
            self, inner: Any, request: Any, ends_at: float, gone: threading.Event, max_bytes: int
        ) -> None:
            self._inner = inner
            self._request = request
            self._ends_at = ends_at
            self._gone = gone
            self._max_bytes = max_bytes

        def __iter__(self) -> Iterator[bytes]:
            received = 0
            for chunk in self._inner:
                if self._gone.is_set() or time.monotonic() > self._ends_at:
                    raise http.ReadTimeout(
                        "the response did not end in time", request=self._request
                    )
                received += len(chunk)
                if received > self._max_bytes:
                    raise ReplyTooLargeError(f"the response body is over {self._max_bytes:,} bytes")
                yield chunk

        def close(self) -> None:
            self._inner.close()

    class DeadlineHttpClient(base):  # type: ignore[misc,valid-type]
        """The SDK's default HTTP client; each request ends by its deadline."""

        def __init__(self, *, deadline: float, max_bytes: int, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.deadline = deadline
            self.max_bytes = max_bytes

        def send(self, request: Any, *, stream: bool = False, **kwargs: Any) -> Any:
            parent_send = super().send
            if stream:  # a caller that reads the body itself owns its timing
                return parent_send(request, stream=True, **kwargs)
            ends_at = time.monotonic() + self.deadline
            gone = threading.Event()

            def attempt() -> Any:
                response = parent_send(request, stream=True, **kwargs)
                response.stream = ClockedStream(
                    response.stream, request, ends_at, gone, self.max_bytes
                )
                try:
                    response.read()
                finally:
                    response.close()
                return response

            def expired() -> BaseException:
                gone.set()
                timeout: BaseException = http.ReadTimeout(
                    f"no complete response within {self.deadline:g}s", request=request
                )
                return timeout

            return run_with_deadline(
                attempt, ends_at - time.monotonic(), expired, name="semantix-llm-http"
            )

    return DeadlineHttpClient
