"""The threshold order, including calibration from an intent's examples (issue 11 part 2)."""

from __future__ import annotations

import pytest

from semantix import (
    FakeJudge,
    Intent,
    IntentCalibrationError,
    Verdict,
    assert_semantic,
    clear_cache,
    evaluate_semantic,
)
from semantix.pipeline._thresholds import calibrate_intent, resolve_threshold

SCORES = {
    "Thanks so much, happy to help!": 0.30,
    "Of course, right away.": 0.22,
    "Whatever.": 0.05,
    "Figure it out yourself.": 0.10,
}


class Polite(Intent):
    """The text is polite."""

    examples = ("Thanks so much, happy to help!", "Of course, right away.")
    counterexamples = ("Whatever.", "Figure it out yourself.")


class PoliteAtHalf(Polite):
    """The text is polite."""

    threshold = 0.5


@pytest.fixture(autouse=True)
def fresh_cache() -> None:
    clear_cache()


def score(output: str, description: str) -> float:
    return SCORES.get(output, 0.18)


def test_examples_calibrate_the_midpoint() -> None:
    judge = FakeJudge(score, recommended_threshold=0.5)
    chosen = resolve_threshold(Polite, judge)
    # weakest example 0.22, strongest counterexample 0.10
    assert (chosen.value, chosen.source) == (pytest.approx(0.16), "calibrated")
    result = assert_semantic("A polite-ish reply.", Polite, judge=judge)  # 0.18 >= 0.16
    assert result.leaves[0].threshold_source == "calibrated"


def test_calibration_is_scored_once_per_judge_and_intent() -> None:
    judge = FakeJudge(score)
    for _ in range(3):
        evaluate_semantic("A polite-ish reply.", Polite, judge=judge)
    example_calls = [call for call in judge.calls if call[0] in SCORES]
    assert len(example_calls) == 4  # two examples + two counterexamples, once


@pytest.mark.parametrize(
    ("intent", "explicit", "source", "value"),
    [(Polite, 0.7, "argument", 0.7), (PoliteAtHalf, None, "intent", 0.5)],
)
def test_argument_and_intent_threshold_come_before_calibration(
    intent: type[Intent], explicit: float | None, source: str, value: float
) -> None:
    judge = FakeJudge(score)
    chosen = resolve_threshold(intent, judge, explicit)
    assert (chosen.value, chosen.source) == (value, source)
    assert judge.calls == []  # nothing was calibrated


def test_calibration_comes_before_marker_and_judge_thresholds() -> None:
    judge = FakeJudge(score, recommended_threshold=0.9)
    assert resolve_threshold(Polite, judge, judge_default=0.8).source == "calibrated"


def test_a_judge_that_cannot_separate_the_examples_is_an_error() -> None:
    judge = FakeJudge(lambda output, description: 0.4)
    with pytest.raises(IntentCalibrationError) as caught:
        assert_semantic("Anything.", Polite, judge=judge)
    message = str(caught.value)
    assert "cannot tell your examples from your counterexamples for Polite" in message
    assert "weakest example 0.400" in message and "strongest counterexample 0.400" in message


def test_judges_that_use_examples_keep_their_own_rule() -> None:
    judge = FakeJudge(score, recommended_threshold=0.2)
    judge.uses_examples = True  # type: ignore[attr-defined]
    assert calibrate_intent(Polite, judge) is None
    assert resolve_threshold(Polite, judge).source == "judge"


def test_score_less_judges_skip_calibration() -> None:
    judge = FakeJudge(lambda output, description: Verdict(passed=True, score=None))
    assert resolve_threshold(Polite, judge).source == "default"


def test_intents_without_both_kinds_of_example_are_not_calibrated() -> None:
    class OnlyExamples(Intent):
        """The text is polite."""

        examples = ("Thanks!",)

    judge = FakeJudge(score, recommended_threshold=0.5)
    assert resolve_threshold(OnlyExamples, judge).source == "judge"


def test_marker_threshold_stands_in_for_the_judges() -> None:
    class Plain(Intent):
        """The text is polite."""

    judge = FakeJudge(score, recommended_threshold=0.5)
    chosen = resolve_threshold(Plain, judge, judge_default=0.65)
    assert (chosen.value, chosen.source) == (0.65, "marker")
    assert resolve_threshold(Plain, FakeJudge(score)).source == "default"


def test_an_invalid_recommended_threshold_is_named() -> None:
    class Plain(Intent):
        """The text is polite."""

    judge = FakeJudge(score)
    judge.recommended_threshold = "0.7"  # type: ignore[assignment]
    with pytest.raises(ValueError, match=r"FakeJudge\.recommended_threshold must be a number"):
        resolve_threshold(Plain, judge)


def test_two_judges_with_one_name_are_calibrated_apart() -> None:
    kind = FakeJudge(score)  # both are named "FakeJudge"
    harsh = FakeJudge(lambda output, description: SCORES.get(output, 0.18) / 2)
    assert resolve_threshold(Polite, kind).value == pytest.approx(0.16)
    assert resolve_threshold(Polite, harsh).value == pytest.approx(0.08)
