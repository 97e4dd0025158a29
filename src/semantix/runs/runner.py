"""Run a system under test N times, judge every output, and hold the pass rate to its floor.

`evaluate_pass_rate` calls the system, judges the outputs in one batch and returns the
`semantix.runs.stats.RunStats`; `assert_pass_rate` also publishes them (the pytest report) and
raises what they mean (`raise_for_stats`): `PassRateError` below the floor, the first run's
exception when no run could be judged.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from semantix import context
from semantix.config import check_positive_int
from semantix.errors import (
    ConfigurationError,
    JudgeError,
    SemanticAssertionError,
    SemantixError,
    UnenforceableCheckError,
    VerdictStoreError,
)
from semantix.intent import IntentLike
from semantix.judges.base import Judge
from semantix.pipeline import SemanticResult, aevaluate_many, evaluate_many
from semantix.pipeline.results import CheckError
from semantix.proportions import JudgeAccuracy
from semantix.runs.calls import Call, Plan, aone_call, call_system
from semantix.runs.stats import RunStats

__all__ = ["PassRateError", "assert_pass_rate", "evaluate_pass_rate", "publish", "raise_for_stats"]


class PassRateError(SemanticAssertionError):
    """A repeated check's pass rate is below its floor (an ``AssertionError``).

    ``stats`` is the `RunStats` with every run's result; ``result`` is the first failing
    run's `SemanticResult` (for a run that raised a ``SemanticAssertionError`` itself, that
    error's result); ``errors`` holds the exceptions the runs raised, in run order.
    """

    __module__ = "semantix"

    def __init__(self, message: str, stats: RunStats, result: SemanticResult) -> None:
        super().__init__(message, result)
        self.stats = stats

    @property
    def errors(self) -> tuple[BaseException, ...]:
        """The exceptions of the runs that raised (crashes and internal assertions), in order."""
        return tuple(run.error for run in self.stats.results if run.error is not None)


def raise_for_stats(stats: RunStats) -> None:
    """Raise what a failed or unjudged `RunStats` means; return when it passed.

    No run judged: the first run's exception. A ceiling that cannot be checked:
    `UnenforceableCheckError`. Below the floor or over a ceiling: `PassRateError`.
    """
    __tracebackhide__ = True
    unenforceable = [c for c in stats.ceilings if c.unenforceable is not None]
    if unenforceable and stats.errors < stats.runs:
        raise UnenforceableCheckError(
            f"{stats.explain()}\nA ceiling that cannot be checked is never a pass: "
            + "; ".join(c.describe() for c in unenforceable)
        )
    if stats.verdict == "error":
        first = next((run.error for run in stats.results if run.error is not None), None)
        if first is not None:
            add_note = getattr(first, "add_note", None)  # Python 3.11+: shown under the error
            if callable(add_note):
                add_note(
                    f"semantix: all {stats.runs} runs of {stats.name} raised, so nothing was "
                    "judged; this is the first run's error"
                )
            raise first
        raise ConfigurationError(
            f"{stats.explain()}\nA repeated check must make a semantic assertion in every run"
        )
    if not stats.passed:
        error = PassRateError(stats.explain(), stats, _first_failure(stats))
        # The first run that raised is shown as the cause (a crash, or an assertion the system
        # under test made itself); every run's exception is on error.errors.
        error.__cause__ = next((run.error for run in stats.results if run.error), None)
        raise error


def _first_failure(stats: RunStats) -> SemanticResult:
    """The result a `PassRateError` carries: the first failing one, judged or raised.

    A run whose system under test asserted internally has no result of its own but its
    ``SemanticAssertionError`` carries one; a verdict ``fail`` made by errors alone has passing
    runs, whose first result stands in.
    """
    judged = [result for run in stats.results for result in run.results]
    raised = [
        run.error.result
        for run in stats.results
        if isinstance(run.error, SemanticAssertionError) and not run.results
    ]
    failing = [result for result in judged if not result.passed]
    return (failing or raised or judged)[0]  # verdict "fail": a run passed or failed


def evaluate_pass_rate(
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    max_workers: int = 1,
    max_latency_ms: float | None = None,
    latency_percentile: float = 100,
    max_cost_usd: float | None = None,
    prices: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    judge_accuracy: JudgeAccuracy | tuple[float, ...] | None = None,
) -> RunStats:
    """Call ``system()`` ``runs`` times, judge every output in one batch, and return the stats.

    Does not raise when the rate is under the floor, and (like ``evaluate_semantic``) records
    nothing in the pytest report; `assert_pass_rate` does both.
    """
    check_positive_int(max_workers, what="max_workers", example=4)
    accuracy = None if judge_accuracy is None else JudgeAccuracy.of(judge_accuracy)
    plan = Plan.of(
        system, intent, runs, min_pass_rate, judge, threshold, timeout,
        max_latency_ms, latency_percentile, max_cost_usd, prices,
    )  # fmt: skip
    calls = call_system(system, runs, max_workers, clock)
    texts, judged = plan.to_judge(calls)
    outcome: list[SemanticResult] | BaseException = []
    if texts:
        try:  # one batch: a judge error leaves every output in it unjudged (never a pass)
            outcome = evaluate_many(texts, plan.intent, **plan.judging(texts))
        except (JudgeError, VerdictStoreError) as exc:
            outcome = exc
    return replace(plan.stats(calls, judged, outcome), judge_accuracy=accuracy)


async def aevaluate_pass_rate(
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    concurrency: int = 1,
    max_latency_ms: float | None = None,
    latency_percentile: float = 100,
    max_cost_usd: float | None = None,
    prices: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    judge_accuracy: JudgeAccuracy | tuple[float, ...] | None = None,
) -> RunStats:
    """`evaluate_pass_rate`, awaitable: ``system`` may be an ``async def`` (awaited, at most
    ``concurrency`` runs at once) or a plain callable (run in the worker pool); the outputs are
    judged in one batch by `semantix.aevaluate_many`. The same stats, errors and ceilings."""
    check_positive_int(concurrency, what="concurrency", example=5)
    accuracy = None if judge_accuracy is None else JudgeAccuracy.of(judge_accuracy)
    plan = Plan.of(
        system, intent, runs, min_pass_rate, judge, threshold, timeout,
        max_latency_ms, latency_percentile, max_cost_usd, prices,
    )  # fmt: skip
    gate = asyncio.Semaphore(concurrency)

    async def one() -> Call:
        async with gate:
            return await aone_call(system, clock)

    calls = list(await asyncio.gather(*(one() for _ in range(runs))))
    texts, judged = plan.to_judge(calls)
    outcome: list[SemanticResult] | BaseException = []
    if texts:
        try:
            outcome = await aevaluate_many(texts, plan.intent, **plan.judging(texts))
        except (JudgeError, VerdictStoreError) as exc:
            outcome = exc
    return replace(plan.stats(calls, judged, outcome), judge_accuracy=accuracy)


async def aassert_pass_rate(
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    concurrency: int = 1,
    max_latency_ms: float | None = None,
    latency_percentile: float = 100,
    max_cost_usd: float | None = None,
    prices: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    judge_accuracy: JudgeAccuracy | tuple[float, ...] | None = None,
) -> RunStats:
    """`assert_pass_rate`, awaitable (see `aevaluate_pass_rate`): the same report records and
    errors."""
    __tracebackhide__ = True
    stats = await aevaluate_pass_rate(
        system, intent, runs=runs, min_pass_rate=min_pass_rate, judge=judge,
        threshold=threshold, timeout=timeout, concurrency=concurrency,
        max_latency_ms=max_latency_ms, latency_percentile=latency_percentile,
        max_cost_usd=max_cost_usd, prices=prices, clock=clock, judge_accuracy=judge_accuracy,
    )  # fmt: skip
    publish(stats)
    raise_for_stats(stats)
    return stats


def assert_pass_rate(
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    max_workers: int = 1,
    max_latency_ms: float | None = None,
    latency_percentile: float = 100,
    max_cost_usd: float | None = None,
    prices: Mapping[str, Any] | None = None,
    clock: Callable[[], float] = time.perf_counter,
    judge_accuracy: JudgeAccuracy | tuple[float, ...] | None = None,
) -> RunStats:
    """Assert that ``system()``'s outputs satisfy ``intent`` at least ``min_pass_rate`` of runs.

    Args:
        system: called with no arguments ``runs`` times; returns the output to judge (text or an
            OpenAI / Anthropic response). An exception it raises is that run's error (a
            ``SemanticAssertionError`` it raises is that run's failure).
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a
            description.
        runs: how many times to call ``system`` (an int >= 1).
        min_pass_rate: the floor in [0, 1]; the default 1.0 means every run must pass.
        judge: the judge for every output, or a spec such as ``"embedding"`` (default: the
            run's default judge); all outputs go to it in one batch when it has
            ``evaluate_batch``.
        threshold: overrides every leaf's threshold, as in ``assert_semantic``.
        timeout: seconds the judge may take per output, as ``assert_semantic``'s ``timeout``
            (default: the run's ``--semantic-timeout``, else no limit); the batch of n outputs
            gets n times that. A timeout makes every output of the batch an error.
        max_workers: how many calls of ``system`` run at once (threads).
        max_latency_ms: a ceiling on the system's latency (wall time around each call, not the
            judge), at ``latency_percentile`` (nearest rank, in (0, 100]; default 100: the
            slowest run).
        max_cost_usd: a ceiling on the total cost of every run's response, from its usage and
            model at ``prices`` (``{"model": (usd_per_1M_input, usd_per_1M_output)}``). One run
            without usage or price makes it unenforceable: `UnenforceableCheckError`, never a
            pass.
        clock: what times the calls (seconds; default ``time.perf_counter``), for tests.
        judge_accuracy: the judge's ``(sensitivity, specificity)`` against human labels (or a
            `semantix.proportions.JudgeAccuracy` with the counts, from ``semantix calibrate``):
            the stats add the pass rate corrected for its errors (`RunStats.corrected`), beside
            the observed rate, which still decides.

    Returns:
        The `RunStats` (pass rate, Wilson interval, every run), when the floor is reached.

    Raises:
        PassRateError: the pass rate is below the floor, or a ceiling is exceeded (a
            ``SemanticAssertionError``).
        UnenforceableCheckError: a ceiling cannot be checked (no usage, no price).
        Exception: every run raised; the first run's exception (nothing could be judged).
        ValueError: a bad ``runs``, ``min_pass_rate``, ``max_workers``, ``threshold`` or
            ``timeout``.
    """
    __tracebackhide__ = True
    stats = evaluate_pass_rate(
        system,
        intent,
        runs=runs,
        min_pass_rate=min_pass_rate,
        judge=judge,
        threshold=threshold,
        timeout=timeout,
        max_workers=max_workers,
        max_latency_ms=max_latency_ms,
        latency_percentile=latency_percentile,
        max_cost_usd=max_cost_usd,
        prices=prices,
        clock=clock,
        judge_accuracy=judge_accuracy,
    )
    publish(stats)
    raise_for_stats(stats)
    return stats


def publish(stats: RunStats) -> None:
    """Hand every run's check, then the stats, to the observers (the pytest report).

    A run's result is published like an ``assert_semantic``; a semantix error (a judge error, a
    missing frozen verdict) as a `CheckError`. A crash of the system
    under test is no check and shows only in the stats.
    """
    for run in stats.results:
        for result in run.results:
            context.notify(result)
        if (
            isinstance(run.error, SemantixError)
            and not isinstance(run.error, SemanticAssertionError)
            and not run.results
        ):
            context.notify(CheckError(stats.name, run.output, run.error))
    context.notify(stats)
