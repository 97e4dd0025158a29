"""semantix.composite: semantix-ai's AllOf/AnyOf/Not mean what & | ~ mean here."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, evaluate_semantic
from semantix.composite import AllOf, AnyOf, Not


class Polite(Intent):
    """The text is polite."""


class MedicalAdvice(Intent):
    """The text gives medical advice."""


def score(output: str, description: str) -> float:
    return {"The text is polite.": 0.9, "The text gives medical advice.": 0.8}[description]


def test_the_functions_build_the_operator_composites() -> None:
    assert Not(MedicalAdvice).__name__ == "~MedicalAdvice"
    assert Not(MedicalAdvice).operand is MedicalAdvice  # type: ignore[attr-defined]
    assert AllOf(Polite, Not(MedicalAdvice)).__name__ == "Polite & ~MedicalAdvice"
    assert AnyOf(Polite, MedicalAdvice).__name__ == "Polite | MedicalAdvice"


def test_they_are_judged_leaf_by_leaf_not_glued() -> None:
    judge = FakeJudge(score)
    result = evaluate_semantic("Take aspirin.", AllOf(Polite, Not(MedicalAdvice)), judge=judge)
    assert sorted(description for _, description in judge.calls) == [
        "The text gives medical advice.",
        "The text is polite.",
    ]
    assert result.passed is False  # it DID give medical advice
    assert evaluate_semantic("x", AnyOf(Polite, MedicalAdvice), judge=judge).passed is True


def test_one_intent_is_not_a_combination() -> None:
    with pytest.raises(TypeError, match="AllOf needs at least two intents, got 1"):
        AllOf(Polite)
