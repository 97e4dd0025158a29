"""Runs are data (issue 42 §2, issue 44): one outcome rule counted with the test's outcome,
every test listed, crashes before the first assertion are regressions, stable pairing, and a
merge that is one run's shards once. Each test here failed before its fix."""

from __future__ import annotations

import json
import os
import sys
import xml.etree.ElementTree as ET
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run as cli
from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.checks import Contains
from semantix.report._compare import compare
from semantix.report._compare_views import detail, markdown, text_lines
from semantix.report._html import render
from semantix.report._merge import merge_reports
from semantix.report._model import to_json
from semantix.report._records import json_document, result_record
from semantix.report._runs import run_record, runs_section
from semantix.report._schema import REPORT_VERSION, ReportDocumentError, check_document, load_report
from semantix.runs import evaluate_pass_rate

PROJECT = '''
import os
import pytest
from semantix import FakeJudge, Intent, SemanticAssertionError, assert_pass_rate, assert_semantic

CAND = os.environ.get("RUN") == "cand"

def score(output, description):
    if "boom" in output:
        raise RuntimeError("the judge broke, key " + os.environ["OPENAI_API_KEY"])
    return 0.9 if "thank" in output.lower() else 0.2

JUDGE = FakeJudge(score, name="KeywordJudge")
pytestmark = pytest.mark.semantic(judge=JUDGE)

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def agent():
    if CAND:
        raise RuntimeError("the agent crashed")
    return "Thank you!"

def test_crash():
    assert_semantic(agent(), Polite)

@pytest.mark.xfail(reason="rude for now")
def test_xfail():
    assert_semantic("Go away." if CAND else "Thank you!", Polite)
'''

