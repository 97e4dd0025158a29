"""The semantix pytest plugin, registered through the ``pytest11`` entry point.

```python
def test_reply_is_polite(semantic):
    semantic("Thank you for your patience.", "The text is polite.")
```

Options (each has an ini key of the same name without the dashes, e.g. ``semantic_judge``; the
command line wins over the ini file):

- ``--semantic-judge SPEC``: the run's default judge (``quantized``, ``nli``, ``embedding``,
  ``llm`` or ``module:attr``), built on first use, once per process (once per xdist worker).
- ``--semantic-verdicts off|replay|update|strict``: pass the run's judge through the frozen
  verdict store (:func:`semantix.verdicts.wrap_judge`); else ``SEMANTIX_VERDICTS``.
- ``--semantic-report``: a table of every semantic assertion at the end of the session.
- ``--semantic-report-json PATH``: the same records as JSON.

Fixtures: ``semantic_judge`` (session-scoped, the configured judge) and ``semantic`` (calls
``assert_semantic`` with that judge). Marker: ``@pytest.mark.semantic(judge=..., threshold=...)``
configures the ``semantic`` fixture for one test.

Every assertion (passing or failing) is recorded from its :class:`~semantix.SemanticResult`
through ``semantix.cache.model_cache.add_observer``, attributed to the running test, added to
the JUnit XML as a ``semantic`` property and, under pytest-xdist, sent from each worker to the
controller through ``config.workeroutput``.

This module is imported by every pytest run in an environment where semantix is installed, so
it imports nothing heavy: judges are built only when a test first needs one.
"""

from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import pytest

if TYPE_CHECKING:
    from semantix.assertions import SemanticResult
    from semantix.intent import IntentLike
    from semantix.judges.base import Judge, JudgeIdentity, JudgeRequest, Verdict

__all__ = ["SemanticAssert"]

VERDICT_MODES = ("off", "replay", "update", "strict")
REPORT_VERSION = 1
#: The key under which xdist workers publish their records in ``config.workeroutput``.
WORKEROUTPUT_KEY = "semantix_records"
#: The name of the JUnit XML property carrying one assertion (its value is JSON).
JUNIT_PROPERTY = "semantic"
OUTSIDE_TEST = "(outside a test)"

Record = dict[str, Any]


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
        help="frozen verdict store mode for the run's judge: off, replay, update or strict",
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
    parser.addini(
        "semantic_report", "print the semantic report: true/false (see --semantic-report)"
    )
    parser.addini("semantic_report_json", "write the semantic report as JSON to this path")


def _option(config: pytest.Config, name: str) -> str | None:
    """The command-line value if given, else the ini value (``None`` when neither is set)."""
    value = config.getoption(name)
    if value is None:
        ini = config.getini(name)
        value = ini.strip() if isinstance(ini, str) and ini.strip() else None
    return value  # type: ignore[no-any-return]


def _parse_bool(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise pytest.UsageError(f"ini option {name} = {value!r} is not a boolean; write true or false")


# --- state ---------------------------------------------------------------------------------


@dataclass
class _State:
    judge_spec: str | None
    verdicts_mode: str | None
    report: bool
    report_json: Path | None
    is_worker: bool
    run_judge: _LazyJudge | None = None
    records: list[Record] = field(default_factory=list)
    current_item: pytest.Item | None = None
    marker_judges: dict[str, Judge] = field(default_factory=dict)
    observer: Callable[[Any], None] | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)


_STATE = pytest.StashKey[_State]()


def _state(config: pytest.Config) -> _State:
    return config.stash[_STATE]


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "semantic(judge=None, threshold=None): the judge (a judge object or a spec such as "
        "'embedding' or 'module:attr') and the default threshold used by the `semantic` "
        "fixture in this test. The threshold takes the place of the judge's recommended "
        "threshold: thresholds written on intents and threshold= arguments still win.",
    )
    judge_spec = _option(config, "semantic_judge")
    if judge_spec is not None:
        _check_spec(judge_spec)
    mode = _option(config, "semantic_verdicts")
    source = "--semantic-verdicts / semantic_verdicts"
    if mode is None and os.environ.get("SEMANTIX_VERDICTS", "").strip():
        mode, source = os.environ["SEMANTIX_VERDICTS"].strip(), "SEMANTIX_VERDICTS"
    if mode is not None and mode not in VERDICT_MODES:
        raise pytest.UsageError(
            f"{source} = {mode!r} is not a verdict store mode; "
            f"use one of {', '.join(VERDICT_MODES)}"
        )
    report_option = config.getoption("semantic_report")
    report = (
        report_option
        if report_option is not None
        else _parse_bool("semantic_report", config.getini("semantic_report"))
    )
    state = _State(
        judge_spec=judge_spec,
        verdicts_mode=mode,
        report=bool(report),
        report_json=_json_path(config),
        is_worker=hasattr(config, "workerinput"),
    )
    config.stash[_STATE] = state

    from semantix import set_default_judge
    from semantix.cache import model_cache

    if judge_spec is not None or mode is not None:
        state.run_judge = _LazyJudge(lambda: _build_run_judge(judge_spec, mode), judge_spec)
        set_default_judge(cast("Judge", state.run_judge))

    def observe(result: Any) -> None:
        _record(state, result)

    state.observer = observe
    model_cache.add_observer(observe)
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_XdistController(state), "semantix-xdist")


