"""The figures of repeated runs: one run (`RunResult`), the runs of one check (`RunStats`),
and a suite's stability."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from semantix._config import check_positive_int, check_threshold
from semantix._proportions import Z_95, JudgeAccuracy, corrected_rate, wilson_interval
from semantix._text import preview
from semantix.errors import SemanticAssertionError
from semantix.pipeline._results import OUTCOME_WORDS, SemanticResult

__all__ = [
    "OUTPUT_PREVIEW",
    "SHOWN_RUNS",
    "Z_95",
    "Outcome",
    "RunResult",
    "RunStats",
    "check_floor",
    "check_runs",
    "suite_stability",
    "wilson_interval",
]

#: How many non-passing runs a failure message shows.
SHOWN_RUNS = 3
OUTPUT_PREVIEW = 120

#: The words every report uses for an outcome (pytest's).
Outcome = Literal["passed", "failed", "error"]


def check_runs(runs: object, *, what: str = "runs") -> int:
    """Return ``runs`` if it is an int >= 1, else raise a ``ConfigurationError`` naming it."""
    check_positive_int(runs, what=what, example=10)
    return runs  # type: ignore[return-value]


def check_floor(value: object, *, what: str = "min_pass_rate") -> float:
    """Return the floor as a float in [0, 1], or raise a ``ValueError`` naming it."""
    return check_threshold(value, what=what, example="min_pass_rate=0.8")


@dataclass(frozen=True, slots=True)
class RunResult:
    """One run (``index`` from 1): its semantic results, or the error that stopped it;
    ``output`` is the system's output as text (None in a repeated pytest test)."""

    index: int
    results: tuple[SemanticResult, ...] = ()
    error: BaseException | None = None
    output: str | None = None
    #: Wall time of the call of the system under test (not the judge), in milliseconds.
    latency_ms: float | None = None

    @property
    def outcome(self) -> Outcome:
        """``passed`` (every assertion held), ``failed`` (one did not) or ``error`` (it raised)."""
        if self.error is not None and not isinstance(self.error, SemanticAssertionError):
            return "error"
        if self.error is not None or any(not result.passed for result in self.results):
            return "failed"
        return "passed" if self.results else "error"

    @property
    def passed(self) -> bool:
        return self.outcome == "passed"

    def describe(self) -> str:
        """One line: the run's number, outcome, scores and output (or the error)."""
        head = f"#{self.index} {OUTCOME_WORDS[self.outcome]:<5}"
        if self.outcome == "error":
            if self.error is None:
                return f"{head} no semantic assertion was made"
            message = preview(str(self.error), OUTPUT_PREVIEW, quote=False)
            return f"{head} {type(self.error).__name__}: {message}"
        failing = [result for result in self.results if not result.passed] or list(self.results)
        scores = "; ".join(", ".join(leaf.summary for leaf in result.leaves) for result in failing)
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
    #: The judge's sensitivity and specificity: the report adds the corrected rate (`corrected`).
    judge_accuracy: JudgeAccuracy | None = None

    def __post_init__(self) -> None:
        if not self.results:
            raise ValueError(f"RunStats for {self.name} needs at least one run, got none")
        check_floor(self.min_pass_rate)
        if self.judge_accuracy is not None:
            object.__setattr__(self, "judge_accuracy", JudgeAccuracy.of(self.judge_accuracy))

    @property
    def runs(self) -> int:
        return len(self.results)

    @property
    def passes(self) -> int:
        return sum(1 for run in self.results if run.outcome == "passed")

    @property
    def failures(self) -> int:
        return sum(1 for run in self.results if run.outcome == "failed")

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
    def corrected(self) -> tuple[float, tuple[float, float]] | None:
        """The judged runs' pass rate corrected for the judge's known errors, and its interval
        (`semantix._proportions.corrected_rate`; reported only: the observed rate decides)."""
        judged = self.passes + self.failures
        if self.judge_accuracy is None or not judged:
            return None
        return corrected_rate(self.passes, judged, self.judge_accuracy)

    @property
    def floor_unproven(self) -> bool:
        """Whether the interval's lower bound is under the floor, whatever the verdict: 8/10 at
        a floor of 0.8 passes with its floor unproven (lower bound 0.49)."""
        return self.interval[0] < self.min_pass_rate

    @property
    def verdict(self) -> Outcome:
        """``error`` when no run could be judged, else whether the rate reaches the floor."""
        if self.errors == self.runs:
            return "error"
        # Tolerance for float noise only: 8/10 against a floor of 0.8 passes.
        return "passed" if self.pass_rate >= self.min_pass_rate - 1e-12 else "failed"

    @property
    def passed(self) -> bool:
        return self.verdict == "passed"

    def __repr__(self) -> str:
        low, high = self.interval
        return (
            f"<RunStats {OUTCOME_WORDS[self.verdict]} {self.name} {self.passes}/{self.runs} = "
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
        if self.corrected is not None:
            rate, (c_low, c_high) = self.corrected
            lines.append(
                f"  corrected for the judge's errors ({self.judge_accuracy}): {rate:.2f} "
                f"[{c_low:.2f}, {c_high:.2f}] (Rogan-Gladen; the observed rate decides)"
            )
        judges = sorted({str(result.judge) for run in self.results for result in run.results})
        if judges:
            lines.append(f"  judge: {', '.join(judges)}")
        bad = [run for run in self.results if run.outcome != "passed"]
        if bad:
            shown = bad[:SHOWN_RUNS]
            lines += ["", f"  runs that did not pass (first {len(shown)} of {len(bad)}):"]
            lines.extend(f"    {run.describe()}" for run in shown)
        return "\n".join(lines)

    def to_dict(self) -> dict[str, Any]:
        """The figures as JSON-able data (JSON report, JUnit properties, step summary);
        ``below_floor`` repeats ``floor_unproven`` for readers of older reports."""
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
            "floor_unproven": self.floor_unproven,
            "below_floor": self.floor_unproven,
            "verdict": self.verdict,
            "outcomes": [run.outcome for run in self.results],
            "latency_ms": [run.latency_ms for run in self.results],
            **_corrected_fields(self),
        }


