"""Statistics of pass/fail counts: one interval, one paired test, one correction, each once
(their sources: docs/comparing-runs.md and docs/flaky-outputs.md).

```python
from semantix._proportions import JudgeAccuracy, corrected_rate, mcnemar_exact, newcombe_interval

print(round(mcnemar_exact(1, 6), 4))                  # 1 regression against 6 fixes
#> 0.125
low, high = newcombe_interval(48, 80, 56, 70)        # 48/80 before, 56/70 after
print(f"{low:.4f} {high:.4f}")
#> 0.0524 0.3339
rate, (low, high) = corrected_rate(17, 20, JudgeAccuracy(0.9, 0.95))
print(f"{rate:.4f} [{low:.2f}, {high:.2f}]")
#> 0.9412 [0.69, 1.00]
```
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Literal

from semantix._config import check_positive_int, check_threshold

__all__ = [
    "Z_95",
    "Z_JOINT_95",
    "JudgeAccuracy",
    "corrected_rate",
    "mcnemar_exact",
    "newcombe_interval",
    "rate_change",
    "wilson_interval",
]

#: The normal quantile of a two-sided 95 % interval, as the intervals are documented.
Z_95 = 1.96
#: The quantile that makes three independent two-sided intervals hold together with probability
#: 95 % (each at 0.95 ** (1/3) = 98.3 %): the observed rate, sensitivity and specificity.
Z_JOINT_95 = 2.3877


def wilson_interval(passes: int, runs: int, *, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for ``passes`` successes out of ``runs`` trials: inside [0, 1]
    and not zero-width at 0/n or n/n (5/5 gives (0.57, 1.00))."""
    check_positive_int(runs, what="runs", example=10)
    if isinstance(passes, bool) or not isinstance(passes, int) or not 0 <= passes <= runs:
        raise ValueError(f"passes must be an int between 0 and runs={runs}, got {passes!r}")
    p = passes / runs
    z2 = z * z
    denominator = 1 + z2 / runs
    centre = (p + z2 / (2 * runs)) / denominator
    half = z / denominator * math.sqrt(p * (1 - p) / runs + z2 / (4 * runs * runs))
    return max(0.0, centre - half), min(1.0, centre + half)


def newcombe_interval(
    passes_a: int, runs_a: int, passes_b: int, runs_b: int, *, z: float = Z_95
) -> tuple[float, float]:
    """The 95 % interval of ``passes_b/runs_b - passes_a/runs_a`` (candidate minus baseline), by
    Newcombe's hybrid score method (method 10): it excludes 0 when the difference is significant."""
    p_a, p_b = passes_a / runs_a, passes_b / runs_b
    low_a, high_a = wilson_interval(passes_a, runs_a, z=z)
    low_b, high_b = wilson_interval(passes_b, runs_b, z=z)
    difference = p_b - p_a
    return (
        difference - math.hypot(p_b - low_b, high_a - p_a),
        difference + math.hypot(high_b - p_b, p_a - low_a),
    )


def rate_change(
    before: tuple[int, int], after: tuple[int, int]
) -> Literal["worse", "better"] | None:
    """Whether a pass rate moved between two sets of runs, ``(passes, runs)`` each: ``worse`` or
    ``better`` when Newcombe's 95 % interval of ``after - before`` lies wholly below or above 0,
    else None. The one rule of `semantix compare` (a repeated test in two runs) and of relations
    (an original against its variant): the two sides' runs are independent draws of a
    nondeterministic system (run i of one has no partner in the other), so the interval is the
    unpaired one; McNemar's paired test is for assertions that pair one to one. With one run a
    side no interval can exclude 0, and the rule is the plain flip (as for a paired assertion):
    1/1 against 0/1 is ``worse``."""
    if before[1] == after[1] == 1:
        return None if before[0] == after[0] else "worse" if before[0] else "better"
    low, high = newcombe_interval(*before, *after)
    if high < 0:
        return "worse"
    return "better" if low > 0 else None


