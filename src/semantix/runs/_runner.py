"""Run a system under test N times and judge every output's view (timed by its call unless it
carries its own timing) in one batch of the one pipeline; `assert_pass_rate` also publishes the
stats and raises what they mean (`raise_for_stats`)."""

from __future__ import annotations

import dataclasses
import inspect
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from semantix import _context as context
from semantix._config import check_positive_int, is_number
from semantix._intent import Intent, IntentLike, as_intent
from semantix._proportions import JudgeAccuracy
from semantix.errors import (
    ConfigurationError,
    JudgeError,
    SemanticAssertionError,
    SemantixError,
    VerdictStoreError,
)
from semantix.outputs import OutputView, Timing, output_view
from semantix.pipeline import SemanticResult, acheck, check
from semantix.pipeline._options import CheckOptions, Options, read_options
from semantix.pipeline._results import CheckError
from semantix.pipeline._steps import Outcome
from semantix.runs._stats import RunResult, RunStats, check_floor, check_runs

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = [
    "Call",
    "PassRateError",
    "Plan",
    "RunOptions",
    "assert_pass_rate",
    "evaluate_pass_rate",
    "publish",
    "raise_for_stats",
]


class RunOptions(CheckOptions, total=False):
    """The options of a repeated check: the check's (``judge``, ``threshold``, ``timeout``),
    ``runs`` (default 10), ``min_pass_rate`` (the floor, default 1.0: every run must pass),
    ``concurrency`` (calls at once: threads, or tasks for an async system; default 1), ``clock``
    (default ``time.perf_counter``) and ``judge_accuracy`` (``(sensitivity, specificity)``, as
    ``semantix calibrate`` prints them, for the corrected pass rate: `RunStats.corrected`)."""

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
        if not callable(clock):
            raise ConfigurationError(
                f"clock must be a function returning seconds, got {type(clock).__name__} "
                f"{clock!r:.60}; pass e.g. clock=time.perf_counter"
            )
        accuracy = options.get("judge_accuracy")
        return cls(
            intent_class, runs, floor, concurrency, clock, check,
            None if accuracy is None else JudgeAccuracy.of(accuracy),
        )  # fmt: skip

    def stats(self, calls: Sequence[Call], outcome: Sequence[Outcome] | BaseException) -> RunStats:
        """The stats of ``calls``; ``outcome``: the batch's outcomes for the runs with a view, or
        the judge error that left all unjudged (never a pass)."""
        judged = [index for index, call in enumerate(calls) if call.view is not None]
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
                run = RunResult(index + 1, error=got, output=text, latency_ms=call.latency_ms)
            else:
                run = RunResult(index + 1, (got,), output=text, latency_ms=call.latency_ms)
            results.append(run)
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


def _reading(clock: Callable[[], float], started: float | None = None) -> float:
    """The clock's reading in seconds; with ``started``, the milliseconds since. A reading that
    is not a finite number, or one before ``started``, is a `ConfigurationError`: a time it
    makes up would decide a ``Latency`` check."""
    now = clock()
    if not is_number(now):
        raise ConfigurationError(
            f"clock() returned {now!r}, not a finite number of seconds; pass a clock such as "
            "time.perf_counter"
        )
    if started is None:
        return float(now)
    if now < started:
        raise ConfigurationError(
            f"clock() went backwards ({started!r} s, then {now!r} s), so a run would take a "
            "negative time; pass a monotonic clock such as time.perf_counter"
        )
    return (now - started) * 1000


