"""``timed`` and ``atimed``: call the system under test and keep the time it took."""

from __future__ import annotations

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
    """
    _callable(fn)
    started = _clock()
    output = fn(*args, **kwargs)
    first = None
    if isinstance(output, Iterator):
        chunks = []
        for chunk in output:
            if first is None:
                first = _clock()
            chunks.append(chunk)
        output = chunks
    return Timed(output, _timing(started, first))


async def atimed(fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Timed:
    """`timed` for a coroutine function or one returning an async iterator (an async stream)."""
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
    return Timed(output, _timing(started, first))


def _timing(started: float, first: float | None) -> Timing:
    now = _clock()
    return Timing((now - started) * 1000, None if first is None else (first - started) * 1000)


def _callable(fn: object) -> None:
    if not callable(fn):
        raise TypeError(
            f"timed() needs the system to call, got {type(fn).__name__} {fn!r:.60}; pass the "
            "function and its arguments: timed(agent, question), not timed(agent(question))"
        )
