"""Repeated tests under pytest, end to end with pytester (in subprocesses)."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from semantix.report._schema import check_document

PLUGIN_ARGS = [
    pytest.param([], id="plain"),
    pytest.param(["-n", "2"], id="xdist-2"),
]

# Scripted flaky systems: each test's replies cycle, so its pass rate is known in advance.
SUITE = '''
import itertools
import pytest
from semantix import FakeJudge, Intent, assert_semantic

JUDGE = FakeJudge(lambda output, intent: 0.1 if "Stop" in output else 0.9, name="KeywordJudge")

class Polite(Intent):
    """The text is polite."""

def script(*replies):
    return itertools.cycle(replies).__next__

four_in_five = script("Thank you", "Thank you", "Thank you", "Thank you", "Stop asking.")
also_four_in_five = script("Thank you", "Thank you", "Thank you", "Thank you", "Stop asking.")
crashes_once_in_five = script("Thank you", "Thank you", "crash", "Thank you", "Thank you")

@pytest.mark.semantic(runs=10, min_pass_rate=0.8, judge=JUDGE)
def test_at_floor():
    assert_semantic(four_in_five(), Polite)

@pytest.mark.semantic(runs=10, min_pass_rate=0.9, judge=JUDGE)
def test_below_floor(semantic):
    semantic(also_four_in_five(), Polite)

@pytest.mark.semantic(runs=5, min_pass_rate=0.8, judge=JUDGE)
def test_crashing_system():
    reply = crashes_once_in_five()
    if reply == "crash":
        raise RuntimeError("upstream timeout")
    assert_semantic(reply, Polite)
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.delenv("SEMANTIX_JUDGE", raising=False)
    monkeypatch.setenv("COLUMNS", "200")  # whole test ids in the tables
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args)


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_marker_repeats_the_body_and_holds_it_to_the_floor(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_bot=SUITE)
    result = run(
        project,
        *plugin_args,
        "--semantic-report",
        "--semantic-report-json=report.json",
        "--junitxml=junit.xml",
    )
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            "*PassRateError: pass rate of test_bot.py::test_below_floor is below its floor",
            "*pass rate: 8/10 = 80% (floor 90%)",
            "*95% Wilson interval: [[]0.49, 0.94]",
            "*runs: 8 passed, 2 failed, 0 errors*",
            "*runs that did not pass (first 2 of 2):",
            "*#5 FAIL  Polite=0.10/0.80  output: 'Stop asking.'",
            "*#10 FAIL  Polite=0.10/0.80  output: 'Stop asking.'",
        ]
    )
    result.stdout.re_match_lines(
        [
            r"-+ semantic runs -+",
            r"test +runs +passes +errors +pass rate +95% interval +floor +verdict",
            r"\S*test_at_floor +10 +8 +0 +0\.80 +\[0\.49, 0\.94\] +0\.80 +PASS",
            r"\S*test_below_floor +10 +8 +0 +0\.80 +\[0\.49, 0\.94\] +0\.90 +FAIL",
            r"\S*test_crashing_system +5 +4 +1 +0\.80 +\[0\.38, 0\.96\] +0\.80 +PASS",
            (
                r"stability 0\.80 \(mean pass rate\) over 3 repeated tests; 3 not proven at "
                r"their floor"
            ),
        ]
    )

    document = json.loads((project.path / "report.json").read_text())
    section = document["runs"]
    assert section["stability"] == pytest.approx(0.8)
    assert section["below_floor"] == 3
    by_test = {test["nodeid"]: test for test in section["tests"]}
    assert sorted(by_test) == [
        "test_bot.py::test_at_floor",
        "test_bot.py::test_below_floor",
        "test_bot.py::test_crashing_system",
    ]
    crashing = by_test["test_bot.py::test_crashing_system"]
    assert (crashing["runs"], crashing["passes"], crashing["errors"]) == (5, 4, 1)
    assert crashing["outcomes"] == ["passed", "passed", "error", "passed", "passed"]
    assert crashing["verdict"] == "passed"
    assert [round(bound, 2) for bound in crashing["interval"]] == [0.38, 0.96]
    assert by_test["test_bot.py::test_below_floor"]["verdict"] == "failed"
    # every run's assertion is in the assertion report too
    assert document["summary"]["total"] == 10 + 10 + 4
    # the typed report reads back exactly what the session wrote (plain or through xdist)
    assert check_document(document).to_json() == document

    properties = {
        case.get("name"): [
            json.loads(prop.get("value", ""))
            for prop in case.iter("property")
            if prop.get("name") == "semantic_runs"
        ]
        for case in ET.parse(project.path / "junit.xml").getroot().iter("testcase")
    }
    assert properties["test_at_floor"] == [
        {
            key: value
            for key, value in by_test["test_bot.py::test_at_floor"].items()
            if key != "nodeid"
        }
    ]
    assert properties["test_below_floor"][0]["min_pass_rate"] == 0.9


def test_option_and_ini_repeat_tests_that_make_semantic_assertions(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_option="""
        import pytest
        from semantix import FakeJudge, assert_semantic

        JUDGE = FakeJudge(lambda output, intent: 0.9, name="KeywordJudge")
        calls = {"semantic": 0, "plain": 0, "marked": 0}

        def test_semantic():
            calls["semantic"] += 1
            assert_semantic("Thank you", "The text is polite.", judge=JUDGE)

        def test_plain():
            calls["plain"] += 1

        @pytest.mark.semantic(runs=2, judge=JUDGE)
        def test_marker_runs_win():
            calls["marked"] += 1
            assert_semantic("Thank you", "The text is polite.")

        def test_zz_counts():
            assert calls == {"semantic": 3, "plain": 1, "marked": 2}
        """
    )
    result = run(project, "--semantic-runs", "3")
    result.assert_outcomes(passed=4)
    project.makeini("[pytest]\nsemantic_runs = 3\n")
    result = run(project)
    result.assert_outcomes(passed=4)


STRUCTURAL = """
import os
import pytest
from semantix import FakeJudge, Intent, assert_semantic
from semantix.checks import Contains, JSONPath

