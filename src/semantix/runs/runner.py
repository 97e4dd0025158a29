"""Run a system under test N times, judge every output, and hold the pass rate to its floor.

`evaluate_pass_rate` calls the system, judges the outputs in one batch and returns the
`semantix.runs.stats.RunStats`; `assert_pass_rate` also publishes them (the pytest report) and
raises what they mean (`raise_for_stats`): `PassRateError` below the floor, the first run's
exception when no run could be judged.
"""

from __future__ import annotations

from collections.abc import Callable

from semantix import context
from semantix.config import check_positive_int, check_seconds, check_threshold
from semantix.errors import (
    ConfigurationError,
    JudgeError,
    SemanticAssertionError,
    SemantixError,
    VerdictStoreError,
)
from semantix.intent import IntentLike, as_intent
from semantix.judges.base import Judge
from semantix.outputs import output_text
from semantix.pipeline import SemanticResult, evaluate_many
from semantix.pipeline.results import CheckError
from semantix.runs.stats import RunResult, RunStats, check_floor, check_runs

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
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    max_workers: int = 1,
) -> RunStats:
    """Call ``system()`` ``runs`` times, judge every output in one batch, and return the stats.

    Does not raise when the rate is under the floor, and (like ``evaluate_semantic``) records
    nothing in the pytest report; `assert_pass_rate` does both.
    """
    check_runs(runs)
    floor = check_floor(min_pass_rate)
    check_positive_int(max_workers, what="max_workers", example=4)
    intent_class = as_intent(intent)
    if threshold is not None:
        check_threshold(threshold)
    limit = check_seconds(timeout, what="timeout") if timeout is not None else None
    if not callable(system):
        raise TypeError(
            f"system must be a callable that returns one output, got {type(system).__name__}; "
            "pass e.g. lambda: bot('my order is late')"
        )
    produced = _call_system(system, runs, max_workers)
    texts: list[str] = []
    judged: list[int] = []
    for index, value in enumerate(produced):
        if not isinstance(value, BaseException):
            texts.append(value)
            judged.append(index)
    verdicts: dict[int, SemanticResult | BaseException] = {}
    if texts:
        per_check = limit if limit is not None else context.current().timeout
        try:
            many = evaluate_many(
                texts,
                intent_class,
                judge=judge,
                threshold=threshold,
                # The timeout is per check, as in assert_semantic: a batch of n outputs gets n.
                timeout=None if per_check is None else per_check * len(texts),
            )
        except (JudgeError, VerdictStoreError) as exc:
            # One batch: a judge error leaves every output in it unjudged (never a pass).
            verdicts = dict.fromkeys(judged, exc)
        else:
            verdicts = dict(zip(judged, many, strict=True))
    results: list[RunResult] = []
    for index, value in enumerate(produced):
        judged_value = verdicts.get(index, value)
        if isinstance(judged_value, SemanticResult):
            results.append(RunResult(index + 1, (judged_value,), output=judged_value.output))
        else:
            assert isinstance(judged_value, BaseException)
            text = value if isinstance(value, str) else None
            results.append(RunResult(index + 1, error=judged_value, output=text))
    return RunStats(intent_class.__name__, tuple(results), floor)


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

    Returns:
        The `RunStats` (pass rate, Wilson interval, every run), when the floor is reached.

    Raises:
        PassRateError: the pass rate is below the floor (a ``SemanticAssertionError``).
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


def _call_system(
    system: Callable[[], object], runs: int, max_workers: int
) -> list[str | BaseException]:
    if max_workers == 1 or runs == 1:
        return [_one_call(system) for _ in range(runs)]
    from concurrent.futures import ThreadPoolExecutor  # stdlib, but it pulls in logging

    with ThreadPoolExecutor(max_workers=min(max_workers, runs)) as pool:
        futures = [pool.submit(_one_call, system) for _ in range(runs)]
        return [future.result() for future in futures]


def _one_call(system: Callable[[], object]) -> str | BaseException:
    try:
        return output_text(system())
    except Exception as exc:  # noqa: BLE001 - the run's error, counted and shown, never a pass
        return exc
