"""Semantic snapshots through a real (tiny) NLI model: the stored text is the hypothesis."""

from __future__ import annotations

from pathlib import Path

from models.fixtures import *
from semantix.judges._quantized import QuantizedNLIJudge
from semantix.snapshots import judge_equivalence


def test_both_directions_use_the_other_text_verbatim_as_hypothesis(entailing_model: Path) -> None:
    judge = QuantizedNLIJudge(entailing_model)
    result = judge_equivalence(
        "Refunds within 30 days.",
        "You get your money back for 30 days.",
        judge=judge,
        threshold=0.5,
    )
    assert result.passed
    assert "'Refunds within 30 days.'" in result.forward.reason
    assert "'You get your money back for 30 days.'" in result.backward.reason
    assert result.judge.name == "QuantizedNLIJudge"
