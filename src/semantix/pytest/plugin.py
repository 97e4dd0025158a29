"""The semantix pytest plugin, registered through the ``pytest11`` entry point: hooks and fixtures.

```python
def test_reply_is_polite(semantic):
    semantic("Thank you for your patience.", "The text is polite.")
```

Options (each has an ini key of the same name without the dashes, e.g. ``semantic_judge``; the
command line wins over the ini file):

- ``--semantic-judge SPEC``: the run's default judge (``quantized``, ``nli``, ``embedding``,
  ``llm`` or ``module:attr``), built on first use, once per process (once per xdist worker).
- ``--semantic-verdicts off|replay|update|strict``: the frozen-verdict mode of every judge in the
  run (else ``SEMANTIX_VERDICTS``).
- ``--semantic-timeout SECONDS``: how long one assertion may wait for its judge.
- ``--semantic-report`` / ``--semantic-report-json PATH`` / ``--semantic-report-html PATH``: the
  end-of-session table / JSON / self-contained HTML page (`semantix.report.html`).

Fixtures: ``semantic_judge`` (the run's judge) and ``semantic`` (``assert_semantic`` for this
test). Marker: ``@pytest.mark.semantic(judge=..., threshold=..., timeout=...)`` sets the judge and
the default threshold of every semantic assertion in its test — the ``semantic`` fixture and plain
``assert_semantic(...)`` calls alike. Every judge goes through `semantix.pipeline.judging.resolve_judge`,
so the verdict mode holds on every path.

Every assertion (passing, failing or errored) is recorded in ``config.stash``, added to the JUnit
XML as a ``semantic`` property and, under pytest-xdist, sent from each worker to the controller
through ``config.workeroutput``. Rendering lives in `semantix.report`.

This module is imported by every pytest run in an environment where semantix is installed, so it
imports nothing heavy: judges are built only when a test first needs one.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Generator, Mapping
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import _pytest
import pluggy
import pytest

import semantix
from semantix import config as settings
from semantix import context
from semantix.errors import SemanticAssertionError, SemantixError
from semantix.intent import IntentLike
from semantix.judges.base import Judge
from semantix.pipeline import assert_semantic, evaluate_semantic
from semantix.pipeline.judging import resolve_judge
from semantix.pipeline.results import CheckError, SemanticResult
from semantix.pipeline.specs import check_spec
from semantix.pytest import snapshots as snapshots_plugin
from semantix.pytest.extras import DownloadReporter, VerdictSummary, VerdictSummaryXdist
from semantix.pytest.extras import add_options as add_extra_options
from semantix.pytest.runs import RunsPlugin
from semantix.pytest.runs import add_options as add_runs_options
from semantix.pytest.settings import (
    add_html_options,
    html_report_path,
    json_path,
    marker_settings,
    option,
    parse_bool,
    parse_timeout,
)
from semantix.report import (
    Record,
    error_record,
    header_line,
    json_document,
    report_lines,
    result_record,
    sorted_records,
    write_json_report,
)
from semantix.report.html import write_html_report

__all__ = ["SemanticAssert"]

#: The key under which xdist workers publish their records in ``config.workeroutput``.
WORKEROUTPUT_KEY = "semantix_records"
#: The name of the JUnit XML property carrying one assertion (its value is JSON).
JUNIT_PROPERTY = "semantic"
OUTSIDE_TEST = "(outside a test)"
#: Frames from these directories are hidden when a judge or configuration error is shown: ours,
#: and pytest's and pluggy's own (the traceback pytest hands the hook is not yet pruned).
_HIDDEN_DIRS = tuple(
    str(Path(module.__file__).parent)
    for module in (semantix, _pytest, pluggy)
    if module.__file__ is not None
)


# --- options -------------------------------------------------------------------------------


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("semantix", "semantic assertions (semantix)")
    group.addoption(
        "--semantic-judge",
        dest="semantic_judge",
        default=None,
        metavar="SPEC",
        help="default judge for the run: quantized, nli, embedding, llm or module:attr "
        "(built on first use). Never overrides thresholds written on intents.",
    )
    group.addoption(
        "--semantic-verdicts",
        dest="semantic_verdicts",
        default=None,
        metavar="MODE",
        help="frozen verdict store mode for every judge in the run: off, replay, update or strict",
    )
    group.addoption(
        "--semantic-timeout",
        dest="semantic_timeout",
        default=None,
        metavar="SECONDS",
        help="seconds one semantic assertion may wait for its judge (JudgeTimeoutError after)",
    )
    group.addoption(
        "--semantic-report",
        dest="semantic_report",
        action="store_true",
        default=None,
        help="print a table of every semantic assertion at the end of the session",
    )
    group.addoption(
        "--no-semantic-report",
        dest="semantic_report",
        action="store_false",
        default=None,
        help="do not print the semantic report (overrides semantic_report = true)",
    )
    group.addoption(
        "--semantic-report-json",
        dest="semantic_report_json",
        default=None,
        metavar="PATH",
        help="write every semantic assertion as JSON to PATH",
    )
    parser.addini("semantic_judge", "default judge for the run (see --semantic-judge)")
    parser.addini("semantic_verdicts", "frozen verdict store mode (see --semantic-verdicts)")
    parser.addini("semantic_timeout", "seconds an assertion may wait (see --semantic-timeout)")
    parser.addini(
        "semantic_report", "print the semantic report: true/false (see --semantic-report)"
    )
    parser.addini("semantic_report_json", "write the semantic report as JSON to this path")
    snapshots_plugin.add_options(group, parser)
    add_extra_options(group, parser)
    add_runs_options(group, parser)
    add_html_options(group, parser)


# --- state ---------------------------------------------------------------------------------


@dataclass
class _State:
    """What the plugin keeps for one session (in ``config.stash``)."""

    judge_spec: str | None
    verdicts_mode: str | None
    report: bool
    report_json: Path | None
    is_worker: bool
    records: list[Record] = field(default_factory=list)
    current_item: pytest.Item | None = None
    observer: Callable[[Any], None] | None = None
    downloads: DownloadReporter | None = None
    #: The run's layer of the defaults (entered at configure, left at unconfigure).
    run_defaults: AbstractContextManager[object] | None = None
    #: Extra top-level sections of the JSON report, by name (features add theirs).
    json_sections: dict[str, Callable[[], Any]] = field(default_factory=dict)
    #: When the session started (seconds since the epoch), for the report's run date/duration.
    started: float = field(default_factory=time.time)
    lock: threading.Lock = field(default_factory=threading.Lock)


_STATE = pytest.StashKey[_State]()


def state_of(config: pytest.Config) -> _State | None:
    """The plugin's state for this session (None before configure or after unconfigure)."""
    return config.stash.get(_STATE, None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "semantic(judge=None, threshold=None, timeout=None, runs=None, min_pass_rate=None): the "
        "judge (an object or a spec such as 'embedding' or 'module:attr'), default threshold and "
        "timeout of every semantic assertion in this test. The threshold takes the place of the "
        "judge's recommended threshold: thresholds written on intents and threshold= arguments "
        "still win.",
    )
    judge_spec = option(config, "semantic_judge")
    if judge_spec is not None:
        try:
            check_spec(judge_spec, source="--semantic-judge / semantic_judge")
        except SemantixError as exc:
            raise pytest.UsageError(str(exc)) from None
    mode = option(config, "semantic_verdicts")
    try:
        if mode is None:
            mode = settings.verdicts_mode()
        else:
            mode = settings.check_verdict_mode(
                mode, source="--semantic-verdicts / semantic_verdicts"
            )
    except SemantixError as exc:
        raise pytest.UsageError(str(exc)) from None
    report_option = config.getoption("semantic_report")
    report = (
        report_option
        if report_option is not None
        else parse_bool("semantic_report", config.getini("semantic_report"))
    )
    state = _State(
        judge_spec=judge_spec,
        verdicts_mode=mode,
        report=bool(report),
        report_json=json_path(config),
        is_worker=hasattr(config, "workerinput"),
    )
    config.stash[_STATE] = state
    # Only the options given: a set_default_judge() in conftest.py survives a run naming no judge.
    state.run_defaults = context.run_defaults(
        judge=judge_spec,
        verdicts_mode=state.verdicts_mode,
        timeout=parse_timeout(option(config, "semantic_timeout")),
    )
    state.run_defaults.__enter__()

    def observe(event: object) -> None:
        _record(state, event)

    state.observer = observe
    context.add_observer(observe)
    snapshots_plugin.register(config, state)
    config.pluginmanager.register(RunsPlugin(config, state), "semantix-runs")
    downloads = DownloadReporter(config)
    downloads.start()
    state.downloads = downloads
    config.pluginmanager.register(downloads, "semantix-downloads")
    summary = VerdictSummary(config, is_worker=state.is_worker)
    config.pluginmanager.register(summary, "semantix-verdict-summary")
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistController(state), "semantix-xdist")
        config.pluginmanager.register(VerdictSummaryXdist(summary), "semantix-verdict-xdist")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if state.observer is not None:
        context.remove_observer(state.observer)
    if state.downloads is not None:
        state.downloads.stop()
    if state.run_defaults is not None:
        state.run_defaults.__exit__(None, None, None)
    del config.stash[_STATE]


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(_STATE, None)
    if state is None or (state.judge_spec is None and state.verdicts_mode is None):
        return None
    parts = [f"judge={state.judge_spec or 'default'}"]
    if state.verdicts_mode is not None:
        parts.append(f"verdicts={state.verdicts_mode}")
    return "semantix: " + ", ".join(parts)


