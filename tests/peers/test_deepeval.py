"""deepeval's ToolCorrectnessMetric cases (its ``tests/test_metrics/test_tool_correctness_*``),
run through semantix: the called tools become a Responses run (function calls, and MCP calls as
``mcp_call`` items), the expected tools ``CalledTool`` leaves with the rules deepeval's
``evaluation_params`` name, and semantix's score and verdict must equal what the test expects
(deepeval's own score where the test asserts none), except for the differences docs/agents.md
states ("Compared with other tools"). Sources: tests/peers/README.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from recorded import recorded_cases

from semantix import evaluate_semantic
from semantix.agents import ToolCalls, ToolCallScore
from semantix.checks import CalledTool

CASES = recorded_cases("deepeval_tool_correctness")


def run(called: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The called tools as a Responses run: each call and its output as the items that say it."""
    items: list[dict[str, Any]] = [{"type": "message", "role": "user", "content": "Look it up."}]
    for i, tool in enumerate(called):
        arguments = json.dumps(tool.get("input_parameters") or {})
        output = json.dumps(tool["output"]) if "output" in tool else "ok"
        if tool["type"] == "MCP":
            items.append(
                {
                    "type": "mcp_call",
                    "id": f"mcp_{i}",
                    "server_label": "tools",
                    "name": tool["name"],
                    "arguments": arguments,
                    "output": output,
                }
            )
        else:
            items.append(
                {
                    "type": "function_call",
                    "call_id": f"call_{i}",
                    "name": tool["name"],
                    "arguments": arguments,
                }
            )
            items.append({"type": "function_call_output", "call_id": f"call_{i}", "output": output})
    return items


def expected(tool: dict[str, Any], params: list[str]) -> Any:
    rules: dict[str, Any] = {}
    if "INPUT_PARAMETERS" in params:
        rules.update(args=tool.get("input_parameters") or {}, exact=True)
    if "OUTPUT" in params and "output" in tool:  # both without one: deepeval's None == None
        rules["result"] = tool["output"]
    if "TYPE" in params:
        rules["kind"] = "mcp" if tool["type"] == "MCP" else "function"
    return CalledTool(tool["name"], **rules)


def translate(case: dict[str, Any]) -> Any:
    """deepeval's options in semantix: by default the share of expected tools called (F1 on
    these one-step runs), ``should_consider_ordering`` the order score, ``should_exact_match``
    all or nothing; deepeval's default threshold is 0.5."""
    options = case["options"]
    calls = [
        expected(tool, options.get("evaluation_params", [])) for tool in case["expected_tools"]
    ]
    if options.get("should_exact_match"):
        return ToolCalls(*calls, order="any_order")
    metric = "order" if options.get("should_consider_ordering") else "f1"
    return ToolCallScore(*calls, metric=metric, threshold=0.5)


PARTIAL = "a call fits its expected call or not: deepeval credits each matching argument"
RECALL = "extra calls lower the F1; deepeval's default score is the share of expected tools called"

#: Cases where semantix decides otherwise, by choice (docs/agents.md, "Compared with other
#: tools"): the test checks that they still differ.
DIFFERENCES: dict[str, str] = {
    "test_tool_correctness.py > exact_match": PARTIAL,
    "test_tool_correctness.py > input_parameter_mismatch": PARTIAL,
    "test_tool_correctness.py > extra_tools_called": RECALL,
    "test_tool_correctness.py > missing_and_out_of_order": RECALL,
}


def wanted(case: dict[str, Any]) -> tuple[float, bool]:
    """The score the test asserts, or deepeval's own where the test asserts none."""
    if case["expected_score"] is None:
        return case["deepeval"]["score"], case["deepeval"]["success"]
    return case["expected_score"], case["expected_score"] >= 0.5


def test_the_cases_are_deepevals() -> None:
    assert len(CASES) == 20
    asserted = [case for case in CASES if case["expected_score"] is not None]
    assert [case["expected_score"] for case in asserted].count(1.0) == 5
    measured = [case for case in asserted if case["deepeval"] is not None]
    # deepeval 4.3.1 itself: it compares the call type by default, which its newer test says not
    assert [c["deepeval"]["score"] == c["expected_score"] for c in measured] == [False] + [True] * 4
    assert set(DIFFERENCES) <= {case["id"] for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_semantix_agrees_with_deepeval(case: dict[str, Any]) -> None:
    result = evaluate_semantic(run(case["tools_called"]), translate(case))
    score = result.leaves[0].verdict.score
    if case["options"].get("should_exact_match"):
        score = 1.0 if result.passed else 0.0
    want_score, want_passed = wanted(case)
    same = score == pytest.approx(want_score) and result.passed is want_passed
    if case["id"] in DIFFERENCES:
        assert not same, f"no longer differs: {DIFFERENCES[case['id']]}"
    else:
        assert same, (score, result.passed)
