"""The state of one pytest session: `SemanticSession`, the one object the plugin's hooks call.
Under pytest-xdist a worker sends everything in one `payload`; the controller merges it and
alone writes the reports."""

from __future__ import annotations

import contextlib
import contextvars
import json
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import _pytest
import pluggy
import pytest

import semantix
from semantix import _context as context
from semantix._config import in_ci
from semantix.errors import SemanticAssertionError, SemantixError
from semantix.pytest._baseline import Baseline
from semantix.pytest._downloads import DownloadReporter
from semantix.pytest._markers import marker_settings
from semantix.pytest._report_files import (
    mask_report,
    refuse_writing_over_an_input,
    run_id,
    shard_option,
)
from semantix.pytest._runs import RepeatedTests
from semantix.pytest._settings import Settings
from semantix.pytest._verdicts import VerdictSummary

if TYPE_CHECKING:  # the checks, reports and snapshots are imported when a run uses them
    from semantix.judges._base import Judge
    from semantix.report._model import CheckRecord, RelationRecord, RepeatedTest, Report, TestRecord
    from semantix.snapshots._fixture import SemanticSnapshot
    from semantix.snapshots._session import SnapshotSession

__all__ = ["JUNIT_PROPERTY", "PAYLOAD_KEY", "RELATIONS_PROPERTY", "SemanticSession"]

#: The JUnit XML properties of a relation's result and of one assertion (their values are JSON).
RELATIONS_PROPERTY = "semantic_relations"
JUNIT_PROPERTY = "semantic"
#: The key of the one payload an xdist worker sends in ``config.workeroutput``.
PAYLOAD_KEY = "semantix"
#: Frames hidden when a judge or configuration error is shown: ours, pytest's and pluggy's.
_HIDDEN_DIRS = tuple(
    str(Path(module.__file__).parent)
    for module in (semantix, _pytest, pluggy)
    if module.__file__ is not None
)


#: The test's outcome so far and its reason (xfail or skip), followed over its phases.
_OUTCOME = pytest.StashKey[tuple[str | None, str | None]]()


def test_outcome(
    report: pytest.TestReport, before: tuple[str | None, str | None] | None
) -> tuple[str | None, str | None]:
    """The test's pytest outcome after this phase's report, and its reason: ``error`` (setup or
    teardown failed), ``failed``, ``skipped``, ``xfailed`` or ``xpassed`` (strict or not), or
    ``passed``; None while nothing has decided it. A teardown error does not hide an xfail."""
    current = before or (None, None)
    xfail = getattr(report, "wasxfail", None)
    if report.skipped and (report.when == "call" or current[0] is None):
        if xfail is not None:
            return "xfailed", xfail
        longrepr = report.longrepr
        reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else None
        return "skipped", reason
    if report.when != "call":
        return ("error", None) if report.failed and current[0] in (None, "passed") else current
    if report.failed:
        strict = str(report.longrepr).startswith("[XPASS(strict)]")
        return ("xpassed", str(report.longrepr)) if strict else ("failed", None)
    return ("xpassed", xfail) if xfail is not None else ("passed", None)


