"""Two pieces of the pytest plugin that are not about assertions: model downloads and the
frozen-verdict store's summary. `semantix.pytest.plugin` registers both.

**Downloads.** When a test's first use of a judge downloads its model, the plugin says what is
being downloaded on pytest's terminal (with capture suspended, so the hub's progress bar shows)
and takes the download's time out of the test's reported duration (the report gets a section
saying how long it took instead).

**Frozen verdicts.** At the end of the session: how many verdicts were recorded, replayed and
judged live, and which stored verdicts this run did not use. ``--semantic-verdicts-prune``
deletes those — only after a run that passed, so a failing or interrupted run deletes nothing;
run it on the whole suite (a run limited with ``-k`` or a path uses fewer verdicts).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Generator, Iterator
from pathlib import Path
from typing import Any

import pytest

from semantix import context
from semantix.cache import model_cache
from semantix.verdicts import RecordReplayJudge, VerdictStore, VerdictUsage

__all__ = ["DownloadReporter", "VerdictSummary", "VerdictSummaryXdist", "add_options"]

#: The key under which xdist workers publish their verdict usage in ``config.workeroutput``.
WORKEROUTPUT_KEY = "semantix_verdict_usage"


def add_options(group: Any, parser: pytest.Parser) -> None:
    """``--semantic-verdicts-prune``."""
    group.addoption(
        "--semantic-verdicts-prune",
        dest="semantic_verdicts_prune",
        action="store_true",
        default=False,
        help="after a passing run, delete the frozen verdicts no test used",
    )


class DownloadReporter:
    """Shows model downloads on the terminal and keeps them out of test durations."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self._lock = threading.Lock()
        self._seconds = 0.0
        self._what: list[str] = []

    def start(self) -> None:
        context.add_download_listener(self.listener)

    def stop(self) -> None:
        context.remove_download_listener(self.listener)

    @contextlib.contextmanager
    def listener(self, description: str) -> Iterator[None]:
        started = time.perf_counter()
        with self._terminal() as write:
            write(f"semantix: downloading {description} (once; later runs use the cache)")
            try:
                yield
            finally:
                seconds = time.perf_counter() - started
                write(f"semantix: downloaded {description} in {seconds:.1f} s")
                with self._lock:
                    self._seconds += seconds
                    self._what.append(description)

    @contextlib.contextmanager
    def _terminal(self) -> Iterator[Any]:
        reporter = self.config.pluginmanager.get_plugin("terminalreporter")
        capture = self.config.pluginmanager.get_plugin("capturemanager")
        if reporter is None:
            yield lambda line: None
            return
        suspended = (
            capture.global_and_fixture_disabled()
            if capture is not None
            else contextlib.nullcontext()
        )
        with suspended:
            reporter.ensure_newline()
            yield reporter.write_line

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_makereport(
        self, item: pytest.Item, call: pytest.CallInfo[None]
    ) -> Generator[None, pytest.TestReport, pytest.TestReport]:
        report = yield
        with self._lock:
            seconds, what = self._seconds, self._what
            self._seconds, self._what = 0.0, []
        if seconds:
            report.duration = max(0.0, report.duration - seconds)
            report.sections.append(
                (
                    "semantix download",
                    f"{', '.join(what)}: {seconds:.1f} s, not counted in this test's duration",
                )
            )
        return report


class VerdictSummary:
    """Counts of the run's frozen verdicts, unused files, and pruning them on request."""

    def __init__(self, config: pytest.Config, *, is_worker: bool) -> None:
        self.config = config
        self.is_worker = is_worker
        self.usage = VerdictUsage()
        self.stores: set[Path] = set()
        self.unused: list[Path] = []
        self.pruned: list[Path] = []

    def _local_usage(self) -> tuple[VerdictUsage, set[Path]]:
        usage, stores = VerdictUsage(), set()
        for judge in model_cache.values("judges"):
            if isinstance(judge, RecordReplayJudge) and judge.mode != "off":
                usage = usage + judge.usage()
                stores.add(judge.store.path)
        return usage, stores

    def merge_worker(self, node: Any) -> None:
        """Add an xdist worker's usage (see `VerdictSummaryXdist`)."""
        data = getattr(node, "workeroutput", {}).get(WORKEROUTPUT_KEY)
        if data:
            self.usage = self.usage + VerdictUsage.from_dict(data["usage"])
            self.stores.update(Path(path) for path in data["stores"])

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        usage, stores = self._local_usage()
        if self.is_worker:
            self.config.workeroutput[WORKEROUTPUT_KEY] = {  # type: ignore[attr-defined]
                "usage": usage.to_dict(),
                "stores": sorted(str(path) for path in stores),
            }
            return
        self.usage = self.usage + usage
        self.stores |= stores
        if exitstatus != pytest.ExitCode.OK:
            return  # a failing or interrupted run cannot say what is unused: delete nothing
        for path in sorted(self.stores):
            store = VerdictStore(path)
            if self.config.getoption("semantic_verdicts_prune"):
                self.pruned.extend(store.prune(self.usage.used))
            else:
                self.unused.extend(store.unused(self.usage.used))

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if self.is_worker or not self.stores:
            return
        usage = self.usage
        line = (
            f"frozen verdicts: {usage.recorded} recorded, {usage.replayed} replayed, "
            f"{usage.judged} judged live"
        )
        if self.pruned:
            line += f", {len(self.pruned)} unused deleted"
        elif self.unused:
            line += (
                f", {len(self.unused)} not used by this run (delete them with "
                "--semantic-verdicts-prune): "
                + ", ".join(path.name for path in self.unused[:5])
                + (" …" if len(self.unused) > 5 else "")
            )
        terminalreporter.write_line(line)


class VerdictSummaryXdist:
    """Registered only when pytest-xdist is installed (``pytest_testnodedown`` is its hook)."""

    def __init__(self, summary: VerdictSummary) -> None:
        self.summary = summary

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        self.summary.merge_worker(node)
