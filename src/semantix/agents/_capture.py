"""``capture_spans``: the OpenTelemetry spans a block of code produces, to check as a trace.

opentelemetry-sdk is imported when a capture starts, never before (``pip install
'semantix-judge[otel]'``). The spans go to an in-memory exporter on a tracer provider: the one
passed, else the global provider when it is an SDK ``TracerProvider``, else a new SDK
``TracerProvider`` that becomes the global one (OpenTelemetry lets a process set its global
provider once; instrumentors and agent frameworks use it by default). One span processor per
provider serves every capture, so captures nest and a finished one leaves nothing behind.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["CapturedSpans", "capture_spans"]

_LOCK = threading.Lock()


class CapturedSpans:
    """The spans that ended during a capture (so far, inside the block). It is a subject as
    it is: ``assert_semantic(trace, ...)`` reads it as a trace."""

    def __init__(self) -> None:
        self._spans: list[Any] = []
        self._lock = threading.Lock()

    def add(self, span: Any) -> None:
        with self._lock:
            self._spans.append(span)

    def get_finished_spans(self) -> tuple[Any, ...]:
        """The spans, in the order they ended (the name is the in-memory exporter's)."""
        with self._lock:
            return tuple(self._spans)

    @property
    def spans(self) -> tuple[Any, ...]:
        return self.get_finished_spans()

    def __len__(self) -> int:
        return len(self._spans)

    def __iter__(self) -> Iterator[Any]:
        return iter(self.get_finished_spans())

    def __repr__(self) -> str:
        names = ", ".join(str(getattr(span, "name", "?")) for span in self._spans[:5])
        more = ", ..." if len(self._spans) > 5 else ""
        return f"CapturedSpans({len(self._spans)} spans: {names}{more})"


def _router() -> Any:
    """The span processor a provider gets once: each ended span goes to the open captures (an
    SDK ``SpanProcessor``, so it is defined when opentelemetry-sdk is imported)."""
    from opentelemetry.sdk.trace import SpanProcessor

    class Router(SpanProcessor):
        def __init__(self) -> None:
            self.captures: list[CapturedSpans] = []

        def on_end(self, span: Any) -> None:
            for capture in tuple(self.captures):
                capture.add(span)

    return Router()


_ROUTERS: dict[int, tuple[Any, Any]] = {}  # id(provider): (provider, its router)


@contextmanager
def capture_spans(tracer_provider: Any = None) -> Iterator[CapturedSpans]:
    """Capture the spans that end inside the block.

    ```python
    with capture_spans() as trace:
        run_agent("Refund order A17")
    assert_semantic(trace, ToolCalls(CalledTool("issue_refund")) & AnsweredBy("billing"))
    ```

    Args:
        tracer_provider: the SDK ``TracerProvider`` the instrumentation uses; default: the
            global one (set to a new SDK provider when none is set yet).

    Raises:
        ImportError: opentelemetry-sdk is not installed.
        TypeError: the provider (given, or the global one) is not an SDK ``TracerProvider``.
    """
    provider = _provider(tracer_provider)
    with _LOCK:
        entry = _ROUTERS.get(id(provider))
        if entry is None or entry[0] is not provider:
            entry = (provider, _router())
            provider.add_span_processor(entry[1])
            _ROUTERS[id(provider)] = entry
        router = entry[1]
        captured = CapturedSpans()
        router.captures.append(captured)
    try:
        yield captured
    finally:
        with _LOCK:
            router.captures.remove(captured)


def _provider(given: Any) -> Any:
    try:
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
    except ImportError:
        raise ImportError(
            "capture_spans needs opentelemetry-sdk: pip install 'semantix-judge[otel]'"
        ) from None
    if given is not None:
        if not isinstance(given, TracerProvider):
            raise TypeError(
                f"capture_spans(tracer_provider=...) needs an opentelemetry-sdk TracerProvider, "
                f"got {type(given).__name__}; pass the provider your instrumentation uses"
            )
        return given
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    if type(current).__name__ in ("ProxyTracerProvider", "NoOpTracerProvider"):
        trace.set_tracer_provider(TracerProvider())
        current = trace.get_tracer_provider()
        if isinstance(current, TracerProvider):
            return current
    raise TypeError(
        f"the global tracer provider is {type(current).__name__}, not an opentelemetry-sdk "
        "TracerProvider, so capture_spans cannot add its exporter to it; pass the SDK provider "
        "your instrumentation uses as capture_spans(tracer_provider=...)"
    )
