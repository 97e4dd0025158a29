"""Run a system under test N times, judge every output, and hold the pass rate to its floor.

`evaluate_pass_rate` calls the system, judges the outputs in one batch and returns the
`semantix.runs.stats.RunStats`; `assert_pass_rate` also publishes them (the pytest report) and
raises what they mean (`raise_for_stats`): `PassRateError` below the floor, the first run's
exception when no run could be judged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from semantix import context
from semantix.errors import ConfigurationError, SemanticAssertionError, SemantixError
from semantix.intent import IntentLike
from semantix.pipeline import SemanticResult, acheck, check
from semantix.pipeline.results import CheckError
from semantix.pipeline.steps import Outcome
from semantix.runs.calls import BATCH_ERRORS, Call, Plan, RunOptions, aone_call, call_system
from semantix.runs.stats import RunStats

if TYPE_CHECKING:
    from typing_extensions import Unpack

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

    No run judged: the first run's exception. Below the floor: `PassRateError`.
    """
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
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """Call ``system()`` ``runs`` times, judge every output in one batch, and return the stats.

    Does not raise when the rate is under the floor, and (like ``evaluate_semantic``) records
    nothing in the pytest report; `assert_pass_rate` does both. Options as for
    `assert_pass_rate`.
    """
    plan = Plan.of(system, intent, options, "evaluate_pass_rate")
    calls = call_system(system, plan)
    judged = plan.judged(calls)
    outcome: list[Outcome] | BaseException = []
    if judged:
        try:  # one batch: a judge error leaves every output in it unjudged (never a pass)
            outcome = check([calls[index].view for index in judged], plan.intent, plan.check)
        except BATCH_ERRORS as exc:
            outcome = exc
    return plan.stats(calls, judged, outcome)


async def aevaluate_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """`evaluate_pass_rate`, awaitable: ``system`` may be an ``async def``, a callable that
    returns an awaitable (both awaited, at most ``concurrency`` runs at once) or a plain
    callable (run in the worker pool); the outputs are judged in one batch by `acheck`. The same
    stats and errors."""
    import asyncio

    plan = Plan.of(system, intent, options, "aevaluate_pass_rate")
    gate = asyncio.Semaphore(plan.concurrency)

    async def one() -> Call:
        async with gate:
            return await aone_call(system, plan.clock)

    calls = list(await asyncio.gather(*(one() for _ in range(plan.runs))))
    judged = plan.judged(calls)
    outcome: list[Outcome] | BaseException = []
    if judged:
        try:
            outcome = await acheck([calls[index].view for index in judged], plan.intent, plan.check)
        except BATCH_ERRORS as exc:
            outcome = exc
    return plan.stats(calls, judged, outcome)


async def aassert_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """`assert_pass_rate`, awaitable (see `aevaluate_pass_rate`): the same report records and
    errors."""
    __tracebackhide__ = True
    stats = await aevaluate_pass_rate(system, intent, **options)
    publish(stats)
    raise_for_stats(stats)
    return stats


def assert_pass_rate(
    system: Callable[[], object], intent: IntentLike, **options: Unpack[RunOptions]
) -> RunStats:
    """Assert that ``system()``'s outputs satisfy ``intent`` at least ``min_pass_rate`` of runs.

    Args:
        system: called with no arguments ``runs`` times; returns the output to judge (text, an
            OpenAI / Anthropic response, a transcript). An exception it raises is that run's
            error (a ``SemanticAssertionError`` it raises is that run's failure). Its wall time
            is the output's timing, which ``Latency`` leaves read.
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a description; budgets are
            leaves too: ``Polite & Tokens(max_output=400) & Latency(max_ms=3000)``.
        **options: ``runs`` (default 10), ``min_pass_rate`` (default 1.0: every run must pass),
            ``concurrency`` (calls at once, default 1), ``clock``, and the check's ``judge``,
            ``threshold`` and ``timeout`` — which bounds judging every run's output, one check
            of many outputs (`semantix.runs.calls.RunOptions`).

    Returns:
        The `RunStats` (pass rate, Wilson interval, every run), when the floor is reached.

    Raises:
        PassRateError: the pass rate is below the floor (a ``SemanticAssertionError``).
        Exception: every run raised; the first run's exception (nothing could be judged).
        TypeError, ValueError: a bad or unknown option.
    """
    __tracebackhide__ = True
    stats = evaluate_pass_rate(system, intent, **options)
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
