"""Repeated tests under pytest: ``@pytest.mark.semantic(runs=..., min_pass_rate=...)`` and
``--semantic-runs N`` (ini ``semantic_runs``).

The test body runs ``runs`` times inside one test item (function-scoped fixtures are shared by
the runs), each run is a pass, a fail or an error by the rules of `semantix.runs`, and the
item passes when the observed pass rate reaches its floor. ``--semantic-runs`` repeats only the
tests that make a semantic assertion: a test runs once, and runs again when it made one. A
marker's ``runs`` wins over the option; its ``min_pass_rate`` applies either way.

Every repeated test (and every ``assert_pass_rate`` inside a test) becomes a run record
(`semantix.report.runs`): a table after the semantic report, a ``runs`` section in the JSON
report, a ``semantic_runs`` JUnit property, merged from xdist workers, and a Markdown table
appended to ``GITHUB_STEP_SUMMARY`` when it is set.

`semantix.pytest.plugin.pytest_addoption` calls `add_options`, and
``pytest_configure`` registers `RunsPlugin`.
"""

from __future__ import annotations

import json
import threading
from typing import TYPE_CHECKING, Any

import pytest

from semantix import config as settings
from semantix import context
from semantix.errors import SemanticAssertionError
from semantix.pipeline.results import SemanticResult
from semantix.report.records import Record, sorted_records
from semantix.report.runs import markdown_lines, run_lines, run_record, runs_section
from semantix.runs import RunResult, RunStats, check_floor, check_runs, raise_for_stats

if TYPE_CHECKING:
    from semantix.pytest.plugin import _State

__all__ = ["JUNIT_PROPERTY", "WORKEROUTPUT_KEY", "RunsPlugin", "add_options"]

#: The key under which xdist workers publish their run records in ``config.workeroutput``.
WORKEROUTPUT_KEY = "semantix_runs"
#: The JUnit XML property carrying one repeated test's figures (its value is JSON).
JUNIT_PROPERTY = "semantic_runs"

_INSIDE = pytest.StashKey[bool]()


def add_options(group: Any, parser: pytest.Parser) -> None:
    """``--semantic-runs`` and the ``semantic_runs`` ini key."""
    group.addoption(
        "--semantic-runs",
        dest="semantic_runs",
        default=None,
        metavar="N",
        help="run every test that makes a semantic assertion N times and hold it to its floor "
        "(@pytest.mark.semantic(min_pass_rate=...), default 1.0); a marker's runs= wins",
    )
    parser.addini(
        "semantic_runs", "repeat tests that make semantic assertions (see --semantic-runs)"
    )


def _parse_runs(config: pytest.Config) -> int | None:
    value = config.getoption("semantic_runs")
    source = "--semantic-runs"
    if value is None:
        ini = config.getini("semantic_runs")
        value = ini.strip() if isinstance(ini, str) and ini.strip() else None
        source = "ini option semantic_runs"
    if value is None:
        return None
    try:
        runs = int(value)
    except ValueError:
        runs = 0
    if runs < 1:
        raise pytest.UsageError(
            f"{source} = {value!r} is not a number of runs; write a whole number >= 1, "
            "e.g. --semantic-runs 5"
        )
    return runs


class _Plan:
    """How one item repeats: how many runs, its floor, and whether a marker asked for it."""

    def __init__(self, runs: int, floor: float, marked: bool) -> None:
        self.runs = runs
        self.floor = floor
        self.marked = marked


