"""The judges' own cost, apart from the system's: LLM-judge token usage priced by
--semantic-judge-prices, in the terminal and JSON reports."""

from __future__ import annotations

import json
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, Reply, completion, verdict
from semantix.judges._verdict import TokenUsage
from semantix.report._costs import judge_cost, judge_cost_lines, record_judge_cost
from semantix.report._model import CheckRecord, Leaf
from semantix.report._records import format_usd

pytest.importorskip("openai")

SUITE = """
import os

from semantix import assert_semantic
from semantix.judges._llm import LLMJudge

JUDGE = LLMJudge("judge-model", base_url=os.environ["JUDGE_URL"], max_retries=0)

def test_one():
    assert_semantic("Thank you!", "The text is polite.", judge=JUDGE)

def test_two():
    assert_semantic("Thanks a lot!", "The text is polite.", judge=JUDGE)
"""


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeOpenAIServer:
    fake = FakeOpenAIServer(default=verdict(0.9, "kind")).start()
    monkeypatch.setenv("JUDGE_URL", fake.base_url)
    yield fake  # type: ignore[misc]
    fake.stop()


def test_judge_tokens_are_priced_apart(pytester: pytest.Pytester, server: FakeOpenAIServer) -> None:
    pytester.makepyfile(test_judged=SUITE)
    (pytester.path / "prices.json").write_text(json.dumps({"judge-model": [1.0, 2.0]}))
    report = pytester.path / "report.json"
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--semantic-report",
        "--semantic-judge-prices=prices.json",
        f"--semantic-report-json={report}",
    )
    result.assert_outcomes(passed=2)
    # The test server's completion reports 42 prompt and 7 completion tokens.
    each = (42 * 1.0 + 7 * 2.0) / 1e6
    result.stdout.fnmatch_lines(
        [
            f"judge cost: {format_usd(2 * each)} (2 LLM-judged verdicts spent 84 input and 14 output tokens*"
        ]
    )
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["meta"]["judge_cost"]["usd"] == pytest.approx(2 * each)
    assert [record["judge_cost_usd"] for record in document["assertions"]] == [
        pytest.approx(each)
    ] * 2


def test_without_prices_the_tokens_are_shown_and_the_fix_named(
    pytester: pytest.Pytester, server: FakeOpenAIServer
) -> None:
    pytester.makepyfile(test_judged=SUITE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--semantic-report")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            (
                "judge cost: 2 LLM-judged verdicts spent 84 input and 14 output tokens; give "
                "--semantic-judge-prices FILE to see their cost"
            )
        ]
    )


def test_a_bad_prices_file_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    (pytester.path / "prices.json").write_text('{"judge-model": [-1, 2]}')
    result = pytester.runpytest_subprocess("--semantic-judge-prices=prices.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*prices?'judge-model'? must be*got ?-1, 2?"])


def _leaf(usage: TokenUsage | None, *, latency_ms: float | None = 5.0, **more: Any) -> Leaf:
    fields = {"judge": "LLMJudge(judge-model)", "judge_model": "judge-model", "judged": True}
    return Leaf(intent="Kind", usage=usage, latency_ms=latency_ms, **fields | more)


def _record(*leaves: Leaf) -> CheckRecord:
    return CheckRecord(nodeid="t.py::test_a", outcome="passed", intent="Kind", leaves=leaves)


USED = TokenUsage(prompt_tokens=42, completion_tokens=7)


def test_an_llm_verdict_without_usage_is_unknown_never_free() -> None:
    records = [
        _record(_leaf(USED)),
        _record(_leaf(None), _leaf(USED)),  # the server reported no usage for one
        _record(_leaf(None, latency_ms=None)),  # a replay: nothing was spent this run
        _record(Leaf(intent="Kind", judge="FakeJudge", judged=True, latency_ms=1.0)),
    ]
    prices = {"judge-model": (1.0, 2.0)}
    cost = judge_cost(records, prices)
    assert (cost.verdicts, cost.unknown, cost.prompt_tokens) == (3, 1, 84)
    assert cost.to_dict()["unknown"] == 1
    assert cost.usd is None and cost.known_usd == pytest.approx(2 * 56 / 1e6)
    # an assertion with a verdict of unknown cost has an unknown cost, not its known part
    assert [record_judge_cost(r, prices) for r in records] == [
        pytest.approx(56 / 1e6),
        None,
        None,
        None,
    ]
    lines = [text for text, _ in judge_cost_lines(cost, priced=True)]
    assert lines[0].startswith("judge cost: unknown (3 LLM-judged verdicts")
    assert "$0.000112 for those priced" in lines[0]
    assert lines[1] == (
        "WARNING judge cost incomplete: 1 of them carried no token usage (their server reported "
        "none): not in the figure, never priced at zero"
    )
    unpriced = [text for text, _ in judge_cost_lines(cost, priced=False)]
    assert "1 of unknown usage" in unpriced[0] and unpriced[1].startswith("WARNING")


def test_only_unknown_verdicts_are_reported_too() -> None:
    cost = judge_cost([_record(_leaf(None))], None)
    assert (cost.verdicts, cost.unknown) == (1, 1)
    assert judge_cost_lines(cost, priced=False)[1][0].startswith("WARNING judge cost incomplete")


def test_verdicts_without_usage_are_counted_in_the_reports(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    reply = completion(json.dumps({"reason": "kind", "score": 0.9}))
    body = {key: value for key, value in reply.body.items() if key != "usage"}
    with FakeOpenAIServer(default=Reply(200, body)) as fake:
        monkeypatch.setenv("JUDGE_URL", fake.base_url)
        pytester.makepyfile(test_judged=SUITE)
        (pytester.path / "prices.json").write_text(json.dumps({"judge-model": [1.0, 2.0]}))
        report = pytester.path / "report.json"
        result = pytester.runpytest_subprocess(
            "-p", "no:cacheprovider", "--semantic-report", "--semantic-judge-prices=prices.json",
            f"--semantic-report-json={report}",
        )  # fmt: skip
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(
        [
            "judge cost: unknown (2 LLM-judged verdicts (2 of unknown usage) spent 0 input*",
            "WARNING judge cost incomplete: 2 of them carried no token usage*",
        ]
    )
    document = json.loads(report.read_text(encoding="utf-8"))
    assert document["meta"]["judge_cost"]["unknown"] == 2
    assert document["meta"]["judge_cost"]["usd"] is None  # unknown, never $0.00
    assert all("judge_cost_usd" not in record for record in document["assertions"])


def test_an_unpriced_judge_costs_unknown_not_zero() -> None:
    from semantix.report._html_parts import judge_cost as html_judge_cost

    cost = judge_cost([_record(_leaf(USED))], {"other-model": (1.0, 2.0)})
    assert (cost.usd, cost.unpriced) == (None, ("judge-model",))
    assert cost.to_dict()["usd"] is None
    line = html_judge_cost(cost)
    assert "unknown" in line and "$0.00" not in line and "no price for judge-model" in line
