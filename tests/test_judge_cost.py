"""The judges' own cost, apart from the system's: LLM-judge token usage priced by
--semantic-judge-prices, in the terminal and JSON reports."""

from __future__ import annotations

import json

import pytest

from llm_server import FakeOpenAIServer, verdict

pytest.importorskip("openai")

SUITE = """
import os

from semantix import assert_semantic
from semantix.judges.llm import LLMJudge

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
        [f"judge cost: ${2 * each:.6f} (2 LLM-judged verdicts spent 84 input and 14 output tokens*"]
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
