"""The end of a pytest session on the terminal (`SemanticSession.summary`): imported only when
the session ends, with the report modules it renders through."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from semantix.pytest._session import SemanticSession

__all__ = ["write_summary"]


def write_summary(session: SemanticSession, terminalreporter: pytest.TerminalReporter) -> None:
    """The end of the session on the terminal: the semantic report, repeated runs, relations,
    snapshots, frozen verdicts and the baseline, each where the run has some."""
    width = session.config.get_terminal_writer().fullwidth
    if session.settings.report:
        _write_report(session, terminalreporter, width)
        session.runs.write_summary(terminalreporter, width)
        _write_relations(session, terminalreporter)
    snapshots = []
    used = session.used_snapshots
    if used is not None:
        from semantix.report._snapshots import snapshot_lines

        snapshots = snapshot_lines(used, relative_to=session.config.rootpath)
    if snapshots:
        terminalreporter.write_sep("-", "semantic snapshots")
        for line in snapshots:
            terminalreporter.write_line(line)
    session.verdicts.write_summary(terminalreporter)
    session.baseline.write_summary(terminalreporter)
    if session.settings.report_html is not None:
        terminalreporter.write_line(f"semantic report HTML: {session.settings.report_html}")


def _write_report(
    session: SemanticSession, terminalreporter: pytest.TerminalReporter, width: int
) -> None:
    with session.lock:
        records = list(session.records)
    if not records:
        return
    from semantix.report import header_line, report_lines, sorted_records
    from semantix.report._costs import judge_cost, judge_cost_lines
    from semantix.report._records import with_test_outcomes

    records = with_test_outcomes(sorted_records(records), session.test_records())
    terminalreporter.write_sep("-", "semantic report")
    judges = [record.judge for record in records if record.judge]
    terminalreporter.write_line(header_line(judges, session.settings.verdicts_mode))
    for text, markup in report_lines(records, width=width):
        terminalreporter.write_line(text, **markup)
    prices = session.settings.judge_prices
    for text, markup in judge_cost_lines(judge_cost(records, prices), priced=prices is not None):
        terminalreporter.write_line(text, **markup)
    if session.settings.report_json is not None:
        terminalreporter.write_line(f"semantic report JSON: {session.settings.report_json}")


def _write_relations(session: SemanticSession, terminalreporter: pytest.TerminalReporter) -> None:
    """Per relation: cases, not applicable, violations over variants judged, mean and worst
    rate (a relation decides nothing unless its test set a ceiling)."""
    with session.lock:
        relations = list(session.relations)
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
