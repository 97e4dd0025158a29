"""``pytest --semantic-baseline BASE.json`` and ``--semantic-judge-accuracy``, end to end."""

from __future__ import annotations

import json
import os
import sys

import pytest

from compare_project import JUDGES, SIDES, SUITE
from semantix import FakeJudge
from semantix.runs import evaluate_pass_rate


def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, side: str) -> list[str]:
    pytester.makepyfile(judges_mod=JUDGES, test_app=SUITE)
    for name, value in SIDES[side].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), *sys.path]))
    monkeypatch.setenv("COLUMNS", "200")
    return ["-p", "no:cacheprovider", "--semantic-judge", SIDES[side]["JUDGE"]]


@pytest.mark.parametrize("plugin_args", [[], ["-n", "2"]], ids=["plain", "xdist-2"])
def test_the_summary_marks_each_regression_and_the_json_records_the_flips(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, plugin_args: list[str]
) -> None:
    base_args = project(pytester, monkeypatch, "base")
    pytester.runpytest_subprocess(*base_args, "--semantic-report-json", "base.json")
    cand_args = project(pytester, monkeypatch, "cand")
    result = pytester.runpytest_subprocess(
        *cand_args, *plugin_args, "--semantic-baseline", "base.json",
        "--semantic-report-json", "cand.json",
    )  # fmt: skip
    result.stdout.re_match_lines(
        [
            r"-+ semantic baseline: base\.json -+",  # as given, not made absolute
            r"REGRESSION test_app\.py::test_boom  Polite  passed -> error  .*JudgeError",
            r"REGRESSION test_app\.py::test_sorry  Polite  passed -> failed  Polite 0\.90/0\.50",
            r"REGRESSION test_app\.py::test_twice  Polite #2  passed -> failed",
            (
                r"REGRESSION test_app\.py::test_flaky  pass rate -0\.50 \[-0\.70, -0\.24\] "
                r"\(verdict passed -> passed\)"
            ),
            (
                r"3 regressions, 1 fix, 1 new, 1 removed over 8 paired assertions; McNemar exact "
                r"p = 0\.625 \(3 regressions vs 1 fix\)"
            ),
        ]
    )
    assert "test_please" not in result.stdout.str().split("semantic baseline")[1]  # a fix
    document = json.loads((pytester.path / "cand.json").read_text(encoding="utf-8"))
    baseline = document["baseline"]
    assert baseline["path"] == str(pytester.path / "base.json")
    assert baseline["mcnemar"] == {"regressions": 3, "fixes": 1, "p_value": 0.625}
    assert [flip["kind"] for flip in baseline["flips"]] == [
        "regression", "regression", "regression", "fix", "new", "removed", "judge",
    ]  # fmt: skip
    assert result.ret == 1  # pytest's own status: the failing tests, not the comparison


def test_a_bad_baseline_is_a_usage_error_at_once(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = project(pytester, monkeypatch, "cand")
    (pytester.path / "bad.json").write_text("[1, 2]", encoding="utf-8")
    result = pytester.runpytest_subprocess(*args, "--semantic-baseline", "bad.json")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--semantic-baseline: *bad.json*: a semantix JSON report is*"])


FLAKY = '''
import itertools
import pytest
from semantix import Intent

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

replies = itertools.cycle(["Thank you."] * 3 + ["Go away."])

@pytest.mark.semantic(runs=20, min_pass_rate=0.5)
def test_flaky(semantic):
    semantic(next(replies), Polite)
'''


def test_the_pytest_option_reports_the_corrected_pass_rate(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    args = project(pytester, monkeypatch, "base")
    pytester.makepyfile(test_app=FLAKY)
    result = pytester.runpytest_subprocess(
        *args,
        "--semantic-judge-accuracy",
        "0.9,0.95",
        "--semantic-report",
        "--semantic-report-json",
        "r.json",
    )
    result.assert_outcomes(passed=1)
    # 15 of 20 passed: (0.75 + 0.95 - 1) / (0.9 + 0.95 - 1) = 0.8235
    result.stdout.re_match_lines(
        [(r"corrected test_app\.py::test_flaky: 0\.82 \[0\.\d\d, 0\.\d\d\] for a judge of "
          r"sensitivity 0\.90, specificity 0\.95 \(observed 0\.75, which decides\)")]
    )  # fmt: skip
    (test,) = json.loads((pytester.path / "r.json").read_text(encoding="utf-8"))["runs"]["tests"]
    assert test["judge_accuracy"] == [0.9, 0.95]
    assert test["corrected_pass_rate"] == pytest.approx(0.7 / 0.85)
    assert test["pass_rate"] == 0.75  # the observed rate, beside it, unchanged


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("0.9", "--semantic-judge-accuracy '0.9' is not sensitivity,specificity"),
        ("0.5,0.5", "no better than a coin"),
        ("0.9,0.9,10", "judge_accuracy must be (sensitivity, specificity) or"),
        ("0.9,x", "could not convert"),
    ],
)
def test_a_bad_judge_accuracy_option_is_a_usage_error(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, value: str, message: str
) -> None:
    args = project(pytester, monkeypatch, "base")
    result = pytester.runpytest_subprocess(*args, "--semantic-judge-accuracy", value)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()


def test_the_runner_argument_adds_the_corrected_rate_beside_the_observed_one() -> None:
    replies = iter(["Thank you."] * 17 + ["Go away."] * 3)
    judge = FakeJudge(lambda output, intent: 0.9 if "Thank" in output else 0.1)
    stats = evaluate_pass_rate(
        lambda: next(replies), "The text is polite.", runs=20, min_pass_rate=0.8,
        judge=judge, judge_accuracy=(0.9, 0.95),
    )  # fmt: skip
    assert stats.corrected is not None
    rate, (low, high) = stats.corrected
    assert rate == pytest.approx(0.8 / 0.85)  # (0.85 + 0.95 - 1) / (0.9 + 0.95 - 1), by hand
    assert stats.pass_rate == 0.85 and stats.passed  # the observed rate still decides
    data = stats.to_dict()
    assert (data["corrected_pass_rate"], data["corrected_interval"]) == (rate, [low, high])
    assert "corrected for the judge's errors (sensitivity 0.90, specificity 0.95): 0.94" in (
        stats.explain()
    )
    plain = evaluate_pass_rate(lambda: "Thank you.", "The text is polite.", runs=2, judge=judge)
    assert plain.corrected is None and "corrected_pass_rate" not in plain.to_dict()


def test_a_bad_judge_accuracy_fails_before_the_system_is_called() -> None:
    calls: list[int] = []
    with pytest.raises(ValueError, match="no better than a coin"):
        evaluate_pass_rate(lambda: calls.append(1) or "x", "The text is polite.",
                           judge=FakeJudge(lambda o, i: 0.9), judge_accuracy=(0.4, 0.5))  # fmt: skip
    assert calls == []
