"""The end-of-session table: one row per assertion (and per part of a composite), fitted to the
terminal's width, with a header naming the judge and the verdict mode and a summary line.

Rendering returns ``(text, markup)`` pairs; the pytest plugin writes them with pytest's own
terminal writer, so colours follow ``--color``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from semantix.report.records import Record, Summary, summarize

__all__ = ["Line", "header_line", "report_lines", "short_judge", "summary_line"]

#: A line of text and the markup to write it with (e.g. ``{"red": True}``).
Line = tuple[str, dict[str, bool]]

_HEADER = ("test", "intent", "judge", "score", "threshold", "verdict", "time")
_RIGHT = {3, 4, 6}
_MIN_TEST, _MIN_INTENT, _MIN_JUDGE = 16, 12, 12
_JUDGE = re.compile(r"^(?P<name>[^(]+)\((?P<where>.*)\)$")


def short_judge(identity: str | None) -> str:
    """``QuantizedNLIJudge(nli-deberta-v3-xsmall@a150876)`` from a full identity string.

    A local directory becomes its last component, a revision its first 7 characters, and the
    file name is dropped.
    """
    if not identity:
        return "-"
    match = _JUDGE.match(identity)
    if match is None:
        return identity
    where = match["where"].split(", ")[0]
    model, _, revision = where.partition("@")
    model = model.rstrip("/").rsplit("/", 1)[-1] if "/" in model else model
    return f"{match['name']}({model}{'@' + revision[:7] if revision else ''})"


def header_line(judges: Sequence[str], verdicts_mode: str | None) -> str:
    """``judge: QuantizedNLIJudge(...) · verdicts: off`` for the report's first line."""
    names = ", ".join(dict.fromkeys(short_judge(judge) for judge in judges if judge)) or "-"
    return f"judge: {names} · verdicts: {verdicts_mode or 'off'}"


def report_lines(records: Sequence[Record], *, width: int = 120) -> list[Line]:
    """The table for ``records`` (already sorted), fitted to ``width`` columns, and its summary.

    The judge column shows the short identity (`short_judge`); when the table is wider
    than ``width``, the test ids lose their start and the intents their end, never both columns
    below a readable minimum.
    """
    rows: list[tuple[tuple[str, ...], dict[str, bool]]] = []
    for record in records:
        rows.extend(_rows(record))
    widths = _fit([_HEADER, *(cells for cells, _ in rows)], width)
    lines: list[Line] = [(_render(_HEADER, widths), {"bold": True})]
    lines.extend((_render(cells, widths), markup) for cells, markup in rows)
    summary = summarize(records)
    lines.append((summary_line(summary), _summary_markup(summary)))
    return lines


def summary_line(summary: Summary) -> str:
    """``6 semantic assertions: 4 passed, 1 failed, 1 error (2 borderline)``."""
    noun = "assertion" if summary.total == 1 else "assertions"
    parts = [f"{summary.passed} passed", f"{summary.failed} failed"]
    parts.append(f"{summary.errors} error{'s' if summary.errors != 1 else ''}")
    text = f"{summary.total} semantic {noun}: {', '.join(parts)}"
    if summary.borderline:
        text += f" ({summary.borderline} borderline)"
    if len(summary.decided_by) > 1:
        decided = ", ".join(
            f"{short_judge(judge)} {count}" for judge, count in sorted(summary.decided_by.items())
        )
        text += f"; leaf verdicts decided by: {decided}"
    return text


def _summary_markup(summary: Summary) -> dict[str, bool]:
    if summary.failed or summary.errors:
        return {"red": True, "bold": True}
    return {"green": True, "bold": True}


def _rows(record: Record) -> list[tuple[tuple[str, ...], dict[str, bool]]]:
    outcome = record.get("outcome", "passed" if record["passed"] else "failed")
    verdict = {"passed": "PASS", "failed": "FAIL", "error": "ERROR"}[outcome]
    markup = {"passed": {"green": True}, "failed": {"red": True}, "error": {"red": True}}[outcome]
    if record.get("borderline") and outcome != "error":
        verdict += " ~"
        markup = {**markup, "yellow": outcome == "passed", "green": False}
    judge = short_judge(record.get("judge"))
    time_text = _format_ms(record.get("duration_ms"))
    leaves: list[Mapping[str, Any]] = record["leaves"]
    if outcome == "error":
        cells = (record["nodeid"], record["intent"], judge, "", "", verdict, time_text)
        error = ("", "  " + str(record.get("error", "")), "", "", "", "", "")
        return [(cells, markup), (error, {"red": True})]
    if len(leaves) == 1 and leaves[0]["intent"].lstrip("~") == record["intent"].lstrip("~"):
        leaf = leaves[0]
        cells = (
            record["nodeid"],
            record["intent"],
            judge,
            _format_score(leaf["score"]),
            f"{leaf['threshold']:.2f}",
            verdict,
            time_text,
        )
        return [(cells, markup)]
    rows: list[tuple[tuple[str, ...], dict[str, bool]]] = [
        ((record["nodeid"], record["intent"], judge, "", "", verdict, time_text), markup)
    ]
    for leaf in leaves:
        passed = leaf.get("passed", leaf.get("ok"))
        leaf_verdict = ("ok" if passed else "not ok") + (" ~" if leaf.get("borderline") else "")
        cells = (
            "",
            "  " + leaf["intent"],
            "",
            _format_score(leaf["score"]),
            f"{leaf['threshold']:.2f}",
            leaf_verdict,
            "",
        )
        rows.append((cells, {} if passed else {"red": True}))
    return rows


def _fit(table: Sequence[tuple[str, ...]], width: int) -> list[int]:
    """Column widths that fit ``width``: the test ids give way first, then judge and intent."""
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    overflow = sum(widths) + 2 * (len(widths) - 1) - width
    for column, minimum in ((0, _MIN_TEST), (2, _MIN_JUDGE), (1, _MIN_INTENT)):
        if overflow <= 0:
            break
        give = min(overflow, max(0, widths[column] - minimum))
        widths[column] -= give
        overflow -= give
    return widths


def _render(cells: tuple[str, ...], widths: Sequence[int]) -> str:
    out = []
    for index, (cell, width) in enumerate(zip(cells, widths, strict=True)):
        if len(cell) > width:
            # a test id keeps its end (the test name), anything else its start
            cell = "…" + cell[-(width - 1) :] if index == 0 else cell[: width - 1] + "…"
        out.append(cell.rjust(width) if index in _RIGHT else cell.ljust(width))
    return "  ".join(out).rstrip()


def _format_score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.2f}"


def _format_ms(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.0f} ms"
