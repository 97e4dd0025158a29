"""The one reader of report files (`load_report`) and of report documents (`check_document`):
an older version is upgraded once, then every field the renderers, compare and merge read is
checked, and every error names the file and the field by its path, what it holds and what was
expected (docs/html-report.md, "Damaged or foreign files").
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

__all__ = [
    "CHECK_OUTCOMES",
    "REPORT_VERSION",
    "TEST_OUTCOMES",
    "ReportDocumentError",
    "check_document",
    "load_report",
]

#: Version of the JSON report's layout (2: outcomes with errors, borderline, outputs, sections;
#: 3: each record's and each test's pytest outcome, xfailed/xpassed/skipped/topical counts,
#: topical leaves, the tests and relations sections; 4: every test that ran in ``tests``, the
#: ``caught`` count, ``meta.run_id`` and ``meta.shard``, an unknown judge cost as null). Every
#: earlier version is upgraded when it is read.
REPORT_VERSION = 4

#: The check's own outcomes (a record's ``outcome``).
CHECK_OUTCOMES = ("passed", "failed", "error")
#: pytest's outcomes of a test (a record's ``test_outcome``, the ``tests`` section's ``outcome``).
TEST_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")

_AGAIN = "write it again with pytest --semantic-report-json PATH"
_WRITTEN_BY = "pass the file written by pytest --semantic-report-json PATH"


class ReportDocumentError(ValueError):
    """The data given to a report renderer is not a semantix JSON report (the message names the
    field, what it holds and what was expected)."""


def load_report(path: Path) -> dict[str, Any]:
    """The JSON report at ``path``, read, upgraded and checked (`check_document`);
    `ReportDocumentError` naming the file when it cannot be read, is not UTF-8 text or JSON, or
    nests deeper than Python reads. An escaped lone surrogate (``"\\ud800"``) reads as it is."""
    shown = repr(str(path))
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise ReportDocumentError(
            f"cannot read the JSON report {shown} ({exc.strerror or exc}); {_WRITTEN_BY}"
        ) from None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ReportDocumentError(
            f"{shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start}), so "
            f"it is not a JSON report; {_WRITTEN_BY}"
        ) from None
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ReportDocumentError(
            f"{shown} is not JSON ({exc.msg} at line {exc.lineno}, column {exc.colno}); "
            f"{_WRITTEN_BY}"
        ) from None
    except RecursionError:
        raise ReportDocumentError(
            f"{shown} nests arrays or objects deeper than can be read (a semantix report nests "
            f"5 levels); {_WRITTEN_BY}"
        ) from None
    try:
        return check_document(document)
    except ReportDocumentError as exc:
        raise ReportDocumentError(f"{shown}: {exc}") from None


def check_document(document: object) -> dict[str, Any]:
    """``document`` if it has the shape of a semantix JSON report of this version; an older
    version upgraded (a copy, with ``upgraded_from`` set to the version it had); else
    `ReportDocumentError` naming the field. Fields this version does not know are left alone (a
    newer semantix may add some); a version newer than `REPORT_VERSION` is refused with the
    upgrade to make."""
    if not isinstance(document, dict):
        raise ReportDocumentError(
            f"a semantix JSON report is a JSON object, got {_kind(document)}; {_WRITTEN_BY}"
        )
    version, records = document.get("version"), document.get("assertions")
    if isinstance(version, bool) or not isinstance(version, int) or not isinstance(records, list):
        raise ReportDocumentError(
            "this JSON is not a semantix report (it needs an integer 'version' and an "
            f"'assertions' list); {_WRITTEN_BY}"
        )
    if version > REPORT_VERSION:
        raise ReportDocumentError(
            f"this JSON report has version {version}, newer than this semantix reads "
            f"({REPORT_VERSION}); upgrade semantix (pip install -U semantix-judge)"
        )
    _check_sections(document)
    return _upgraded(document) if version < REPORT_VERSION else document


# --- the checks ------------------------------------------------------------------------------

#: What a field must hold: the words of the message, the types that may hold it, and a test
#: for a value of one of those types (None: the type is enough; the fast path of most fields).
_Expected = tuple[str, frozenset[type], Callable[[Any], bool] | None]
_NULL = type(None)


def _finite(value: Any) -> bool:
    return value is None or math.isfinite(value)


def _number(value: object) -> bool:
    return type(value) in (int, float) and math.isfinite(value)  # type: ignore[arg-type]


def _or_null(expected: _Expected) -> _Expected:
    words, types, test = expected
    return f"{words} or null", types | {_NULL}, test


def _words(*allowed: object) -> _Expected:
    words = " or ".join("null" if w is None else repr(w) for w in allowed)
    return words, frozenset(type(w) for w in allowed), frozenset(allowed).__contains__


def _strings(value: list[Any]) -> bool:
    return all(type(item) is str for item in value)


STR: _Expected = ("a string", frozenset({str}), None)
NUMBER: _Expected = ("a number", frozenset({int, float}), _finite)
INT: _Expected = ("an integer", frozenset({int}), None)
BOOL: _Expected = ("true or false", frozenset({bool}), None)
STRINGS: _Expected = ("a list of strings", frozenset({list}), _strings)
OPT_STR, OPT_NUMBER, OPT_BOOL, OPT_INT = map(_or_null, (STR, NUMBER, BOOL, INT))


def _holds(expected: _Expected, value: object) -> bool:
    _, types, test = expected
    return type(value) in types and (test is None or value is None or test(value))


_LEAF: Mapping[str, _Expected] = {
    "intent": STR,
    **dict.fromkeys(("qualname", "description", "judged_as", "threshold_source"), OPT_STR),
    **dict.fromkeys(("reason", "evidence", "judge", "judge_model"), OPT_STR),
    **dict.fromkeys(("expected", "satisfied", "passed", "judged"), OPT_BOOL),
    **dict.fromkeys(("borderline", "topical"), OPT_BOOL),
    **dict.fromkeys(("score", "threshold", "latency_ms"), OPT_NUMBER),
}
_RECORD: Mapping[str, _Expected] = {
    "nodeid": STR,
    "outcome": _words(*CHECK_OUTCOMES),
    "test_outcome": _words(*TEST_OUTCOMES, None),
    "intent": STR,
    **dict.fromkeys(("judge", "output", "error"), OPT_STR),
    **dict.fromkeys(("passed", "borderline", "empty"), OPT_BOOL),
    "duration_ms": OPT_NUMBER,
}
_RUN: Mapping[str, _Expected] = {
    "nodeid": STR,
    "name": OPT_STR,
    "verdict": _words(*CHECK_OUTCOMES, "pass", "fail"),
    "runs": INT,
    "passes": INT,
    "errors": OPT_INT,
    "pass_rate": OPT_NUMBER,
    "min_pass_rate": OPT_NUMBER,
    "test_outcome": _words(*TEST_OUTCOMES, None),
}
_TEST: Mapping[str, _Expected] = {
    "nodeid": STR,
    "outcome": _words(*TEST_OUTCOMES),
    "reason": OPT_STR,
}
_RELATION: Mapping[str, _Expected] = {
    "nodeid": STR,
    "relation": STR,
    "case_id": OPT_STR,
    "applicable": BOOL,
    **dict.fromkeys(("violations", "judged", "errors"), INT),
    "rate": OPT_NUMBER,
}
_RELATION_ROW: Mapping[str, _Expected] = {
    "relation": STR,
    **dict.fromkeys(("cases", "not_applicable", "violations", "judged", "errors"), INT),
    **dict.fromkeys(("mean_rate", "worst_rate"), OPT_NUMBER),
}
_COST: Mapping[str, _Expected] = {
    **dict.fromkeys(("verdicts", "prompt_tokens", "completion_tokens", "unknown"), INT),
    **dict.fromkeys(("usd", "known_usd"), OPT_NUMBER),
    "unpriced": STRINGS,
}
_META: Mapping[str, _Expected] = {
    "judges": STRINGS,
    "verdicts_mode": OPT_STR,
    "started": OPT_STR,
    "duration_s": OPT_NUMBER,
    "run_id": OPT_STR,
    "shard": OPT_STR,
}
_COUNTS = ("total", "passed", "failed", "errors", "caught", "xfailed", "xpassed", "skipped")
_SUMMARY: Mapping[str, _Expected] = dict.fromkeys((*_COUNTS, "borderline", "topical"), INT)
_SNAPSHOT: Mapping[str, _Expected] = dict.fromkeys(
    ("path", "outcome", "stored", "output", "test"), OPT_STR
)
#: The fields a record, a leaf, a repeated test, a test and a relation must have.
_REQUIRED = {
    id(_RECORD): ("nodeid", "intent"),
    id(_LEAF): ("intent",),
    id(_RUN): ("nodeid", "verdict", "runs", "passes"),
    id(_TEST): ("nodeid", "outcome"),
    id(_RELATION): ("nodeid", "relation", "applicable", "violations", "judged", "errors", "rate"),
}


def _fail(where: str, value: object, expected: str) -> ReportDocumentError:
    return ReportDocumentError(
        f"{where} is {_shown(value)} ({_kind(value)}); expected {expected}. The file is not a "
        f"report semantix wrote: {_AGAIN}"
    )


def _object(value: object, spec: Mapping[str, _Expected], where: str) -> dict[str, Any]:
    """``value`` checked against ``spec`` (the fields it knows; the others are left alone)."""
    if type(value) is not dict:
        raise _fail(where, value, "an object")
    for name, item in value.items():
        expected = spec.get(name)
        if expected is not None and (
            type(item) not in expected[1]
            or (expected[2] is not None and not _holds(expected, item))
        ):
            raise _fail(f"{where}.{name}", item, expected[0])
    for name in _REQUIRED.get(id(spec), ()):
        if name not in value:
            raise ReportDocumentError(
                f"{where}.{name} is missing; expected {spec[name][0]}. The file is not a report "
                f"semantix wrote: {_AGAIN}"
            )
    return value


def _list(value: object, where: str) -> list[Any]:
    if type(value) is not list:
        raise _fail(where, value, "a list of objects")
    return value


def _objects(value: object, spec: Mapping[str, _Expected], where: str) -> list[dict[str, Any]]:
    return [_object(item, spec, f"{where}[{i}]") for i, item in enumerate(_list(value, where))]


def _section(document: Mapping[str, Any], name: str) -> dict[str, Any] | None:
    value = document.get(name)
    return None if value is None else _object(value, {}, name)


def _check_sections(document: Mapping[str, Any]) -> None:
    current = document["version"] == REPORT_VERSION  # older ones may leave out what is derived
    if document.get("meta") is not None:
        meta = _object(document["meta"], _META, "meta")
        if meta.get("judge_cost") is not None:
            _object(meta["judge_cost"], _COST, "meta.judge_cost")
        _check_shard(meta.get("shard"))
    if document.get("summary") is not None:
        summary = _object(document["summary"], _SUMMARY, "summary")
        if summary.get("decided_by") is not None:
            _object(summary["decided_by"], {}, "summary.decided_by")
    for index, record in enumerate(_list(document["assertions"], "assertions")):
        where = f"assertions[{index}]"
        _object(record, _RECORD, where)
        if "leaves" in record or current:
            _objects(record.get("leaves"), _LEAF, f"{where}.leaves")
    if document.get("tests") is not None:
        _objects(document["tests"], _TEST, "tests")
    runs = _section(document, "runs")
    if runs is not None:
        _object(runs, {"stability": OPT_NUMBER, "once": _or_null(STRINGS)}, "runs")
        for index, test in enumerate(_objects(runs.get("tests") or [], _RUN, "runs.tests")):
            _check_counts(test, f"runs.tests[{index}]", current=current)
    relations = _section(document, "relations")
    if relations is not None:
        _objects(relations.get("results") or [], _RELATION, "relations.results")
        _objects(relations.get("summary") or [], _RELATION_ROW, "relations.summary")
    snapshots = _section(document, "snapshots")
    if snapshots is not None:
        _object(snapshots, {"deleted": _or_null(STRINGS)}, "snapshots")
        for name in ("snapshots", "unused"):
            _objects(snapshots.get(name) or [], _SNAPSHOT, f"snapshots.{name}")


def _check_counts(test: Mapping[str, Any], where: str, *, current: bool) -> None:
    """A repeated test's counts agree: 1 <= runs, passes + errors <= runs, the rate is theirs."""
    runs, passes, errors = test["runs"], test["passes"], test.get("errors") or 0
    if runs < 1:
        raise _fail(f"{where}.runs", runs, "a count of runs of at least 1")
    for name, count in (("passes", passes), ("errors", errors)):
        if not 0 <= count <= runs:
            raise _fail(f"{where}.{name}", count, f"a count between 0 and runs ({runs})")
    if passes + errors > runs:
        raise _fail(f"{where}.errors", errors, f"at most runs - passes ({runs - passes})")
    rate = test.get("pass_rate")
    if (rate is None and current) or (rate is not None and abs(rate - passes / runs) > 1e-9):
        raise _fail(f"{where}.pass_rate", rate, f"passes / runs ({passes}/{runs})")
    interval = test.get("interval")
    if (interval is not None or current) and not (
        type(interval) is list and len(interval) == 2 and all(map(_number, interval))
    ):
        raise _fail(f"{where}.interval", interval, "[low, high]: two numbers")
    if current and test["verdict"] not in CHECK_OUTCOMES:  # ``pass``/``fail``: version 2's
        raise _fail(f"{where}.verdict", test["verdict"], _words(*CHECK_OUTCOMES)[0])
    floor = test.get("min_pass_rate")
    if floor is not None and not 0 <= floor <= 1:
        raise _fail(f"{where}.min_pass_rate", floor, "a number in [0, 1]")