class RunsPlugin:
    """The hooks of repeated tests; one instance per session, registered by the semantix plugin."""

    def __init__(self, config: pytest.Config, state: _State) -> None:
        self.config = config
        self.state = state
        self.option_runs = _parse_runs(config)
        self.records: list[Record] = []
        self.lock = threading.Lock()
        #: The semantic results of the run in progress (None when no item is repeating).
        self.collecting: list[SemanticResult] | None = None
        context.add_observer(self.observe)
        if config.pluginmanager.hasplugin("xdist"):
            config.pluginmanager.register(_XdistRuns(self), "semantix-runs-xdist")

    # --- the marker and the option ---------------------------------------------------------

    def plan(self, item: pytest.Item) -> _Plan | str | None:
        """The item's repetition, the error to report for its marker, or None (runs once)."""
        marker = item.get_closest_marker("semantic")
        kwargs = marker.kwargs if marker is not None else {}
        where = f"{item.nodeid}: @pytest.mark.semantic"
        runs = kwargs.get("runs")
        floor = kwargs.get("min_pass_rate")
        try:
            if runs is not None:
                check_runs(runs)
            if floor is not None:
                floor = check_floor(floor)
        except ValueError as exc:  # a ConfigurationError too: reported at the test's setup
            return f"{where}: {exc}"
        count = runs if runs is not None else self.option_runs
        if count is None:
            if floor is not None:
                return (
                    f"{where}(min_pass_rate={floor!r}) without runs=: one run cannot be held to "
                    "a pass rate; add runs=10 (or run with --semantic-runs N)"
                )
            return None
        return _Plan(count, 1.0 if floor is None else float(floor), marked=runs is not None)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        error = self.plan(item)
        if isinstance(error, str):
            pytest.fail(error, pytrace=False)

    # --- running the body N times ----------------------------------------------------------

    @pytest.hookimpl(tryfirst=True)
    def pytest_pyfunc_call(self, pyfuncitem: pytest.Function) -> bool | None:
        __tracebackhide__ = True
        if pyfuncitem.stash.get(_INSIDE, False):
            return None  # the call of one run: pytest's own implementation calls the test
        plan = self.plan(pyfuncitem)
        if not isinstance(plan, _Plan):
            return None
        collected: list[SemanticResult] = []
        results: list[RunResult] = []
        pyfuncitem.stash[_INSIDE] = True
        self.collecting = collected
        try:
            for index in range(1, plan.runs + 1):
                start = len(collected)
                error: Exception | None = None
                try:
                    pyfuncitem.ihook.pytest_pyfunc_call(pyfuncitem=pyfuncitem)
                except Exception as exc:  # noqa: BLE001 - the run's failure or error, counted
                    error = exc
                run = RunResult(index, tuple(collected[start:]), error=error)
                results.append(run)
                if index == 1 and not plan.marked and not _asserted(run):
                    # --semantic-runs repeats only tests that make a semantic assertion.
                    if error is not None:
                        raise error
                    return True
        finally:
            self.collecting = None
            pyfuncitem.stash[_INSIDE] = False
        if not any(_asserted(run) or run.error is not None for run in results):
            pytest.fail(
                f"{pyfuncitem.nodeid}: @pytest.mark.semantic(runs={plan.runs}) on a test that "
                "makes no semantic assertion: there is no pass rate to hold to a floor. Assert "
                "with assert_semantic / the semantic fixture, or remove runs=",
                pytrace=False,
            )
        stats = RunStats(pyfuncitem.nodeid, tuple(results), plan.floor)
        self.add(stats, pyfuncitem)
        raise_for_stats(stats)
        return True

    def observe(self, event: object) -> None:
        collecting = self.collecting
        if collecting is not None and isinstance(event, SemanticResult):
            collecting.append(event)
        elif isinstance(event, RunStats):  # an assert_pass_rate inside a test
            self.add(event, self.state.current_item)

    def add(self, stats: RunStats, item: pytest.Item | None) -> None:
        nodeid = item.nodeid if item is not None else "(outside a test)"
        record = run_record(stats, nodeid)
        with self.lock:
            self.records.append(record)
        if item is not None:
            value = {key: value for key, value in record.items() if key != "nodeid"}
            item.user_properties.append((JUNIT_PROPERTY, json.dumps(value, sort_keys=True)))
        self.state.json_sections.setdefault("runs", self.json_section)

    def json_section(self) -> dict[str, Any]:
        return runs_section(self.sorted())

    def sorted(self) -> list[Record]:
        with self.lock:
            return sorted_records(self.records)

    # --- the end of the session ------------------------------------------------------------

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.state.is_worker:
            session.config.workeroutput[WORKEROUTPUT_KEY] = self.sorted()  # type: ignore[attr-defined]
            return
        summary = settings.github_step_summary()
        records = self.sorted()
        if summary is not None and records:
            with summary.open("a", encoding="utf-8") as file:
                file.write("\n".join(markdown_lines(records)) + "\n")

    @pytest.hookimpl(trylast=True)
    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        records = self.sorted()
        if self.state.is_worker or not self.state.report or not records:
            return
        terminalreporter.write_sep("-", "semantic runs")
        width = self.config.get_terminal_writer().fullwidth
        for text, markup in run_lines(records, width=width):
            terminalreporter.write_line(text, **markup)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        context.remove_observer(self.observe)


def _asserted(run: RunResult) -> bool:
    """Whether the run made a semantic assertion (a result, or a semantic failure raised)."""
    return bool(run.results) or isinstance(run.error, SemanticAssertionError)


class _XdistRuns:
    """Registered only when pytest-xdist is installed (``pytest_testnodedown`` is its hook)."""

    def __init__(self, plugin: RunsPlugin) -> None:
        self.plugin = plugin

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        records = getattr(node, "workeroutput", {}).get(WORKEROUTPUT_KEY, [])
        if records:
            with self.plugin.lock:
                self.plugin.records.extend(records)
            self.plugin.state.json_sections.setdefault("runs", self.plugin.json_section)