class SemanticSession:
    """Everything semantix keeps for one pytest session (in ``config.stash``)."""

    def __init__(self, config: pytest.Config, settings: Settings) -> None:
        self.config = config
        self.settings = settings
        self.is_worker = hasattr(config, "workerinput")
        self.started = time.time()
        self.records: list[CheckRecord] = []
        #: Metamorphic relations' results (`semantix.relations`), one record per relation and case.
        self.relations: list[RelationRecord] = []
        self.lock = threading.Lock()
        #: The test in progress (its protocol, fixtures included); None between tests.
        self.current_item: pytest.Item | None = None
        #: The records the test in progress made, with their JUnit property's name (`ended`).
        self.pending: list[tuple[str, CheckRecord | RelationRecord | RepeatedTest]] = []
        #: pytest's outcome of each test that ran, and its reason (the JSON report's ``tests``,
        #: `test_records`): kept plain, so a run that reports nothing imports no report module.
        self.outcomes: dict[str, tuple[str, str | None]] = {}
        self.runs = RepeatedTests(
            settings.runs, self.attach, settings.judge_accuracy, tests=self.test_records
        )
        self.baseline = Baseline(settings.baseline, read=not self.is_worker)
        #: Every collected test and its file, before ``-k`` and friends deselect any (`snapshots`).
        self.collected_items: list[tuple[str, Path]] = []
        self._snapshots: SnapshotSession | None = None
        self.verdicts = VerdictSummary(prune=settings.verdicts_prune)
        self.downloads = DownloadReporter(config)
        self._exit = contextlib.ExitStack()
        if not self.is_worker:
            refuse_writing_over_an_input(settings, config)
        #: This machine's shard (``i/N``), so merge can check one run's shards.
        self.shard = shard_option(config)

    # --- the session's life ---------------------------------------------------------------------

    def start(self) -> None:
        """Enter the run's defaults (only the options given) and start listening."""
        settings = self.settings
        # Only what was given: a set_default_judge() in conftest.py survives a run naming no judge.
        defaults = context.run_defaults(
            judge=settings.judge,
            verdicts_mode=settings.verdicts_mode,
            verdicts_path=settings.verdicts_path,
            verdicts_root=settings.root,
            timeout=settings.timeout,
        )
        self.run = self._exit.enter_context(defaults)
        context.add_observer(self.observe)
        self._exit.callback(context.remove_observer, self.observe)
        self.downloads.start()
        self._exit.callback(self.downloads.stop)

    def stop(self) -> None:
        self._exit.close()

    def header(self) -> str | None:
        """pytest's header line, when a judge or a verdict mode was configured."""
        judge, mode = self.settings.judge, self.settings.verdicts_mode
        if judge is None and mode is None:
            return None
        return f"semantix: judge={judge or 'default'}" + (
            "" if mode is None else f", verdicts={mode}"
        )

    def run_judge(self) -> Judge:
        """The run's judge: the options', else the process's default — never a test's marker
        (resolved in an empty context, outside the scope of whichever test asks first)."""
        from semantix.pipeline._judging import resolve_judge

        return contextvars.Context().run(resolve_judge, None)

    @property
    def snapshots(self) -> SnapshotSession:
        """The run's semantic snapshots, made on first use (a snapshot fixture, a worker's
        snapshots, ``--semantic-snapshot-update``, a report): a run without any never imports
        them."""
        with self.lock:
            if self._snapshots is None:
                from semantix.snapshots._session import SnapshotSession, narrowed_modules

                snapshots = SnapshotSession(update=self.settings.snapshot_update)
                narrowed = narrowed_modules(self.config.args, self.config.invocation_params.dir)
                for nodeid, path in self.collected_items:
                    snapshots.collected.add(nodeid)
                    if path.suffix == ".py":
                        module = path.resolve()
                        snapshots.collected_module(module, whole=module not in narrowed)
                self._snapshots = snapshots
            return self._snapshots

    def test_records(self) -> dict[str, TestRecord]:
        """Every test that ran, with its pytest outcome, by node id."""
        from semantix.report._model import TestRecord

        with self.lock:
            outcomes = dict(self.outcomes)
        return {
            nodeid: TestRecord(nodeid=nodeid, outcome=outcome, reason=reason)  # type: ignore[arg-type]
            for nodeid, (outcome, reason) in outcomes.items()
        }

    # --- one test -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def test(self, item: pytest.Item) -> Iterator[None]:
        """The test's protocol: its records are attributed to it, its marker applies to it."""
        marked = marker_settings(item)
        self.current_item = item
        self.pending = []
        try:
            if marked.error is not None:
                yield  # reported by setup
                return
            # From fixtures' setup to teardown, whichever way the assertion is written.
            with context.scope(
                judge=marked.judge, threshold=marked.threshold, timeout=marked.timeout
            ):
                yield
        finally:
            self.current_item = None

    def setup(self, item: pytest.Item) -> None:
        """Fail the test's setup when its marker (or its repetition) is wrong."""
        error = marker_settings(item).error or self.runs.setup_error(item)
        if error is not None:
            pytest.fail(error, pytrace=False)

    def snapshot(self, request: pytest.FixtureRequest) -> SemanticSnapshot:
        """The ``semantic_snapshot`` fixture's value for the requesting test."""
        from semantix.snapshots._fixture import SemanticSnapshot

        node, snapshots = request.node, self.snapshots
        return SemanticSnapshot(
            nodeid=node.nodeid,
            module=node.path.resolve(),
            session=snapshots,
            update=snapshots.update,
        )

    def collected(self, items: list[pytest.Item]) -> None:
        """Remember every collected test and module, before ``-k`` and friends deselect any."""
        self.collected_items = [(item.nodeid, item.path) for item in items]
        if self.settings.snapshot_update:
            self.snapshots  # noqa: B018 - made now: unused snapshots are looked for at the end

    def select_shard(self, items: list[pytest.Item]) -> None:
        """``--semantic-shard i/N``: keep shard ``i`` of ``N`` of the selected tests, chosen by a
        stable hash of each test's node id (`semantix._shards`), so N CI machines split one run
        (docs/ci.md); the others are reported deselected."""
        given = self.config.getoption("semantic_shard", None)
        if given is None:
            return
        from semantix._shards import parse_shard
        from semantix.errors import ConfigurationError

        try:
            shard = parse_shard(given, source="--semantic-shard")
        except ConfigurationError as exc:
            raise pytest.UsageError(str(exc)) from None
        chosen = [shard.selects(item.nodeid) for item in items]
        if not all(chosen):
            left = [item for item, keep in zip(items, chosen, strict=True) if not keep]
            self.config.hook.pytest_deselected(items=left)
            items[:] = [item for item, keep in zip(items, chosen, strict=True) if keep]

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        """A phase of a test ended: a failed one (setup, call or teardown) fails its snapshots'
        test, the call decides otherwise."""
        if self._snapshots is not None and (report.when == "call" or report.failed):
            self._snapshots.test_finished(report.nodeid, passed=report.passed)

    def make_report(
        self, item: pytest.Item, call: pytest.CallInfo[None], report: pytest.TestReport
    ) -> pytest.TestReport:
        """Downloads out of the duration; a judge or configuration error in one short entry;
        the test's outcome followed (`ended`)."""
        self.downloads.adjust(report)
        self.ended(item, report)
        mask_report(report)
        excinfo = call.excinfo
        if (
            excinfo is not None
            and isinstance(excinfo.value, SemantixError)
            and not isinstance(excinfo.value, SemanticAssertionError)
            and not item.config.getoption("fulltrace", False)
            and item.config.getoption("tbstyle", "auto") in ("auto", "long", "short")
        ):
            # The user's line and our one-line message — not the source of semantix's
            # internals, nor the chain of library errors behind it (the message already says
            # what to do; --full-trace shows everything).
            excinfo.traceback = excinfo.traceback.filter(
                lambda entry: not str(entry.path).startswith(_HIDDEN_DIRS)
            )
            report.longrepr = excinfo.getrepr(style="short", chain=False)
            mask_report(report)
        return report

    def ended(self, item: pytest.Item, report: pytest.TestReport) -> None:
        """Follow the test's outcome phase by phase (`test_outcome`); at its teardown, add every
        record the test made, with that outcome, to the JUnit properties of the teardown
        report."""
        found = test_outcome(report, item.stash.get(_OUTCOME, None))
        item.stash[_OUTCOME] = found
        if report.when != "teardown":
            return
        pending, self.pending = self.pending, []
        final = found[0] or "passed"
        for name, record in pending:
            from semantix.report._model import to_json  # a record: the report is loaded

            value = to_json(record) | {"test_outcome": final}
            del value["nodeid"]
            report.user_properties.append((name, json.dumps(value, sort_keys=True, default=str)))
        # Every test that ran, whether or not it asserted: one that crashed before its first
        # assertion is a regression in compare and --semantic-baseline.
        with self.lock:
            self.outcomes[item.nodeid] = (final, found[1])

    def attach(
        self,
        name: str,
        record: CheckRecord | RelationRecord | RepeatedTest,
        item: pytest.Item | None,
    ) -> None:
        """A record the test in progress made: it becomes the JUnit property ``name`` when the
        test ends, with the test's outcome."""
        if item is not None and item is self.current_item:
            self.pending.append((name, record))

    # --- recording ------------------------------------------------------------------------------

    def observe(self, event: object) -> None:
        """The session's one observer: a record per check, and the repeated tests' share."""
        item = self.current_item
        self.record(event, item)
        self.runs.observe(event, item)

    def record(self, event: object, item: pytest.Item | None) -> None:
        """One report record for a check's result or error (other events are not checks)."""
        from semantix.pipeline._results import CheckError, SemanticResult  # events: all loaded
        from semantix.relations._results import RelationResult
        from semantix.report import error_record, result_record
        from semantix.report._merge import OUTSIDE_TEST
        from semantix.report._records import relation_record

        nodeid = item.nodeid if item is not None else OUTSIDE_TEST
        if isinstance(event, RelationResult):
            relation = relation_record(event, nodeid)
            with self.lock:
                self.relations.append(relation)
            self.attach(RELATIONS_PROPERTY, relation, item)
            return
        if isinstance(event, SemanticResult):
            record = result_record(event, nodeid)
        elif isinstance(event, CheckError):
            record = error_record(nodeid, event.error, intent=event.intent, output=event.output)
        else:
            return
        self._add_records([record])
        self.attach(JUNIT_PROPERTY, record, item)

    def _add_records(self, records: Sequence[CheckRecord]) -> None:
        with self.lock:
            for record in records:
                self.records.append(replace(record, seq=len(self.records)))

    # --- xdist ----------------------------------------------------------------------------------

    def payload(self) -> dict[str, Any]:
        """What a worker sends the controller: everything the reports need, in one dict (its
        records as a JSON report)."""
        from semantix.report._model import Report

        self.verdicts.collect(self.run)
        with self.lock:
            records, relations = tuple(self.records), tuple(self.relations)
        tests = tuple(self.test_records().values())
        repeated, once = self.runs.parts()
        report = Report(
            assertions=records, tests=tests, relations=relations, repeated=repeated, once=once
        )
        return {
            "report": report.to_json(),
            "snapshots": None if self._snapshots is None else self._snapshots.to_data(),
            "verdicts": self.verdicts.payload(),
        }

    def merge(self, payload: dict[str, Any] | None) -> None:
        """Add a worker's payload (None: the worker sent none, e.g. it crashed)."""
        if not payload:
            return
        from semantix.report._schema import check_document

        report = check_document(payload["report"])
        self._add_records(report.assertions)
        with self.lock:
            self.relations.extend(report.relations)
            self.outcomes.update(
                (test.nodeid, (test.outcome, test.reason)) for test in report.tests
            )
        self.runs.merge(report.repeated, report.once)
        if payload["snapshots"] is not None:
            self.snapshots.merge(payload["snapshots"])
        self.verdicts.merge(payload["verdicts"])

    # --- the end --------------------------------------------------------------------------------

    def finish(self, exitstatus: int) -> None:
        """A worker publishes its payload; the controller finishes the features, then writes the
        reports (so the JSON says what snapshots were deleted)."""
        if self.is_worker:
            self.config.workeroutput[PAYLOAD_KEY] = self.payload()  # type: ignore[attr-defined]
            return
        self.verdicts.collect(self.run)
        if self._snapshots is not None and self._snapshots.update and not in_ci():  # never in CI
            self._snapshots.delete_unused()
        self.verdicts.finish(exitstatus)
        self.runs.finish()
        report_json, report_html = self.settings.report_json, self.settings.report_html
        if report_json is None and report_html is None and self.baseline.document is None:
            return
        document = self.report_document()  # once: the page renders exactly what the JSON holds
        document = self.baseline.compare(document)
        if report_json is not None:
            from semantix.report._records import write_json_report

            write_json_report(report_json, document)
        if report_html is not None:
            from semantix.report._html import write_html_report

            write_html_report(report_html, document, json_path=report_json)

    def report_document(self) -> Report:
        """The report of this session (`semantix.report._merge.assemble`)."""
        from datetime import datetime, timezone

        from semantix.report._costs import judge_cost, record_judge_cost
        from semantix.report._merge import assemble
        from semantix.report._model import Meta
        from semantix.report._records import sorted_records, with_test_outcomes
        from semantix.report._snapshots import snapshot_section

        by_test = self.test_records()
        with self.lock:
            records = with_test_outcomes(sorted_records(self.records), by_test)
            relations = with_test_outcomes(self.relations, by_test)
        tests = [by_test[nodeid] for nodeid in sorted(by_test)]
        prices = self.settings.judge_prices
        records = [
            record if cost is None else replace(record, judge_cost_usd=cost)
            for record in records
            for cost in [record_judge_cost(record, prices)]
        ]
        spent = judge_cost(records, prices)
        meta = Meta(
            judge_cost=spent if spent.verdicts else None,
            judges=tuple(sorted({record.judge for record in records if record.judge})),
            verdicts_mode=self.settings.verdicts_mode or "off",
            started=datetime.fromtimestamp(self.started, timezone.utc).isoformat(
                timespec="seconds"
            ),
            duration_s=round(time.time() - self.started, 3),
            run_id=run_id(self.config),
            shard=self.shard,
        )
        return assemble(
            records,
            meta=meta,
            tests=tests,
            runs=self.runs.sorted(),
            once=self.runs.once_ids(),
            relations=relations,
            snapshots=snapshot_section(self.snapshots, self.config.rootpath),
        )

    def summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        """The end of the session on the terminal (the controller's; workers print nothing):
        the semantic report, repeated runs, relations, snapshots, verdicts and the baseline,
        each where the run has some."""
        if self.is_worker:
            return
        from semantix.pytest._summary import write_relations, write_report, write_snapshots

        width = self.config.get_terminal_writer().fullwidth
        with self.lock:
            records, relations = list(self.records), list(self.relations)
        if self.settings.report:
            write_report(terminalreporter, records, self.test_records(), self.settings, width)
            self.runs.write_summary(terminalreporter, width)
            write_relations(terminalreporter, relations)
        if self._snapshots is not None:
            write_snapshots(terminalreporter, self._snapshots, self.config.rootpath)
        self.verdicts.write_summary(terminalreporter)
        self.baseline.write_summary(terminalreporter)
        if self.settings.report_html is not None:
            terminalreporter.write_line(f"semantic report HTML: {self.settings.report_html}")