JUDGE = FakeJudge(lambda output, intent: 0.9, name="KeywordJudge")

def called(name):  # a log shared by xdist workers
    with open(os.environ["CALLS_LOG"], "a") as log:
        log.write(name + "\\n")

class Polite(Intent):
    \"\"\"The text is polite.\"\"\"

def test_structural():
    called("structural")
    assert_semantic('{"status": "ok"}', JSONPath("$.status", equals="ok") & Contains("ok"))

def test_structural_failing():
    called("failing")
    assert_semantic("no refund here", Contains("refund window"))

def test_mixed():
    called("mixed")
    assert_semantic("Thank you, refund sent", Contains("refund") & Polite, judge=JUDGE)

@pytest.mark.semantic(runs=2)
def test_marker_repeats_structural_anyway():
    called("marked")
    assert_semantic("refund", Contains("refund"))
"""


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_semantic_runs_runs_a_test_of_structural_checks_once_and_says_so(
    project: pytest.Pytester, plugin_args: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Structural checks on the same output cannot vary: repeating them proves nothing, and
    their 3/3 would read "not proven at its floor" (issue 34, item 15)."""
    project.makepyfile(test_det=STRUCTURAL)
    log = project.path / "calls.log"
    monkeypatch.setenv("CALLS_LOG", str(log))
    result = run(
        project,
        *plugin_args,
        "--semantic-runs",
        "3",
        "--semantic-report",
        "--semantic-report-json=r.json",
    )
    result.assert_outcomes(passed=3, failed=1)
    calls = log.read_text().split()
    assert {name: calls.count(name) for name in set(calls)} == {
        "structural": 1,
        "failing": 1,
        "mixed": 3,
        "marked": 2,
    }
    result.stdout.re_match_lines(
        [
            r"-+ semantic runs -+",
            r"test_det\.py::test_marker_repeats_structural_anyway +2 +2 .* PASS$",
            r"test_det\.py::test_mixed +3 +3 .* PASS$",
            r"stability 1\.00 \(mean pass rate\) over 2 repeated tests",
            (
                r"2 tests ran once: every check in the first run was structural \(decided without a "
                r"judge\), so repeating proves nothing; @pytest\.mark\.semantic\(runs=N\) repeats one "
                r"anyway: test_det\.py::test_structural, test_det\.py::test_structural_failing$"
            ),
        ]
    )
    section = json.loads((project.path / "r.json").read_text(encoding="utf-8"))["runs"]
    assert section["once"] == [
        "test_det.py::test_structural",
        "test_det.py::test_structural_failing",
    ]
    assert [test["nodeid"] for test in section["tests"]] == [
        "test_det.py::test_marker_repeats_structural_anyway",
        "test_det.py::test_mixed",
    ]