# --- the marker ----------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    state = item.config.stash.get(_STATE, None)
    if state is None:
        return (yield)
    marked = marker_settings(item)
    state.current_item = item
    try:
        if marked.error is not None:
            return (yield)
        # The marker's judge, threshold and timeout hold for every semantic assertion in the
        # test, from fixtures' setup to teardown, whichever way the assertion is written.
        with context.scope(judge=marked.judge, threshold=marked.threshold, timeout=marked.timeout):
            return (yield)
    finally:
        state.current_item = None


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.config.stash.get(_STATE, None) is None:
        return
    error = marker_settings(item).error
    if error is not None:
        pytest.fail(error, pytrace=False)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    report = yield
    excinfo = call.excinfo
    if (
        excinfo is not None
        and isinstance(excinfo.value, SemantixError)
        and not isinstance(excinfo.value, SemanticAssertionError)
        and not item.config.getoption("fulltrace", False)
        and item.config.getoption("tbstyle", "auto") in ("auto", "long", "short")
    ):
        # A judge or configuration error: the user's line and our one-line message — not the
        # source of semantix's internals, nor the chain of library errors behind it (the
        # message already says what to do; --full-trace shows everything).
        excinfo.traceback = excinfo.traceback.filter(
            lambda entry: not str(entry.path).startswith(_HIDDEN_DIRS)
        )
        report.longrepr = excinfo.getrepr(style="short", chain=False)
    return report