def _check_shard(shard: object) -> None:
    if shard is None:
        return
    index, _, count = str(shard).partition("/")
    if not (index.isdigit() and count.isdigit() and 1 <= int(index) <= int(count)):
        raise _fail("meta.shard", shard, "'i/N' with 1 <= i <= N (e.g. '2/8')")


# --- upgrades --------------------------------------------------------------------------------


def _upgraded(document: Mapping[str, Any]) -> dict[str, Any]:
    """An older report in this version's layout: every record's check outcome, every repeated
    test's verdict in pytest's words and its derived figures (the rate, the interval)."""
    from semantix._proportions import wilson_interval

    upgraded = {**document, "upgraded_from": document["version"], "version": REPORT_VERSION}
    upgraded["assertions"] = [
        {
            "outcome": "passed" if record.get("passed") else "failed",
            "test_outcome": None,
            "leaves": [],
            **record,
        }
        for record in document["assertions"]
    ]
    runs = document.get("runs")
    if runs is not None:
        upgraded["runs"] = {**runs, "tests": [dict(test) for test in runs.get("tests") or ()]}
    for test in (upgraded.get("runs") or {}).get("tests") or ():
        test["verdict"] = {"pass": "passed", "fail": "failed"}.get(test["verdict"], test["verdict"])
        test.setdefault("errors", 0)
        runs, passes = test["runs"], test["passes"]
        if test.get("pass_rate") is None:
            test["pass_rate"] = passes / runs
        if test.get("interval") is None:
            test["interval"] = list(wilson_interval(passes, runs))
        if test.get("min_pass_rate") is not None:
            unproven = test["interval"][0] < test["min_pass_rate"]
            test.setdefault("floor_unproven", test.get("below_floor", unproven))
    return upgraded


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    return _KINDS.get(type(value), f"a {type(value).__name__}")


_KINDS = {dict: "an object", list: "a list", type(None): "null", str: "a string"}
_KINDS |= {int: "an integer", float: "a number", bool: "a boolean"}


def _shown(value: object) -> str:
    if isinstance(value, (dict, list)):
        return "{…}" if isinstance(value, dict) else "[…]"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
