"""The end of a pytest session on the terminal (`SemanticSession.summary`): the renderers of
its sections, imported only when the session ends, with the report modules they use."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from semantix.pytest._settings import Settings
    from semantix.report._model import CheckRecord, RelationRecord, TestRecord
    from semantix.snapshots._session import SnapshotSession

__all__ = ["write_relations", "write_report", "write_snapshots"]


def write_report(
    terminalreporter: pytest.TerminalReporter,
    records: Sequence[CheckRecord],
    tests: Mapping[str, TestRecord],
    settings: Settings,
    width: int,
) -> None:
    """The semantic report: every assertion with its test's outcome, and what judging cost."""
    if not records:
        return
    from semantix.report._costs import judge_cost, judge_cost_lines
    from semantix.report._records import sorted_records, with_test_outcomes
    from semantix.report._terminal import header_line, report_lines

    shown = with_test_outcomes(sorted_records(records), tests)
    terminalreporter.write_sep("-", "semantic report")
    judges = [record.judge for record in shown if record.judge]
    terminalreporter.write_line(header_line(judges, settings.verdicts_mode))
    for text, markup in report_lines(shown, width=width):
        terminalreporter.write_line(text, **markup)
    prices = settings.judge_prices
    for text, markup in judge_cost_lines(judge_cost(shown, prices), priced=prices is not None):
        terminalreporter.write_line(text, **markup)
    if settings.report_json is not None:
        terminalreporter.write_line(f"semantic report JSON: {settings.report_json}")


def write_relations(
    terminalreporter: pytest.TerminalReporter, relations: Sequence[RelationRecord]
) -> None:
    """Per relation: cases, not applicable, violations over variants judged, mean and worst
    rate (a relation decides nothing unless its test set a ceiling)."""
    if not relations:
        return
    from semantix.relations._results import summarize

    terminalreporter.write_sep("-", "semantic relations")
    terminalreporter.write_line(
        f"{'relation':<24} {'cases':>5} {'n/a':>4} {'violations':>11} {'mean':>5} "
        f"{'worst':>5} {'errors':>6}"
    )
    for row in summarize(relations):
        mean, worst = ("-" if r is None else f"{r:.2f}" for r in (row.mean_rate, row.worst_rate))
        terminalreporter.write_line(
            f"{row.relation:<24.24} {row.cases:>5} {row.not_applicable:>4} "
            f"{f'{row.violations}/{row.judged}':>11} {mean:>5} {worst:>5} {row.errors:>6}"
        )


def write_snapshots(
    terminalreporter: pytest.TerminalReporter, snapshots: SnapshotSession, rootpath: Path
) -> None:
    """What happened to the run's semantic snapshots (written, drifted, unused, ...)."""
    from semantix.report._snapshots import snapshot_lines

    lines = snapshot_lines(snapshots, relative_to=rootpath)
    if lines:
        terminalreporter.write_sep("-", "semantic snapshots")
        for line in lines:
            terminalreporter.write_line(line)
