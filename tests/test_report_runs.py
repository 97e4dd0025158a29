"""The repeated-tests section of the report: terminal table, Markdown, JSON, stability line."""

from __future__ import annotations

from semantix import FakeJudge, Intent
from semantix.report._model import RepeatedTest
from semantix.report._runs import (
    markdown_lines,
    run_lines,
    run_record,
    runs_section,
    stability_line,
)
from semantix.runs import RunStats, evaluate_pass_rate


class Polite(Intent):
    """The text must be polite."""


def records() -> list[RepeatedTest]:
    judge = FakeJudge(lambda output, intent: 0.1 if "Stop" in output else 0.9)
    replies = iter(["Thanks", "Stop it"] * 5)
    flaky = evaluate_pass_rate(
        lambda: next(replies), Polite, runs=10, min_pass_rate=0.5, judge=judge
    )
    steady = evaluate_pass_rate(lambda: "Thanks", Polite, runs=5, judge=judge)
    # A repeated test is named by its node id; an assert_pass_rate inside a test by its intent.
    flaky_test = RunStats("tests/test_bot.py::test_flaky[a|b]", flaky.results, 0.5)
    return [
        run_record(flaky_test, "tests/test_bot.py::test_flaky[a|b]"),
        run_record(steady, "tests/test_bot.py::test_rate"),
    ]


def test_terminal_table_and_stability_line() -> None:
    lines = run_lines(records(), width=200)
    texts = [text for text, _ in lines]
    assert texts[0].split() == [
        "test",
        "runs",
        "passes",
        "errors",
        "pass",
        "rate",
        "95%",
        "interval",
        "floor",
        "verdict",
    ]
    assert texts[1].split() == [
        "tests/test_bot.py::test_flaky[a|b]",
        "10",
        "5",
        "0",
        "0.50",
        "[0.24,",
        "0.76]",
        "0.50",
        "PASS",
    ]
    assert texts[2].startswith("tests/test_bot.py::test_rate (Polite)  ")
    assert texts[-1] == (
        "stability 0.75 (mean pass rate) over 2 repeated tests; 2 not proven at their floor"
    )
    assert lines[1][1] == {"green": True}


def test_narrow_terminal_wraps_the_test_id_and_keeps_its_name_whole() -> None:
    texts = [text for text, _ in run_lines(records(), width=60)]
    assert [text.split()[0] for text in texts[1:6]] == [
        "test_bot.py::",
        "test_flaky[a|b]",
        "test_bot.py::",
        "test_rate",
        "(Polite)",
    ]


def test_markdown_escapes_pipes_and_says_the_stability() -> None:
    text = "\n".join(markdown_lines(records()))
    assert "| test | runs | passes | errors | pass rate | 95% interval | floor | verdict |" in text
    assert "|---|---:|---:|---:|---:|---|---:|---|" in text
    assert "| `tests/test_bot.py::test_flaky[a\\|b]` | 10 | 5 | 0 | 0.50 |" in text
    assert "Stability 0.75 (mean pass rate) over 2 repeated tests" in text


def test_json_section() -> None:
    section = runs_section(records())
    assert section["stability"] == 0.75
    assert section["below_floor"] == 2
    assert [test["nodeid"] for test in section["tests"]] == [
        "tests/test_bot.py::test_flaky[a|b]",
        "tests/test_bot.py::test_rate",
    ]
    assert stability_line([]) == (
        "stability n/a (mean pass rate) over 0 repeated tests; 0 not proven at their floor"
    )


def test_the_stability_line_fits_100_columns() -> None:
    records = [
        RepeatedTest(
            nodeid=f"t::test_{n}",
            runs=2,
            passes=1,
            pass_rate=0.5,
            interval=(0.1, 0.9),
            floor_unproven=True,
            verdict="failed",
        )
        for n in range(12)
    ]
    line = stability_line(records)
    assert line == (
        "stability 0.50 (mean pass rate) over 12 repeated tests; 12 not proven at their floor"
    )
    assert len(line) <= 100
