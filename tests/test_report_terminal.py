"""The end-of-session table fits the terminal and counts errors and borderline verdicts."""

from __future__ import annotations

from semantix import FakeJudge, Intent, JudgeError, evaluate_semantic
from semantix.report import error_record, report_lines, result_record, summarize
from semantix.report.terminal import header_line, short_judge

LONG_JUDGE = (
    "QuantizedNLIJudge(/home/someone/projects/models/exported/nli-deberta-v3-xsmall-int8, "
    "onnx/model_quantized.onnx)"
)


class Polite(Intent):
    """The text is polite."""


def _record(score: float, nodeid: str) -> dict[str, object]:
    result = evaluate_semantic("Thanks!", Polite, judge=FakeJudge(lambda o, d: score))
    record = result_record(result, nodeid)
    record["judge"] = LONG_JUDGE
    return record


def test_short_judge_keeps_the_class_and_the_model_name() -> None:
    assert short_judge(LONG_JUDGE) == "QuantizedNLIJudge(nli-deberta-v3-xsmall-int8)"
    assert (
        short_judge("QuantizedNLIJudge(org/model@0123456789abcdef, onnx/model.onnx)")
        == "QuantizedNLIJudge(model@0123456)"
    )
    assert short_judge("FakeJudge") == "FakeJudge"


def test_rows_fit_a_120_column_terminal() -> None:
    nodeid = "tests/integration/test_support_bot_replies.py::test_refund_policy_is_polite[gpt]"
    records = [_record(0.9, nodeid), _record(0.2, nodeid + "x")]
    lines = report_lines(records, width=120)
    assert all(len(text) <= 120 for text, _ in lines)
    assert "QuantizedNLIJudge(nli-deberta-v3-xsmall-int8)" in lines[1][0]
    assert lines[1][1] == {"green": True} and lines[2][1] == {"red": True}


def test_narrow_terminals_elide_test_ids_from_the_left() -> None:
    nodeid = "tests/integration/test_support_bot_replies.py::test_refund_policy_is_polite"
    lines = report_lines([_record(0.9, nodeid)], width=80)
    assert all(len(text) <= 80 for text, _ in lines)
    assert "…" in lines[1][0] and "is_polite" in lines[1][0]


def test_errors_and_borderline_verdicts_are_counted() -> None:
    records = [
        _record(0.9, "t::a"),
        _record(0.78, "t::b"),  # borderline failure
        error_record("t::c", JudgeError("model missing"), intent="Polite"),
    ]
    summary = summarize(records)
    assert (summary.passed, summary.failed, summary.errors, summary.borderline) == (1, 1, 1, 1)
    lines = report_lines(records, width=200)
    texts = [text for text, _ in lines]
    assert any("FAIL ~" in text for text in texts)
    assert any("JudgeError: model missing" in text for text in texts)
    assert texts[-1] == "3 semantic assertions: 1 passed, 1 failed, 1 error (1 borderline)"


def test_header_names_the_judges_and_the_verdict_mode() -> None:
    assert header_line([LONG_JUDGE, LONG_JUDGE], "replay") == (
        "judge: QuantizedNLIJudge(nli-deberta-v3-xsmall-int8) · verdicts: replay"
    )