def test_a_plain_assert_or_a_crash_is_an_error_and_every_run_erring_raises_the_first(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_errors="""
        import itertools
        import pytest
        from semantix import FakeJudge, assert_semantic

        JUDGE = FakeJudge(lambda output, intent: 0.9)
        count = itertools.count(1)

        @pytest.mark.semantic(runs=3, judge=JUDGE, min_pass_rate=0.0)
        def test_always_crashes():
            raise RuntimeError("the bot is down")

        @pytest.mark.semantic(runs=4, judge=JUDGE, min_pass_rate=0.75)
        def test_plain_assert_counts_as_an_error():
            run = next(count)
            assert_semantic("Thank you", "The text is polite.")
            assert run % 2, "plain assert failed"
        """
    )
    result = run(project)
    result.assert_outcomes(failed=2)
    result.stdout.fnmatch_lines(["E       RuntimeError: the bot is down"])
    result.stdout.fnmatch_lines(
        [
            "*pass rate: 2/4 = 50% (floor 75%)",
            "*runs: 2 passed, 0 failed, 2 errors*",
            "*#2 ERROR AssertionError: plain assert failed*",
            "*#4 ERROR AssertionError: plain assert failed*",
        ]
    )


def test_bad_runs_and_floors_are_clear_errors_never_a_pass(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_bad="""
        import pytest
        from semantix import FakeJudge, assert_semantic

        JUDGE = FakeJudge(lambda output, intent: 0.9)

        def check():
            assert_semantic("Thank you", "The text is polite.", judge=JUDGE)

        @pytest.mark.semantic(runs=0)
        def test_zero_runs():
            check()

        @pytest.mark.semantic(runs=2.5)
        def test_fractional_runs():
            check()

        @pytest.mark.semantic(runs=3, min_pass_rate=1.5)
        def test_floor_above_one():
            check()

        @pytest.mark.semantic(min_pass_rate=0.5)
        def test_floor_without_runs():
            check()

        @pytest.mark.semantic(runs=3)
        def test_no_semantic_assertion():
            assert True
        """
    )
    result = run(project)
    result.assert_outcomes(errors=4, failed=1)
    result.stdout.fnmatch_lines_random(
        [
            (
                "*test_zero_runs: @pytest.mark.semantic(runs=0): runs must be a whole number "
                ">= 1, got 0 (int); write e.g. @pytest.mark.semantic(runs=10)"
            ),
            (
                "*test_fractional_runs: @pytest.mark.semantic(runs=2.5): runs must be a whole "
                "number >= 1, got 2.5 (float)*"
            ),
            (
                "*test_floor_above_one: @pytest.mark.semantic(min_pass_rate=1.5): min_pass_rate "
                "must be between 0 and 1 inclusive, got 1.5; pass e.g. "
                "@pytest.mark.semantic(runs=10, min_pass_rate=0.8)"
            ),
            (
                "*test_floor_without_runs: @pytest.mark.semantic(min_pass_rate=0.5) without "
                "runs=*write e.g. @pytest.mark.semantic(runs=10, min_pass_rate=0.5)*"
            ),
            (
                "*test_no_semantic_assertion: @pytest.mark.semantic(runs=3) on a test that makes "
                "no semantic assertion*"
            ),
        ]
    )


