"""Latency (semantix.checks) and timed / atimed (semantix.agents), issue 35: decided from the
time a subject carries; no timing is unenforceable, never a pass. The clock is a stand-in, so
no test depends on how fast this machine is."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from agent_runs import FINAL, anthropic_stream, completion, openai_run, openai_stream
from semantix import evaluate_semantic
from semantix.agents import FinalTurn, atimed, timed
from semantix.agents import _timing as timing_module
from semantix.checks import Contains, Latency
from semantix.errors import UnenforceableCheckError
from semantix.outputs import Timed, Timing, output_view


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> list[float]:
    """A clock that advances 0.125 s (exact in binary) each time it is read."""
    readings: list[float] = []

    def tick() -> float:
        readings.append(0.125 * len(readings))
        return readings[-1]

    monkeypatch.setattr(timing_module, "_clock", tick)
    return readings


def test_timed_measures_a_call(clock: list[float]) -> None:
    reply = completion("Done.")
    result = timed(lambda question, *, tone: reply, "refund?", tone="kind")
    assert result == Timed(reply, Timing(125.0, None))
    view = output_view(result)
    assert (view.text, view.timing) == ("Done.", Timing(125.0, None))


@pytest.mark.parametrize("stream", [openai_stream, anthropic_stream], ids=["openai", "anthropic"])
def test_timed_consumes_a_live_stream_and_keeps_the_first_chunk(
    clock: list[float], stream: Any
) -> None:
    chunks = stream()
    result = timed(lambda: iter(chunks))
    assert result.output == chunks  # the chunks, which the view assembles
    assert result.timing == Timing(250.0, 125.0)
    assert output_view(result).tool_calls[0].name == "lookup_order"


def test_atimed_awaits_and_consumes_an_async_stream(clock: list[float]) -> None:
    async def agent() -> str:
        return "Done."

    async def streaming() -> AsyncIterator[Any]:
        for piece in openai_stream():
            yield piece

    assert asyncio.run(atimed(agent)) == Timed("Done.", Timing(125.0, None))
    streamed = asyncio.run(atimed(streaming))
    assert streamed.timing == Timing(250.0, 125.0)
    assert output_view(streamed).text == "Checking now."


def test_timed_errors_propagate_and_a_non_callable_is_refused() -> None:
    def broken() -> Iterator[str]:
        yield "a"
        raise ConnectionError("dropped")

    with pytest.raises(ConnectionError, match="dropped"):
        timed(broken)
    with pytest.raises(
        TypeError, match=r"timed\(\) needs the system to call.*timed\(agent, question\)"
    ):
        timed("Done.")  # type: ignore[arg-type]


def test_latency_passes_and_fails_on_the_time_carried() -> None:
    fast = Timed("Done.", Timing(800.0, 120.0))
    slow = Timed("Done.", Timing(2400.0, 900.0))
    check = Latency(max_ms=2000, first_token_ms=300)
    verdict = check.decide(output_view(fast))
    assert (verdict.passed, verdict.reason) == (
        True,
        "took 800 ms (at most 2000 ms); first chunk after 120 ms (at most 300 ms)",
    )
    verdict = check.decide(output_view(slow))
    assert (verdict.passed, verdict.reason) == (
        False,
        (
            "took 2400 ms, more than the maximum 2000 ms; first chunk after 900 ms, more than the "
            "maximum 300 ms"
        ),
    )
    assert evaluate_semantic(fast, Latency(max_ms=1000) & Contains("done")).passed


@pytest.mark.parametrize(
    ("output", "check", "pattern"),
    [
        (
            "Done.",
            Latency(max_ms=2000),
            r"carries no timing \(a plain output never does\); measure it with semantix.agents.timed",
        ),
        (completion("Done."), Latency(max_ms=2000), r"Latency\(max_ms=2000\) cannot be checked"),
        (
            Timed("Done.", Timing(800.0, None)),
            Latency(first_token_ms=300),
            r"carries no time to the first chunk \(Timing\(total_ms=800.0, first_token_ms=None\)\)",
        ),
    ],
    ids=["str", "untimed-response", "not-streamed"],
)
def test_no_timing_is_unenforceable(output: object, check: Any, pattern: str) -> None:
    with pytest.raises(UnenforceableCheckError, match=pattern):
        evaluate_semantic(output, check)
    with pytest.raises(UnenforceableCheckError):
        evaluate_semantic(output, ~check)  # never a pass, negated or not


def test_a_timed_step_of_a_transcript_carries_its_own_time() -> None:
    messages = openai_run()
    messages[6] = Timed(messages[6], Timing(3100.0, None))  # the agent loop timed its last call
    view = output_view(messages)
    assert (view.text, view.steps[6].timing, view.timing) == (FINAL, Timing(3100.0, None), None)
    result = evaluate_semantic(messages, FinalTurn(Latency(max_ms=3000)))
    assert not result.passed
    assert (
        result.leaves[0].verdict.reason
        == "turn 1 of 1: took 3100 ms, more than the maximum 3000 ms"
    )


@pytest.mark.parametrize(
    ("kwargs", "pattern"),
    [
        ({}, r"Latency\(\) needs max_ms= or first_token_ms="),
        ({"max_ms": 0}, r"Latency\(max_ms=0\) must be a number of milliseconds above 0"),
        ({"first_token_ms": -5}, r"first_token_ms=-5"),
        ({"max_ms": float("nan")}, r"max_ms=nan"),
        ({"max_ms": "2s"}, r"max_ms='2s'"),
    ],
)
def test_bad_latency_ceilings_are_errors(kwargs: dict[str, Any], pattern: str) -> None:
    with pytest.raises(ValueError, match=pattern):
        Latency(**kwargs)


def test_latency_name_and_description() -> None:
    check = Latency(max_ms=2000, first_token_ms=250.5)
    assert (check.__name__, check.description) == (
        "Latency(max_ms=2000, first_token_ms=250.5)",
        "The system answered within 2000 ms and its first chunk within 250.5 ms.",
    )


def test_atimed_consumes_a_sync_stream(clock: list[float]) -> None:
    """Issue 44: a sync stream (a generator, the openai client's ``Stream``) given to atimed was
    returned unconsumed, timed at 0 ms, so ``Latency(max_ms=100)`` passed."""
    chunks = openai_stream()

    async def returns_sync_stream() -> Iterator[Any]:
        return iter(chunks)

    for fn in (lambda: iter(chunks), returns_sync_stream):
        clock.clear()
        result = asyncio.run(atimed(fn))
        assert result.output == chunks
        assert result.timing == Timing(250.0, 125.0)
    assert not evaluate_semantic(Timed(chunks, Timing(250.0, 125.0)), Latency(max_ms=100)).passed


def test_atimed_consumes_an_awaited_async_stream(clock: list[float]) -> None:
    chunks = anthropic_stream()

    async def streaming() -> AsyncIterator[Any]:
        for piece in chunks:
            yield piece

    async def opens_stream() -> AsyncIterator[Any]:  # the async client: await create(stream=True)
        return streaming()

    result = asyncio.run(atimed(opens_stream))
    assert (result.output, result.timing) == (chunks, Timing(250.0, 125.0))


def test_timed_refuses_what_only_atimed_can_wait_for() -> None:
    async def agent() -> str:
        return "Done."

    async def streaming() -> AsyncIterator[str]:
        yield "Done."

    with pytest.raises(TypeError, match=r"timed\(agent\) got a coroutine.*await atimed\(agent"):
        timed(agent)
    with pytest.raises(TypeError, match=r"timed\(streaming\) got an async iterator.*atimed"):
        timed(streaming)


class _Manager:
    """The shape of Anthropic's ``MessageStreamManager``: entered, it gives the event stream."""

    def __init__(self, events: list[Any]) -> None:
        self.events, self.closed = events, False

    def __enter__(self) -> Iterator[Any]:
        return iter(self.events)

    def __exit__(self, *exc: object) -> None:
        self.closed = True


class _AsyncManager(_Manager):
    async def __aenter__(self) -> AsyncIterator[Any]:
        async def events() -> AsyncIterator[Any]:
            for event in self.events:
                yield event

        return events()

    async def __aexit__(self, *exc: object) -> None:
        self.closed = True


def test_a_stream_behind_a_context_manager_is_entered_and_consumed(clock: list[float]) -> None:
    """Before: ``timed(client.messages.stream, ...)`` returned the manager unread, at 0 ms."""
    events = anthropic_stream()
    manager = _Manager(events)
    result = timed(lambda: manager)
    assert (result.output, result.timing, manager.closed) == (events, Timing(250.0, 125.0), True)
    assert output_view(result).tool_calls[0].name == "lookup_order"
    for made in (_AsyncManager(events), _Manager(events)):
        clock.clear()
        result = asyncio.run(atimed(lambda made=made: made))
        assert (result.output, result.timing, made.closed) == (
            events,
            Timing(250.0, 125.0),
            True,
        )
