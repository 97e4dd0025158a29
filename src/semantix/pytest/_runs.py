"""Repeated tests under pytest (``@pytest.mark.semantic(runs=..., min_pass_rate=...)``,
``--semantic-runs N``; docs/flaky-outputs.md): the body runs ``runs`` times inside one test item
(function-scoped fixtures are shared); every repeated test and every ``assert_pass_rate`` inside
a test becomes a run record (`semantix.report._runs`), also in ``GITHUB_STEP_SUMMARY``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, NamedTuple

import pytest

from semantix import _config as semantix_config
from semantix.errors import SemanticAssertionError
from semantix.pytest._markers import marker_settings

if TYPE_CHECKING:  # imported when a test repeats or a pass rate is asserted, not at start-up
    from semantix._proportions import JudgeAccuracy
    from semantix.pipeline._results import SemanticResult
    from semantix.report._model import RepeatedTest, TestRecord
    from semantix.runs import RunResult, RunStats

__all__ = ["JUNIT_PROPERTY", "RepeatedTests"]

#: The JUnit XML property carrying one repeated test's figures (its value is JSON).
JUNIT_PROPERTY = "semantic_runs"

_INSIDE = pytest.StashKey[bool]()


class _Plan(NamedTuple):
    """How one item repeats: how many runs, its floor, and whether a marker asked for it."""

    runs: int
    floor: float
    marked: bool


class RepeatedTests:
    """The run records of one session, and running a repeated test's body."""

    def __init__(
        self,
        option_runs: int | None,
        attach: Callable[[str, RepeatedTest, pytest.Item | None], None],
        judge_accuracy: JudgeAccuracy | None = None,
        *,
        tests: Callable[[], Mapping[str, TestRecord]] = dict,
    ) -> None:
        self.option_runs = option_runs
        #: Gives a run record to the session with its JUnit property's name (`SemanticSession`).
        self.attach = attach
        self.judge_accuracy = judge_accuracy  # for every repeated check without its own
        self.records: list[RepeatedTest] = []
        #: pytest's outcome of each test that ran (the session's), given to its records.
        self.tests = tests
        #: The tests ``--semantic-runs`` ran once: every check of their first run was structural.
        self.once: list[str] = []
        self.lock = threading.Lock()
        #: The semantic results of the run in progress (None when no item is repeating).
        self.collecting: list[SemanticResult] | None = None

    def plan(self, item: pytest.Item) -> _Plan | str | None:
        """The item's repetition, the error to report for it, or None (it runs once)."""
        marked = marker_settings(item)
        if marked.error is not None:
            return None  # the marker's own error is reported at setup
        count = marked.runs if marked.runs is not None else self.option_runs
        floor = marked.min_pass_rate
        if count is None:
            if floor is not None:
                return (
                    f"{item.nodeid}: @pytest.mark.semantic(min_pass_rate={floor!r}) without "
                    "runs=: one run cannot be held to a pass rate; write e.g. "
                    f"@pytest.mark.semantic(runs=10, min_pass_rate={floor!r}) (or run with "
                    "--semantic-runs N)"
                )
            return None
        return _Plan(count, 1.0 if floor is None else floor, marked=marked.runs is not None)

    def setup_error(self, item: pytest.Item) -> str | None:
        plan = self.plan(item)
        return plan if isinstance(plan, str) else None

    def call(self, item: pytest.Function) -> bool | None:
        """Run the body of a repeated test (True), or None: pytest calls it once as usual."""
        __tracebackhide__ = True
        if item.stash.get(_INSIDE, False):
            return None  # the call of one run: pytest's own implementation calls the test
        plan = self.plan(item)
        if not isinstance(plan, _Plan):
            return None
        from semantix.runs import RunResult, RunStats
        from semantix.runs._runner import raise_for_stats

        collected: list[SemanticResult] = []
        results: list[RunResult] = []
        item.stash[_INSIDE] = True
        self.collecting = collected
        try:
            for index in range(1, plan.runs + 1):
                start = len(collected)
                error: Exception | None = None
                try:
                    item.ihook.pytest_pyfunc_call(pyfuncitem=item)
                except Exception as exc:  # noqa: BLE001 - the run's failure or error, counted
                    error = exc
                run = RunResult(index, tuple(collected[start:]), error=error)
                results.append(run)
                if index == 1 and not plan.marked and not _judged(run):
                    # Structural checks on the same output cannot vary: not repeated.
                    if _asserted(run):
                        with self.lock:
                            self.once.append(item.nodeid)
                    if error is not None:
                        raise error
                    return True
        finally:
            self.collecting = None
            item.stash[_INSIDE] = False
        if not any(_asserted(run) or run.error is not None for run in results):
            pytest.fail(
                f"{item.nodeid}: @pytest.mark.semantic(runs={plan.runs}) on a test that makes no "
                "semantic assertion: there is no pass rate to hold to a floor. Assert with "
                "assert_semantic / the semantic fixture, or remove runs=",
                pytrace=False,
            )
        stats = RunStats(item.nodeid, tuple(results), plan.floor, self.judge_accuracy)
        self.add(stats, item)
        raise_for_stats(stats)
        return True

    def observe(self, event: object, item: pytest.Item | None) -> None:
        """A check's result (counted in the run in progress) or an ``assert_pass_rate``'s stats.

        An ``assert_pass_rate`` inside a repeated test is one assertion of the run in progress:
        its own repetitions leave the run's results, and it counts as passed when its rate
        reached its floor (below it, its `PassRateError` fails the run)."""
        from semantix.pipeline._results import SemanticResult  # an event: the checks are loaded
        from semantix.runs import RunStats

        collecting = self.collecting
        if collecting is not None and isinstance(event, SemanticResult):
            collecting.append(event)
        elif isinstance(event, RunStats):
            if collecting is not None:
                inner = [result for run in event.results for result in run.results]
                ids = {id(result) for result in inner}
                collecting[:] = [result for result in collecting if id(result) not in ids]
                passing = next((result for result in inner if result.passed), None)
                if event.passed and passing is not None:
                    collecting.append(passing)
            self.add(event, item)

    def add(self, stats: RunStats, item: pytest.Item | None) -> None:
        from semantix.report._merge import OUTSIDE_TEST
        from semantix.report._runs import run_record

        if stats.judge_accuracy is None and self.judge_accuracy is not None:
            stats = replace(stats, judge_accuracy=self.judge_accuracy)
        record = run_record(stats, item.nodeid if item is not None else OUTSIDE_TEST)
        with self.lock:
            self.records.append(replace(record, seq=len(self.records)))
        self.attach(JUNIT_PROPERTY, record, item)

    def sorted(self) -> list[RepeatedTest]:
        """The records by test, each with its test's pytest outcome."""
        with self.lock:
            records = list(self.records)
        if not records:
            return []
        from semantix.report._records import sorted_records, with_test_outcomes

        return with_test_outcomes(sorted_records(records), self.tests())

    # --- xdist and the end of the session -----------------------------------------------------

    def parts(self) -> tuple[tuple[RepeatedTest, ...], tuple[str, ...]]:
        """What a worker sends: its records and the tests it ran once."""
        with self.lock:
            return tuple(self.records), tuple(self.once)

    def merge(self, records: Sequence[RepeatedTest], once: Sequence[str]) -> None:
        """Add a worker's `parts`."""
        with self.lock:
            start = len(self.records)
            self.records += [replace(r, seq=start + i) for i, r in enumerate(records)]
            self.once.extend(once)

    def once_ids(self) -> list[str]:
        with self.lock:
            return sorted(self.once)

    def finish(self) -> None:
        """Append the Markdown table to ``GITHUB_STEP_SUMMARY`` (the controller only)."""
        summary = semantix_config.github_step_summary()
        records, once = self.sorted(), self.once_ids()
        if summary is not None and (records or once):
            from semantix.report._runs import markdown_lines

            with summary.open("a", encoding="utf-8") as file:
                file.write("\n".join(markdown_lines(records, once)) + "\n")

    def write_summary(self, terminalreporter: pytest.TerminalReporter, width: int) -> None:
        records, once = self.sorted(), self.once_ids()
        if not records and not once:
            return
        from semantix.report._runs import run_lines

        terminalreporter.write_sep("-", "semantic runs")
        for text, markup in run_lines(records, width=width, once=once):
            terminalreporter.write_line(text, **markup)


def _asserted(run: RunResult) -> bool:
    """Whether the run made a semantic assertion (a result, or a semantic failure raised)."""
    return bool(run.results) or isinstance(run.error, SemanticAssertionError)


def _judged(run: RunResult) -> bool:
    """Whether the run made an assertion with a leaf a judge decides (or would have, had the
    structural leaves not decided it first): one worth repeating."""
    leaves = [leaf for result in run.results for leaf in result.leaves]
    return _asserted(run) and (not run.results or any(not leaf.structural for leaf in leaves))
