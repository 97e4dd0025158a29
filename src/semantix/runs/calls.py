"""How the runs of a repeated check are made and become `RunStats`: the checked arguments
(`Plan`), one timed call of the system under test (`Call`: sync, in threads, or awaited), and the
stats with their ceilings. `semantix.runs.runner` holds the public functions on top."""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, cast

from semantix import context
from semantix.checks.budget import Price
from semantix.config import check_seconds, check_threshold
from semantix.intent import Intent, IntentLike, as_intent
from semantix.judges.calls import in_pool
from semantix.outputs import OutputView, output_text, output_view
from semantix.pipeline import SemanticResult
from semantix.runs.ceilings import Ceiling, check_ceilings, cost_ceiling, latency_ceiling
from semantix.runs.stats import RunResult, RunStats, check_floor, check_runs

__all__ = ["Call", "Plan", "aone_call", "call_system", "one_call"]


@dataclass(frozen=True, slots=True)
class Plan:
    """A repeated check's arguments, checked before any run, and how its runs become stats."""

    intent: type[Intent]
    runs: int
    floor: float
    limit: float | None
    max_latency_ms: float | None
    latency_percentile: float
    max_cost_usd: float | None
    prices: Mapping[str, Price] | None
    judge: object
    threshold: float | None

    @classmethod
    def of(
        cls,
        system: object,
        intent: IntentLike,
        runs: int,
        min_pass_rate: float,
        judge: object,
        threshold: float | None,
        timeout: float | None,
        max_latency_ms: float | None,
        latency_percentile: float,
        max_cost_usd: float | None,
        prices: Mapping[str, Any] | None,
    ) -> Plan:
        check_runs(runs)
        floor = check_floor(min_pass_rate)
        intent_class = as_intent(intent)
        if threshold is not None:
            check_threshold(threshold)
        limit = check_seconds(timeout, what="timeout") if timeout is not None else None
        if not callable(system):
            raise TypeError(
                f"system must be a callable that returns one output, got "
                f"{type(system).__name__}; pass e.g. lambda: bot('my order is late')"
            )
        checked = check_ceilings(max_latency_ms, latency_percentile, max_cost_usd, prices)
        return cls(
            intent_class, runs, floor, limit,
            None if max_latency_ms is None else float(max_latency_ms),
            float(latency_percentile),
            None if max_cost_usd is None else float(max_cost_usd),
            checked, judge, threshold,
        )  # fmt: skip

    def to_judge(self, calls: list[Call]) -> tuple[list[str], list[int]]:
        """The texts to judge and the runs they came from (a run that raised is not judged)."""
        judged = [index for index, call in enumerate(calls) if isinstance(call.value, str)]
        return [cast("str", calls[index].value) for index in judged], judged

    def judging(self, texts: list[str]) -> dict[str, Any]:
        """The arguments of the one batch (`evaluate_many` or `aevaluate_many`) for ``texts``;
        the timeout is per check, as in assert_semantic: a batch of n outputs gets n."""
        per_check = self.limit if self.limit is not None else context.current().timeout
        return {
            "judge": self.judge,
            "threshold": self.threshold,
            "timeout": None if per_check is None else per_check * len(texts),
        }

    def stats(
        self,
        calls: list[Call],
        judged: list[int],
        outcome: Sequence[SemanticResult] | BaseException,
    ) -> RunStats:
        """The stats of ``calls``; ``outcome`` is the batch's results for the ``judged`` runs,
        or the judge error that left all of them unjudged (never a pass)."""
        verdicts: dict[int, SemanticResult | BaseException] = (
            dict.fromkeys(judged, outcome)
            if isinstance(outcome, BaseException)
            else dict(zip(judged, outcome, strict=True))
        )
        ceilings: list[Ceiling] = []
        costs: list[float | None] = [None] * len(calls)
        if self.max_latency_ms is not None:
            latencies = [call.latency_ms for call in calls]
            ceilings.append(
                latency_ceiling(latencies, self.max_latency_ms, self.latency_percentile)
            )
        if self.max_cost_usd is not None and self.prices is not None:
            total, costs = cost_ceiling(
                [call.view for call in calls], self.max_cost_usd, self.prices
            )
            ceilings.append(total)
        results: list[RunResult] = []
        for index, call in enumerate(calls):
            judged_value = verdicts.get(index, call.value)
            latency, cost = call.latency_ms, costs[index]
            if isinstance(judged_value, SemanticResult):
                results.append(
                    RunResult(
                        index + 1,
                        (judged_value,),
                        output=judged_value.output,
                        latency_ms=latency,
                        cost_usd=cost,
                    )
                )
            else:
                assert isinstance(judged_value, BaseException)
                text = call.value if isinstance(call.value, str) else None
                results.append(
                    RunResult(
                        index + 1,
                        error=judged_value,
                        output=text,
                        latency_ms=latency,
                        cost_usd=cost,
                    )
                )
        return RunStats(self.intent.__name__, tuple(results), self.floor, tuple(ceilings))


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the system under test: its text (or the exception), time and view."""

    value: str | BaseException
    latency_ms: float
    view: OutputView | None


def call_system(
    system: Callable[[], object], runs: int, max_workers: int, clock: Callable[[], float]
) -> list[Call]:
    if max_workers == 1 or runs == 1:
        return [one_call(system, clock) for _ in range(runs)]
    from concurrent.futures import ThreadPoolExecutor  # stdlib, but it pulls in logging

    with ThreadPoolExecutor(max_workers=min(max_workers, runs)) as pool:
        futures = [pool.submit(one_call, system, clock) for _ in range(runs)]
        return [future.result() for future in futures]


def one_call(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    started = clock()
    try:
        output = system()
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(exc, (clock() - started) * 1000, None)
    return read_output(output, (clock() - started) * 1000)


async def aone_call(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    if not inspect.iscoroutinefunction(system):
        return await in_pool(one_call, system, clock)
    started = clock()
    try:
        output = await cast("Callable[[], Awaitable[object]]", system)()
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(exc, (clock() - started) * 1000, None)
    return read_output(output, (clock() - started) * 1000)


def read_output(output: object, latency_ms: float) -> Call:
    """The run's text and view; ``latency_ms`` is the system's time only, not reading or
    judging."""
    try:
        return Call(output_text(output), latency_ms, output_view(output))
    except TypeError as exc:
        return Call(exc, latency_ms, None)
