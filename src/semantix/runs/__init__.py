"""Repeated runs: call a system under test N times, judge every output, hold it to a floor.

```python
from semantix import FakeJudge, Intent
from semantix.runs import assert_pass_rate

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

replies = iter(["Thank you for waiting.", "Sorry for the delay.", "Whatever."] * 4)
judge = FakeJudge(lambda output, intent: 0.0 if output == "Whatever." else 1.0)
stats = assert_pass_rate(lambda: next(replies), Polite, runs=9, min_pass_rate=0.6, judge=judge)
stats.pass_rate, stats.interval   # (0.666..., (0.354..., 0.879...))
```

Rules:

- A run passes when every semantic assertion in it holds. A run that raises anything else (the
  system under test crashed, a judge error) is an **error**: counted and shown separately, and a
  non-passing run in the pass rate (``pass_rate = passes / runs``). A check where every run
  errored is an error itself (the first run's exception is raised), whatever the floor.
- The check passes when the observed pass rate is at least the floor (``min_pass_rate``, default
  1.0: every run must pass). The Wilson score interval at 95 % (z = 1.96) is reported; the
  observed rate decides.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from semantix.config import check_positive_int, check_threshold
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
from semantix.pipeline import SemanticResult, evaluate_many, notify_observers
from semantix.pipeline.results import CheckError
from semantix.text import preview

__all__ = [
    "Z_95",
    "PassRateError",
    "RunResult",
    "RunStats",
    "assert_pass_rate",
    "check_floor",
    "check_runs",
    "evaluate_pass_rate",
    "publish",
    "raise_for_stats",
    "suite_stability",
    "wilson_interval",
]

#: The normal quantile of a two-sided 95 % interval, as the interval is documented.
Z_95 = 1.96
#: How many non-passing runs a failure message shows.
SHOWN_RUNS = 3
OUTPUT_PREVIEW = 120

Outcome = Literal["pass", "fail", "error"]


def wilson_interval(passes: int, runs: int, *, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``passes`` successes out of ``runs`` trials.

    Unlike the textbook ``p ± z·sqrt(p(1-p)/n)``, it stays inside [0, 1] and is not zero-width
    at 0/n or n/n: 5/5 gives (0.57, 1.00), 0/5 gives (0.00, 0.43).
    """
    check_runs(runs)
    if isinstance(passes, bool) or not isinstance(passes, int) or not 0 <= passes <= runs:
        raise ValueError(f"passes must be an int between 0 and runs={runs}, got {passes!r}")
    p = passes / runs
    z2 = z * z
    denominator = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs))
    return max(0.0, centre - half), min(1.0, centre + half)


def check_runs(runs: object, *, what: str = "runs") -> int:
    """Return ``runs`` if it is an int >= 1, else raise a ``ConfigurationError`` naming it."""
    check_positive_int(runs, what=what, example=10)
    return runs  # type: ignore[return-value]


def check_floor(value: object, *, what: str = "min_pass_rate") -> float:
    """Return the floor as a float in [0, 1], or raise a ``ValueError`` naming it."""
    return check_threshold(value, what=what, example="min_pass_rate=0.8")


@dataclass(frozen=True, slots=True)
class RunResult:
    """One run: the semantic results it produced, or the error that stopped it.

    ``index`` counts from 1. ``output`` is the system under test's output as text, when the run
    called one (``assert_pass_rate``); in a repeated pytest test it is None.
    """

    index: int
    results: tuple[SemanticResult, ...] = ()
    error: BaseException | None = None
    output: str | None = None

    @property
    def outcome(self) -> Outcome:
        """``pass`` (every assertion held), ``fail`` (one did not) or ``error`` (it raised)."""
        if self.error is not None and not isinstance(self.error, SemanticAssertionError):
            return "error"
        if any(not result.passed for result in self.results):
            return "fail"
        if isinstance(self.error, SemanticAssertionError):
            return "fail"
        return "pass" if self.results else "error"

    @property
    def passed(self) -> bool:
        return self.outcome == "pass"

    def describe(self) -> str:
        """One line: the run's number, outcome, scores and output (or the error)."""
        head = f"#{self.index} {self.outcome.upper():<5}"
        if self.outcome == "error":
            if self.error is None:
                return f"{head} no semantic assertion was made"
            message = preview(str(self.error), OUTPUT_PREVIEW, quote=False)
            return f"{head} {type(self.error).__name__}: {message}"
        failing = [result for result in self.results if not result.passed] or list(self.results)
        scores = "; ".join(_scores(result) for result in failing)
        text = self.output if self.output is not None else (failing[0].output if failing else "")
        if not failing and self.error is not None:
            scores = preview(str(self.error), OUTPUT_PREVIEW, quote=False)
        return f"{head} {scores}  output: {preview(text, OUTPUT_PREVIEW)}"

    def __repr__(self) -> str:
        return f"<RunResult {self.describe()}>"