class _Rated(Protocol):
    """A repeated check's figures (`RunStats`, a report's `RepeatedTest`)."""

    @property
    def pass_rate(self) -> float: ...

    @property
    def floor_unproven(self) -> bool: ...


def suite_stability(
    repeated: Iterable[_Rated | Mapping[str, Any]],
) -> tuple[float | None, int]:
    """The mean pass rate of the repeated checks (None when none) and how many have not proven
    their floor (`RunStats.floor_unproven`), from `RunStats` or their ``to_dict()`` records."""
    figures = [
        (float(item["pass_rate"]), bool(item.get("floor_unproven", item.get("below_floor"))))
        if isinstance(item, Mapping)
        else (item.pass_rate, item.floor_unproven)
        for item in repeated
    ]
    if not figures:
        return None, 0
    score = sum(rate for rate, _ in figures) / len(figures)
    return score, sum(1 for _, unproven in figures if unproven)


def _corrected_fields(stats: RunStats) -> dict[str, Any]:
    """The judge accuracy and the corrected rate, for `RunStats.to_dict` (nothing without)."""
    if stats.judge_accuracy is None:
        return {}
    corrected, accuracy = stats.corrected, stats.judge_accuracy
    return {
        "judge_accuracy": [accuracy.sensitivity, accuracy.specificity]
        + ([] if accuracy.positives is None else [accuracy.positives, accuracy.negatives]),
        "corrected_pass_rate": None if corrected is None else corrected[0],
        "corrected_interval": None if corrected is None else list(corrected[1]),
    }


for _public in (RunResult, RunStats):
    _public.__module__ = "semantix"
