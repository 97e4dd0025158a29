"""``pytest --semantic-baseline BASE.json``: this run compared with a baseline's JSON report
(`semantix.report._compare`), read when the session starts; the exit status stays pytest's own.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:  # the report's modules are imported when a baseline is given
    from semantix.report._compare import Comparison
    from semantix.report._model import Report

__all__ = ["Baseline"]


class Baseline:
    """The baseline of one session (nothing when the option is not given)."""

    def __init__(self, path: Path | None, *, read: bool) -> None:
        self.path = path
        #: The path as the header shows it: as given, relative to the directory pytest started
        #: in, when it is under it; else whole.
        self.shown = None if path is None else _shown(path)
        self.document: Report | None = None
        self.comparison: Comparison | None = None
        if path is not None and read:
            from semantix.report._compare import load_report
            from semantix.report._schema import ReportDocumentError

            try:
                self.document = load_report(path)
            except ReportDocumentError as exc:
                raise pytest.UsageError(f"--semantic-baseline: {exc}") from None

    def compare(self, report: Report) -> Report:
        """This run's report compared with the baseline, with the ``baseline`` section."""
        if self.document is None or self.path is None:
            return report
        from semantix.report._compare import compare

        self.comparison = compare(self.document, report, base_path=str(self.path))
        return replace(report, baseline={"path": str(self.path), **self.comparison.to_dict()})

    def write_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        comparison = self.comparison
        if comparison is None:
            return
        from semantix.report._compare_views import detail

        terminalreporter.write_sep("-", f"semantic baseline: {self.shown}")
        for flip in comparison.regressions:
            terminalreporter.write_line(
                f"REGRESSION {flip.nodeid}  {flip.label}  {flip.base} -> {flip.candidate}  "
                f"{detail(flip)}",
                red=True,
            )
        for rate in comparison.rates:
            if rate.worse or rate.regression:
                low, high = rate.interval or (0.0, 0.0)
                change = rate.difference or 0.0
                terminalreporter.write_line(
                    f"REGRESSION {rate.nodeid}  pass rate {change:+.2f} "
                    f"[{low:+.2f}, {high:+.2f}] (verdict {rate.base_verdict} -> "
                    f"{rate.candidate_verdict})",
                    red=True,
                )
        terminalreporter.write_line(
            comparison.summary_line(), bold=True, red=bool(comparison.regressions)
        )


def _shown(path: Path) -> str:
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)