# --- fixtures ------------------------------------------------------------------------------


@pytest.fixture(scope="session")
def semantic_judge(pytestconfig: pytest.Config) -> Judge:
    """The run's judge: ``--semantic-judge`` (through ``--semantic-verdicts``), else the default.

    Built once per session (once per xdist worker), on first request.
    """
    return resolve_judge(None)


class SemanticAssert:
    """``assert_semantic`` for one test: what the ``semantic`` fixture returns.

    ``semantic(output, intent)`` asserts like `semantix.assert_semantic` with this test's
    judge (the marker's, else the run's); ``semantic.evaluate(output, intent)`` returns the
    result without raising.
    """

    def __init__(self, judge: object = None) -> None:
        self._judge = judge

    @property
    def judge(self) -> Judge:
        """The judge the assertions of this test use."""
        return resolve_judge(self._judge)

    def __call__(
        self, output: object, intent: IntentLike, *, threshold: float | None = None
    ) -> SemanticResult:
        __tracebackhide__ = True
        return assert_semantic(output, intent, judge=self._judge, threshold=threshold)  # type: ignore[arg-type]

    def evaluate(
        self, output: object, intent: IntentLike, *, threshold: float | None = None
    ) -> SemanticResult:
        """Judge without raising (and without recording: only assertions are recorded)."""
        return evaluate_semantic(output, intent, judge=self._judge, threshold=threshold)  # type: ignore[arg-type]

    def __repr__(self) -> str:
        return f"<semantic judge={self._judge or 'the test default'!r}>"


