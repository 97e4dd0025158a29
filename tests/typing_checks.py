"""Checked by mypy --strict (scripts/check), not run by pytest: the public API types as users see them."""

from __future__ import annotations

from typing_extensions import assert_type

from semantix import (
    FakeJudge,
    Intent,
    Judge,
    SemanticResult,
    Verdict,
    assert_semantic,
    evaluate_semantic,
)
from semantix.testing import assert_semantic as testing_assert_semantic


class Polite(Intent):
    """The text must be polite and professional."""


class MedicalAdvice(Intent):
    """The text provides medical diagnoses or treatment recommendations."""

    threshold = 0.7


class KeywordJudge:
    recommended_threshold = 0.5

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed="sorry" in output, score=1.0, reason="keyword")


def check_composition() -> None:
    assert_type(~MedicalAdvice, type[Intent])
    assert_type(Polite & ~MedicalAdvice, type[Intent])
    assert_type(Polite | "apologizes", type[Intent])


def check_assertions(judge: Judge) -> None:
    result = assert_semantic("Thanks!", Polite & ~MedicalAdvice, judge=judge, threshold=0.9)
    assert_type(result, SemanticResult)
    assert_type(evaluate_semantic("Thanks!", "polite", judge=KeywordJudge()), SemanticResult)
    assert_type(
        testing_assert_semantic("x", Polite, judge=FakeJudge(lambda o, i: 1.0)), SemanticResult
    )
    verdict: Verdict = result.leaves[0].verdict
    assert_type(verdict.score, float | None)


def score_of_is_a_float(result: SemanticResult) -> float:
    # No narrowing needed under mypy --strict (issue 22.14).
    return result.score_of() + result.score_of("Polite")