@pytest.mark.parametrize(
    ("args", "ini", "message"),
    [
        (
            ["--semantic-runs", "0"],
            None,
            (
                "--semantic-runs '0' is not a number of runs (a whole number >= 1); write e.g. "
                "--semantic-runs 5"
            ),
        ),
        (
            [],
            "semantic_runs = many",
            (
                "ini option semantic_runs = 'many' is not a number of runs (a whole number >= 1); "
                "write e.g. semantic_runs = 5"
            ),
        ),
        (
            ["--semantic-timeout", "0"],
            None,
            (
                "--semantic-timeout '0' is not a positive number of seconds; write e.g. "
                "--semantic-timeout 30"
            ),
        ),
        (
            [],
            "semantic_timeout = soon",
            (
                "ini option semantic_timeout = 'soon' is not a positive number of seconds; "
                "write e.g. semantic_timeout = 30"
            ),
        ),
    ],
)
def test_bad_option_is_a_usage_error(
    project: pytest.Pytester, args: list[str], ini: str | None, message: str
) -> None:
    project.makepyfile(test_one="def test_one():\n    pass\n")
    if ini is not None:
        project.makeini(f"[pytest]\n{ini}\n")
    result = run(project, *args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines([f"*{message}"])


def test_fixtures_are_shared_by_the_runs_and_a_factory_gives_a_fresh_object(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_fixtures="""
        import pytest
        from semantix import FakeJudge, assert_semantic

        JUDGE = FakeJudge(lambda output, intent: 0.9)
        seen = {"shared": [], "fresh": []}

        @pytest.fixture
        def chat():
            return []

        @pytest.fixture
        def new_chat():
            return lambda: []

        @pytest.mark.semantic(runs=3, judge=JUDGE)
        def test_shared(chat):
            chat.append("hi")
            seen["shared"].append(len(chat))
            assert_semantic("Thank you", "The text is polite.")

        @pytest.mark.semantic(runs=3, judge=JUDGE)
        def test_fresh(new_chat):
            chat = new_chat()
            chat.append("hi")
            seen["fresh"].append(len(chat))
            assert_semantic("Thank you", "The text is polite.")

        def test_zz_seen():
            assert seen == {"shared": [1, 2, 3], "fresh": [1, 1, 1]}
        """
    )
    run(project).assert_outcomes(passed=3)


def test_github_step_summary_gets_a_markdown_table(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = project.path / "summary.md"
    summary.write_text("# earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    project.makepyfile(test_bot=SUITE)
    run(project, "-n", "2").assert_outcomes(passed=2, failed=1)
    text = summary.read_text()
    assert text.startswith("# earlier step\n")
    assert "| test | runs | passes | errors | pass rate | 95% interval | floor | verdict |" in text
    assert (
        "| `test_bot.py::test_below_floor` | 10 | 8 | 0 | 0.80 | [0.49, 0.94] | 0.90 | FAIL |"
        in (text)
    )
    assert "Stability 0.80 (mean pass rate) over 3 repeated tests" in text


def test_assert_pass_rate_inside_a_test_is_reported(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_rate="""
        from semantix import FakeJudge
        from semantix.testing import assert_pass_rate

        JUDGE = FakeJudge(lambda output, intent: 0.9)

        def test_rate():
            assert_pass_rate(lambda: "Thank you", "The text is polite.", runs=4, judge=JUDGE)
        """
    )
    result = run(project, "--semantic-report", "--semantic-report-json=report.json")
    result.assert_outcomes(passed=1)
    tests = json.loads((project.path / "report.json").read_text())["runs"]["tests"]
    assert [(test["nodeid"], test["name"], test["passes"]) for test in tests] == [
        ("test_rate.py::test_rate", "'The text is polite.'", 4)
    ]
    result.stdout.re_match_lines(
        [r"test_rate\.py::test_rate \('The text is polite\.'\) +4 +4 +0 +1\.00 +\[0\.51, 1\.00\]"]
    )
