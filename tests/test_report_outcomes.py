"""pytest's outcome of each test in every report (issue 34, item 2): a check that fails in an
xfailed test is an expected failure, one that passes in an xfail test that passed an unexpected
pass, one in a skipped test a skip — in the terminal, the JSON, JUnit, HTML and the stability
score, with and without xdist."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from semantix.cli import main
from semantix.report._schema import ReportDocumentError, check_document
from test_report_html import parse, rows

PLUGIN_ARGS = [
    pytest.param([], id="plain"),
    pytest.param(["-n", "2"], id="xdist-2"),
    pytest.param(["-p", "no:xdist"], id="no-xdist"),
]

SUITE = '''
import pytest
from semantix import FakeJudge, Intent, JudgeError, assert_semantic

def score(output, description):
    if "boom" in output:
        raise RuntimeError("the judge broke")
    return 0.9 if "thank" in output.lower() else 0.2

JUDGE = FakeJudge(score, name="KeywordJudge")
pytestmark = pytest.mark.semantic(judge=JUDGE)

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def test_pass():
    assert_semantic("Thank you!", Polite)

def test_fail():
    assert_semantic("Go away.", Polite)

@pytest.mark.xfail(reason="the bot is rude for now")
def test_xfail():
    assert_semantic("Thank you!", Polite)   # a check that passes: still a pass
    assert_semantic("Go away.", Polite)     # the expected failure

@pytest.mark.xfail(reason="the judge is broken")
def test_xfail_error():
    assert_semantic("boom", Polite)

@pytest.mark.xfail(reason="fixed since?")
def test_xpass():
    assert_semantic("Thank you!", Polite)

@pytest.mark.xfail(reason="must fail", strict=True)
def test_xpass_strict():
    assert_semantic("Thanks, thank you.", Polite)

def test_skipped_midway():
    assert_semantic("Thank you!", Polite)
    pytest.skip("no server for the rest")
'''

ORDER = [
    "test_fail",
    "test_pass",
    "test_skipped_midway",
    "test_xfail",
    "test_xfail",
    "test_xfail_error",
    "test_xpass",
    "test_xpass_strict",
]


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)  # our src too
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args)


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_expected_failures_unexpected_passes_and_skips_are_reported_apart(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_bot=SUITE)
    result = run(
        project,
        *plugin_args,
        "--semantic-report",
        "--semantic-report-json=report.json",
        "--semantic-report-html=report.html",
        "--junitxml=junit.xml",
    )
    result.assert_outcomes(passed=1, failed=2, skipped=1, xfailed=2, xpassed=1)
    # the terminal: each expected outcome by pytest's word, and counted apart
    result.stdout.re_match_lines(
        [
            r"test_bot\.py::test_fail +Polite +0\.20 +0\.50 +FAIL ",
            r"test_bot\.py::test_pass +Polite +0\.90 +0\.50 +PASS ",
            r"test_bot\.py::test_skipped_midway +Polite +0\.90 +0\.50 +SKIP ",
            r"test_bot\.py::test_xfail +Polite +0\.20-0\.90 +0\.50 +1/2 passed, XFAIL ",
            r"test_bot\.py::test_xfail_error +Polite +XFAIL ",
            r" +JudgeError: judge KeywordJudge raised RuntimeError",
            r"test_bot\.py::test_xpass +Polite +0\.90 +0\.50 +XPASS ",
            r"test_bot\.py::test_xpass_strict +Polite +0\.90 +0\.50 +XPASS ",
            (
                r"8 semantic assertions: 2 passed, 1 failed, 0 errors, 2 xfailed, 2 xpassed, "
                r"1 skipped$"
            ),
        ]
    )

    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    assert document["version"] == 4
    summary = document["summary"]
    assert {key: summary[key] for key in ("passed", "failed", "errors")} == {
        "passed": 2,
        "failed": 1,
        "errors": 0,
    }
    assert (summary["xfailed"], summary["xpassed"], summary["skipped"]) == (2, 2, 1)
    records = document["assertions"]
    assert [record["nodeid"].split("::")[1] for record in records] == ORDER
    # every record keeps the check's own outcome and gains its test's
    assert [(record["outcome"], record["test_outcome"]) for record in records] == [
        ("failed", "failed"),
        ("passed", "passed"),
        ("passed", "skipped"),
        ("passed", "xfailed"),
        ("failed", "xfailed"),
        ("error", "xfailed"),
        ("passed", "xpassed"),
        ("passed", "xpassed"),
    ]
    tests = {test["nodeid"].split("::")[1]: test for test in document["tests"]}
    assert {name: test["outcome"] for name, test in tests.items()} == {
        "test_fail": "failed",
        "test_pass": "passed",
        "test_skipped_midway": "skipped",
        "test_xfail": "xfailed",
        "test_xfail_error": "xfailed",
        "test_xpass": "xpassed",
        "test_xpass_strict": "xpassed",
    }
    assert tests["test_xfail"]["reason"] == "the bot is rude for now"
    assert tests["test_skipped_midway"]["reason"] == "Skipped: no server for the rest"
    assert "XPASS(strict)" in tests["test_xpass_strict"]["reason"]
    check_document(document)

    # JUnit: each record, with both outcomes, in its test case
    junit = {
        case.get("name"): [
            json.loads(prop.get("value", ""))
            for prop in case.iter("property")
            if prop.get("name") == "semantic"
        ]
        for case in ET.parse(project.path / "junit.xml").iter("testcase")
    }
    assert [(p["outcome"], p["test_outcome"]) for p in junit["test_xfail"]] == [
        ("passed", "xfailed"),
        ("failed", "xfailed"),
    ]
    assert [p["test_outcome"] for p in junit["test_skipped_midway"]] == ["skipped"]
    assert [p["test_outcome"] for p in junit["test_fail"]] == ["failed"]

    # HTML: failures first, expected failures and skips last; totals counted apart
    root = parse((project.path / "report.html").read_text(encoding="utf-8"))
    verdicts = [(row.find("td").text(), row.classes) for row in rows(root)]
    assert [word for word, _ in verdicts] == [
        "FAIL",
        "XPASS",
        "XPASS",
        "PASS",
        "PASS",
        "XFAIL",
        "XFAIL",
        "SKIP",
    ]
    assert [min(classes) for _, classes in verdicts][-3:] == ["xfail", "xfail", "skip"]
    totals = root.find("ul", **{"class": "totals"}).all_text().split()
    assert " ".join(totals) == (
        "8 assertions 2 passed 1 failed 0 errors 2 xfailed 2 xpassed 1 skipped"
    )
    assert "failing" in root.find("title").text() and "1 failing" in root.find("title").text()


REPEATED = '''
import itertools
import pytest
from semantix import FakeJudge, Intent, assert_semantic

JUDGE = FakeJudge(lambda output, intent: 0.1 if "Stop" in output else 0.9, name="KeywordJudge")

class Polite(Intent):
    """The text is polite."""

steady = itertools.cycle(["Thank you"]).__next__
broken = itertools.cycle(["Stop it."]).__next__

@pytest.mark.semantic(runs=4, judge=JUDGE)
def test_steady():
    assert_semantic(steady(), Polite)

@pytest.mark.xfail(reason="known rude")
@pytest.mark.semantic(runs=4, judge=JUDGE)
def test_known_broken():
    assert_semantic(broken(), Polite)
'''


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS[:2])
def test_an_xfailed_repeated_test_is_left_out_of_the_stability_score(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_rates=REPEATED)
    result = run(project, *plugin_args, "--semantic-report", "--semantic-report-json=r.json")
    result.assert_outcomes(passed=1, xfailed=1)
    result.stdout.re_match_lines(
        [
            r"test_rates\.py::test_known_broken +4 +0 +0 +0\.00 .* XFAIL$",
            r"test_rates\.py::test_steady +4 +4 +0 +1\.00 .* PASS$",
            (
                r"stability 1\.00 \(mean pass rate\) over 1 repeated test; 1 not proven at its "
                r"floor; 1 xfailed or skipped left out$"
            ),
        ]
    )
    section = json.loads((project.path / "r.json").read_text(encoding="utf-8"))["runs"]
    assert (section["stability"], section["below_floor"], section["left_out"]) == (1.0, 1, 1)
    assert [test["test_outcome"] for test in section["tests"]] == ["xfailed", "passed"]


# --- the previous version still reads ----------------------------------------------------------

VERSION_2 = {
    "version": 2,
    "meta": {"judges": ["KeywordJudge"], "verdicts_mode": "off"},
    "summary": {"total": 2, "passed": 1, "failed": 1, "errors": 0, "borderline": 0},
    "assertions": [
        {
            "nodeid": "t.py::test_a",
            "outcome": "passed",
            "intent": "Polite",
            "judge": "KeywordJudge",
            "passed": True,
            "leaves": [{"intent": "Polite", "score": 0.9, "threshold": 0.5, "passed": True}],
        },
        {
            "nodeid": "t.py::test_b",
            "outcome": "failed",
            "intent": "Polite",
            "judge": "KeywordJudge",
            "passed": False,
            "leaves": [{"intent": "Polite", "score": 0.2, "threshold": 0.5, "passed": False}],
        },
    ],
}


def test_a_version_2_report_still_renders(tmp_path: Path) -> None:
    source = tmp_path / "old.json"
    source.write_text(json.dumps(VERSION_2), encoding="utf-8")
    assert main(["report", str(source), "-o", str(tmp_path / "old.html")]) == 0
    root = parse((tmp_path / "old.html").read_text(encoding="utf-8"))
    assert [row.find("td").text() for row in rows(root)] == ["FAIL", "PASS"]
    totals = " ".join(root.find("ul", **{"class": "totals"}).all_text().split())
    assert totals == "2 assertions 1 passed 1 failed 0 errors"


def test_versions_newer_than_this_one_and_bad_outcomes_are_refused() -> None:
    with pytest.raises(ReportDocumentError, match="version 5, newer than this semantix reads"):
        check_document({"version": 5, "assertions": []})
    bad = {"version": 3, "assertions": [{"nodeid": "t::a", "test_outcome": "xfail"}]}
    with pytest.raises(ReportDocumentError, match=r"assertions\[0\]\.test_outcome is 'xfail'"):
        check_document(bad)
