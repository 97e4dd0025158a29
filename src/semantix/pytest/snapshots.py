"""Semantic snapshots in pytest: the ``semantic_snapshot`` fixture and ``--semantic-snapshot-update``.

```python
def test_refund_policy(semantic_snapshot):
    assert semantic_snapshot == bot("what is your refund policy?")
```

Registered by `semantix.pytest.plugin` (one line in ``pytest_addoption``, one in
``pytest_configure``). The bookkeeping is a `SnapshotSession`;
under pytest-xdist each worker publishes it in ``config.workeroutput`` and the controller merges
them, finds unused snapshots once, deletes them with the update flag, and prints the report.
"""

from __future__ import annotations

from typing import Any

import pytest

from semantix.config import in_ci
from semantix.report.snapshots import snapshot_lines, snapshot_section
from semantix.snapshots.fixture import SemanticSnapshot
from semantix.snapshots.session import SnapshotSession, narrowed_modules

__all__ = ["SnapshotPlugin", "add_options"]

#: The key under which xdist workers publish their snapshot bookkeeping.
WORKEROUTPUT_KEY = "semantix_snapshots"


def add_options(group: Any, parser: pytest.Parser) -> None:
    """``--semantic-snapshot-update`` in semantix's option group."""
    group.addoption(
        "--semantic-snapshot-update",
        dest="semantic_snapshot_update",
        action="store_true",
        default=False,
        help="record missing semantic snapshots, rewrite drifted ones and delete unused ones "
        "(never where CI is set: there a missing snapshot always fails)",
    )


class SnapshotPlugin:
    """The hooks and the fixture of semantic snapshots, for one pytest session."""

    def __init__(self, config: pytest.Config, *, is_worker: bool) -> None:
        self.config = config
        self.is_worker = is_worker
        self.session = SnapshotSession(update=bool(config.getoption("semantic_snapshot_update")))

    def json_section(self) -> dict[str, Any]:
        """The ``snapshots`` section of the JSON report."""
        return snapshot_section(self.session)

    @pytest.fixture
    def semantic_snapshot(self, request: pytest.FixtureRequest) -> SemanticSnapshot:
        """Semantic snapshots of this test: ``assert semantic_snapshot == output``, or
        ``semantic_snapshot(output, name=...)``. Judged with this test's judge and threshold."""
        return SemanticSnapshot(
            nodeid=request.node.nodeid,
            module=request.node.path.resolve(),
            session=self.session,
            update=self.session.update,
        )

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        """Remember every collected test and module, before ``-k`` and friends deselect any."""
        narrowed = narrowed_modules(self.config.args, self.config.invocation_params.dir)
        for item in items:
            self.session.collected.add(item.nodeid)
            if item.path.suffix == ".py":
                module = item.path.resolve()
                self.session.collected_module(module, whole=module not in narrowed)

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.when == "call":
            self.session.test_finished(report.nodeid, passed=report.passed)
        elif report.failed:  # an error in setup or teardown
            self.session.test_finished(report.nodeid, passed=False)

    @pytest.hookimpl(tryfirst=True)  # delete before the JSON report is written
    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if self.is_worker:
            session.config.workeroutput[WORKEROUTPUT_KEY] = self.session.to_data()  # type: ignore[attr-defined]
            return
        if self.session.update and not in_ci():
            self.session.delete_unused()

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.is_worker:
            return
        lines = snapshot_lines(self.session, relative_to=self.config.rootpath)
        if not lines:
            return
        terminalreporter.write_sep("-", "semantic snapshots")
        for line in lines:
            terminalreporter.write_line(line)


class SnapshotXdistController:
    """Merges the workers' bookkeeping (registered only when pytest-xdist is installed)."""

    def __init__(self, plugin: SnapshotPlugin) -> None:
        self.plugin = plugin

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        data = getattr(node, "workeroutput", {}).get(WORKEROUTPUT_KEY)
        if data:
            self.plugin.session.merge(data)


def register(config: pytest.Config, state: Any) -> SnapshotPlugin:
    """Register the snapshot hooks for this session (called from pytest_configure)."""
    plugin = SnapshotPlugin(config, is_worker=bool(getattr(state, "is_worker", False)))
    config.pluginmanager.register(plugin, "semantix-snapshots")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(SnapshotXdistController(plugin), "semantix-snapshots-xdist")
    sections = getattr(state, "json_sections", None)
    if isinstance(sections, dict):
        sections["snapshots"] = plugin.json_section
    return plugin
