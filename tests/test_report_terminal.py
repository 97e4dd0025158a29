"""The end-of-session table fits the terminal and counts errors and borderline verdicts."""

from __future__ import annotations

from dataclasses import replace

from semantix import FakeJudge, Intent, JudgeError, evaluate_semantic
from semantix.report import error_record, result_record, summarize
from semantix.report._model import CheckRecord
from semantix.report._records import sorted_records
from semantix.report._terminal import header_line, report_lines, short_judge

LONG_JUDGE = (
    "QuantizedNLIJudge(/home/someone/projects/models/exported/nli-deberta-v3-xsmall-int8, "
    "onnx/model_quantized.onnx)"
)


class Polite(Intent):
    """The text is polite."""


def _record(score: float, nodeid: str) -> CheckRecord:
    result = evaluate_semantic("Thanks!", Polite, judge=FakeJudge(lambda o, d: score))
    return replace(result_record(result, nodeid), judge=LONG_JUDGE)


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
    lines = report_lines(records, width=120, judge_column=None)
    assert all(len(text) <= 120 for text, _ in lines)
    assert lines[1][0].startswith("…/test_support_bot_replies.py::test_refund_policy_is_polite")
    assert "QuantizedNLIJudge" not in lines[1][0]  # one judge: the header names it
    assert lines[1][1] == {"green": True} and lines[2][1] == {"red": True}


def test_several_judges_get_a_judge_column() -> None:
    nodeid = "tests/test_bot.py::test_polite"
    other = replace(_record(0.9, nodeid + "2"), judge="EmbeddingJudge(all-MiniLM-L6-v2@c9745ed)")
    lines = report_lines([_record(0.9, nodeid), other], width=120, judge_column=None)
    assert lines[0][0].split() == [
        "test",
        "intent",
        "judge",
        "score",
        "threshold",
        "verdict",
        "time",
    ]
    assert "QuantizedNLIJudge(nli-deberta-v3-xsmall-int8)" in lines[1][0]
    assert "EmbeddingJudge(all-MiniLM-L6-v2@c9745ed)" in lines[2][0]


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
    assert "    JudgeError: model missing" in texts  # on a line of its own
    assert texts[-2] == (
        "~ borderline: within 0.05 of the threshold; a reworded output may flip the verdict"
    )
    assert texts[-1] == "3 semantic assertions: 1 passed, 1 failed, 1 error (1 borderline)"


def test_no_legend_without_a_borderline_mark() -> None:
    texts = [text for text, _ in report_lines([_record(0.9, "t::a")], width=100)]
    assert not any(text.startswith("~") for text in texts)


def test_header_names_the_judges_and_the_verdict_mode() -> None:
    assert header_line([LONG_JUDGE, LONG_JUDGE], "replay") == (
        "judge: QuantizedNLIJudge(nli-deberta-v3-xsmall-int8) · verdicts: replay"
    )


# --- 100 columns (issue 22, item 1) --------------------------------------------------------------


class AnswersTheRefundQuestionWithThePolicy(Intent):
    """The text answers the refund question with the policy."""


def _bot_records() -> list[dict[str, object]]:
    """A realistic run: an intent with a long name, a test repeated 10 times, a composite."""
    judge = FakeJudge(lambda o, d: 0.9 if "thank" in o.lower() else 0.3, name="EmbeddingJudge")
    prefix = "tests/integration/test_support_bot.py::"
    records = [
        result_record(
            evaluate_semantic(
                "Thank you, refunds take 5 days.",
                AnswersTheRefundQuestionWithThePolicy,
                judge=judge,
            ),
            prefix + "test_refund_answer_with_examples",
        )
    ]
    outputs = ["Thank you!"] * 7 + ["Go away."] * 3
    records += [
        result_record(evaluate_semantic(text, Polite, judge=judge), prefix + "test_bot_pass_rate")
        for text in outputs
    ]
    records.append(
        result_record(
            evaluate_semantic(
                "Thank you!", Polite & ~AnswersTheRefundQuestionWithThePolicy, judge=judge
            ),
            prefix + "test_polite_and_off_topic",
        )
    )
    # a fixed time: the time column's width does not vary
    return sorted_records([replace(record, duration_ms=12.0) for record in records])


