"""An agent test under pytest at 100 columns (issue 35): the failure shows the expected and
actual calls aligned, the turn that was judged, and it fits the terminal."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

HERE = Path(__file__).parent

JUDGE = """
from semantix import FakeJudge
judge = FakeJudge(lambda output, d: 0.9 if "sorry" in output.lower() else 0.1, name="KeywordJudge")
"""

SUITE = """
from agent_runs import anthropic_run, openai_run
from semantix import assert_semantic
from semantix.agents import FinalTurn, Steps, ToolCalls, ToolSucceeded
from semantix.checks import CalledTool

def test_refund_agent():
    check = (
        ToolCalls(CalledTool("lookup_order"), CalledTool("issue_refund", args={"order_id": "B2"}))
        & ToolSucceeded("issue_refund")
        & Steps(max=3)
        & FinalTurn("The text apologizes.")
    )
    assert_semantic(openai_run(), check)

def test_ok():
    check = ToolCalls(CalledTool("lookup_order"), CalledTool("issue_refund"))
    assert_semantic(anthropic_run(), check & FinalTurn("The text apologizes."))
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(judges_mod=JUDGE, test_agent=SUITE)
    shutil.copy(HERE / "agent_runs.py", pytester.path / "agent_runs.py")
    path = [str(pytester.path), *filter(None, [os.environ.get("PYTHONPATH")])]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(path))
    monkeypatch.setenv("COLUMNS", "100")
    return pytester


def test_an_agent_failure_reads_at_100_columns(project: pytest.Pytester) -> None:
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--semantic-judge=judges_mod:judge", "--semantic-report"
    )
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.re_match_lines(
        [
            r"E +ToolCalls\(lookup_order, issue_refund\(order_id='B2'\)\) +0\.00 +1\.00 +FAIL: not satisfied",
            r"E +ToolSucceeded\('issue_refund'\) +1\.00 +1\.00 +ok",
            r"E +FinalTurn\('The text apologizes\.'\) +0\.90 +0\.80 +ok",
            r"E +reason: call 2 issue_refund\(\{\"order_id\": \"A17\", \"amount\": 20\}\): 'order_id' is 'A17', expected 'B2'",
            r"E +expected +actual",
            r"E +1  lookup_order +lookup_order\(\{\"order_id\": \"A17\"\}\)",
            r"E +>  2  issue_refund\(order_id='B2'\)  issue_refund\(\{\"order_id\": \"A17\", \"amoun…",
            r"E +reason: turn 1 of 1: fake score 0\.900",
            r"-+ semantic report -+",
            r"test_agent\.py::test_ok +ToolCalls\(look.* +PASS +\d+ ms",
            r"test_agent\.py::test_refund_agent +ToolCalls\(look.* +FAIL +\d+ ms",
        ]
    )
    lines = result.stdout.lines
    header = next(
        i
        for i, line in enumerate(lines)
        if line.rstrip().endswith("expected                     actual")
    )
    table = lines[header : header + 3]
    column = table[0].index("actual")
    assert table[1].index('lookup_order({"order_id"') == column  # the columns line up
    assert table[2].index('issue_refund({"order_id"') == column
    assert all(len(line) <= 100 for line in table), table  # the table fits the terminal
    report = lines[next(i for i, line in enumerate(lines) if "semantic report" in line) :]
    rows = report[2 : next(i for i, line in enumerate(report) if "semantic assertions" in line)]
    assert all(len(line) <= 100 for line in rows), rows  # long intents wrap, never cut
    ids = [row.split()[0] for row in rows if row.startswith("test_agent.py::")]
    assert ids == ["test_agent.py::test_ok", "test_agent.py::test_refund_agent"], rows
    assert "Steps(max=3)" in "\n".join(rows) and "…" not in "\n".join(rows)


TURNS_SUITE = """
from agent_runs import openai_run
from semantix import assert_semantic
from semantix.agents import EachTurn
from semantix.checks import CalledTool

CONVERSATION = [
    {"role": "user", "content": "Hi"},
    {"role": "assistant", "content": "Whatever. Read the manual."},
    {"role": "user", "content": "Where is my refund?"},
    {"role": "assistant", "content": "Sorry, it left today."},
]

def test_each_turn_apologizes():
    assert_semantic(CONVERSATION, EachTurn("The text apologizes."))

def test_a_matcher_that_raises():
    assert_semantic(openai_run(), CalledTool("lookup_order", args=lambda a: a["amount"] <= 50))
"""


def test_a_failed_turn_and_a_broken_matcher_read_clearly(project: pytest.Pytester) -> None:
    """issue 43: the failure quotes the turn that failed, not only the final reply; issue 45:
    a matcher that raises is an error naming the check, the call and the matcher."""
    project.makepyfile(test_turns=TURNS_SUITE)
    result = project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--semantic-judge=judges_mod:judge", "test_turns.py"
    )
    result.assert_outcomes(failed=2)
    result.stdout.re_match_lines(
        [
            r"E +reason: turn 1 of 2 \('Whatever\. Read the manual\.'\): fake score 0\.100",
            (
                r"E +ValueError: CalledTool\('lookup_order', args=<lambda>\): the matcher <lambda> "
                r"\(test_turns.py, line 17\) raised KeyError: 'amount' on the arguments of the "
                r"call lookup_order\(\{\"order_id\": \"A17\"\}\).*"
            ),
        ]
    )
