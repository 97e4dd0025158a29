"""How the runs of a repeated check are made and become `RunStats`: the checked options
(`Plan`), one timed call of the system under test (`Call`: sync, in threads, or awaited), and
the stats. `semantix.runs.runner` holds the public functions on top.

Each run's output becomes its `semantix.outputs.OutputView`, with the time the call took as its
``timing`` (unless the output carries its own, e.g. from `semantix.agents.timed`), and the views
— never their text — go to the one pipeline, in one batch: a leaf that works in
``assert_semantic`` (``CalledTool``, ``Tokens``, ``Cost``, ``Latency``) works the same here.
"""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix.config import check_positive_int
from semantix.errors import JudgeError, VerdictStoreError
from semantix.intent import Intent, IntentLike, as_intent
from semantix.outputs import OutputView, Timing, output_view
from semantix.pipeline.options import CheckOptions, Options, read_options
from semantix.pipeline.steps import Outcome
from semantix.proportions import JudgeAccuracy
from semantix.runs.stats import RunResult, RunStats, check_floor, check_runs

__all__ = ["Call", "Plan", "RunOptions", "call_system"]


class RunOptions(CheckOptions, total=False):
    """The options of a repeated check: the check's (``judge``, ``threshold``, ``timeout``) and

    - ``runs``: how many times to call the system (an int >= 1; default 10);
    - ``min_pass_rate``: the floor in [0, 1] (default 1.0: every run must pass);
    - ``concurrency``: how many calls of the system run at once (threads for a sync system,
      tasks for an async one; default 1);
    - ``clock``: what times the calls (seconds; default ``time.perf_counter``), for tests;
    - ``judge_accuracy``: the judge's ``(sensitivity, specificity)`` against labels (``semantix
      calibrate`` prints them; optionally with the positive and negative counts), for the
      pass rate corrected for its known errors beside the observed one (`RunStats.corrected`).
    """

    runs: int
    min_pass_rate: float
    concurrency: int
    clock: Callable[[], float]
    judge_accuracy: JudgeAccuracy | tuple[float, ...] | None


_RUN_OPTIONS = tuple(
    key for key in RunOptions.__annotations__ if key not in CheckOptions.__annotations__
)


@dataclass(frozen=True, slots=True)
class Plan:
    """A repeated check's options, checked before any run, and how its runs become stats."""

    intent: type[Intent]
    runs: int
    floor: float
    concurrency: int
    clock: Callable[[], float]
    check: Options
    accuracy: JudgeAccuracy | None = None

    @classmethod
    def of(cls, system: object, intent: IntentLike, options: Mapping[str, Any], what: str) -> Plan:
        check = read_options(options, what=what, extra=_RUN_OPTIONS)
        runs = check_runs(options.get("runs", 10))
        floor = check_floor(options.get("min_pass_rate", 1.0))
        concurrency = options.get("concurrency", 1)
        check_positive_int(concurrency, what="concurrency", example=4)
        intent_class = as_intent(intent)
        if not callable(system):
            raise TypeError(
                f"system must be a callable that returns one output, got "
                f"{type(system).__name__}; pass e.g. lambda: bot('my order is late')"
            )
        clock = options.get("clock", time.perf_counter)
        accuracy = options.get("judge_accuracy")
        return cls(
            intent_class, runs, floor, concurrency, clock, check,
            None if accuracy is None else JudgeAccuracy.of(accuracy),
        )  # fmt: skip

    def judged(self, calls: Sequence[Call]) -> list[int]:
        """The runs whose output is judged (a run that raised has none)."""
        return [index for index, call in enumerate(calls) if call.view is not None]

    def stats(
        self, calls: Sequence[Call], judged: list[int], outcome: Sequence[Outcome] | BaseException
    ) -> RunStats:
        """The stats of ``calls``; ``outcome`` is the batch's outcomes for the ``judged`` runs,
        or the judge error that left all of them unjudged (never a pass)."""
        outcomes: dict[int, Outcome] = (
            dict.fromkeys(judged, outcome)
            if isinstance(outcome, BaseException)
            else dict(zip(judged, outcome, strict=True))
        )
        results = []
        for index, call in enumerate(calls):
            got = outcomes.get(index, call.error)
            text = None if call.view is None else call.view.text
            if isinstance(got, BaseException) or got is None:
                results.append(
                    RunResult(index + 1, error=got, output=text, latency_ms=call.latency_ms)
                )
            else:
                results.append(
                    RunResult(index + 1, (got,), output=text, latency_ms=call.latency_ms)
                )
        return RunStats(self.intent.__name__, tuple(results), self.floor, self.accuracy)


#: Errors that leave every output of the batch unjudged (each run's error, never a pass).
BATCH_ERRORS = (JudgeError, VerdictStoreError)


@dataclass(frozen=True, slots=True)
class Call:
    """One call of the system under test: its view (None when it raised), the error, the time."""

    view: OutputView | None
    error: BaseException | None
    latency_ms: float


def call_system(system: Callable[[], object], plan: Plan) -> list[Call]:
    if plan.concurrency == 1 or plan.runs == 1:
        return [_one(system, plan.clock) for _ in range(plan.runs)]
    from concurrent.futures import ThreadPoolExecutor  # stdlib, but it pulls in logging

    with ThreadPoolExecutor(max_workers=min(plan.concurrency, plan.runs)) as pool:
        futures = [pool.submit(_one, system, plan.clock) for _ in range(plan.runs)]
        return [future.result() for future in futures]


def _one(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    started = clock()
    try:
        output = system()
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(None, exc, (clock() - started) * 1000)
    elapsed = (clock() - started) * 1000
    if inspect.isawaitable(output):
        close = getattr(output, "close", None)
        if callable(close):
            close()  # never awaited, so no "coroutine was never awaited" warning
        return Call(None, TypeError(_AWAITABLE), elapsed)
    return read_output(output, elapsed)


async def aone_call(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    """One call, awaited: an ``async def`` system, or a callable that returns an awaitable
    (``lambda: answer(q)``), is awaited on the loop; any other runs in the worker pool."""
    from semantix.judges.calls import in_pool

    started = clock()
    try:
        if inspect.iscoroutinefunction(system):
            output = await system()
        else:
            output = await in_pool(system)
            if inspect.isawaitable(output):
                output = await output
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(None, exc, (clock() - started) * 1000)
    return read_output(output, (clock() - started) * 1000)


def read_output(output: object, latency_ms: float) -> Call:
    """The run's view, timed by ``latency_ms`` (the system's time only, not reading or judging)
    unless it carries its own timing; an output that cannot be read is the run's error."""
    try:
        view = output_view(output)
    except TypeError as exc:
        return Call(None, exc, latency_ms)
    if view.timing is None:
        view = dataclasses.replace(view, timing=Timing(total_ms=latency_ms))
    return Call(view, None, latency_ms)


_AWAITABLE = (
    "the system returned an awaitable (a coroutine?): a sync repeated check cannot await it; "
    "use aassert_pass_rate / aevaluate_pass_rate, which await it"
)
