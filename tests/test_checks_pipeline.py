"""Structural checks through assert_semantic/evaluate_semantic (issue 23 items 1, 2, 4; 26.1)."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, assert_semantic, evaluate_semantic
from semantix.checks import CalledTool, Contains, JSONPath, Tokens
from semantix.checks._base import STRUCTURAL
from semantix.errors import SemanticAssertionError, UnenforceableCheckError
from semantix.testing import Satisfies


class Apologizes(Intent):
    """The text apologizes for the delay."""


TOOL_ONLY = {
    "model": "gpt-4o-mini",
    "choices": [
        {
            "message": {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "issue_refund", "arguments": '{"order_id": "B2"}'},
                    }
                ],
            }
        }
    ],
    "usage": {"prompt_tokens": 30, "completion_tokens": 12, "total_tokens": 42},
}


def test_a_structural_only_check_never_calls_the_judge() -> None:
    judge = FakeJudge(lambda output, description: 1.0)
    result = evaluate_semantic('{"status": "ok"}', JSONPath("$.status", equals="ok"), judge=judge)
    assert result.passed
    (leaf,) = result.leaves
    assert leaf.verdict.judge == STRUCTURAL
    assert leaf.verdict.score == 1.0
    assert judge.calls == []


def test_structural_and_semantic_leaves_combine_leaf_by_leaf() -> None:
    judge = FakeJudge(lambda output, description: 0.9 if "sorry" in output.lower() else 0.1)
    reply = "Sorry for the delay: your refund is on its way."
    assert evaluate_semantic(reply, Contains("refund") & Apologizes, judge=judge).passed
    assert not evaluate_semantic(reply, ~Contains("refund") & Apologizes, judge=judge).passed
    assert evaluate_semantic("No news.", Contains("refund") | ~Apologizes, judge=judge).passed


def test_the_failure_message_carries_the_structural_reason() -> None:
    judge = FakeJudge(lambda output, description: 0.0)
    with pytest.raises(SemanticAssertionError) as info:
        assert_semantic(
            TOOL_ONLY, CalledTool("issue_refund", args={"order_id": "A17"}), judge=judge
        )
    assert "'order_id' is 'B2', expected 'A17'" in str(info.value)
    assert judge.calls == []


def test_a_semantic_leaf_on_a_tool_only_reply_is_an_error_naming_the_calls() -> None:
    judge = FakeJudge(lambda output, description: 1.0)
    with pytest.raises(TypeError, match="issue_refund"):
        evaluate_semantic(TOOL_ONLY, CalledTool("issue_refund") & Apologizes, judge=judge)
    assert judge.calls == []


def test_an_unenforceable_budget_raises_through_the_pipeline() -> None:
    judge = FakeJudge(lambda output, description: 1.0)
    with pytest.raises(UnenforceableCheckError, match="carries no token usage"):
        assert_semantic("Sorry!", Tokens(max_output=10) & Apologizes, judge=judge)
    assert_semantic(TOOL_ONLY, Tokens(max_output=12, max_total=42), judge=judge)


def test_satisfies_takes_structural_intents() -> None:
    payload = {"message": "Your refund is on its way.", "id": 3}
    assert payload == {"message": Satisfies(Contains("refund")), "id": 3}
    matcher = Satisfies(Contains("credit"))
    assert payload != {"message": matcher, "id": 3}
    assert "'credit' not found (ignoring case)" in repr(matcher)