def test_a_100_column_report_keeps_test_names_and_groups_repeated_runs() -> None:
    records = _bot_records()
    texts = [text for text, _ in report_lines(records, width=100, judge_column=None)]
    assert all(len(text) <= 100 for text in texts), max(texts, key=len)
    header = texts[0].split()
    assert "judge" not in header  # one judge: the header line names it
    rows = [text for text in texts[1:] if text.startswith("…")]
    # each test once, its name whole: the directories give way first
    assert [row.split()[0] for row in rows] == [
        "…/test_support_bot.py::test_bot_pass_rate",
        "…_support_bot.py::test_polite_and_off_topic",
        "…t_bot.py::test_refund_answer_with_examples",
    ]
    repeated = rows[0]
    assert "0.30-0.90" in repeated and "7/10 passed" in repeated
    # the long intent name gives way, wrapped onto the next lines, never cut
    start = texts.index(rows[2])
    intent_column = texts[0].index("intent")
    wrapped = [text[intent_column:].split(" ")[0] for text in texts[start : start + 4]]
    assert "".join(wrapped) == "AnswersTheRefundQuestionWithThePolicy"
    assert not any("…" in text[intent_column:] for text in texts)
    assert texts[-1] == "12 semantic assertions: 8 passed, 4 failed, 0 errors"


def test_not_judged_leaves_are_their_own_outcome() -> None:
    judge = FakeJudge(lambda o, d: 0.9)
    record = result_record(evaluate_semantic("Thanks", Polite & Kind, judge=judge), "t::a")
    polite, kind = record.leaves
    kind = replace(
        kind, judged=False, score=None, passed=False, reason="not judged: decided by Polite"
    )
    leaves = (replace(polite, judge="structural"), kind)
    record = replace(record, passed=False, outcome="failed", leaves=leaves)
    texts = [text for text, _ in report_lines([record], width=100)]
    kind_row = next(text for text in texts if text.strip().startswith("Kind"))
    assert kind_row.split()[-2:] == ["not", "judged"]
    assert summarize([record]).decided_by == {"structural": 1}


class Kind(Intent):
    """The text is kind."""


# --- 100 columns, several judges (issue 34, item 11) --------------------------------------------


def test_at_100_columns_the_intents_and_judges_give_way_before_the_test_names() -> None:
    """The column of test ids keeps every test's name whole while the intent and judge columns
    can still shrink to their minimum; only the path before the name is cut."""
    names = ["test_anthropic_tokens_and_cost", "test_openai_tokens_and_cost_cached2"]
    records = []
    for name, judge in zip(names, ("QuantizedNLIJudge", "EmbeddingJudge"), strict=True):
        result = evaluate_semantic(
            "Thanks!",
            AnswersTheRefundQuestionWithThePolicy,
            judge=FakeJudge(lambda o, d: 0.9, name=judge),
        )
        record = result_record(result, f"tests/integration/test_usage.py::{name}")
        records.append(replace(record, duration_ms=12.0))
    texts = [text for text, _ in report_lines(sorted_records(records), width=100)]
    assert all(len(text) <= 100 for text in texts), max(texts, key=len)
    assert texts[0].split()[:3] == ["test", "intent", "judge"]  # two judges: the column shows
    ids = [text.split()[0] for text in texts[1:] if text.startswith(("…", "tests"))]
    assert ids[0].endswith("::test_anthropic_tokens_and_cost")
    assert ids[1] == "…::test_openai_tokens_and_cost_cached2"
    # the summary's "decided by" goes on a line of its own rather than past the edge
    assert texts[-2:] == [
        "2 semantic assertions: 2 passed, 0 failed, 0 errors",
        "leaf verdicts decided by: EmbeddingJudge 1, QuantizedNLIJudge 1",
    ]


