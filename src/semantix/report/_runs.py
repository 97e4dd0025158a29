"""Repeated tests in the report: one record per repeated test (`semantix.runs.RunStats.to_dict`
plus the test's node id and, under pytest, its ``test_outcome``), which the terminal table, the
JSON section, the JUnit property and the GitHub step summary all read. A test pytest calls xfailed
or skipped is shown with that outcome and left out of the stability score.
"""

from __future__ import annotations

from collections.abc import Sequence

from semantix.report._json import build
from semantix.report._model import RepeatedTest, runs_section
from semantix.report._records import OUTCOME_WORDS
from semantix.report._terminal import Line, render_row
from semantix.runs import RunStats
from semantix.runs._stats import suite_stability

__all__ = [
    "corrected_lines",
    "markdown_lines",
    "once_line",
    "run_lines",
    "run_record",
    "runs_section",
    "stability_line",
]

_HEADER = ("test", "runs", "passes", "errors", "pass rate", "95% interval", "floor", "verdict")
_RIGHT = {1, 2, 3, 4, 6}


def run_record(stats: RunStats, nodeid: str) -> RepeatedTest:
    """The record of one repeated test (or one ``assert_pass_rate`` inside a test)."""
    return build(RepeatedTest, stats.to_dict(), nodeid=nodeid)  # type: ignore[no-any-return]


def stability_line(records: Sequence[RepeatedTest]) -> str:
    """``stability 0.85 (mean pass rate) over 3 repeated tests; 1 not proven at its floor``: the
    tests whose 95 % interval's lower bound is under their floor, xfailed and skipped left out."""
    counted = _counted(records)
    score, below = suite_stability(counted)
    noun = "test" if len(counted) == 1 else "tests"
    shown = "n/a" if score is None else f"{score:.2f}"
    line = (
        f"stability {shown} (mean pass rate) over {len(counted)} repeated {noun}; "
        f"{below} not proven at {'its' if below == 1 else 'their'} floor"
    )
    left_out = len(records) - len(counted)
    return line + (f"; {left_out} xfailed or skipped left out" if left_out else "")


def once_line(once: Sequence[str]) -> str:
    """The tests ``--semantic-runs`` ran once, and why (empty when there are none)."""
    if not once:
        return ""
    noun = "test ran" if len(once) == 1 else "tests ran"
    return (
        f"{len(once)} {noun} once: every check in the first run was structural (decided without "
        "a judge), so repeating proves nothing; @pytest.mark.semantic(runs=N) repeats one anyway: "
        + ", ".join(once)
    )


def _counted(records: Sequence[RepeatedTest]) -> list[RepeatedTest]:
    """The records the stability score counts: not those of xfailed or skipped tests."""
    return [record for record in records if record.test_outcome not in ("xfailed", "skipped")]


def _cells(record: RepeatedTest) -> tuple[str, ...]:
    low, high = record.interval
    counts = (str(count) for count in (record.runs, record.passes, record.errors))
    floor = "-" if record.min_pass_rate is None else f"{record.min_pass_rate:.2f}"
    rate, interval = f"{record.pass_rate:.2f}", f"[{low:.2f}, {high:.2f}]"
    return (record.label, *counts, rate, interval, floor, _verdict(record))


def _verdict(record: RepeatedTest) -> str:
    """``PASS``/``FAIL``, or the test's outcome when pytest expected a failure or skipped it."""
    test = record.test_outcome
    if test in ("xfailed", "xpassed", "skipped"):
        return OUTCOME_WORDS[str(test)]
    return OUTCOME_WORDS.get(record.verdict, record.verdict.upper())


def run_lines(
    records: Sequence[RepeatedTest], *, width: int = 120, once: Sequence[str] = ()
) -> list[Line]:
    """The terminal table of repeated tests, then the stability line, then the tests
    ``--semantic-runs`` ran once (`once_line`)."""
    lines: list[Line] = []
    if records:
        rows = [_cells(record) for record in records]
        widths = [max(len(row[i]) for row in (_HEADER, *rows)) for i in range(len(_HEADER))]
        overflow = sum(widths) + 2 * (len(widths) - 1) - width
        if overflow > 0:
            widths[0] = max(16, widths[0] - overflow)
        lines += [(text, {"bold": True}) for text in render_row(_HEADER, widths, _RIGHT)]
        lines += [
            (text, _MARKUP.get(cells[-1], {"red": True}))
            for cells in rows
            for text in render_row(cells, widths, _RIGHT)
        ]
        counted = _counted(records)
        _, below = suite_stability(counted)
        failed = any(record.verdict != "passed" for record in counted)
        markup = {"bold": True, "red": failed, "yellow": not failed and below > 0}
        lines.append((stability_line(records), markup))
        lines.extend(corrected_lines(records))
    if once:
        lines.append((once_line(once), {}))
    return lines


def corrected_lines(records: Sequence[RepeatedTest]) -> list[Line]:
    """One line per repeated check given the judge's accuracy: its pass rate corrected for the
    judge's errors (Rogan-Gladen) beside the observed rate, which decides."""
    lines: list[Line] = []
    for record in records:
        interval, rate = record.corrected_interval, record.corrected_pass_rate
        if rate is None or interval is None or record.judge_accuracy is None:
            continue
        sensitivity, specificity = record.judge_accuracy[:2]
        text = (
            f"corrected {record.label}: {rate:.2f} "
            f"[{interval[0]:.2f}, {interval[1]:.2f}] for a judge of sensitivity "
            f"{sensitivity:.2f}, specificity {specificity:.2f} (observed "
            f"{record.pass_rate:.2f}, which decides)"
        )
        lines.append((text, {}))
    return lines


_MARKUP = {"PASS": {"green": True}} | {
    word: {"yellow": True} for word in ("XFAIL", "XPASS", "SKIP")
}


def markdown_lines(records: Sequence[RepeatedTest], once: Sequence[str] = ()) -> list[str]:
    """The same table as GitHub-flavoured Markdown (for ``GITHUB_STEP_SUMMARY``)."""
    lines = ["### semantix: repeated tests", ""]
    if once:
        lines += [once_line(once).capitalize() + ".", ""]
    if not records:
        return lines
    lines += [
        "| " + " | ".join(_HEADER) + " |",
        "|" + "|".join("---:" if i in _RIGHT else "---" for i in range(len(_HEADER))) + "|",
    ]
    for record in records:
        cells = list(_cells(record))
        cells[0] = f"`{cells[0]}`"
        # no row break, and no markup: a name may hold a repr such as <function f at 0x...>
        cells = [cell.replace("|", "\\|").replace("<", "&lt;") for cell in cells]
        lines.append("| " + " | ".join(cells) + " |")
    return [*lines, "", stability_line(records).capitalize() + ".", ""]
