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

Pure functions on plain sequences (no numpy), used by ``semantix calibrate`` and the calibration
of an intent's own examples; `Calibration` is the one result of all of them. A prediction is
``score >= threshold``; metric arguments are ``(expected, predicted)``, like scikit-learn's.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from semantix._config import is_number
from semantix._proportions import JudgeAccuracy, wilson_interval

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


def _counts(expected: Sequence[bool], predicted: Sequence[bool]) -> tuple[int, int, int, int]:
    """(n, positives, true positives, true negatives) of a labelled prediction."""
    _check_pair(expected, predicted)
    pairs = list(zip(expected, predicted, strict=True))
    hits = sum(1 for want, got in pairs if want and got)
    rejections = sum(1 for want, got in pairs if not want and not got)
    return len(pairs), sum(expected), hits, rejections


def accuracy(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """The fraction of predictions that agree with the labels."""
    return Calibration(*_counts(expected, predicted)).accuracy


def balanced_accuracy(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """The mean of the recalls on positive and on negative labels (a class absent from
    ``expected`` left out): always "pass" on 90% positive labels scores 0.5, not 0.9."""
    return Calibration(*_counts(expected, predicted)).balanced_accuracy


def cohens_kappa(expected: Sequence[bool], predicted: Sequence[bool]) -> float:
    """Cohen's κ: agreement corrected for chance (1 perfect, 0 chance level, negative worse);
    1 when both sides put everything in one and the same class."""
    return Calibration(*_counts(expected, predicted)).kappa


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
        if not is_number(score, low=0.0, high=1.0):
            raise ValueError(f"scores[{index}] is {score!r}; scores must be numbers in [0, 1]")
    _check_pair(labels, labels)


def best_threshold(
    scores: Sequence[float], labels: Sequence[bool], *, metric: Metric = accuracy
) -> float:
    """The threshold whose verdicts agree best with ``labels`` (for each of the judge's
    ``scores``, in [0, 1], whether the output truly satisfies the intent).

    Of the thresholds half-way between neighbouring distinct scores, the one with the highest
    ``metric(expected, predicted)`` (default: accuracy; e.g. ``cohens_kappa``); ties go to the
    higher balanced accuracy, then to the wider gap around the threshold, then to the lower one.
    """
    _check_scores(scores, labels)
    ordered = sorted(float(score) for score in scores)

    def gap(threshold: float) -> float:
        return min(abs(score - threshold) for score in ordered)

    # Half-way between neighbouring distinct scores (and 0 and 1 at the ends), ascending.
    points = sorted({0.0, *ordered, 1.0})
    candidates = [(low + high) / 2 for low, high in itertools.pairwise(points)]
    if ordered[0] == 0.0:
        candidates.insert(0, 0.0)  # everything passes
    best: tuple[float, float, float, float] | None = None
    chosen = 0.0
    for threshold in candidates:
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
    """How well a threshold reproduces the labels: the counts, and every figure from them.

    ``weakest_positive`` and ``strongest_negative`` are the lowest score of an output labelled
    to pass and the highest of one labelled to fail (None without such labels): the threshold
    separates the labels exactly when the first is above the second (`separates`). An intent's
    ``examples`` and ``counterexamples`` are calibrated this way, as labels True and False.
    """

    n: int
    positives: int
    true_positives: int
    true_negatives: int
    threshold: float = 0.5
    weakest_positive: float | None = None
    strongest_negative: float | None = None

    @property
    def accuracy(self) -> float:
        return (self.true_positives + self.true_negatives) / self.n

    @property
    def sensitivity(self) -> float | None:
        """Of the outputs labelled to pass, the fraction the judge passed (None: no such label)."""
        return self.true_positives / self.positives if self.positives else None

    @property
    def specificity(self) -> float | None:
        """Of the outputs labelled to fail, the fraction the judge failed (None: no such label)."""
        negatives = self.n - self.positives
        return self.true_negatives / negatives if negatives else None

    @property
    def balanced_accuracy(self) -> float:
        recalls = [rate for rate in (self.sensitivity, self.specificity) if rate is not None]
        return sum(recalls) / len(recalls)

    @property
    def kappa(self) -> float:
        n, positives = self.n, self.positives
        predicted_yes = (self.true_positives + (n - positives - self.true_negatives)) / n
        chance = positives / n * predicted_yes + (1 - positives / n) * (1 - predicted_yes)
        return 1.0 if chance >= 1.0 else (self.accuracy - chance) / (1 - chance)

    @property
    def separates(self) -> bool:
        """Whether every output labelled to pass scores above every one labelled to fail."""
        low, high = self.weakest_positive, self.strongest_negative
        return low is None or high is None or low > high

    @property
    def judge_accuracy(self) -> JudgeAccuracy:
        """Sensitivity and specificity with their counts, for ``judge_accuracy=`` of repeated
        runs (the corrected pass rate); needs labels of both kinds."""
        if self.sensitivity is None or self.specificity is None:
            raise ValueError(
                f"judge accuracy needs outputs labelled both ways; these {self.n} labels are all "
                f"{'pass' if self.positives else 'fail'}: label some of the other kind"
            )
        return JudgeAccuracy(
            self.sensitivity, self.specificity, self.positives, self.n - self.positives
        )

    def intervals(self) -> dict[str, tuple[float, float] | None]:
        """The Wilson 95 % interval of accuracy, sensitivity and specificity (None: no labels
        of that kind)."""
        positives, negatives = self.positives, self.n - self.positives
        return {
            "accuracy": wilson_interval(self.true_positives + self.true_negatives, self.n),
            "sensitivity": wilson_interval(self.true_positives, positives) if positives else None,
            "specificity": wilson_interval(self.true_negatives, negatives) if negatives else None,
        }

    def __repr__(self) -> str:
        return (
            f"<Calibration threshold={self.threshold:.3f} accuracy={self.accuracy:.3f} "
            f"balanced_accuracy={self.balanced_accuracy:.3f} kappa={self.kappa:.3f} n={self.n}>"
        )


def evaluate_threshold(
    scores: Sequence[float], labels: Sequence[bool], threshold: float
) -> Calibration:
    """The agreement of the verdicts at ``threshold`` with the labels."""
    _check_scores(scores, labels)
    counts = _counts(labels, predict(scores, threshold))
    passing = [float(s) for s, label in zip(scores, labels, strict=True) if label]
    failing = [float(s) for s, label in zip(scores, labels, strict=True) if not label]
    return Calibration(
        *counts,
        threshold=threshold,
        weakest_positive=min(passing, default=None),
        strongest_negative=max(failing, default=None),
    )


def calibrate(
    scores: Sequence[float], labels: Sequence[bool], *, metric: Metric = accuracy
) -> Calibration:
    """`best_threshold` and the metrics it reaches."""
    return evaluate_threshold(scores, labels, best_threshold(scores, labels, metric=metric))
