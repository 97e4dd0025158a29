"""Model downloads during a test run: said on pytest's terminal (capture suspended, so the hub's
progress bar shows) and taken out of the test's duration (a report section says how long)."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from semantix import _context as context

__all__ = ["DownloadReporter"]


class DownloadReporter:
    """A download listener of `semantix._context` for one pytest session."""

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
    def _terminal(self) -> Iterator[Callable[[str], object]]:
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

    def adjust(self, report: pytest.TestReport) -> None:
        """Take the downloads since the last report out of ``report``'s duration, and say so."""
        with self._lock:
            seconds, what = self._seconds, self._what
            self._seconds, self._what = 0.0, []
        if seconds:
            report.duration = max(0.0, report.duration - seconds)
            said = f"{', '.join(what)}: {seconds:.1f} s, not counted in this test's duration"
            report.sections.append(("semantix download", said))
