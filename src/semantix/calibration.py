"""Agreement between a judge and human labels, and the threshold that maximises it.

```python
from semantix.calibration import accuracy, best_threshold, calibrate

scores = [0.12, 0.35, 0.61, 0.78, 0.93]   # the judge's scores
labels = [False, False, True, True, True]  # what a human said: does the output satisfy it?

threshold = best_threshold(scores, labels)
assert 0.35 < threshold < 0.61
assert accuracy(labels, [score >= threshold for score in scores]) == 1.0
print(calibrate(scores, labels))
#> <Calibration threshold=0.480 accuracy=1.000 balanced_accuracy=1.000 kappa=1.000 n=5>
```

Pure functions on plain sequences (no numpy), used by ``semantix calibrate`` and by anyone
choosing a ``recommended_threshold``. A prediction is ``score >= threshold``, as in every
semantix judge. Metric arguments are ``(expected, predicted)``, like scikit-learn's
``(y_true, y_pred)``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

__all__ = [
    "Calibration",
    "accuracy",
    "balanced_accuracy",
    "best_threshold",
    "calibrate",
    "cohens_kappa",
    "evaluate_threshold",
    "predict",
]

Metric = Callable[[Sequence[bool], Sequence[bool]], float]


def _check_pair(expected: Sequence[bool], predicted: Sequence[bool]) -> None:
    if len(expected) != len(predicted):
        raise ValueError(
            f"expected has {len(expected)} labels but predicted has {len(predicted)}; "
            "pass one prediction per label"
        )
    if not expected:
        raise ValueError("no labels given; pass at least one (expected, predicted) pair")
    for name, values in (("expected", expected), ("predicted", predicted)):
        for index, value in enumerate(values):
            if not isinstance(value, bool):
                raise TypeError(
                    f"{name}[{index}] is {value!r} ({type(value).__name__}); labels must be "
                    "True or False"
                )


def accuracy(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """The fraction of predictions that agree with the labels."""
    _check_pair(expected, predicted)
    agree = sum(1 for want, got in zip(expected, predicted, strict=True) if want is got)
    return agree / len(expected)


def balanced_accuracy(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """The mean of the recall on positive labels and the recall on negative labels.

    Unlike accuracy it is not flattered by a skewed label set: always answering "pass" on 90%
    positive labels scores 0.5, not 0.9. A class absent from ``expected`` is left out of the mean.
    """
    _check_pair(expected, predicted)
    recalls = []
    for label in (True, False):
        hits = [got for want, got in zip(expected, predicted, strict=True) if want is label]
        if hits:
            recalls.append(sum(1 for got in hits if got is label) / len(hits))
    return sum(recalls) / len(recalls)


def cohens_kappa(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Cohen's κ: agreement corrected for the agreement expected by chance.

    1 is perfect agreement, 0 is chance level, negative is worse than chance. When both sides
    put everything in one and the same class, chance agreement is 1 and κ is defined as 1.
    """
    _check_pair(expected, predicted)
    n = len(expected)
    observed = accuracy(expected, predicted)
    expected_yes = sum(expected) / n
    predicted_yes = sum(predicted) / n
    chance = expected_yes * predicted_yes + (1 - expected_yes) * (1 - predicted_yes)
    if chance >= 1.0:
        return 1.0
    return (observed - chance) / (1 - chance)


def predict(scores: Sequence[float], threshold: float) -> list[bool]:
    """The verdicts at ``threshold``: ``score >= threshold``, as semantix judges decide."""
    return [score >= threshold for score in scores]


def _check_scores(scores: Sequence[float], labels: Sequence[bool]) -> None:
    if len(scores) != len(labels):
        raise ValueError(
            f"got {len(scores)} scores but {len(labels)} labels; pass one label per score"
        )
    if not scores:
        raise ValueError("no scores given; pass at least one (score, label) pair")
    for index, score in enumerate(scores):
        if (
            isinstance(score, bool)
            or not isinstance(score, (int, float))
            or math.isnan(score)
            or not 0.0 <= score <= 1.0
        ):
            raise ValueError(f"scores[{index}] is {score!r}; scores must be numbers in [0, 1]")
    _check_pair(labels, labels)


def _candidates(scores: Sequence[float]) -> list[float]:
    """Thresholds half-way between neighbouring distinct scores (and 0 and 1 at the ends)."""
    points = sorted({0.0, *(float(score) for score in scores), 1.0})
    middles = [(low + high) / 2 for low, high in itertools.pairwise(points)]
    if min(scores) == 0.0:
        middles.append(0.0)  # everything passes
    return sorted(middles)


def best_threshold(
    scores: Sequence[float], labels: Sequence[bool], *, metric: Metric = accuracy
) -> float:
    """The threshold whose verdicts agree best with ``labels``.

    Tries the thresholds half-way between neighbouring distinct scores (so the result sits as
    far as possible from the scores on either side) and keeps the one with the highest
    ``metric`` (default: accuracy, the fraction of agreement); ties go to the higher balanced
    accuracy, then to the wider gap around the threshold, then to the lower threshold.

    Args:
        scores: the judge's scores, in [0, 1].
        labels: for each score, whether the output truly satisfies the intent.
        metric: ``metric(expected, predicted) -> float`` to maximise, e.g. ``cohens_kappa``.
    """
    _check_scores(scores, labels)
    ordered = sorted(float(score) for score in scores)

    def gap(threshold: float) -> float:
        return min(abs(score - threshold) for score in ordered)

    best: tuple[float, float, float, float] | None = None
    chosen = 0.0
    for threshold in _candidates(scores):
        predicted = predict(scores, threshold)
        key = (
            metric(labels, predicted),
            balanced_accuracy(labels, predicted),
            gap(threshold),
            -threshold,
        )
        if best is None or key > best:
            best, chosen = key, threshold
    return chosen


@dataclass(frozen=True, slots=True)
class Calibration:
    """How well a threshold reproduces the labels."""

    threshold: float
    accuracy: float
    balanced_accuracy: float
    kappa: float
    n: int
    positives: int

    def __repr__(self) -> str:
        return (
            f"<Calibration threshold={self.threshold:.3f} accuracy={self.accuracy:.3f} "
            f"balanced_accuracy={self.balanced_accuracy:.3f} kappa={self.kappa:.3f} n={self.n}>"
        )


def evaluate_threshold(
    scores: Sequence[float], labels: Sequence[bool], threshold: float
) -> Calibration:
    """The agreement metrics of the verdicts at ``threshold``."""
    _check_scores(scores, labels)
    predicted = predict(scores, threshold)
    return Calibration(
        threshold=threshold,
        accuracy=accuracy(labels, predicted),
        balanced_accuracy=balanced_accuracy(labels, predicted),
        kappa=cohens_kappa(labels, predicted),
        n=len(labels),
        positives=sum(labels),
    )


def calibrate(
    scores: Sequence[float], labels: Sequence[bool], *, metric: Metric = accuracy
) -> Calibration:
    """`best_threshold` and the metrics it reaches."""
    return evaluate_threshold(scores, labels, best_threshold(scores, labels, metric=metric))