@dataclass(frozen=True, slots=True)
class RunStats:
    """The runs of one repeated check, their pass rate, its Wilson interval and the floor.

    ``repr`` reads ``<RunStats PASS Polite 9/10 = 0.90 [0.60, 0.98] floor 0.80, 0 errors>``.
    """

    name: str
    results: tuple[RunResult, ...]
    min_pass_rate: float = 1.0

    def __post_init__(self) -> None:
        if not self.results:
            raise ValueError(f"RunStats for {self.name} needs at least one run, got none")
        check_floor(self.min_pass_rate)

    @property
    def runs(self) -> int:
        return len(self.results)

    @property
    def passes(self) -> int:
        return sum(1 for run in self.results if run.outcome == "pass")

    @property
    def failures(self) -> int:
        return sum(1 for run in self.results if run.outcome == "fail")

    @property
    def errors(self) -> int:
        return sum(1 for run in self.results if run.outcome == "error")

    @property
    def pass_rate(self) -> float:
        """Passing runs over all runs; an error counts as a run that did not pass."""
        return self.passes / self.runs

    @property
    def interval(self) -> tuple[float, float]:
        """The Wilson 95 % interval of the pass rate."""
        return wilson_interval(self.passes, self.runs)

    @property
    def below_floor(self) -> bool:
        """Whether the interval's lower bound is under the floor (the rate is not yet proven)."""
        return self.interval[0] < self.min_pass_rate

    @property
    def verdict(self) -> Outcome:
        """``error`` when no run could be judged, else ``pass`` when the rate reaches the floor."""
        if self.errors == self.runs:
            return "error"
        # Tolerance for float noise only: 8/10 against a floor of 0.8 passes.
        return "pass" if self.pass_rate >= self.min_pass_rate - 1e-12 else "fail"

    @property
    def passed(self) -> bool:
        return self.verdict == "pass"

    def __repr__(self) -> str:
        low, high = self.interval
        return (
            f"<RunStats {self.verdict.upper()} {self.name} {self.passes}/{self.runs} = "
            f"{self.pass_rate:.2f} [{low:.2f}, {high:.2f}] floor {self.min_pass_rate:.2f}, "
            f"{self.errors} error{'' if self.errors == 1 else 's'}>"
        )

    def explain(self) -> str:
        """The multi-line failure message: rate, interval, floor and the first non-passing runs."""
        low, high = self.interval
        if self.verdict == "error":
            head = f"no run of {self.name} could be judged: all {self.runs} runs raised"
        elif self.passed:
            head = f"pass rate of {self.name} reaches its floor"
        else:
            head = f"pass rate of {self.name} is below its floor"
        lines = [
            head,
            (
                f"  pass rate: {self.passes}/{self.runs} = {self.pass_rate:.0%} "
                f"(floor {self.min_pass_rate:.0%})"
            ),
            f"  95% Wilson interval: [{low:.2f}, {high:.2f}]",
            (
                f"  runs: {self.passes} passed, {self.failures} failed, {self.errors} errors "
                "(an error counts as a run that did not pass)"
            ),
        ]
        judges = sorted({str(result.judge) for run in self.results for result in run.results})
        if judges:
            lines.append(f"  judge: {', '.join(judges)}")
        bad = [run for run in self.results if run.outcome != "pass"]
        if bad:
            shown = bad[:SHOWN_RUNS]
            lines.append("")
            lines.append(f"  runs that did not pass (first {len(shown)} of {len(bad)}):")
            lines.extend(f"    {run.describe()}" for run in shown)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-able data (JSON report, JUnit properties, step summary)."""
        low, high = self.interval
        return {
            "name": self.name,
            "runs": self.runs,
            "passes": self.passes,
            "failures": self.failures,
            "errors": self.errors,
            "pass_rate": self.pass_rate,
            "interval": [low, high],
            "min_pass_rate": self.min_pass_rate,
            "below_floor": self.below_floor,
            "verdict": self.verdict,
            "outcomes": [run.outcome for run in self.results],
        }


class PassRateError(SemanticAssertionError):
    """A repeated check's pass rate is below its floor (an ``AssertionError``).

    ``stats`` is the `RunStats` with every run's result; ``result`` is the first failing
    run's `SemanticResult`.
    """

    __module__ = "semantix"

    def __init__(self, message: str, stats: RunStats, result: SemanticResult) -> None:
        super().__init__(message, result)
        self.stats = stats


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
        failing = [result for run in stats.results for result in run.results if not result.passed]
        # verdict "fail" with no judged failure means errors pulled the rate under the floor.
        judged = failing or [result for run in stats.results for result in run.results]
        raise PassRateError(stats.explain(), stats, judged[0])


def evaluate_pass_rate(
    system: Callable[[], object],
    intent: IntentLike,
    *,
    runs: int = 10,
    min_pass_rate: float = 1.0,
    judge: Judge | str | None = None,
    threshold: float | None = None,
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
        try:
            many = evaluate_many(texts, intent_class, judge=judge, threshold=threshold)
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
    max_workers: int = 1,
) -> RunStats:
    """Assert that ``system()``'s outputs satisfy ``intent`` at least ``min_pass_rate`` of runs.

    Args:
        system: called with no arguments ``runs`` times; returns the output to judge (text or an
            OpenAI / Anthropic response). An exception it raises is that run's error.
        intent: an `Intent` class (``~``, ``&``, ``|`` allowed) or a
            description.
        runs: how many times to call ``system`` (an int >= 1).
        min_pass_rate: the floor in [0, 1]; the default 1.0 means every run must pass.
        judge: the judge for every output, or a spec such as ``"embedding"`` (default: the
            run's default judge); all outputs go to it in one batch when it has
            ``evaluate_batch``.
        threshold: overrides every leaf's threshold, as in ``assert_semantic``.
        max_workers: how many calls of ``system`` run at once (threads).

    Returns:
        The `RunStats` (pass rate, Wilson interval, every run), when the floor is reached.

    Raises:
        PassRateError: the pass rate is below the floor (a ``SemanticAssertionError``).
        Exception: every run raised; the first run's exception (nothing could be judged).
        ValueError: a bad ``runs``, ``min_pass_rate``, ``max_workers`` or ``threshold``.
    """
    __tracebackhide__ = True
    stats = evaluate_pass_rate(
        system,
        intent,
        runs=runs,
        min_pass_rate=min_pass_rate,
        judge=judge,
        threshold=threshold,
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
            notify_observers(result)
        if isinstance(run.error, SemantixError) and not run.results:
            notify_observers(CheckError(stats.name, run.output, run.error))
    notify_observers(stats)


def suite_stability(
    repeated: Iterable[RunStats | Mapping[str, Any]],
) -> tuple[float | None, int]:
    """The suite's stability score and how many checks have not proven their floor.

    The score is the mean pass rate over the repeated checks (None when nothing was repeated);
    the count is of checks whose interval's lower bound is under their floor. Takes
    `RunStats` or their ``to_dict()`` records (as xdist workers send them).
    """
    figures = [
        (item.pass_rate, item.below_floor)
        if isinstance(item, RunStats)
        else (float(item["pass_rate"]), bool(item["below_floor"]))
        for item in repeated
    ]
    if not figures:
        return None, 0
    score = sum(rate for rate, _ in figures) / len(figures)
    return score, sum(1 for _, below in figures if below)


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


def _scores(result: SemanticResult) -> str:
    """``Polite=0.41/0.80, ~Blame=0.10/0.70``: every leaf's score against its threshold."""
    leaves = []
    for leaf in result.leaves:
        score = "n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:.2f}"
        label = leaf.intent.__name__ if leaf.expected else f"~{leaf.intent.__name__}"
        leaves.append(f"{label}={score}/{leaf.threshold:.2f}")
    return ", ".join(leaves)


for _public in (RunResult, RunStats):
    _public.__module__ = "semantix"
