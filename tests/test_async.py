"""Async checks are the same pipeline: same results, errors and report records; only the waiting
differs. Sync checks work inside a running loop; a judge's async ability is awaited; the timeout
and cancellation follow asyncio."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, Reply, verdict
from semantix import (
    FakeJudge,
    Intent,
    JudgeError,
    SemanticAssertionError,
    Verdict,
    aassert_semantic,
    aevaluate_many,
    aevaluate_semantic,
    assert_semantic,
    evaluate_many,
    evaluate_semantic,
)
from semantix import (
    _context as context,
)
from semantix.checks import Contains
from semantix.errors import JudgeTimeoutError
from semantix.judges._base import Judge, JudgeRequest
from semantix.judges._llm import LLMJudge


class Polite(Intent):
    """The text is polite."""


class MedicalAdvice(Intent):
    """The text gives medical advice."""


class Cheerful(Intent):
    """The text is cheerful."""

    examples = ("What a lovely day!", "So happy for you!")
    counterexamples = ("This is awful.", "I hate it.")


def score(output: str, description: str) -> float:
    text = output.lower()
    if "polite" in description:
        return 0.9 if "thank" in text else 0.2
    if "medical" in description:
        return 0.8 if "aspirin" in text else 0.1
    return 0.9 if ("lovely" in text or "happy" in text or "yay" in text) else 0.1


@pytest.fixture
def records() -> Iterator[list[object]]:
    seen: list[object] = []
    context.add_observer(seen.append)
    yield seen
    context.remove_observer(seen.append)


SCENARIOS: list[tuple[str, object, Any]] = [
    ("Thank you!", Polite, None),
    ("Go away.", Polite, None),
    ("Thank you, take aspirin.", Polite & ~MedicalAdvice, None),
    ("Thanks", Polite | MedicalAdvice, 0.95),
    ("Yay", Cheerful, None),
    ("", Polite, None),
    ("Your refund is here, thank you.", Contains("refund") & Polite, None),
    ("The text must not give medical advice.", "The text must not give medical advice.", None),
]


def _summary(result: Any) -> list[tuple[Any, ...]]:
    return [
        (leaf.label, leaf.verdict.score, leaf.threshold, leaf.threshold_source, leaf.passed)
        for leaf in result.leaves
    ] + [("passed", result.passed, result.empty, str(result.judge))]


@pytest.mark.parametrize(("output", "intent", "threshold"), SCENARIOS)
def test_every_sync_scenario_gives_the_same_result_async(
    output: str, intent: Any, threshold: Any
) -> None:
    sync = evaluate_semantic(output, intent, judge=FakeJudge(score), threshold=threshold)
    from_async = asyncio.run(
        aevaluate_semantic(output, intent, judge=FakeJudge(score), threshold=threshold)
    )
    assert _summary(from_async) == _summary(sync)
    assert from_async.explain() == sync.explain()


def test_the_same_report_records_and_errors(records: list[object]) -> None:
    def explode(output: str, description: str) -> float:
        raise RuntimeError("model exploded")

    with pytest.raises(SemanticAssertionError) as sync_failure:
        assert_semantic("Go away.", Polite, judge=FakeJudge(score))
    with pytest.raises(SemanticAssertionError) as async_failure:
        asyncio.run(aassert_semantic("Go away.", Polite, judge=FakeJudge(score)))
    assert str(async_failure.value) == str(sync_failure.value)
    with pytest.raises(JudgeError, match="model exploded"):
        asyncio.run(aassert_semantic("x", Polite, judge=FakeJudge(explode)))
    kinds = [type(record).__name__ for record in records]
    assert kinds == ["SemanticResult", "SemanticResult", "CheckError"]


def test_many_outputs_in_one_batch() -> None:
    outputs = ["Thank you!", "Go away.", "Thanks a lot"]
    sync = [r.passed for r in evaluate_many(outputs, Polite, judge=FakeJudge(score))]
    from_async = asyncio.run(aevaluate_many(outputs, Polite, judge=FakeJudge(score)))
    assert [r.passed for r in from_async] == sync == [True, False, True]


def test_a_sync_check_inside_a_running_loop_works() -> None:
    async def inside() -> bool:
        return assert_semantic("Thank you!", Polite, judge=FakeJudge(score)).passed

    assert asyncio.run(inside()) is True


def test_a_declared_async_ability_is_awaited_not_pooled() -> None:
    threads: list[str] = []

    class AsyncJudge(Judge):
        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            raise AssertionError("the sync path must not be used")

        async def aevaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
            threads.append(threading.current_thread().name)
            await asyncio.sleep(0)
            return [Verdict(passed=True, score=0.9, threshold=t) for _, _, t in requests]

    result = asyncio.run(aevaluate_semantic("Thank you!", Polite, judge=AsyncJudge()))
    assert result.passed
    assert threads == ["MainThread"]  # awaited on the loop's thread


def test_a_sync_judge_runs_off_the_event_loop() -> None:
    threads: list[str] = []

    def spy(output: str, description: str) -> float:
        threads.append(threading.current_thread().name)
        return 0.9

    asyncio.run(aevaluate_semantic("Thank you!", Polite, judge=FakeJudge(spy)))
    assert threads and threads[0].startswith("semantix-worker")


def test_the_marker_scope_reaches_the_pooled_judge() -> None:
    async def main() -> float:
        with context.scope(threshold=0.35):
            result = await aevaluate_semantic("x", Polite, judge=FakeJudge(lambda o, d: 0.4))
        return result.leaves[0].threshold

    assert asyncio.run(main()) == 0.35


def test_timeout_bounds_the_whole_async_check() -> None:
    def slow(output: str, description: str) -> float:
        time.sleep(0.5)
        return 0.9

    started = time.perf_counter()
    with pytest.raises(JudgeTimeoutError, match=r"within 0\.1 s"):
        asyncio.run(aevaluate_semantic("x", Polite, judge=FakeJudge(slow), timeout=0.1))
    assert time.perf_counter() - started < 0.45


def test_cancelling_the_task_cancels_the_wait() -> None:
    release = threading.Event()

    class Hanging(Judge):
        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            release.wait(5)
            return Verdict(passed=True, score=1.0)

    async def main() -> None:
        task = asyncio.create_task(aevaluate_semantic("x", Polite, judge=Hanging()))
        await asyncio.sleep(0.05)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    try:
        asyncio.run(main())
    finally:
        release.set()


def test_llm_checks_wait_together_up_to_max_concurrency(openai_sdk: None) -> None:
    in_flight = [0]
    peak = [0]
    lock = threading.Lock()

    def counting(request: Any) -> Reply:
        with lock:
            in_flight[0] += 1
            peak[0] = max(peak[0], in_flight[0])
        time.sleep(0.05)
        with lock:
            in_flight[0] -= 1
        return verdict(0.9, "kind")

    async def main(judge: LLMJudge) -> list[bool]:
        checks = [aevaluate_semantic(f"Thanks {n}", Polite, judge=judge) for n in range(12)]
        return [result.passed for result in await asyncio.gather(*checks)]

    server = FakeOpenAIServer(default=counting)
    with server, LLMJudge(base_url=server.base_url, max_concurrency=3) as judge:
        assert asyncio.run(main(judge)) == [True] * 12
    assert peak[0] == 3  # at most max_concurrency at once, and they did overlap


def test_the_runs_default_timeout_bounds_an_async_check_too() -> None:
    def slow(output: str, description: str) -> float:
        time.sleep(0.5)
        return 0.9

    async def main() -> None:
        with context.scope(timeout=0.1):
            await aevaluate_semantic("x", Polite, judge=FakeJudge(slow))

    with pytest.raises(JudgeTimeoutError, match=r"within 0\.1 s"):
        asyncio.run(main())


def test_repeated_runs_of_an_async_system_run_concurrently_and_match_the_sync_stats() -> None:
    from semantix.runs import aassert_pass_rate, assert_pass_rate

    outputs = iter(["Thank you!", "Go away.", "Thanks!", "Thank you kindly."] * 2)
    running = [0]
    peak = [0]

    async def bot() -> str:
        running[0] += 1
        peak[0] = max(peak[0], running[0])
        await asyncio.sleep(0.01)
        running[0] -= 1
        return next(outputs)

    stats = asyncio.run(
        aassert_pass_rate(
            bot, Polite, runs=4, min_pass_rate=0.75, judge=FakeJudge(score), concurrency=2
        )
    )
    assert peak[0] == 2
    sync = assert_pass_rate(
        lambda: next(outputs), Polite, runs=4, min_pass_rate=0.75, judge=FakeJudge(score)
    )
    assert [run.outcome for run in stats.results] == [run.outcome for run in sync.results]
    assert (stats.passes, stats.verdict) == (sync.passes, sync.verdict) == (3, "passed")


def test_an_async_run_that_raises_is_that_runs_error() -> None:
    from semantix.runs import aevaluate_pass_rate

    calls = iter([None, RuntimeError("bot down")])

    async def bot() -> str:
        failure = next(calls)
        if failure is not None:
            raise failure
        return "Thank you!"

    stats = asyncio.run(aevaluate_pass_rate(bot, Polite, runs=2, judge=FakeJudge(score)))
    assert [run.outcome for run in stats.results] == ["passed", "error"]
    assert "bot down" in str(stats.results[1].error)
