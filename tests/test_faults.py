"""Fault classes from the audit (issue 13), run through every judge they apply to."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from semantix import (
    FakeJudge,
    Intent,
    JudgeError,
    RecordReplayJudge,
    Verdict,
    VerdictStore,
    assert_semantic,
    evaluate_semantic,
)

SURROGATE = "Thank you \ud800 for waiting."


class Grateful(Intent):
    """The text thanks the reader."""


def test_a_lone_surrogate_reaches_the_quantized_judge_as_encodable_text(
    entailing_model: Path,
) -> None:
    from semantix.judges.quantized import QuantizedNLIJudge

    result = assert_semantic(SURROGATE, Grateful, judge=QuantizedNLIJudge(model=entailing_model))
    assert result.output == "Thank you \ufffd for waiting."
    assert result.leaves[0].verdict.score is not None


def test_a_lone_surrogate_reaches_the_embedding_judge_as_encodable_text(
    minilm_judge: object,
) -> None:
    result = evaluate_semantic(SURROGATE, "The text thanks the reader.", judge=minilm_judge)  # type: ignore[arg-type]
    assert result.output == "Thank you \ufffd for waiting."
    assert result.leaves[0].verdict.score is not None


def test_a_lone_surrogate_is_stored_and_replayed(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path)
    judge = FakeJudge(lambda output, description: 0.9)
    recording = RecordReplayJudge(judge, store=store, mode="update")
    assert_semantic(SURROGATE, Grateful, judge=recording)
    replaying = RecordReplayJudge(FakeJudge(lambda o, d: 0.0), store=store, mode="strict")
    assert assert_semantic(SURROGATE, Grateful, judge=replaying).leaves[0].verdict.score == 0.9


@pytest.mark.parametrize(
    "verdict",
    [
        Verdict(passed=True, score=0.10),  # passes below the threshold it was asked at
        Verdict(passed=True, score=0.6, threshold=0.5),  # decided at another threshold
    ],
)
def test_a_lying_judge_behind_the_store_is_an_error_and_nothing_is_stored(
    tmp_path: Path, verdict: Verdict
) -> None:
    store = VerdictStore(tmp_path)
    liar = RecordReplayJudge(FakeJudge(lambda o, d: verdict), store=store, mode="update")
    with pytest.raises(JudgeError, match="judge FakeJudge"):
        assert_semantic("Thanks!", Grateful, judge=liar, threshold=0.9)
    assert list(tmp_path.rglob("*.json")) == []
