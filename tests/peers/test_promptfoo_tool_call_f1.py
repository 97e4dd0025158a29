"""promptfoo's tool-call-f1 cases (``test/assertions/toolCallF1.test.ts``), run through
semantix's ``ToolCallScore(metric="f1")``: the subject is the SDK message each case's output
stands for (or the output itself: text, or a shape semantix does not read), and semantix must
reach promptfoo's pass or fail, and its score where the test states one, except for the
differences docs/agents.md states ("Compared with other tools"). Sources: tests/peers/README.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from recorded import recorded_cases

from semantix import evaluate_semantic
from semantix.agents import ToolCallScore
from semantix.checks import CalledTool

CASES = recorded_cases("promptfoo_tool_call_f1")

TEXT = "semantix reads calls from what the SDK returned, never from JSON written in a reply's text"
LIMIT = "promptfoo fails when its text parser gives up; semantix parses no calls from text"
SHAPE = "promptfoo's own output shapes (bare call lists, {name}, Live toolCall) are a TypeError"
NONE = "an output of None is a TypeError, not a run without calls"
COUNTS = "each call counts (promptfoo compares sets of names): a duplicate lowers the score"
EMPTY = "nothing expected scores a run that should call no tool (promptfoo refuses it)"

#: Cases where semantix decides otherwise, by choice (docs/agents.md, "Compared with other
#: tools"), by id; the cases in `difference` below follow from the same choices by rule.
DIFFERENCES: dict[str, str] = {
    "set-based comparison (no duplicates) > should treat duplicate tool calls as single tool": COUNTS,
    "set-based comparison (no duplicates) > should treat duplicate expected tools as single tool": COUNTS,
    "error handling > should throw error when no expected tools provided": EMPTY,
}


def difference(case: dict[str, Any]) -> str | None:
    """Why semantix differs on this case, or None where it must agree."""
    if case["id"] in DIFFERENCES:
        return DIFFERENCES[case["id"]]
    text = isinstance(case["output"], str) or "join" in (case["output"] or {})
    if text and case.get("threshold") == 0 and not case.get("inverse"):
        return LIMIT  # F1 0 reaches a threshold of 0
    if text and case["pass"] is True:
        return TEXT
    if case["output"] is None:
        return NONE
    if not text and "subject" not in case and case["pass"] is True:
        return SHAPE
    return None


def subject(case: dict[str, Any]) -> Any:
    if "subject" in case:
        return case["subject"]
    output = case["output"]
    if isinstance(output, dict) and "join" in output:
        parts = [part if isinstance(part, str) else part[0] * part[1] for part in output["parts"]]
        output = output["join"].join(parts)
    return json.dumps(output) if case.get("stringify") else output


def check(case: dict[str, Any]) -> Any:
    expected = case["expected"]
    names = expected.split(",") if isinstance(expected, str) else expected
    score = ToolCallScore(
        *[CalledTool(name.strip()) for name in names], threshold=case.get("threshold", 1.0)
    )
    return ~score if case.get("inverse") else score


def outcome(case: dict[str, Any]) -> tuple[bool | str, float | None]:
    try:
        result = evaluate_semantic(subject(case), check(case))
    except (TypeError, ValueError):
        return "error", None
    return result.passed, result.leaves[0].verdict.score


def test_the_cases_are_promptfoos() -> None:
    assert len(CASES) == 101
    assert [sum(c["pass"] is v for c in CASES) for v in (True, False)] == [51, 45]
    assert sum(difference(case) is not None for case in CASES) == 51


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_semantix_agrees_with_promptfoo(case: dict[str, Any]) -> None:
    passed, score = outcome(case)
    why = difference(case)
    if why is not None:
        assert passed != case["pass"], f"no longer differs: {why}"
        return
    assert passed == case["pass"]
    if "score" in case and "subject" in case:
        assert score == pytest.approx(case["score"], abs=1e-3)
