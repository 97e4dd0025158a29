"""Semantic snapshots in pytest: the ``semantic_snapshot`` fixture and ``--semantic-snapshot-update``.

```python
def test_refund_policy(semantic_snapshot):
    assert semantic_snapshot == bot("what is your refund policy?")
```

`Snapshots` is the session's part for them: the bookkeeping is a
`semantix.snapshots.session.SnapshotSession`; under pytest-xdist each worker sends it in the
session's payload and the controller merges them, finds unused snapshots once, deletes them with
the update flag, and prints the report.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from semantix.config import in_ci
from semantix.report.snapshots import snapshot_lines, snapshot_section
from semantix.snapshots.fixture import SemanticSnapshot
from semantix.snapshots.session import SnapshotSession, narrowed_modules

__all__ = ["Snapshots"]


class Snapshots:
    """The semantic snapshots of one pytest session."""

    def __init__(self, *, update: bool) -> None:
        self.session = SnapshotSession(update=update)

    def fixture(self, request: pytest.FixtureRequest) -> SemanticSnapshot:
        """The ``semantic_snapshot`` fixture's value for the requesting test."""
        return SemanticSnapshot(
            nodeid=request.node.nodeid,
            module=request.node.path.resolve(),
            session=self.session,
            update=self.session.update,
        )

    def collected(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        """Remember every collected test and module, before ``-k`` and friends deselect any."""
        narrowed = narrowed_modules(config.args, config.invocation_params.dir)
        for item in items:
            self.session.collected.add(item.nodeid)
            if item.path.suffix == ".py":
                module = item.path.resolve()
                self.session.collected_module(module, whole=module not in narrowed)

    def test_reported(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.session.test_finished(report.nodeid, passed=report.passed)
        elif report.failed:  # an error in setup or teardown
            self.session.test_finished(report.nodeid, passed=False)

    def payload(self) -> dict[str, Any]:
        return self.session.to_data()

    def merge(self, data: dict[str, Any]) -> None:
        self.session.merge(data)

    def finish(self) -> None:
        """Delete unused snapshots with the update flag (never in CI), on the controller."""
        if self.session.update and not in_ci():
            self.session.delete_unused()

    def json_section(self, rootpath: Path) -> dict[str, Any]:
        """The ``snapshots`` section of the JSON report (paths relative to the rootdir)."""
        return snapshot_section(self.session, rootpath)

    def write_summary(self, terminalreporter: pytest.TerminalReporter, rootpath: Path) -> None:
        lines = snapshot_lines(self.session, relative_to=rootpath)
        if not lines:
            return
        terminalreporter.write_sep("-", "semantic snapshots")
        for line in lines:
            terminalreporter.write_line(line)
