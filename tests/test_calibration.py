"""Agreement metrics and threshold search, checked against values worked out by hand."""

from __future__ import annotations

import logging
import math

import pytest

from semantix import ConfigurationError, FakeJudge, Intent, evaluate_semantic
from semantix.calibration import (
    Calibration,
    accuracy,
    balanced_accuracy,
    best_threshold,
    calibrate,
    cohens_kappa,
    evaluate_threshold,
    predict,
)
from semantix.judges import CallableJudge
from semantix.judges._base import capabilities
from semantix.judges._llm import LLMJudge

T, F = True, False


def test_accuracy_is_the_fraction_of_agreement() -> None:
    assert accuracy([T, T, F, F], [T, F, F, T]) == 0.5
    assert accuracy([T, F, T], [T, F, T]) == 1.0
    assert accuracy([T], [F]) == 0.0


def test_balanced_accuracy_is_not_flattered_by_skew() -> None:
    expected = [T] * 9 + [F]
    always_pass = [T] * 10
    assert accuracy(expected, always_pass) == 0.9
    assert balanced_accuracy(expected, always_pass) == 0.5
    # recall on positives 2/3, on negatives 1/2
    assert balanced_accuracy([T, T, T, F, F], [T, T, F, F, T]) == pytest.approx((2 / 3 + 1 / 2) / 2)


def test_balanced_accuracy_with_one_class_uses_the_class_present() -> None:
    assert balanced_accuracy([T, T, T, T], [T, T, F, F]) == 0.5


def test_cohens_kappa_worked_example() -> None:
    # 50 items: both yes 20, expected yes / predicted no 5, expected no / predicted yes 10,
    # both no 15 (the Wikipedia example). p_o = 0.7, p_e = 0.5 * 0.6 + 0.5 * 0.4 = 0.5.
    expected = [T] * 20 + [T] * 5 + [F] * 10 + [F] * 15
    predicted = [T] * 20 + [F] * 5 + [T] * 10 + [F] * 15
    assert cohens_kappa(expected, predicted) == pytest.approx(0.4)


def test_cohens_kappa_extremes() -> None:
    assert cohens_kappa([T, F, T, F], [T, F, T, F]) == 1.0
    assert cohens_kappa([T, F, T, F], [F, T, F, T]) == -1.0
    assert cohens_kappa([T, T, F, F], [T, F, T, F]) == 0.0
    # Everything in one class on both sides: chance agreement is 1; defined as perfect.
    assert cohens_kappa([T, T], [T, T]) == 1.0


def test_metrics_reject_mismatched_and_non_bool_labels() -> None:
    with pytest.raises(ValueError, match="expected has 2 labels but predicted has 1"):
        accuracy([T, F], [T])
    with pytest.raises(ValueError, match="no labels given"):
        cohens_kappa([], [])
    with pytest.raises(
        TypeError, match=r"predicted\[1\] is 1 \(int\); labels must be True or False"
    ):
        balanced_accuracy([T, F], [T, 1])  # type: ignore[list-item]


def test_predict_uses_score_at_least_threshold() -> None:
    assert predict([0.2, 0.5, 0.8], 0.5) == [F, T, T]


def test_best_threshold_sits_in_the_middle_of_the_gap() -> None:
    assert best_threshold([0.1, 0.2, 0.8, 0.9], [F, F, T, T]) == pytest.approx(0.5)
    # Order of the inputs does not matter.
    assert best_threshold([0.9, 0.1, 0.8, 0.2], [T, F, T, F]) == pytest.approx(0.5)


def test_best_threshold_maximises_agreement_when_not_separable() -> None:
    scores = [0.1, 0.3, 0.4, 0.6, 0.7, 0.9]
    labels = [F, F, T, F, T, T]
    threshold = best_threshold(scores, labels)
    best = accuracy(labels, predict(scores, threshold))
    assert best == pytest.approx(5 / 6)  # at 0.35 only the 0.6 negative passes
    for candidate in [i / 100 for i in range(101)]:
        assert accuracy(labels, predict(scores, candidate)) <= best + 1e-12


