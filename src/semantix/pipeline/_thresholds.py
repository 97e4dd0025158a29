"""The threshold of each leaf intent, in the order docs/assertions.md documents ("The threshold
order"), first that applies; each step names itself as the leaf's ``threshold_source``:
``argument``, ``intent``, ``calibrated``, then ``marker``, ``scale`` (the leaf's own threshold for
the judge's scale, ``scale_thresholds``: a snapshot judged by similarity) or ``judge``, then
``default``. Calibrations are cached per judge and intent in the ``calibrations`` region of
`semantix._cache.model_cache`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from semantix._cache import model_cache
from semantix._config import check_threshold, is_number
from semantix._intent import DEFAULT_THRESHOLD, Intent
from semantix._text import preview
from semantix.errors import IntentCalibrationError
from semantix.judges._base import Capabilities, JudgeLike, capabilities, judge_identity
from semantix.judges._calls import ask_judge
from semantix.judges._request import Request

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from semantix.calibration import Calibration
    from semantix.judges._base import Verdict

    #: How a check asks its judge: (requests, what) -> one checked verdict per request.
    Asker = Callable[[Sequence[Request], str], list[Verdict]]

__all__ = ["ResolvedThreshold", "calibrate_intent", "judge_threshold", "resolve_threshold"]


@dataclass(frozen=True, slots=True)
class ResolvedThreshold:
    """A leaf's threshold and the step of the order that chose it."""

    value: float
    source: str


def resolve_threshold(
    intent: type[Intent],
    judge: object,
    explicit: object = None,
    *,
    judge_default: float | None = None,
    description: str | None = None,
    swap_examples: bool = False,
    declared: Capabilities | None = None,
    ask: Asker | None = None,
) -> ResolvedThreshold:
    """The threshold for one leaf ``intent`` judged by ``judge``, following the documented order.

    ``explicit`` is the ``threshold=`` argument, ``judge_default`` the pytest marker's
    threshold, ``description`` what the judge will be asked (calibration scores the examples
    against it); ``swap_examples``: it is asked the positive statement of a negative requirement;
    ``ask``: how a check asks its judge (its frozen verdicts), default: ``judge`` directly.
    """
    if explicit is not None:
        return ResolvedThreshold(check_threshold(explicit), "argument")
    from_intent = intent.explicit_threshold()
    if from_intent is not None:
        return ResolvedThreshold(from_intent, "intent")
    calibration = calibrate_intent(
        intent,
        judge,
        description=description,
        swap_examples=swap_examples,
        declared=declared,
        ask=ask,
    )
    if calibration is not None:
        return ResolvedThreshold(calibration.threshold, "calibrated")
    declared = declared or capabilities(judge)
    own = intent.scale_thresholds.get(declared.scale)
    if judge_default is None and own is not None:
        return ResolvedThreshold(own, "scale")
    return judge_threshold(judge, judge_default=judge_default, declared=declared)


def judge_threshold(
    judge: object,
    explicit: object = None,
    *,
    judge_default: float | None = None,
    declared: Capabilities | None = None,
) -> ResolvedThreshold:
    """The order without an intent (steps 1, 4 and 5)."""
    if explicit is not None:
        return ResolvedThreshold(check_threshold(explicit), "argument")
    if judge_default is not None:
        return ResolvedThreshold(
            check_threshold(judge_default, what="the semantic marker's threshold"), "marker"
        )
    recommended = (declared or capabilities(judge)).recommended_threshold
    if recommended is None:
        return ResolvedThreshold(DEFAULT_THRESHOLD, "default")
    if is_number(recommended, low=0.0, high=1.0):
        return ResolvedThreshold(float(recommended), "judge")
    # Only a bad value needs the judge's name (naming may cost: never on the good path).
    name = judge_identity(judge).name
    return ResolvedThreshold(
        check_threshold(recommended, what=f"{name}.recommended_threshold"), "judge"
    )


def calibrate_intent(
    intent: type[Intent],
    judge: object,
    *,
    description: str | None = None,
    swap_examples: bool = False,
    declared: Capabilities | None = None,
    ask: Asker | None = None,
) -> Calibration | None:
    """The threshold ``judge`` needs for ``intent``, from its examples; None when not applicable
    (no examples or no counterexamples, a judge that ``uses_examples``, declares
    ``calibrates = False`` or gives no score). Each example is scored once per judge object and
    intent (cached); a failure is not cached; a costly judge's calibration is logged (warning,
    logger ``semantix``) with the number of requests it makes. An `IntentCalibrationError` when
    the weakest example scores no higher than the strongest counterexample."""
    positives, negatives = intent.examples, intent.counterexamples
    declared = declared or capabilities(judge)
    if not positives or not negatives or declared.uses_examples or not declared.calibrates:
        return None
    if swap_examples:
        positives, negatives = negatives, positives
    asked = description if description is not None else intent.judge_description()
    # Per judge object (two judges may share a name but not their scores); the entry holds the
    # judge, so its id cannot be reused while the entry lives.
    key = (id(judge), str(asked), positives, negatives)
    costly = declared.costly
    _, calibration = model_cache.get_or_create(
        key,
        lambda: (judge, _calibrate(intent, judge, asked, positives, negatives, ask, costly)),  # type: ignore[arg-type]
        region="calibrations",
    )
    return calibration


def _calibrate(
    intent: type[Intent],
    judge: JudgeLike,
    description: str,
    positives: tuple[str, ...],
    negatives: tuple[str, ...],
    ask: Asker | None,
    costly: bool,
) -> Calibration | None:
    texts = [*positives, *negatives]
    if costly:
        logging.getLogger("semantix").warning(
            "calibrating the threshold of %s from its %d examples and %d counterexamples: %d "
            "requests to %s, once per judge and intent (docs/calibration.md). To skip them, "
            "set a threshold on the intent or pass threshold=..., or give the judge "
            "calibrate=False",
            intent.__name__,
            len(positives),
            len(negatives),
            len(texts),
            judge_identity(judge),
        )
    requests = [Request(text, description, 0.5) for text in texts]
    what = f"the examples of {intent.__name__} (calibration)"
    verdicts = ask(requests, what) if ask is not None else ask_judge(judge, requests, what=what)
    scores = [verdict.score for verdict in verdicts]
    if any(score is None for score in scores):
        return None
    labels = [True] * len(positives) + [False] * len(negatives)
    from semantix.calibration import calibrate  # only intents with examples calibrate

    calibration = calibrate([float(score) for score in scores if score is not None], labels)
    if not calibration.separates:
        weakest, strongest = calibration.weakest_positive, calibration.strongest_negative
        weak_text = positives[scores.index(weakest)]
        strong_text = negatives[scores[len(positives) :].index(strongest)]
        raise IntentCalibrationError(
            f"this judge cannot tell your examples from your counterexamples for "
            f"{intent.__name__}: {judge_identity(judge)} scores the weakest example "
            f"{weakest:.3f} ({preview(weak_text, 60)}) and the strongest counterexample "
            f"{strongest:.3f} ({preview(strong_text, 60)}). Make the examples clearer, set a "
            f"threshold on {intent.__name__} (or pass threshold=...), or use another judge"
        )
    return calibration
