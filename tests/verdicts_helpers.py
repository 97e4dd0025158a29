"""Shared pieces of the frozen-verdict tests (test_verdicts.py, test_verdicts_store.py)."""

from __future__ import annotations

from pathlib import Path

from semantix import FakeJudge, Intent, JudgeIdentity, Verdict, evaluate_semantic
from semantix.verdicts import RecordReplayJudge, VerdictStore


class Polite(Intent):
    """The text must be polite and professional."""


class Apologetic(Intent):
    """The text apologises."""


def scorer(score: float = 0.9) -> FakeJudge:
    return FakeJudge(lambda output, intent: score)


def exploding() -> FakeJudge:
    def handler(output: str, intent: str) -> float:
        raise AssertionError("the judge must not be called")

    return FakeJudge(handler)


class NamedJudge:
    """A judge with its own identity and prompt version."""

    recommended_threshold: float | None = 0.5

    def __init__(self, model: str = "m", prompt_version: str = "p1") -> None:
        self.identity = JudgeIdentity("NamedJudge", model=model, revision="r1")
        self.prompt_version = prompt_version

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed=True, score=1.0, reason="named", threshold=threshold)


class Plain:
    recommended_threshold = None

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed=True, score=1.0)


def record(store: VerdictStore, output: str = "Thank you!", score: float = 0.9) -> None:
    """Store a FakeJudge verdict of ``score`` for (output, Polite), at threshold 0.8."""
    judge = RecordReplayJudge(scorer(score), store=store, mode="update")
    result = evaluate_semantic(output, Polite, judge=judge, threshold=0.8)
    assert result.passed is (score >= 0.8)


def stored_files(store: VerdictStore) -> list[Path]:
    return sorted(store.path.glob("*/*.json"))
