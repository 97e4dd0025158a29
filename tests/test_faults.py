"""Fault classes from the audit (issue 13), run through every judge they apply to."""

from __future__ import annotations

import importlib
import sys
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
    from semantix.judges._quantized import QuantizedNLIJudge

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


def _encoding_judge() -> FakeJudge:
    """A judge that, like every tokenizer and HTTP client, encodes what it is given as UTF-8;
    it scores counterexamples ("No ...", "Go ...") low."""

    def score(output: str, description: str) -> float:
        (output + description).encode("utf-8")
        return 0.1 if output.startswith(("No", "Go")) else 0.9

    return FakeJudge(score)


def test_a_lone_surrogate_in_an_intents_words_is_cleaned_as_outputs_are() -> None:
    class Thanks(Intent):  # (Python itself refuses a class docstring with a lone surrogate)
        """The text thanks the reader."""

        hypothesis = "The text thanks \udc00 the reader."
        examples = ("Thank you \ud800!",)
        counterexamples = ("Go away \udfff.",)

    assert Thanks.hypothesis == "The text thanks \ufffd the reader."
    assert Thanks.examples == ("Thank you \ufffd!",)
    assert evaluate_semantic("Thanks!", Thanks, judge=_encoding_judge(), threshold=0.5).passed
    assert evaluate_semantic("Thanks!", "The text \ud800 thanks.", judge=_encoding_judge()).passed


def test_a_lone_surrogate_escaped_in_an_examples_file_is_cleaned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "thanks.json").write_text(
        '{"examples": ["Thank you \\ud800!"], "counterexamples": ["No \\udc00."]}',
        encoding="utf-8",
    )
    (tmp_path / "thanks_intents.py").write_text(
        'from semantix import Intent\n\nclass Thanks(Intent):\n    """The text thanks."""\n\n'
        '    examples_file = "thanks.json"\n',
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "thanks_intents", raising=False)
    thanks = importlib.import_module("thanks_intents").Thanks
    assert thanks.examples == ("Thank you \ufffd!",) and thanks.counterexamples == ("No \ufffd.",)
    assert evaluate_semantic("Thanks!", thanks, judge=_encoding_judge()).passed


# Every sign a number can carry (issue 44): a time or a count that is negative, NaN or
# infinite never decides a check.


@pytest.mark.parametrize("took", [-5.0, float("nan"), float("inf")])
@pytest.mark.parametrize("field", ["total_ms", "first_token_ms"])
def test_a_time_that_is_no_time_makes_latency_unenforceable(took: float, field: str) -> None:
    import dataclasses

    from semantix.checks import Latency
    from semantix.errors import UnenforceableCheckError
    from semantix.outputs import Timing, output_view

    timing = Timing(total_ms=10.0, first_token_ms=10.0)
    view = dataclasses.replace(
        output_view("hi"), timing=dataclasses.replace(timing, **{field: took})
    )
    with pytest.raises(UnenforceableCheckError, match=rf"timing says {field}={took!r}, not a time"):
        Latency(max_ms=100, first_token_ms=100).decide(view)


@pytest.mark.parametrize(
    ("counts", "named"),
    [
        ({"input_tokens": -100, "output_tokens": 5}, "input_tokens=-100"),
        ({"input_tokens": 10, "output_tokens": 5, "cache_read_tokens": -3}, "cache_read_tokens=-3"),
        ({"input_tokens": 10.5, "output_tokens": 5}, "input_tokens=10.5"),
        ({"input_tokens": 10, "output_tokens": float("nan")}, "output_tokens=nan"),
    ],
)
def test_a_usage_count_that_is_no_count_makes_budgets_unenforceable(
    counts: dict[str, float], named: str
) -> None:
    import dataclasses

    from semantix.checks import Cost, Tokens
    from semantix.errors import UnenforceableCheckError
    from semantix.outputs import Usage, output_view

    view = dataclasses.replace(output_view("hi"), usage=Usage(**counts), model="m")  # type: ignore[arg-type]
    for check in (Tokens(max_input=50, max_output=50), Cost(0.01, prices={"m": (1.0, 1.0)})):
        with pytest.raises(UnenforceableCheckError, match=rf"contradicts itself \({named}, not"):
            check.decide(view)


def test_negative_zero_is_named_as_zero() -> None:
    from semantix.checks import Cost

    assert Cost(-0.0, prices={"m": (1.0, 1.0)}).__name__ == "Cost(max_usd=0.0)"


@pytest.mark.parametrize(
    ("readings", "words"),
    [
        ([10.0, 9.0], r"clock\(\) went backwards \(10.0 s, then 9.0 s\)"),
        ([float("nan"), 1.0], r"clock\(\) returned nan, not a finite number"),
        ([1.0, None], r"clock\(\) returned None, not a finite number"),
    ],
)
@pytest.mark.parametrize("awaited", [False, True])
def test_a_clock_that_gives_no_time_is_refused_in_repeated_runs(
    readings: list[float | None], words: str, awaited: bool
) -> None:
    import asyncio

    from semantix import ConfigurationError
    from semantix.checks import Latency
    from semantix.runs import aevaluate_pass_rate, evaluate_pass_rate

    left = list(readings)  # the parameter's list is shared between the runs of this test

    def clock() -> float | None:
        return left.pop(0) if left else 1.0

    options = {"runs": 1, "clock": clock}
    with pytest.raises(ConfigurationError, match=words):
        if awaited:
            asyncio.run(aevaluate_pass_rate(lambda: "hi", Latency(max_ms=100), **options))
        else:
            evaluate_pass_rate(lambda: "hi", Latency(max_ms=100), **options)  # type: ignore[arg-type]


def test_a_clock_that_is_not_a_function_is_refused() -> None:
    from semantix import ConfigurationError
    from semantix.checks import Latency
    from semantix.runs import evaluate_pass_rate

    with pytest.raises(ConfigurationError, match=r"clock must be a function returning seconds"):
        evaluate_pass_rate(lambda: "hi", Latency(max_ms=100), clock=5)  # type: ignore[arg-type]


def test_a_first_chunk_after_the_whole_answer_makes_latency_unenforceable() -> None:
    import dataclasses

    from semantix.checks import Latency
    from semantix.errors import UnenforceableCheckError
    from semantix.outputs import Timing, output_view

    view = dataclasses.replace(output_view("hi"), timing=Timing(total_ms=50.0, first_token_ms=80.0))
    with pytest.raises(UnenforceableCheckError, match=r"first chunk after 80 ms, but 50 ms in all"):
        Latency(max_ms=100).decide(view)
