"""The one way semantix asks a judge: verdicts are checked against what was asked (issue 13)."""

from __future__ import annotations

import math
import threading

import pytest

from semantix import (
    FakeJudge,
    Intent,
    Judge,
    JudgeError,
    JudgeIdentity,
    JudgeTimeoutError,
    Verdict,
    assert_semantic,
    evaluate_semantic,
)
from semantix.judges._calls import ask_judge, judge_identity


class Polite(Intent):
    """The text is polite."""


class Kind(Intent):
    """The text is kind."""


def verdict_judge(verdict: Verdict) -> FakeJudge:
    return FakeJudge(lambda output, description: verdict)


@pytest.mark.parametrize("intent", [Polite, Polite & Kind, Polite | Kind])
def test_a_pass_below_the_threshold_is_a_judge_error(intent: type[Intent]) -> None:
    judge = verdict_judge(Verdict(passed=True, score=0.10))
    with pytest.raises(JudgeError, match=r"passed .*with score 0\.100, below the threshold 0\.5"):
        assert_semantic("Thanks!", intent, judge=judge, threshold=0.5)


def test_a_verdict_at_another_threshold_is_a_judge_error() -> None:
    judge = verdict_judge(Verdict(passed=True, score=0.6, threshold=0.5))
    with pytest.raises(
        JudgeError, match="asked at threshold 0.9 but its verdict reports threshold 0.5"
    ):
        assert_semantic("Thanks!", Polite, judge=judge, threshold=0.9)


@pytest.mark.parametrize("intent", [Polite, Polite & Kind, Polite | Kind, ~Polite])
def test_a_nan_score_set_after_construction_is_a_judge_error(intent: type[Intent]) -> None:
    broken = Verdict(passed=True, score=0.9)
    object.__setattr__(broken, "score", math.nan)
    with pytest.raises(JudgeError, match="returned score nan"):
        evaluate_semantic("Thanks!", intent, judge=verdict_judge(broken), threshold=0.5)


def test_a_failure_above_the_threshold_stays_legal() -> None:
    # e.g. the embedding judge's counterexample rule
    judge = verdict_judge(Verdict(passed=False, score=0.9, threshold=0.5))
    result = evaluate_semantic("Thanks!", Polite, judge=judge, threshold=0.5)
    assert result.passed is False


def test_not_a_verdict_is_a_judge_error() -> None:
    judge = FakeJudge(lambda output, description: 0.9)
    judge.evaluate = lambda output, description, threshold: "yes"  # type: ignore[method-assign,assignment,return-value]
    with pytest.raises(JudgeError, match=r"returned str \('yes'\)"):
        ask_judge(judge, [("x", "polite", 0.5)])


def test_batches_with_the_wrong_length_are_a_judge_error() -> None:
    judge = FakeJudge(lambda output, description: 0.9)
    judge.evaluate_batch = lambda requests: []  # type: ignore[method-assign]
    with pytest.raises(JudgeError, match="returned 0 verdicts for 2 requests"):
        ask_judge(judge, [("x", "a", 0.5), ("y", "b", 0.5)])


def test_a_hanging_judge_times_out_and_never_passes() -> None:
    release = threading.Event()

    def hang(output: str, description: str) -> float:
        release.wait(5)
        return 1.0

    try:
        with pytest.raises(JudgeTimeoutError, match=r"did not answer within 0\.2 s"):
            assert_semantic("Thanks!", Polite, judge=FakeJudge(hang), timeout=0.2)
    finally:
        release.set()


@pytest.mark.parametrize("bad", [0, -1, math.inf, "1", True])
def test_a_bad_timeout_is_named(bad: object) -> None:
    with pytest.raises(ValueError, match="timeout must be a positive number of seconds"):
        evaluate_semantic("x", Polite, judge=FakeJudge(lambda o, d: 1.0), timeout=bad)  # type: ignore[arg-type]


def test_judge_identity_falls_back_to_the_class_name() -> None:
    class Custom:
        recommended_threshold = None

        def evaluate(self, output: str, description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    assert judge_identity(Custom()).name == "Custom"
    assert judge_identity(FakeJudge(lambda o, d: 1.0, name="Named")).name == "Named"


def test_a_judge_names_itself_through_own_identity_and_a_set_identity_wins() -> None:
    class Versioned(Judge):
        def own_identity(self) -> JudgeIdentity:
            return JudgeIdentity("Versioned", model="v2")

        def evaluate(self, output: str, description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    judge = Versioned()
    assert judge_identity(judge) == JudgeIdentity("Versioned", model="v2")
    judge.identity = JudgeIdentity("Pinned")
    assert judge_identity(judge) == JudgeIdentity("Pinned")
    assert Versioned().identity.model == "v2"  # set on one instance, not the class
