"""``semantix compare``: two real pytest runs of one project (tests/compare_project.py), compared
in every format and exit-code mode; the pairing rules on small hand-written reports."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from statsmodels.stats.proportion import confint_proportions_2indep

from cli_helpers import run
from compare_project import run_side, write_project
from semantix.report._compare import compare
from semantix.report._compare_views import html_page, markdown, text_lines


@pytest.fixture(scope="module")
def reports(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The project's JSON reports: the baseline's judge, then the candidate's."""
    root = tmp_path_factory.mktemp("compare-project")
    write_project(root)
    paths = []
    for side in ("base", "cand"):
        done = run_side(root, side, "--semantic-report-json", f"{side}.json")
        assert done.returncode == 1, done.stdout + done.stderr  # some tests fail in each run
        paths.append(root / f"{side}.json")
    return paths[0], paths[1]


def test_text_lists_regressions_first_with_mcnemar_and_the_repeated_test(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path]
) -> None:
    base, cand = reports
    status, out, err = run(capsys, "compare", str(base), str(cand))
    assert (status, err) == (1, "")  # regressions, the default --fail-on
    lines = out.splitlines()
    assert lines[0] == f"semantix compare: {base} -> {cand}"
    assert lines[1] == (
        "3 regressions, 1 fix, 1 new, 1 removed over 8 paired assertions; McNemar exact p = 0.625 "
        "(3 regressions vs 1 fix); 1 repeated test: 1 significantly worse, 0 significantly "
        "better; 1 of the pairs judged by another judge (not like for like)"
    )
    assert lines[2] == "regressions (3):"
    assert lines[3].startswith("  test_app.py::test_boom  Polite  passed -> error  Polite ")
    assert "JudgeError: judge KeywordJudge raised RuntimeError" in lines[3]
    assert lines[4] == (
        "  test_app.py::test_sorry  Polite  passed -> failed  Polite 0.90/0.50 passed -> "
        "0.10/0.50 failed"
    )
    assert lines[5].startswith("  test_app.py::test_twice  Polite #2  passed -> failed")
    assert lines[6:8] == [
        "repeated tests (1):",
        (
            "  test_app.py::test_flaky  20/20 = 1.00 [0.84, 1.00] -> 10/20 = 0.50 [0.30, 0.70]  "
            "difference -0.50 [-0.70, -0.24] significant"
        ),
    ]
    assert lines[8:10] == [
        "fixes (1):",
        (
            "  test_app.py::test_please  Polite  failed -> passed  Polite 0.10/0.50 failed -> "
            "0.90/0.50 passed"
        ),
    ]
    assert lines[10:] == [
        "new (1):",
        "  test_app.py::test_new  Polite  failed  Polite 0.10/0.50 failed",
        "removed (1):",
        "  test_app.py::test_removed  Polite  passed  Polite 0.90/0.50 passed",
        "judged by another judge (1):",
        (
            "  test_app.py::test_marked  Polite  passed -> passed  Polite 0.90/0.50 passed -> "
            "0.90/0.50 passed; judge changed: MarkedA -> MarkedB (not like for like)"
        ),
    ]


@pytest.mark.parametrize(
    ("order", "fail_on", "status"),
    [
        ("forward", "regressions", 1),
        ("forward", "significant", 1),  # the repeated test's difference lies below 0
        ("forward", "never", 0),
        ("reverse", "regressions", 1),  # test_please regresses the other way round
        ("reverse", "significant", 0),  # better, significantly: not a failure
        ("same", "regressions", 0),
        ("same", "significant", 0),
    ],
)
def test_fail_on_sets_the_exit_status(
    capsys: pytest.CaptureFixture[str],
    reports: tuple[Path, Path],
    order: str,
    fail_on: str,
    status: int,
) -> None:
    base, cand = reports
    pair = {"forward": (base, cand), "reverse": (cand, base), "same": (base, base)}[order]
    got, _, err = run(capsys, "compare", *map(str, pair), "--fail-on", fail_on)
    assert (got, err) == (status, "")


def test_markdown_fits_a_pull_request_comment(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path]
) -> None:
    status, out, _ = run(capsys, "compare", *map(str, reports), "--format", "markdown")
    assert status == 1
    lines = out.splitlines()
    assert lines[0].startswith("**semantix compare** (worse): 3 regressions, 1 fix, 1 new,")
    headings = [line for line in lines if line.startswith(("####", "<details>"))]
    assert headings == [
        "#### Regressions (3)",
        "#### Repeated tests (1)",
        "<details><summary>Fixes (1)</summary>",
        "<details><summary>New (1)</summary>",
        "<details><summary>Removed (1)</summary>",
        "<details><summary>Judged by another judge (1)</summary>",
    ]
    table = lines.index("#### Regressions (3)")
    assert lines[table + 2 : table + 4] == [
        "| test | intent | outcome | what changed |",
        "|---|---|---|---|",
    ]
    assert lines[table + 5] == (
        "| `test_app.py::test_sorry` | Polite | passed -> failed | Polite 0.90/0.50 passed -> "
        "0.10/0.50 failed |"
    )
    assert (
        "| `test_app.py::test_flaky` | 20/20 = 1.00 [0.84, 1.00] | 10/20 = 0.50 [0.30, 0.70] | "
        "-0.50 [-0.70, -0.24] significant |"
    ) in lines