def pytest_unconfigure(config: pytest.Config) -> None:
    state = config.stash.get(_STATE, None)
    if state is None:
        return
    from semantix import set_default_judge
    from semantix.cache import model_cache

    if state.observer is not None:
        model_cache.remove_observer(state.observer)
    if state.run_judge is not None:
        set_default_judge(None)


def pytest_report_header(config: pytest.Config) -> str | None:
    state = config.stash.get(_STATE, None)
    if state is None or (state.judge_spec is None and state.verdicts_mode is None):
        return None
    parts = [f"judge={state.judge_spec or 'default'}"]
    if state.verdicts_mode is not None:
        parts.append(f"verdicts={state.verdicts_mode}")
    return "semantix: " + ", ".join(parts)


def _json_path(config: pytest.Config) -> Path | None:
    """``--semantic-report-json`` relative to the current directory, the ini key to the ini file."""
    option = config.getoption("semantic_report_json")
    if option:
        return Path(config.invocation_params.dir, option).resolve()
    ini = config.getini("semantic_report_json")
    if isinstance(ini, str) and ini.strip():
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        return Path(base, ini.strip()).resolve()
    return None


def _check_spec(spec: str) -> None:
    from semantix.judges import JUDGE_NAMES

    if spec not in JUDGE_NAMES and ":" not in spec:
        raise pytest.UsageError(
            f"--semantic-judge / semantic_judge = {spec!r} is not a judge; use one of "
            f"{', '.join(JUDGE_NAMES)} or an import path 'package.module:judge'"
        )


def _build_run_judge(spec: str | None, mode: str | None) -> Judge:
    """The run's judge: the spec (or the environment's default), behind the verdict store.

    Like :func:`semantix.judges.default_judge`, it always goes through ``wrap_judge`` (mode
    ``off`` keeps only the in-process memo), so ``--semantic-judge`` changes the judge and
    nothing else.
    """
    from semantix.judges import build_default_judge, judge_from_spec

    judge = judge_from_spec(spec) if spec is not None else build_default_judge()
    try:
        from semantix.verdicts import wrap_judge
    except ModuleNotFoundError as exc:
        if exc.name != "semantix.verdicts":
            raise
        if mode is None or mode == "off":
            return judge
        from semantix.errors import ConfigurationError

        raise ConfigurationError(
            f"--semantic-verdicts {mode} needs semantix.verdicts, which this installation of "
            "semantix does not have; upgrade semantix or drop --semantic-verdicts"
        ) from exc
    return wrap_judge(judge, mode=mode)


# --- judges --------------------------------------------------------------------------------


class _LazyJudge:
    """A judge that builds the real one on first use, once, and then forwards to it.

    A build error is kept and raised again on every use, so a missing model fails each test
    fast instead of retrying a slow download.
    """

    def __init__(self, factory: Callable[[], Judge], spec: str | None) -> None:
        self._factory = factory
        self._spec = spec
        self._judge: Judge | None = None
        self._error: BaseException | None = None
        self._lock = threading.Lock()

    def resolve(self) -> Judge:
        with self._lock:
            if self._judge is not None:
                return self._judge
            if self._error is not None:
                raise self._error
            try:
                self._judge = self._factory()
            except AttributeError as exc:  # would be swallowed by getattr(judge, ..., None)
                from semantix.errors import ConfigurationError

                self._error = ConfigurationError(
                    f"building the judge {self._spec or 'default'} failed: {exc}"
                )
                raise self._error from exc
            except Exception as exc:
                self._error = exc
                raise
            return self._judge

    @property
    def recommended_threshold(self) -> float | None:
        return getattr(self.resolve(), "recommended_threshold", None)

    @property
    def identity(self) -> JudgeIdentity:
        return _identity_of(self.resolve())

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.resolve().evaluate(output, intent_description, threshold)

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return _evaluate_batch(self.resolve(), requests)

    def __repr__(self) -> str:
        built = "built" if self._judge is not None else "not built yet"
        return f"<semantix run judge {self._spec or 'default'} ({built})>"