def test_best_threshold_all_positive_and_all_negative() -> None:
    assert predict([0.2, 0.7], best_threshold([0.2, 0.7], [T, T])) == [T, T]
    assert predict([0.2, 0.7], best_threshold([0.2, 0.7], [F, F])) == [F, F]
    assert best_threshold([0.0, 0.0], [T, T]) == 0.0


def test_best_threshold_with_another_metric() -> None:
    # 8 positives scoring high and 2 negatives in the middle: accuracy prefers passing
    # everything above 0.25, kappa prefers separating the negatives out.
    scores = [0.3, 0.35, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97]
    labels = [T, F, F, T, T, T, T, T, T, T]
    by_kappa = best_threshold(scores, labels, metric=cohens_kappa)
    kappa = cohens_kappa(labels, predict(scores, by_kappa))
    for candidate in [i / 200 for i in range(201)]:
        assert cohens_kappa(labels, predict(scores, candidate)) <= kappa + 1e-12


@pytest.mark.parametrize(
    ("scores", "labels", "message"),
    [
        ([0.5], [T, F], "got 1 scores but 2 labels"),
        ([], [], "no scores given"),
        ([1.5], [T], r"scores\[0\] is 1.5; scores must be numbers in \[0, 1\]"),
        ([math.nan], [T], r"scores\[0\] is nan"),
    ],
)
def test_best_threshold_rejects_bad_input(
    scores: list[float], labels: list[bool], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        best_threshold(scores, labels)


def test_calibrate_and_evaluate_threshold() -> None:
    scores = [0.12, 0.35, 0.61, 0.78, 0.93]
    labels = [F, F, T, T, T]
    result = calibrate(scores, labels)
    assert result == Calibration(
        n=5,
        positives=3,
        true_positives=3,
        true_negatives=2,
        threshold=pytest.approx(0.48),  # type: ignore[arg-type]
        weakest_positive=0.61,
        strongest_negative=0.35,
    )
    assert (result.accuracy, result.balanced_accuracy, result.kappa) == (1.0, 1.0, 1.0)
    assert result.separates
    assert repr(result) == (
        "<Calibration threshold=0.480 accuracy=1.000 balanced_accuracy=1.000 kappa=1.000 n=5>"
    )
    at_default = evaluate_threshold(scores, labels, 0.8)
    assert (at_default.accuracy, at_default.positives) == (0.6, 3)
    assert at_default.balanced_accuracy == pytest.approx((1 / 3 + 1) / 2)


def test_sensitivity_and_specificity_with_their_wilson_intervals() -> None:
    # 10 labelled to pass, 8 to fail; at 0.5 the judge passes 9 of the 10 and fails 6 of the 8.
    scores = [0.9] * 9 + [0.2] + [0.1] * 6 + [0.7] * 2
    labels = [T] * 10 + [F] * 8
    result = evaluate_threshold(scores, labels, 0.5)
    assert (result.sensitivity, result.specificity) == (0.9, 0.75)
    intervals = result.intervals()
    # Wilson 95 % by hand: 9/10 -> centre (0.9 + 1.9208/10) / 1.38416, half-width
    # 1.96 / 1.38416 * sqrt(0.09/10 + 3.8416/400)
    centre = (0.9 + 1.96**2 / 20) / (1 + 1.96**2 / 10)
    half = 1.96 / (1 + 1.96**2 / 10) * math.sqrt(0.09 / 10 + 1.96**2 / 400)
    assert intervals["sensitivity"] == pytest.approx((centre - half, centre + half))
    assert intervals["sensitivity"] == pytest.approx((0.5958, 0.9821), abs=1e-4)
    assert intervals["specificity"] == pytest.approx((0.4093, 0.9285), abs=1e-4)  # 6/8
    assert intervals["accuracy"] == pytest.approx((0.6078, 0.9416), abs=1e-4)  # 15/18
    accuracy = result.judge_accuracy
    assert (accuracy.sensitivity, accuracy.specificity) == (0.9, 0.75)
    assert (accuracy.positives, accuracy.negatives) == (10, 8)
    assert not result.separates  # a failing output (0.7) scores above a passing one (0.2)


def test_one_kind_of_label_has_no_specificity_and_no_judge_accuracy() -> None:
    result = evaluate_threshold([0.9, 0.4], [T, T], 0.5)
    assert (result.sensitivity, result.specificity) == (0.5, None)
    assert result.intervals()["specificity"] is None
    with pytest.raises(ValueError, match="these 2 labels are all pass: label some of the other"):
        _ = result.judge_accuracy


def test_an_intents_examples_calibrate_through_the_same_calibration() -> None:
    from semantix import FakeJudge, Intent
    from semantix.pipeline._thresholds import calibrate_intent

    class Thanks(Intent):
        """The text thanks the reader."""

        examples = ("Thank you!", "Many thanks.")
        counterexamples = ("Go away.",)

    judge = FakeJudge(
        lambda output, intent: {"Thank you!": 0.9, "Many thanks.": 0.7}.get(output, 0.2)
    )
    calibration = calibrate_intent(Thanks, judge)
    assert isinstance(calibration, Calibration)
    assert calibration.threshold == pytest.approx(
        (0.7 + 0.2) / 2
    )  # weakest example, strongest counter
    assert (calibration.weakest_positive, calibration.strongest_negative) == (0.7, 0.2)


class _Kind(Intent):
    """The text is kind."""

    examples = ("Thank you so much!", "Happy to help.")
    counterexamples = ("Go away.", "Not my problem.")


def _counting_llm() -> tuple[list[str], CallableJudge]:
    """A costly judge (the LLM judge's prompts over a function) that counts its requests."""
    asked: list[str] = []

    def fn(prompt: str) -> str:
        asked.append(prompt)
        output = prompt.rpartition("<<<")[2]
        kind = any(text in output for text in ("Thank", "Happy"))
        return '{"score": %s, "reason": "r"}' % (0.9 if kind else 0.1)

    return asked, CallableJudge(fn, model_name="gpt-4o-mini")


def test_a_costly_judge_s_calibration_says_what_it_costs_where_it_happens(
    caplog: pytest.LogCaptureFixture,
) -> None:
    """Issue 45, item 6: the requests of a calibration are logged when they are made."""
    asked, judge = _counting_llm()
    with caplog.at_level(logging.WARNING, logger="semantix"):
        result = evaluate_semantic("Thanks a lot!", _Kind, judge=judge)
        evaluate_semantic("Thanks again!", _Kind, judge=judge)  # calibrated once per judge
    assert result.leaves[0].threshold_source == "calibrated"
    assert len(asked) == 4 + 2
    [record] = [r for r in caplog.records if r.name == "semantix"]
    assert record.levelno == logging.WARNING
    assert record.getMessage().startswith(
        "calibrating the threshold of _Kind from its 2 examples and 2 counterexamples: 4 "
        "requests to CallableJudge(gpt-4o-mini@"
    )
    assert "calibrate=False" in record.getMessage()


def test_calibration_is_a_choice_of_the_judge(caplog: pytest.LogCaptureFixture) -> None:
    asked, judge = _counting_llm()
    judge.calibrates = False  # any judge may declare it; LLMJudge(calibrate=False) does
    with caplog.at_level(logging.WARNING, logger="semantix"):
        result = evaluate_semantic("Thanks a lot!", _Kind, judge=judge)
    assert len(asked) == 1 and not caplog.records
    assert (result.leaves[0].threshold_source, result.leaves[0].threshold) == ("judge", 0.5)
    assert (
        capabilities(LLMJudge(base_url="http://127.0.0.1:9", calibrate=False)).calibrates is False
    )
    assert capabilities(LLMJudge(base_url="http://127.0.0.1:9")).calibrates is True
    with pytest.raises(ConfigurationError, match="calibrate must be True or False, got 'no'"):
        LLMJudge(base_url="http://127.0.0.1:9", calibrate="no")  # type: ignore[arg-type]


def test_a_free_judge_calibrates_without_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    judge = FakeJudge(lambda output, intent: 0.9 if "Th" in output or "Happy" in output else 0.1)
    with caplog.at_level(logging.WARNING, logger="semantix"):
        assert evaluate_semantic("Thanks!", _Kind, judge=judge).leaves[0].threshold_source == (
            "calibrated"
        )
    assert not caplog.records