def test_json_holds_every_flip_and_the_figures(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path]
) -> None:
    status, out, _ = run(capsys, "compare", *map(str, reports), "--format", "json")
    assert status == 1
    data = json.loads(out)
    assert data["mcnemar"] == {"regressions": 3, "fixes": 1, "p_value": 0.625}
    assert (data["paired"], data["judge_changes"], data["significant"]) == (8, 1, True)
    kinds = [
        (flip["kind"], flip["nodeid"].split("::")[1], flip["occurrence"]) for flip in data["flips"]
    ]
    assert kinds == [
        ("regression", "test_boom", 0),
        ("regression", "test_sorry", 0),
        ("regression", "test_twice", 1),
        ("fix", "test_please", 0),
        ("new", "test_new", 0),
        ("removed", "test_removed", 0),
        ("judge", "test_marked", 0),
    ]
    sorry = data["flips"][1]
    assert sorry["leaves"] == [
        {
            "intent": "Polite",
            "base": {
                "outcome": "passed",
                "score": 0.9,
                "threshold": 0.5,
                "reason": "fake score 0.900",
            },
            "candidate": {
                "outcome": "failed",
                "score": 0.1,
                "threshold": 0.5,
                "reason": "fake score 0.100",
            },
        }
    ]
    (flaky,) = data["repeated"]
    assert (flaky["base_passes"], flaky["candidate_passes"], flaky["difference"]) == (20, 10, -0.5)
    assert flaky["significant"] and not flaky["regression"]  # its verdict passes in both
    oracle = confint_proportions_2indep(10, 20, 20, 20, method="newcomb")
    assert flaky["difference_interval"] == pytest.approx(list(oracle), abs=2e-4)


def test_html_page_in_the_reports_style(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path], tmp_path: Path
) -> None:
    page = tmp_path / "compare.html"
    status, _, _ = run(capsys, "compare", *map(str, reports), "--html", str(page))
    assert status == 1
    html = page.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "--pass:#1a7f37" in html  # the report's CSS
    assert "<h2>Regressions (3)</h2>" in html and "<h2>Repeated tests (1)</h2>" in html
    assert (
        '<tr class="fail"><td class="id">test_<wbr>app.<wbr>py::<wbr>test_<wbr>sorry</td>' in html
    )
    missing = tmp_path / "no" / "such" / "page.html"
    status, out, err = run(capsys, "compare", *map(str, reports), "--html", str(missing))
    assert (status, out) == (2, "")
    assert "--html" in err and "does not exist" in err