@pytest.fixture
def semantic(request: pytest.FixtureRequest) -> SemanticAssert:
    """``semantic(output, intent, threshold=None)``: ``assert_semantic`` with this test's judge.

    The judge is the ``semantic`` marker's ``judge`` if the test has one, else the run's. The
    marker's ``threshold`` replaces the judge's recommended threshold.
    """
    return SemanticAssert()


# --- recording -----------------------------------------------------------------------------


def _record(state: _State, event: object) -> None:
    item = state.current_item
    nodeid = item.nodeid if item is not None else OUTSIDE_TEST
    if isinstance(event, SemanticResult):
        record = result_record(event, nodeid)
    elif isinstance(event, CheckError):
        record = error_record(nodeid, event.error, intent=event.intent, output=event.output)
    else:
        return
    with state.lock:
        record["seq"] = len(state.records)
        state.records.append(record)
    if item is not None:
        value = {key: value for key, value in record.items() if key not in ("nodeid", "seq")}
        item.user_properties.append((JUNIT_PROPERTY, json.dumps(value, sort_keys=True)))


class _XdistController:
    """Registered only when pytest-xdist is installed (``pytest_testnodedown`` is its hook)."""

    def __init__(self, state: _State) -> None:
        self.state = state

    def pytest_testnodedown(self, node: Any, error: object) -> None:
        records = getattr(node, "workeroutput", {}).get(WORKEROUTPUT_KEY, [])
        with self.state.lock:
            for record in records:
                record["seq"] = len(self.state.records)
                self.state.records.append(record)


@pytest.hookimpl(tryfirst=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    config = session.config
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    if state.is_worker:
        config.workeroutput[WORKEROUTPUT_KEY] = list(state.records)  # type: ignore[attr-defined]
        return
    html_path = html_report_path(config)
    if state.report_json is None and html_path is None:
        return
    document = report_document(state)  # once: the page renders exactly what the JSON holds
    if state.report_json is not None:
        write_json_report(state.report_json, document)
    if html_path is not None:
        write_html_report(html_path, document, json_path=state.report_json)


def report_document(state: _State) -> dict[str, Any]:
    """The JSON report of this session: records, run metadata and every feature's section."""
    records = sorted_records(state.records)
    sections: Mapping[str, Any] = {name: build() for name, build in state.json_sections.items()}
    meta = {
        "judges": sorted({record["judge"] for record in records if record.get("judge")}),
        "verdicts_mode": state.verdicts_mode or "off",
        "started": datetime.fromtimestamp(state.started, timezone.utc).isoformat(
            timespec="seconds"
        ),
        "duration_s": round(time.time() - state.started, 3),
    }
    return json_document(records, meta=meta, sections=sections)


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or state.is_worker or not state.report or not state.records:
        return
    records = sorted_records(state.records)
    terminalreporter.write_sep("-", "semantic report")
    judges = [record["judge"] for record in records if record.get("judge")]
    terminalreporter.write_line(header_line(judges, state.verdicts_mode))
    width = config.get_terminal_writer().fullwidth
    for text, markup in report_lines(records, width=width):
        terminalreporter.write_line(text, **markup)
    if state.report_json is not None:
        terminalreporter.write_line(f"semantic report JSON: {state.report_json}")
