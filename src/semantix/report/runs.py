"""Repeated tests in the report: one record per repeated test, its table, JSON and Markdown.

A run record is `semantix.runs.RunStats.to_dict` plus the test's node id. The terminal
table, the JSON section, the JUnit property and the GitHub step summary all read these records,
so they agree; xdist workers send them to the controller as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from semantix.report.records import Record
from semantix.report.terminal import Line
from semantix.runs import RunStats, suite_stability

__all__ = [
    "ceiling_lines",
    "corrected_lines",
    "markdown_lines",
    "run_lines",
    "run_record",
    "runs_section",
    "stability_line",
]

_HEADER = ("test", "runs", "passes", "errors", "pass rate", "95% interval", "floor", "verdict")
_RIGHT = {1, 2, 3, 4, 6}


def run_record(stats: RunStats, nodeid: str) -> Record:
    """The record of one repeated test (or one ``assert_pass_rate`` inside a test)."""
    return {"nodeid": nodeid, **stats.to_dict()}


def stability_line(records: Sequence[Record]) -> str:
    """``stability 0.85 (mean pass rate) over 3 repeated tests; 1 not proven at its floor``.

    "Not proven" counts the tests whose 95 % interval's lower bound is under their floor.
    """
    score, below = suite_stability(records)
    noun = "test" if len(records) == 1 else "tests"
    shown = "n/a" if score is None else f"{score:.2f}"
    return (
        f"stability {shown} (mean pass rate) over {len(records)} repeated {noun}; "
        f"{below} not proven at {'its' if below == 1 else 'their'} floor"
    )


def runs_section(records: Sequence[Record]) -> dict[str, Any]:
    """The JSON report's ``runs`` section: every repeated test, the stability score, the count."""
    score, below = suite_stability(records)
    return {
        "stability": score,
        "below_floor": below,
        "tests": [dict(record) for record in records],
    }


def _cells(record: Record) -> tuple[str, ...]:
    low, high = record["interval"]
    return (
        _label(record),
        str(record["runs"]),
        str(record["passes"]),
        str(record["errors"]),
        f"{record['pass_rate']:.2f}",
        f"[{low:.2f}, {high:.2f}]",
        f"{record['min_pass_rate']:.2f}",
        record["verdict"].upper(),
    )


def _label(record: Record) -> str:
    """The test id, and the check's name when it is not the test (an ``assert_pass_rate``)."""
    name = record.get("name")
    return record["nodeid"] if name in (None, record["nodeid"]) else f"{record['nodeid']} ({name})"


def run_lines(records: Sequence[Record], *, width: int = 120) -> list[Line]:
    """The terminal table of repeated tests, then the stability line."""
    rows = [_cells(record) for record in records]
    widths = [max(len(row[i]) for row in (_HEADER, *rows)) for i in range(len(_HEADER))]
    overflow = sum(widths) + 2 * (len(widths) - 1) - width
    if overflow > 0:
        widths[0] = max(16, widths[0] - overflow)
    lines: list[Line] = [(_render(_HEADER, widths), {"bold": True})]
    for record, cells in zip(records, rows, strict=True):
        markup = {"green": True} if record["verdict"] == "pass" else {"red": True}
        lines.append((_render(cells, widths), markup))
    _, below = suite_stability(records)
    failed = any(record["verdict"] != "pass" for record in records)
    lines.append(
        (stability_line(records), {"bold": True, "red": failed, "yellow": not failed and below > 0})
    )
    lines.extend(ceiling_lines(records))
    lines.extend(corrected_lines(records))
    return lines


def corrected_lines(records: Sequence[Record]) -> list[Line]:
    """One line per repeated check given the judge's accuracy: its pass rate corrected for the
    judge's errors (Rogan-Gladen) beside the observed rate, which decides."""
    lines: list[Line] = []
    for record in records:
        interval = record.get("corrected_interval")
        if record.get("corrected_pass_rate") is None or interval is None:
            continue
        sensitivity, specificity = record["judge_accuracy"][:2]
        text = (
            f"corrected {_label(record)}: {record['corrected_pass_rate']:.2f} "
            f"[{interval[0]:.2f}, {interval[1]:.2f}] for a judge of sensitivity "
            f"{sensitivity:.2f}, specificity {specificity:.2f} (observed "
            f"{record['pass_rate']:.2f}, which decides)"
        )
        lines.append((text, {}))
    return lines


def ceiling_lines(records: Sequence[Record]) -> list[Line]:
    """One line per latency or cost ceiling of a repeated check: its figure against the limit,
    and every ceiling nobody could check as a warning that names the test and what was missing
    (it is never a pass)."""
    lines: list[Line] = []
    for record in records:
        for ceiling in record.get("ceilings") or ():
            limit, unit = ceiling.get("limit"), ceiling.get("unit", "")
            what = f"{record.get('nodeid', '?')}: {ceiling.get('what', 'ceiling')}"
            if ceiling.get("unenforceable"):
                text = (
                    f"WARNING unenforceable: {what} <= {limit:g} {unit} cannot be checked "
                    f"({ceiling['unenforceable']})"
                )
                lines.append((text, {"yellow": True, "bold": True}))
                continue
            measured = ceiling.get("measured")
            verdict = "ok" if ceiling.get("passed") else "FAIL"
            text = f"ceiling {what} {measured:.6g} {unit} (limit {limit:g} {unit}): {verdict}"
            lines.append((text, {"green": True} if ceiling.get("passed") else {"red": True}))
    return lines


def markdown_lines(records: Sequence[Record]) -> list[str]:
    """The same table as GitHub-flavoured Markdown (for ``GITHUB_STEP_SUMMARY``)."""
    lines = [
        "### semantix: repeated tests",
        "",
        "| " + " | ".join(_HEADER) + " |",
        "|" + "|".join("---:" if i in _RIGHT else "---" for i in range(len(_HEADER))) + "|",
    ]
    for record in records:
        cells = list(_cells(record))
        cells[0] = f"`{cells[0]}`"
        cells = [cell.replace("|", "\\|") for cell in cells]
        lines.append("| " + " | ".join(cells) + " |")
    lines.append("")
    lines.append(stability_line(records).capitalize() + ".")
    lines.append("")
    return lines


def _render(cells: tuple[str, ...], widths: Sequence[int]) -> str:
    out = []
    for index, (cell, width) in enumerate(zip(cells, widths, strict=True)):
        if len(cell) > width:
            cell = "…" + cell[-(width - 1) :]
        out.append(cell.rjust(width) if index in _RIGHT else cell.ljust(width))
    return "  ".join(out).rstrip()