GREEN = '''
import itertools
import pytest
from semantix import FakeJudge, Intent, JudgeError, SemanticAssertionError, assert_pass_rate
from semantix import assert_semantic

JUDGE = FakeJudge(lambda output, description: 0.9 if "thank" in output.lower() else 0.2,
                  name="KeywordJudge")
pytestmark = pytest.mark.semantic(judge=JUDGE)

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def test_expected_to_fail():
    with pytest.raises(SemanticAssertionError):
        assert_semantic("Go away.", Polite)

def test_expected_to_raise():
    with pytest.raises(JudgeError):
        assert_semantic("boom", Polite, judge=FakeJudge(lambda o, d: 1 / 0, name="Broken"))

replies = itertools.cycle(["Thank you."] * 8 + ["Go away."] * 2)

def test_pass_rate():
    assert_pass_rate(lambda: next(replies), Polite, runs=10, min_pass_rate=0.8)
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), *sys.path]))
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-secret-0123456789abcdef")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    pytester.makepyfile(test_app=PROJECT, test_green=GREEN)
    return pytester


def pytest_run(project: pytest.Pytester, *args: str, side: str = "base") -> pytest.RunResult:
    os.environ["RUN"] = side
    try:
        return project.runpytest_subprocess("-p", "no:cacheprovider", *args)
    finally:
        del os.environ["RUN"]


def test_compare_and_the_baseline_count_a_crash_as_a_regression_and_an_xfail_as_neither(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest_run(project, "test_app.py", "--semantic-report-json", "base.json")
    result = pytest_run(
        project,
        "test_app.py",
        "--semantic-report-json",
        "cand.json",
        "--semantic-baseline",
        "base.json",
        side="cand",
    )
    result.stdout.fnmatch_lines(["REGRESSION test_app.py::test_crash  Polite  passed -> failed*"])
    assert "test_xfail" not in result.stdout.str().split("semantic baseline")[1]
    cand = json.loads((project.path / "cand.json").read_text(encoding="utf-8"))
    # the crashed test is listed although it made no assertion
    assert {t["nodeid"]: t["outcome"] for t in cand["tests"]}["test_app.py::test_crash"] == (
        "failed"
    )
    capsys.readouterr()
    root = project.path
    status, out, _ = cli(capsys, "compare", str(root / "base.json"), str(root / "cand.json"))
    assert status == 1
    assert "1 regression, 0 fixes, 0 new, 0 removed over 2 paired" in out
    assert "the test failed before making this assertion" in out


def test_a_green_run_reads_green_with_what_happened_inside_visible(
    project: pytest.Pytester,
) -> None:
    result = pytest_run(
        project,
        "test_green.py",
        "--semantic-report",
        "--semantic-report-json=report.json",
        "--semantic-report-html=report.html",
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(
        ["CAUGHT: the check*", "12 semantic assertions: 8 passed, 0 failed, 0 errors, 4 caught"]
    )
    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    summary = document["summary"]
    assert (summary["failed"], summary["errors"], summary["caught"]) == (0, 0, 4)
    caught = [(r["outcome"], r["test_outcome"]) for r in document["assertions"][:2]]
    assert caught == [("failed", "passed"), ("error", "passed")]  # what happened, kept
    page = (project.path / "report.html").read_text(encoding="utf-8")
    assert ">FAIL<" not in page and ">ERROR<" not in page and ">CAUGHT<" in page


def test_an_inner_pass_rate_is_one_passing_assertion_of_each_outer_run(
    project: pytest.Pytester,
) -> None:
    result = pytest_run(
        project, "test_green.py::test_pass_rate", "--semantic-runs", "3", "--semantic-report"
    )
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines([r"test_green\.py::test_pass_rate +3 +3 +0 +1\.00 .* PASS"])


def test_a_judge_errors_secret_is_masked_in_the_terminal_and_junit(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_secret="""
from test_app import JUDGE, Polite
from semantix import assert_semantic

def test_boom():
    assert_semantic("boom", Polite, judge=JUDGE)
"""
    )
    result = pytest_run(project, "test_secret.py", "--junitxml=junit.xml")
    result.assert_outcomes(failed=1)
    assert "sk-test-secret-0123456789abcdef" not in result.stdout.str()
    assert "the judge broke" in result.stdout.str()
    junit = (project.path / "junit.xml").read_text(encoding="utf-8")
    assert "sk-test-secret" not in junit and "the judge broke" in junit
    ET.fromstring(junit)


def test_the_report_carries_its_run_id(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("SEMANTIX_RUN_ID", "nightly-7")
    pytest_run(project, "test_green.py", "--semantic-report-json=report.json")
    capsys.readouterr()
    status, _, err = cli(capsys, "report", "merge", "report.json", "./report.json", "-o", "m.json")
    assert status == 2 and "are the same file" in err
    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    assert document["version"] == REPORT_VERSION
    assert (document["meta"]["run_id"], document["meta"]["shard"]) == ("nightly-7", None)


def test_no_report_is_written_over_the_baseline_or_a_compared_file(
    project: pytest.Pytester, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest_run(project, "test_green.py", "--semantic-report-json=base.json")
    before = (project.path / "base.json").read_bytes()
    result = pytest_run(
        project,
        "test_green.py",
        "--semantic-report-json=base.json",
        "--semantic-baseline=base.json",
    )
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*--semantic-report-json *base.json' is the --semantic-baseline file*"]
    )
    result = pytest_run(project, "test_green.py", "--semantic-report-html=r.x", "--junitxml=r.x")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*--junitxml 'r.x' is the --semantic-report-html file*"])
    base = str(project.path / "base.json")
    capsys.readouterr()
    status, _, err = cli(capsys, "compare", base, base, "--html", base)
    assert status == 2 and "is one of the reports to compare" in err
    assert (project.path / "base.json").read_bytes() == before


# --- on hand-written reports ----------------------------------------------------------------


def record(nodeid: str, outcome: str, intent: str = "Polite") -> dict[str, Any]:
    return {"nodeid": nodeid, "outcome": outcome, "intent": intent, "judge": "J", "leaves": []}


def report(*records: dict[str, Any], **sections: Any) -> dict[str, Any]:
    return {"version": 3, "assertions": list(records), **sections}


def test_intents_whose_names_hold_memory_addresses_pair_between_runs() -> None:
    name = "CalledTool('refund', args={{'id': functools.partial(<function f at {}>, 'A')}})"
    comparison = compare(
        report(record("t.py::a", "passed", name.format("0x7f27a1b2c3d0"))),
        report(record("t.py::a", "failed", name.format("0x7f5500aa11e0"))),
    )
    assert [flip.kind for flip in comparison.flips] == ["regression"]
    assert comparison.failed("regressions")
    mock = "Satisfies(<Mock id='{}'>)"
    comparison = compare(
        report(record("t.py::a", "passed", mock.format(140233))),
        report(record("t.py::a", "error", mock.format(139872))),
    )
    assert [flip.kind for flip in comparison.flips] == ["regression"]


def test_a_branch_run_once_against_a_repeated_baseline_shows_its_failures() -> None:
    runs = {"tests": [{"nodeid": "t.py::r", "name": "t.py::r", "runs": 10, "passes": 10}]}
    runs["tests"][0] |= {"verdict": "passed", "min_pass_rate": 0.8}
    base = report(*(record("t.py::r", "passed") for _ in range(10)), runs=runs)
    comparison = compare(base, report(record("t.py::r", "failed")))
    (rate,) = comparison.rates
    assert (rate.base, rate.candidate) == ((10, 10), (0, 1))
    assert rate.regression and rate.worse
    assert comparison.failed("regressions") and comparison.failed("significant")


def test_relations_and_compare_share_the_rate_rule() -> None:
    from semantix._proportions import rate_change

    runs = [{"nodeid": "t.py::r", "runs": 10, "verdict": "passed", "min_pass_rate": 0.5}]
    base = report(runs={"tests": [{**runs[0], "passes": 10}]})
    cand = report(runs={"tests": [{**runs[0], "passes": 6}]})
    (rate,) = compare(base, cand).rates
    assert rate.worse and rate_change((10, 10), (6, 10)) == "worse"


def test_markdown_escapes_markup_from_model_text() -> None:
    failed = {**record("t.py::a", "error"), "error": "JudgeError: <!-- hidden"}
    text = markdown(compare(report(record("t.py::a", "passed")), report(failed)))
    assert "<!--" not in text and "&lt;!-- hidden" in text


def test_a_report_claiming_more_passes_than_runs_is_an_error_naming_file_and_field(
    tmp_path: Path,
) -> None:
    test = {"nodeid": "t.py::r", "runs": 10, "passes": 12, "verdict": "passed"}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(report(runs={"tests": [test | {"min_pass_rate": 0.8}]})))
    with pytest.raises(ReportDocumentError, match=r"bad\.json.*runs\.tests\[0\]\.passes is 12"):
        load_report(path)


def test_older_repeated_tests_without_derived_fields_merge() -> None:
    test = {"nodeid": "t.py::r", "runs": 10, "passes": 9, "verdict": "pass", "min_pass_rate": 0.8}
    merged = merge_reports([("a.json", report(runs={"tests": [test]}))]).to_json()
    assert merged["runs"]["tests"][0]["pass_rate"] == 0.9
    assert merged["runs"]["stability"] == 0.9


def shard(nodeid: str, run_id: str = "r1", number: str | None = "1/2") -> dict[str, Any]:
    meta = {"judges": ["J"], "verdicts_mode": "off", "run_id": run_id, "shard": number}
    return {"version": REPORT_VERSION, "meta": meta, "assertions": [record(nodeid, "passed")]}


@pytest.mark.parametrize(
    ("shards", "message"),
    [
        ([("a.json", shard("t.py::a")), ("a.json", shard("t.py::a"))], "given more than once"),
        (
            [("a.json", shard("t.py::a")), ("b.json", shard("t.py::b"))],
            "are both shard 1/2: the same shard twice",
        ),
        (
            [("a.json", shard("t.py::a")), ("b.json", shard("t.py::b", "r2", "2/2"))],
            "different runs",
        ),
        ([("a.json", shard("t.py::a"))], "shard 2/2 of the run is missing"),
        (
            [("a.json", shard("t.py::a")), ("b.json", shard("t.py::a", number="2/2"))],
            "test 't.py::a' is in both",
        ),
    ],
)
def test_a_merge_is_one_runs_shards_once(
    shards: list[tuple[str, dict[str, Any]]], message: str
) -> None:
    with pytest.raises(ReportDocumentError, match=message):
        merge_reports(shards)


def test_a_relation_test_in_two_shards_is_refused() -> None:
    result = {"nodeid": "t.py::rel", "relation": "Paraphrase", "case_id": "c1"}
    result |= {"applicable": True, "violations": 0, "judged": 1, "errors": 0, "rate": 0.0}
    a, b = shard("t.py::a"), shard("t.py::b", number="2/2")
    for document in (a, b):
        document["relations"] = {"results": [result]}
    with pytest.raises(ReportDocumentError, match="test 't.py::rel' is in both"):
        merge_reports([("a.json", a), ("b.json", b)])


def test_one_runs_shards_merge_into_the_whole_run() -> None:
    merged = merge_reports(
        [("a.json", shard("t.py::a")), ("b.json", shard("t.py::b", number="2/2"))]
    )
    assert (merged.meta.run_id, merged.meta.shard) == ("r1", None)
    assert merged.summary.total == 2


# --- a score beside a threshold says why a failure on its passing side failed (issue 45) ------


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


CLOSE = FakeJudge(lambda o, d: Verdict(passed=False, score=0.9, reason="close to a counterexample"))


def test_a_failure_on_the_passing_side_shows_its_reason_everywhere() -> None:
    result = evaluate_semantic("hi", Polite, judge=CLOSE)
    assert result.leaves[0].summary == "Polite=0.90/0.50 (close to a counterexample)"
    stats = evaluate_pass_rate(lambda: "hi", Polite, runs=2, judge=CLOSE)
    assert "Polite=0.90/0.50 (close to a counterexample)" in stats.explain()
    leaf = to_json(result_record(result, "t").leaves[0])
    base = {**record("t.py::a", "passed"), "leaves": [{**leaf, "passed": True}]}
    failed = {**record("t.py::a", "failed"), "leaves": [leaf]}
    (flip,) = compare(report(base), report(failed)).flips
    assert "0.90/0.50 failed (close to a counterexample)" in detail(flip)
    page = render(json_document([result_record(result, "t.py::a")]))
    assert "t.py::a: 0.900 failed: close to a counterexample" in page


def test_a_passing_result_does_not_explain_itself_as_a_failure() -> None:
    passed = evaluate_semantic("thanks", Polite, judge=FakeJudge(lambda o, d: 0.9))
    assert passed.explain().splitlines()[0] == (
        "Semantic check passed (score=0.90): the output satisfies Polite"
    )


def test_a_structural_leaf_in_a_repeated_run_shows_its_reason() -> None:
    stats = evaluate_pass_rate(lambda: "hello", Contains("refund"), runs=2)
    assert "Contains('refund'): 'refund' not found" in stats.explain()
    assert "0.00/1.00" not in stats.explain()


def test_the_step_summarys_table_escapes_markup_in_names() -> None:
    from semantix.report._runs import markdown_lines

    stats = evaluate_pass_rate(lambda: "hello", Contains("hello"), runs=2)
    record = replace(run_record(stats, "t.py::test_x"), name="Satisfies(<function f at 0x1>)")
    table = "\n".join(markdown_lines([record]))
    assert "<function" not in table and "&lt;function f at 0x1>" in table


def test_assertions_a_failed_check_left_unreached_are_removed_not_regressions() -> None:
    tests = [{"nodeid": "t.py::a", "outcome": "failed"}]
    base = report(record("t.py::a", "passed"), record("t.py::a", "passed", "Short"))
    after_crash = report(record("t.py::a", "passed"), tests=tests)  # raised after the first
    after_failure = report(record("t.py::a", "failed"), tests=tests)  # the first one failed
    crashed, failed = compare(base, after_crash), compare(base, after_failure)
    assert [(f.kind, f.intent) for f in crashed.flips] == [("regression", "Short")]
    assert [(f.kind, f.intent) for f in failed.flips] == [
        ("regression", "Polite"),
        ("removed", "Short"),
    ]


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        found += [p for key, item in value.items() for p in _paths(item, (*path, key))]
    elif isinstance(value, list):
        found += [p for index, item in enumerate(value[:2]) for p in _paths(item, (*path, index))]
    return found


def test_a_damaged_field_is_refused_by_name_never_a_crash_of_a_reader() -> None:
    """Every field of a real report, replaced by a value of another type or removed: the loader
    refuses it naming the field, or render, merge and compare all read it (issue 44: merge's
    ``error: 'pass_rate'``)."""
    polite = evaluate_semantic("thanks", Polite, judge=FakeJudge(lambda o, d: 0.9))
    stats = evaluate_pass_rate(lambda: "hi", Polite, runs=3, judge=FakeJudge(lambda o, d: 0.9))
    relation = {"nodeid": "t.py::r", "relation": "R", "case_id": "c", "applicable": True}
    relation |= {"violations": 0, "judged": 1, "errors": 0, "rate": 0.0}
    sections = {
        "tests": [{"nodeid": "t.py::a", "outcome": "passed", "reason": None}],
        "runs": runs_section([run_record(stats, "t.py::s")]),
        "relations": {"results": [relation], "summary": []},
    }
    meta = {"judges": ["J"], "run_id": "r", "judge_cost": {"verdicts": 1, "usd": None}}
    document = json.loads(
        json.dumps(json_document([result_record(polite, "t.py::a")], meta=meta, sections=sections))
    )
    damaged = 0
    for path in _paths(document):
        for value in ("x", 1.5, -1, None, [], {}, True, float("nan"), "<removed>"):
            copy = json.loads(json.dumps(document))
            *parents, last = path
            holder = copy
            for key in parents:
                holder = holder[key]
            if value == "<removed>" and isinstance(holder, dict):
                del holder[last]
            else:
                holder[last] = value
            try:
                checked = check_document(copy)
            except ReportDocumentError:
                damaged += 1
                continue
            render(checked)
            merge_reports([("a.json", checked)])
            comparison = compare(checked, document)
            markdown(comparison), text_lines(comparison)
    assert damaged > 100  # the loader refused most of them, by name