# --- names kept whole, wrapped rather than cut (issue 45, item 12) ------------------------------

AGENT_TEST = "tests/agents/test_support_agent.py::test_refund_round_happy_path_exact_trajectory"


def _agent_records() -> list[CheckRecord]:
    judge = FakeJudge(lambda o, d: 0.9)
    result = evaluate_semantic("Thanks", AnswersTheRefundQuestionWithThePolicy, judge=judge)
    composite = evaluate_semantic(
        "Thanks", Polite & ~AnswersTheRefundQuestionWithThePolicy, judge=judge
    )
    records = [result_record(result, AGENT_TEST), result_record(composite, AGENT_TEST + "2")]
    return [replace(record, duration_ms=12.0) for record in records]


def _column(texts: list[str], start: int, column: int, rows: int) -> list[str]:
    return [text[column:].split("  ")[0].strip() for text in texts[start : start + rows]]


def _wrapped_leaf(texts: list[str], column: int) -> str:
    """The composite's negated leaf, read back from its wrapped lines (indented by two)."""
    start = next(i for i, text in enumerate(texts) if text[column:].startswith("  ~"))
    parts = [texts[start][column:].split()[0]]
    for text in texts[start + 1 :]:
        if not text[column:].startswith("  ") or not text[column:].strip():
            break
        parts.append(text[column:].split()[0])
    return "".join(parts)


def test_at_80_columns_a_long_test_name_and_intent_wrap_rather_than_being_cut() -> None:
    texts = [text for text, _ in report_lines(_agent_records(), width=80)]
    assert all(len(text) <= 80 for text in texts), max(texts, key=len)
    assert not any("…" in text for text in texts), texts  # nothing cut
    intent_at = texts[0].index("intent")
    # the test's file on its own line, then the test's name, wrapped at an underscore
    ids = [text[:intent_at].strip() for text in texts[1:4]]
    assert ids == ["test_support_agent.py::", "test_refund_round_happy_path_", "exact_trajectory"]
    intents = [text[intent_at:].split()[0] for text in texts[1:5]]
    assert "".join(intents) == "AnswersTheRefundQuestionWithThePolicy"
    assert _wrapped_leaf(texts, intent_at) == "~AnswersTheRefundQuestionWithThePolicy"


def test_at_100_columns_the_path_gives_way_and_the_test_name_stays_whole() -> None:
    texts = [text for text, _ in report_lines(_agent_records(), width=100)]
    assert all(len(text) <= 100 for text in texts), max(texts, key=len)
    assert texts[1].split()[0] == "…t.py::test_refund_round_happy_path_exact_trajectory"
    intent_at = texts[0].index("intent")
    intents = [text[intent_at:].split()[0] for text in texts[1:5]]
    assert "".join(intents) == "AnswersTheRefundQuestionWithThePolicy"
    assert _wrapped_leaf(texts, intent_at) == "~AnswersTheRefundQuestionWithThePolicy"


def test_at_200_columns_every_id_and_intent_is_on_one_line() -> None:
    texts = [text for text, _ in report_lines(_agent_records(), width=200)]
    assert texts[1].split()[:2] == [AGENT_TEST, "AnswersTheRefundQuestionWithThePolicy"]
    assert texts[2].split()[:2] == [AGENT_TEST + "2", "Polite"]
    assert "Polite & ~AnswersTheRefundQuestionWithThePolicy" in texts[2]
    assert len(texts) == 1 + 4 + 1  # header, 2 rows and 2 leaves, summary


def test_an_error_wraps_onto_indented_lines_rather_than_being_cut() -> None:
    message = "model missing: the directory models/minilm does not exist; " * 3
    record = error_record("tests/test_x.py::test_err", JudgeError(message), intent="Polite")
    texts = [text for text, _ in report_lines([record], width=80)]
    error_lines = [text for text in texts if text.startswith("    ")]
    assert len(error_lines) > 1 and all(len(text) <= 80 for text in error_lines)
    assert " ".join(text.strip() for text in error_lines) == "JudgeError: " + message.strip()