class _WithThreshold:
    """A judge whose recommended threshold is replaced (the ``semantic`` marker's threshold)."""

    def __init__(self, judge: Judge, threshold: float) -> None:
        self.judge = judge
        self.recommended_threshold: float | None = threshold

    @property
    def identity(self) -> JudgeIdentity:
        return _identity_of(self.judge)

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.judge.evaluate(output, intent_description, threshold)

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return _evaluate_batch(self.judge, requests)

    def __repr__(self) -> str:
        return f"{self.judge!r} (threshold {self.recommended_threshold})"


def _identity_of(judge: object) -> JudgeIdentity:
    from semantix.judges.base import JudgeIdentity

    identity = getattr(judge, "identity", None)
    return identity if isinstance(identity, JudgeIdentity) else JudgeIdentity(type(judge).__name__)


def _evaluate_batch(judge: Judge, requests: Sequence[JudgeRequest]) -> list[Verdict]:
    batch = getattr(judge, "evaluate_batch", None)
    if callable(batch):
        return list(batch(requests))
    return [judge.evaluate(*request) for request in requests]


# --- fixtures and marker -------------------------------------------------------------------


@pytest.fixture(scope="session")
def semantic_judge(pytestconfig: pytest.Config) -> Judge:
    """The run's judge: ``--semantic-judge`` (through ``--semantic-verdicts``), else the default.

    Built once per session (once per xdist worker), on first request.
    """
    state = _state(pytestconfig)
    if state.run_judge is not None:
        return state.run_judge.resolve()
    from semantix.judges import default_judge

    return default_judge()


class SemanticAssert:
    """``assert_semantic`` bound to a judge: what the ``semantic`` fixture returns.

    ``semantic(output, intent)`` asserts like :func:`semantix.assert_semantic` with this test's
    judge; ``semantic.evaluate(output, intent)`` returns the result without raising.
    """

    def __init__(self, judge: Judge) -> None:
        self.judge = judge

    def __call__(
        self, output: object, intent: IntentLike, *, threshold: float | None = None
    ) -> SemanticResult:
        __tracebackhide__ = True
        from semantix.assertions import assert_semantic

        return assert_semantic(output, intent, judge=self.judge, threshold=threshold)

    def evaluate(
        self, output: object, intent: IntentLike, *, threshold: float | None = None
    ) -> SemanticResult:
        """Judge without raising (and without recording: only assertions are recorded)."""
        from semantix.assertions import evaluate_semantic

        return evaluate_semantic(output, intent, judge=self.judge, threshold=threshold)

    def __repr__(self) -> str:
        return f"<semantic judge={self.judge!r}>"


@pytest.fixture
def semantic(request: pytest.FixtureRequest) -> SemanticAssert:
    """``semantic(output, intent, threshold=None)``: ``assert_semantic`` with this test's judge.

    The judge is the ``semantic`` marker's ``judge`` if the test has one, else
    ``semantic_judge``. The marker's ``threshold`` replaces the judge's recommended threshold.
    """
    marker = request.node.get_closest_marker("semantic")
    judge_value: object = None
    threshold: object = None
    if marker is not None:
        if marker.args:
            pytest.fail(
                f"{request.node.nodeid}: @pytest.mark.semantic takes keywords only, got "
                f"positional {marker.args!r}; write @pytest.mark.semantic(judge=..., "
                "threshold=...)",
                pytrace=False,
            )
        unknown = set(marker.kwargs) - {"judge", "threshold"}
        if unknown:
            pytest.fail(
                f"{request.node.nodeid}: @pytest.mark.semantic got unknown "
                f"{', '.join(sorted(unknown))}; it accepts judge= and threshold=",
                pytrace=False,
            )
        judge_value = marker.kwargs.get("judge")
        threshold = marker.kwargs.get("threshold")
    judge: Judge
    if judge_value is None:
        judge = request.getfixturevalue("semantic_judge")
    elif isinstance(judge_value, str):
        judge = _marker_judge(_state(request.config), judge_value)
    elif callable(getattr(judge_value, "evaluate", None)):
        judge = judge_value  # type: ignore[assignment]
    else:
        pytest.fail(
            f"{request.node.nodeid}: @pytest.mark.semantic(judge={judge_value!r}) is neither a "
            "judge (an object with evaluate(...)) nor a spec such as 'embedding' or "
            "'module:attr'",
            pytrace=False,
        )
    if threshold is not None:
        from semantix.validation import check_threshold

        judge = _WithThreshold(judge, check_threshold(threshold, what="semantic marker threshold"))
    return SemanticAssert(judge)


def _marker_judge(state: _State, spec: str) -> Judge:
    """Judges named by spec in markers: built once per process and spec."""
    with state.lock:
        judge = state.marker_judges.get(spec)
    if judge is None:
        from semantix.judges import judge_from_spec

        judge = judge_from_spec(spec)
        with state.lock:
            judge = state.marker_judges.setdefault(spec, judge)
    return judge