def _one(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    started = _reading(clock)
    try:
        output = system()
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(None, exc, _reading(clock, started))
    elapsed = _reading(clock, started)
    if inspect.isawaitable(output):
        close = getattr(output, "close", None)
        if callable(close):
            close()  # never awaited, so no "coroutine was never awaited" warning
        return Call(None, TypeError(_AWAITABLE), elapsed)
    return read_output(output, elapsed)


async def aone_call(system: Callable[[], object], clock: Callable[[], float]) -> Call:
    """One call, awaited: an ``async def`` system or an awaitable it returns is awaited on the
    loop; any other call runs in the worker pool."""
    from semantix.judges._calls import in_pool

    started = _reading(clock)
    try:
        if inspect.iscoroutinefunction(system):
            output = await system()
        else:
            output = await in_pool(system)
            if inspect.isawaitable(output):
                output = await output
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return Call(None, exc, _reading(clock, started))
    return read_output(output, _reading(clock, started))


def read_output(output: object, latency_ms: float) -> Call:
    """The run's view, timed by the system's ``latency_ms`` unless it carries its own timing;
    an output that cannot be read is the run's error."""
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


class PassRateError(SemanticAssertionError):
    """A repeated check's pass rate is below its floor (an ``AssertionError``): ``stats`` has
    every run, ``result`` is the first failing run's `SemanticResult` (judged or raised)."""

    __module__ = "semantix"

    def __init__(self, message: str, stats: RunStats, result: SemanticResult) -> None:
        super().__init__(message, result)
        self.stats = stats

    @property
    def errors(self) -> tuple[BaseException, ...]:
        """The exceptions of the runs that raised (crashes and internal assertions), in order."""
        return tuple(run.error for run in self.stats.results if run.error is not None)


def raise_for_stats(stats: RunStats) -> None:
    """Raise what a failed or unjudged `RunStats` means (no run judged: the first run's
    exception; below the floor: `PassRateError`); return when it passed."""
    __tracebackhide__ = True
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
    """The first failing result, judged or raised by the system itself; for a failure made by
    errors alone, the first passing run's."""
    judged = [result for run in stats.results for result in run.results]
    raised = [
        run.error.result
        for run in stats.results
        if isinstance(run.error, SemanticAssertionError) and not run.results
    ]
    failing = [result for result in judged if not result.passed]
    return (failing or raised or judged)[0]  # verdict "fail": a run passed or failed


def evaluate_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """Call ``system()`` ``runs`` times, judge every output in one batch, and return the stats
    (`assert_pass_rate` without raising or recording in the report)."""
    plan = Plan.of(system, intent, options, "evaluate_pass_rate")
    calls = call_system(system, plan)
    views = [call.view for call in calls if call.view is not None]
    outcome: list[Outcome] | BaseException
    try:  # one batch: a judge error leaves every output in it unjudged (never a pass)
        outcome = check(views, plan.intent, plan.check) if views else []
    except BATCH_ERRORS as exc:
        outcome = exc
    return plan.stats(calls, outcome)


async def aevaluate_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """`evaluate_pass_rate`, awaitable: ``system`` may be an ``async def``, return an awaitable
    (awaited, ``concurrency`` at once) or be plain (run in the worker pool)."""
    import asyncio

    plan = Plan.of(system, intent, options, "aevaluate_pass_rate")
    gate = asyncio.Semaphore(plan.concurrency)

    async def one() -> Call:
        async with gate:
            return await aone_call(system, plan.clock)

    calls = list(await asyncio.gather(*(one() for _ in range(plan.runs))))
    views = [call.view for call in calls if call.view is not None]
    outcome: list[Outcome] | BaseException
    try:
        outcome = (await acheck(views, plan.intent, plan.check)) if views else []
    except BATCH_ERRORS as exc:
        outcome = exc
    return plan.stats(calls, outcome)


async def aassert_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """`assert_pass_rate`, awaitable (the systems `aevaluate_pass_rate` takes)."""
    __tracebackhide__ = True
    return _held(await aevaluate_pass_rate(system, intent, **options))


def assert_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """Assert that ``system()``'s outputs satisfy ``intent`` at least ``min_pass_rate`` of runs.

    ``system()`` returns the output to judge (text, an SDK response, a transcript), timed for
    ``Latency`` leaves; an exception it raises is that run's error (a ``SemanticAssertionError``
    its failure). ``intent`` may hold budgets: ``Polite & Tokens(max_output=400)``. The options
    are `RunOptions`; ``timeout`` bounds judging every run's output, one check of many outputs.
    Returns the `RunStats` (pass rate, Wilson interval, every run) when the floor is reached.

    Raises:
        PassRateError: the pass rate is below the floor (a ``SemanticAssertionError``).
        Exception: every run raised; the first run's exception (nothing could be judged).
        TypeError, ValueError: a bad or unknown option.
    """
    __tracebackhide__ = True
    return _held(evaluate_pass_rate(system, intent, **options))


def _held(stats: RunStats) -> RunStats:
    __tracebackhide__ = True
    publish(stats)
    raise_for_stats(stats)
    return stats


def publish(stats: RunStats) -> None:
    """Hand every run's result (a semantix error as a `CheckError`; a crash of the system is
    no check), then the stats, to the observers (the pytest report)."""
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