def test_a_file_that_is_not_a_report_is_an_error_naming_it(
    capsys: pytest.CaptureFixture[str], reports: tuple[Path, Path], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text('{"version": 2, "assertions": [{"nodeid": 3}]}', encoding="utf-8")
    status, out, err = run(capsys, "compare", str(reports[0]), str(bad))
    assert (status, out) == (2, "")
    assert f"{str(bad)!r}: assertions[0].nodeid is 3" in err
    status, _, err = run(capsys, "compare", str(tmp_path / "missing.json"), str(bad))
    assert status == 2 and "cannot read the JSON report" in err and "missing.json" in err


# --- the rules, on hand-written reports ---------------------------------------------------


def record(nodeid: str, outcome: str, judge: str = "J", intent: str = "Polite") -> dict[str, Any]:
    return {"nodeid": nodeid, "outcome": outcome, "intent": intent, "judge": judge, "leaves": []}


def report(*records: dict[str, Any], runs: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    document: dict[str, Any] = {"version": 2, "assertions": list(records)}
    if runs is not None:
        document["runs"] = {"tests": runs}
    return document


def test_mcnemar_decides_significant_only_when_regressions_outnumber_fixes() -> None:
    six = [f"t.py::test_{i}" for i in range(6)]
    worse = compare(
        report(*(record(n, "passed") for n in six)), report(*(record(n, "failed") for n in six))
    )
    assert worse.p_value == 2 / 64 and worse.significant and worse.failed("significant")
    better = compare(
        report(*(record(n, "failed") for n in six)), report(*(record(n, "passed") for n in six))
    )
    assert better.p_value == 2 / 64 and not better.significant
    assert not better.failed("regressions") and not better.failed("never")
    five = compare(
        report(*(record(n, "passed") for n in six[:5])),
        report(*(record(n, "error") for n in six[:5])),
    )
    assert five.p_value == 2 / 32 and not five.significant  # 0.0625: not below 0.05
    assert five.failed("regressions")


def test_the_kth_assertion_of_an_intent_pairs_with_the_kth() -> None:
    base = report(
        record("t.py::a", "passed"),
        record("t.py::a", "passed"),
        record("t.py::a", "failed", intent="Short"),
    )
    cand = report(record("t.py::a", "passed"), record("t.py::a", "failed"))
    comparison = compare(base, cand)
    assert [(f.kind, f.label) for f in comparison.flips] == [
        ("regression", "Polite #2"),
        ("removed", "Short"),
    ]
    assert comparison.paired == 2
    assert repr(comparison.flips[0]) == "<Flip regression t.py::a Polite #2: passed -> failed>"
    assert repr(comparison).startswith("<Comparison 1 regression, 0 fixes, 0 new, 1 removed over 2")


def test_an_expected_failure_is_neither_a_regression_nor_a_fix() -> None:
    xfailed = {**record("t.py::a", "failed"), "test_outcome": "xfailed"}
    comparison = compare(report(record("t.py::a", "passed")), report(xfailed))
    assert comparison.flips == () and comparison.paired == 1
    assert not comparison.failed("regressions")


def test_repeated_tests_are_compared_by_rate_not_run_by_run() -> None:
    runs_base = [
        {"nodeid": "t.py::r", "name": "t.py::r", "runs": 10, "passes": 9, "verdict": "pass"}
    ]
    runs_cand = [
        {"nodeid": "t.py::r", "name": "t.py::r", "runs": 10, "passes": 4, "verdict": "fail"}
    ]
    base = report(*(record("t.py::r", "passed") for _ in range(10)), runs=runs_base)
    cand = report(
        *(record("t.py::r", "passed" if i < 4 else "failed") for i in range(10)), runs=runs_cand
    )
    comparison = compare(base, cand)
    assert comparison.flips == () and comparison.paired == 0  # its runs are not pairs
    (rate,) = comparison.rates
    assert rate.regression and rate.difference == pytest.approx(-0.5)
    assert comparison.failed("regressions")
    assert "repeated tests (1):" in [text for text, _ in text_lines(comparison)]
    assert "#### Repeated tests (1)" in markdown(comparison)
    assert "<h2>Repeated tests (1)</h2>" in html_page(comparison)


def test_markdown_tables_stop_at_their_row_limit() -> None:
    ids = [f"t.py::test_{i:02d}" for i in range(7)]
    comparison = compare(
        report(*(record(n, "passed") for n in ids)), report(*(record(n, "failed") for n in ids))
    )
    text = markdown(comparison, rows=5)
    assert text.count("| `t.py::test_") == 5
    assert "... and 2 more (semantix compare --format json lists all)" in text


def test_text_in_markdown_cannot_break_the_table() -> None:
    comparison = compare(
        report(record("t.py::a|b", "passed")), report(record("t.py::a|b", "failed"))
    )
    assert "| `t.py::a\\|b` |" in markdown(comparison)


# --- the HTML page reads on a 1,400 px screen (issue 45, item 11) ------------------------------


def _with_output(nodeid: str, outcome: str, output: str) -> dict[str, Any]:
    leaf = {"intent": "Polite", "score": 0.9 if outcome == "passed" else 0.1, "threshold": 0.5}
    leaf |= {"passed": outcome == "passed", "reason": "because " * 60}
    return {**record(nodeid, outcome), "output": output, "leaves": [leaf]}


def test_a_regression_shows_both_outputs_and_every_cell_wraps() -> None:
    nodeid = "tests/integration/agents/test_support_agent.py::test_refund_round_happy_path[gpt]"
    long_reply = "I am sorry, but refunds are not possible. " * 10
    comparison = compare(
        report(_with_output(nodeid, "passed", "Refunds take 5 days, thank you.")),
        report(_with_output(nodeid, "failed", long_reply)),
    )
    html = html_page(comparison)
    row = html[
        html.index('<tr class="fail">') : html.index("</tr>", html.index('<tr class="fail">'))
    ]
    assert '<dt>baseline output</dt><dd><span class="out">Refunds take 5 days, thank you.' in row
    assert '<dt>candidate output</dt><dd><details class="out">' in row  # long: folded
    assert "I am sorry, but refunds are not possible." in row
    # fixed column shares, long cells wrap anywhere, the test id between its parts
    assert '<table class="cmp"><colgroup>' in html
    assert "table.cmp{table-layout:fixed}table.cmp td{overflow-wrap:anywhere}" in html
    assert "agent.<wbr>py::<wbr>test_<wbr>refund_<wbr>round_" in row
    # the JSON stays the size of its flips: no outputs in it
    assert "base_output" not in json.dumps(comparison.to_dict())


def test_a_fix_shows_no_outputs() -> None:
    comparison = compare(
        report(_with_output("t.py::a", "failed", "Go away.")),
        report(_with_output("t.py::a", "passed", "Thank you!")),
    )
    assert "baseline output" not in html_page(comparison)


def test_names_defined_inside_a_test_read_without_locals_on_the_page() -> None:
    def named(outcome: str) -> dict[str, Any]:
        return record("t.py::a", outcome, intent="CalledTool('refund', args=test_x.<locals>.f)")

    html = html_page(compare(report(named("passed")), report(named("failed"))))
    assert "&lt;locals&gt;" not in html
    assert "args=f)</td>" in html