# --- recording -----------------------------------------------------------------------------


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(
    item: pytest.Item, nextitem: pytest.Item | None
) -> Generator[None, object, object]:
    state = item.config.stash.get(_STATE, None)
    if state is None:
        return (yield)
    state.current_item = item
    try:
        return (yield)
    finally:
        state.current_item = None


def _record(state: _State, result: SemanticResult) -> None:
    item = state.current_item
    record = result_record(result, item.nodeid if item is not None else OUTSIDE_TEST)
    with state.lock:
        record["seq"] = len(state.records)
        state.records.append(record)
    if item is not None:
        value = {key: value for key, value in record.items() if key not in ("nodeid", "seq")}
        item.user_properties.append((JUNIT_PROPERTY, json.dumps(value, sort_keys=True)))


def result_record(result: SemanticResult, nodeid: str) -> Record:
    """A JSON-able record of one assertion (the JSON report, JUnit properties, xdist)."""
    summary = result.to_dict()
    return {
        "nodeid": nodeid,
        "intent": summary["intent"],
        "judge": summary["judge"],
        "passed": summary["passed"],
        "duration_ms": summary["duration_ms"],
        "leaves": summary["leaves"],
    }


# --- xdist ---------------------------------------------------------------------------------


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
    if state.report_json is not None:
        write_json_report(state.report_json, sorted_records(state.records))


def sorted_records(records: Sequence[Record]) -> list[Record]:
    """Records grouped by test (by node id), in the order each test made its assertions.

    Sorting by node id gives the same report with and without xdist, whichever worker ran what.
    """
    return sorted(records, key=lambda record: (record["nodeid"], record.get("seq", 0)))


def write_json_report(path: Path, records: Sequence[Record]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    passed = sum(1 for record in records if record["passed"])
    document = {
        "version": REPORT_VERSION,
        "summary": {"total": len(records), "passed": passed, "failed": len(records) - passed},
        "assertions": [
            {key: value for key, value in record.items() if key != "seq"} for record in records
        ],
    }
    path.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")


# --- terminal report -----------------------------------------------------------------------


def pytest_terminal_summary(
    terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config
) -> None:
    state = config.stash.get(_STATE, None)
    if state is None or state.is_worker or not state.report or not state.records:
        return
    records = sorted_records(state.records)
    terminalreporter.write_sep("-", "semantic report")
    for line in report_lines(records):
        terminalreporter.write_line(line)
    if state.report_json is not None:
        terminalreporter.write_line(f"semantic report JSON: {state.report_json}")


HEADER = ("test", "intent", "judge", "score", "threshold", "verdict", "time")


def report_lines(records: Sequence[Record]) -> list[str]:
    """The report table: one row per assertion, plus one indented row per part of a composite."""
    rows: list[tuple[str, ...]] = []
    for record in records:
        leaves = record["leaves"]
        verdict = "PASS" if record["passed"] else "FAIL"
        time_text = _format_ms(record.get("duration_ms"))
        if len(leaves) == 1 and leaves[0]["intent"].lstrip("~") == record["intent"].lstrip("~"):
            leaf = leaves[0]
            rows.append(
                (
                    record["nodeid"],
                    _truncate(record["intent"], 40),
                    record["judge"],
                    _format_score(leaf["score"]),
                    f"{leaf['threshold']:.2f}",
                    verdict,
                    time_text,
                )
            )
            continue
        rows.append(
            (
                record["nodeid"],
                _truncate(record["intent"], 40),
                record["judge"],
                "",
                "",
                verdict,
                time_text,
            )
        )
        for leaf in leaves:
            rows.append(
                (
                    "",
                    "  " + _truncate(leaf["intent"], 38),
                    "",
                    _format_score(leaf["score"]),
                    f"{leaf['threshold']:.2f}",
                    "ok" if leaf["ok"] else "not ok",
                    "",
                )
            )
    widths = [max(len(row[i]) for row in (HEADER, *rows)) for i in range(len(HEADER))]
    right = {3, 4, 6}

    def render(row: tuple[str, ...]) -> str:
        cells = [
            cell.rjust(width) if i in right else cell.ljust(width)
            for i, (cell, width) in enumerate(zip(row, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    passed = sum(1 for record in records if record["passed"])
    failed = len(records) - passed
    noun = "assertion" if len(records) == 1 else "assertions"
    return [
        render(HEADER),
        *(render(row) for row in rows),
        f"{len(records)} semantic {noun}: {passed} passed, {failed} failed",
    ]


def _format_score(score: float | None) -> str:
    return "n/a" if score is None else f"{score:.2f}"


def _format_ms(value: float | None) -> str:
    if value is None or math.isnan(value):
        return "-"
    if value >= 1000:
        return f"{value / 1000:.2f} s"
    return f"{value:.0f} ms"


def _truncate(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"
