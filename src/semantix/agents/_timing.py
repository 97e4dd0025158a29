"""``timed`` and ``atimed``: call the system under test and keep the time it took.

Every kind of answer is waited for whole: a value; a stream (a sync iterator: a generator, the
openai client's ``Stream``), consumed chunk by chunk; a stream behind a context manager
(Anthropic's ``messages.stream(...)``), entered and consumed; and for ``atimed`` also an
awaitable, an async stream, an async context manager, and a stream an awaitable returns (the
async clients' ``await create(stream=True)``).
What only ``atimed`` can wait for (a coroutine, an async stream) is a ``TypeError`` in ``timed``,
never a call timed at 0 ms.
"""

from __future__ import annotations

import inspect
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from typing import Any

from semantix.outputs import Timed, Timing

__all__ = ["atimed", "timed"]

#: The clock (seconds); one name, so a test can stand in for it.
_clock = time.perf_counter


def timed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Timed:
    """Call ``fn(*args, **kwargs)`` and return its output with the wall time it took.

    An iterator it returns (a live stream: ``stream=True``, a generator) is consumed here, so the
    time is the whole stream's, ``first_token_ms`` the time to its first chunk, and the output
    the list of chunks (which `semantix.outputs.output_view` assembles). Exceptions propagate.

    Raises:
        TypeError: ``fn`` is not callable, or it returned a coroutine or an async iterator
            (use ``await atimed(fn, ...)``).
    """
    _callable(fn)
    started = _clock()
    output = fn(*args, **kwargs)
    if isinstance(output, (Awaitable, AsyncIterator)):
        what = "an async iterator" if isinstance(output, AsyncIterator) else "a coroutine"
        if inspect.iscoroutine(output):
            output.close()  # never awaited: no "coroutine was never awaited" warning
        name = getattr(fn, "__name__", "fn")
        raise TypeError(
            f"timed({name}) got {what}, which only an event loop can wait for; timing it here "
            f"would measure nothing. Use `await atimed({name}, ...)`"
        )
    first = None
    if isinstance(output, Iterator):
        output, first = _consume(output)
    elif _manages(output, "__enter__", "__exit__"):  # Anthropic's messages.stream(...)
        with output as stream:
            if isinstance(stream, Iterator):
                output, first = _consume(stream)
    return Timed(output, _timing(started, first))


async def atimed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Timed:
    """`timed` for a coroutine function, one returning an async iterator (an async stream), or
    any function `timed` takes: an awaitable is awaited, then a stream, async or not, consumed."""
    _callable(fn)
    started = _clock()
    output = fn(*args, **kwargs)
    if isinstance(output, Awaitable):
        output = await output
    first = None
    if isinstance(output, AsyncIterator):
        chunks = []
        async for chunk in output:
            if first is None:
                first = _clock()
            chunks.append(chunk)
        output = chunks
    elif isinstance(output, Iterator):
        output, first = _consume(output)
    elif _manages(output, "__aenter__", "__aexit__"):  # the async client's messages.stream()
        async with output as stream:
            if isinstance(stream, AsyncIterator):
                chunks = []
                async for chunk in stream:
                    if first is None:
                        first = _clock()
                    chunks.append(chunk)
                output = chunks
    elif _manages(output, "__enter__", "__exit__"):
        with output as stream:
            if isinstance(stream, Iterator):
                output, first = _consume(stream)
    return Timed(output, _timing(started, first))


def _manages(output: object, enter: str, exit: str) -> bool:
    """Whether ``output`` is a context manager (a stream that must be entered to be read)."""
    kind = type(output)
    return hasattr(kind, enter) and hasattr(kind, exit)


def _consume(stream: Iterator[Any]) -> tuple[list[Any], float | None]:
    """The chunks of ``stream`` and the clock at the first one."""
    first = None
    chunks = []
    for chunk in stream:
        if first is None:
            first = _clock()
        chunks.append(chunk)
    return chunks, first


def _timing(started: float, first: float | None) -> Timing:
    now = _clock()
    return Timing((now - started) * 1000, None if first is None else (first - started) * 1000)


def _callable(fn: object) -> None:
    if not callable(fn):
        raise TypeError(
            f"timed() needs the system to call, got {type(fn).__name__} {fn!r:.60}; pass the "
            "function and its arguments: timed(agent, question), not timed(agent(question))"
        )