def mcnemar_exact(regressions: int, fixes: int) -> float:
    """The two-sided p-value of McNemar's exact test on the discordant pairs: twice the binomial
    tail (at 1/2) of the smaller count, at most 1 (1 when nothing flipped)."""
    for name, count in (("regressions", regressions), ("fixes", fixes)):
        if isinstance(count, bool) or not isinstance(count, int) or count < 0:
            raise ValueError(f"{name} must be a count (an int >= 0), got {count!r}")
    flips = regressions + fixes
    tail = term = 1  # the binomial coefficients C(flips, k), k = 0 .. the smaller count
    for k in range(min(regressions, fixes)):
        term = term * (flips - k) // (k + 1)
        tail += term
    return min(1.0, 2 * tail / (1 << flips))


@dataclass(frozen=True, slots=True)
class JudgeAccuracy:
    """How often a judge is right against human labels: ``sensitivity`` (it passes an output
    that truly satisfies the intent) and ``specificity`` (it fails one that does not), measured
    on ``positives`` and ``negatives`` labelled outputs (``semantix calibrate`` prints all four;
    without the counts the two figures are taken as exact)."""

    sensitivity: float
    specificity: float
    positives: int | None = None
    negatives: int | None = None

    def __post_init__(self) -> None:
        for name in ("sensitivity", "specificity"):
            check_threshold(getattr(self, name), what=f"judge_accuracy {name}", example="0.9")
        if (self.positives is None) != (self.negatives is None):
            raise ValueError(
                "judge_accuracy needs both counts (positives and negatives) or neither, got "
                f"positives={self.positives!r}, negatives={self.negatives!r}"
            )
        if self.positives is not None:
            check_positive_int(self.positives, what="judge_accuracy positives", example=50)
            check_positive_int(self.negatives, what="judge_accuracy negatives", example=50)
        if self.sensitivity + self.specificity <= 1:
            raise ValueError(
                f"judge_accuracy sensitivity {self.sensitivity:g} + specificity "
                f"{self.specificity:g} <= 1: such a judge is no better than a coin, so its "
                "verdicts cannot be corrected; measure it again (semantix calibrate) or use "
                "another judge"
            )

    @classmethod
    def of(cls, value: object) -> JudgeAccuracy:
        """``value`` as a `JudgeAccuracy`: one already, or ``(sensitivity, specificity)``, or
        ``(sensitivity, specificity, positives, negatives)``."""
        if isinstance(value, JudgeAccuracy):
            return value
        if isinstance(value, (tuple, list)) and len(value) in (2, 4):
            return cls(*value)
        raise TypeError(
            f"judge_accuracy must be (sensitivity, specificity) or (sensitivity, specificity, "
            f"positives, negatives), e.g. (0.9, 0.95), got {value!r}"
        )

    def __str__(self) -> str:
        counts = "" if self.positives is None else f" (n={self.positives}+{self.negatives})"
        return f"sensitivity {self.sensitivity:.2f}, specificity {self.specificity:.2f}{counts}"


def corrected_rate(
    passes: int, runs: int, accuracy: JudgeAccuracy
) -> tuple[float, tuple[float, float]]:
    """The pass rate corrected for the judge's errors (Rogan-Gladen, clipped to [0, 1]), and its
    interval: docs/flaky-outputs.md. The formula is monotone in each figure, so the interval's
    ends are at corners of the three Wilson intervals; [0, 1] when Se + Sp - 1 can reach 0."""
    sens, spec = accuracy.sensitivity, accuracy.specificity
    if accuracy.positives is None or accuracy.negatives is None:
        z = Z_95
        boxes = [wilson_interval(passes, runs, z=z), (sens, sens), (spec, spec)]
    else:
        z = Z_JOINT_95
        boxes = [
            wilson_interval(passes, runs, z=z),
            wilson_interval(round(sens * accuracy.positives), accuracy.positives, z=z),
            wilson_interval(round(spec * accuracy.negatives), accuracy.negatives, z=z),
        ]
    estimate = _rogan_gladen(passes / runs, sens, spec)
    if boxes[1][0] + boxes[2][0] <= 1:
        return estimate, (0.0, 1.0)
    corners = [_rogan_gladen(*corner) for corner in itertools.product(*boxes)]
    return estimate, (min(corners), max(corners))


def _rogan_gladen(rate: float, sensitivity: float, specificity: float) -> float:
    value = (rate + specificity - 1) / (sensitivity + specificity - 1)
    return min(1.0, max(0.0, value))
