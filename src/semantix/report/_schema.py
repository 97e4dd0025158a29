"""The one reader of report files (`load_report`) and of report documents (`check_document`):
an older version is upgraded once, then every field the renderers, compare and merge read is
checked, and every error names the file and the field by its path, what it holds and what was
expected (docs/html-report.md, "Damaged or foreign files"); what they return is the typed
`semantix.report._model.Report`.
"""

from __future__ import annotations

import gc
import json
import math
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import fields
from pathlib import Path
from typing import Any

from semantix.judges._verdict import TokenUsage
from semantix.report._json import build, model_fields
from semantix.report._model import (
    REPORT_VERSION,
    CheckRecord,
    JudgeCost,
    Leaf,
    Meta,
    RelationRecord,
    RepeatedTest,
    Report,
    Shard,
    SnapshotEntry,
    Snapshots,
    Summary,
    TestRecord,
    Variant,
)

__all__ = [
    "CHECK_OUTCOMES",
    "REPORT_VERSION",
    "TEST_OUTCOMES",
    "ReportDocumentError",
    "check_document",
    "load_report",
    "paused_gc",
]

#: The check's own outcomes (a record's ``outcome``).
CHECK_OUTCOMES = ("passed", "failed", "error")
#: pytest's outcomes of a test (a record's ``test_outcome``, the ``tests`` section's ``outcome``).
TEST_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")

_AGAIN = "write it again with pytest --semantic-report-json PATH"
_WRITTEN_BY = "pass the file written by pytest --semantic-report-json PATH"


class ReportDocumentError(ValueError):
    """The data given to a report renderer is not a semantix JSON report (the message names the
    field, what it holds and what was expected)."""


def load_report(path: Path) -> Report:
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
        with paused_gc():
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
        with paused_gc():
            return check_document(document)
    except ReportDocumentError as exc:
        raise ReportDocumentError(f"{shown}: {exc}") from None


@contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector paused while a report's many objects are made (none of them
    in a cycle): with it, reading or writing a report of a million records takes a third longer,
    its collections walking every object made so far again and again."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def check_document(document: object) -> Report:
    """The `Report` of ``document`` when it has the shape of a semantix JSON report (a `Report`
    as it is); an older version upgraded (``upgraded_from`` set to the version it had); else
    `ReportDocumentError` naming the field. Each field is checked against the type its model
    class gives it, as it is built; fields this version does not know are left out (a newer
    semantix may add some); a version newer than `REPORT_VERSION` is refused with the upgrade to
    make."""
    if isinstance(document, Report):
        return document
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
    current = version == REPORT_VERSION  # older ones may leave out what is derived
    meta = _meta(document.get("meta"))
    if document.get("summary") is not None:  # derived: checked, computed again when written
        summary = _checked(document["summary"], Summary, "summary")
        if summary.get("decided_by") is not None:
            _object(summary["decided_by"], {}, "summary.decided_by")
    assertions = tuple(
        _record(record, f"assertions[{i}]", current) for i, record in enumerate(records)
    )
    tests = document.get("tests")
    runs = _section(document, "runs", {"stability": OPT_NUMBER, "once": _or_null(STRINGS)})
    relations = _section(document, "relations", {})
    return Report(
        meta=meta,
        assertions=assertions,
        tests=() if tests is None else tuple(_many(TestRecord, tests, "tests")),
        repeated=tuple(
            _repeated(test, f"runs.tests[{i}]", current)
            for i, test in enumerate(_list(runs.get("tests") or [], "runs.tests"))
        ),
        once=tuple(runs.get("once") or ()),
        relations=tuple(
            _relation(case, f"relations.results[{i}]")
            for i, case in enumerate(_list(relations.get("results") or [], "relations.results"))
        ),
        snapshots=_snapshots(document.get("snapshots")),
        baseline=document.get("baseline"),
        upgraded_from=None if current else version,
    )


# --- the checks ------------------------------------------------------------------------------

#: What a field must hold: the words of the message, the types that may hold it, and a test
#: for a value of one of those types (None: the type is enough; the fast path of most fields).
_Expected = tuple[str, frozenset[type], Callable[[Any], bool] | None]
_NULL = type(None)


def _finite(value: Any) -> bool:
    return math.isfinite(value)


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

#: What a field of a model class must hold, by its annotation (a field of another type, such as
#: a nested class, is checked where it is read).
_BY_TYPE: Mapping[str, _Expected] = {
    "str": STR,
    "str | None": OPT_STR,
    "int": INT,
    "int | None": OPT_INT,
    "float": NUMBER,
    "float | None": OPT_NUMBER,
    "bool": BOOL,
    "bool | None": OPT_BOOL,
    "tuple[str, ...]": STRINGS,
    "CheckOutcome": _words(*CHECK_OUTCOMES),
    "TestOutcome": _words(*TEST_OUTCOMES),
    "TestOutcome | None": _words(*TEST_OUTCOMES, None),
}
#: Fields that read more than their type in older reports (null, version 2's verdict words).
_OLDER: Mapping[type, Mapping[str, _Expected]] = {
    CheckRecord: {"borderline": OPT_BOOL},
    RepeatedTest: {
        "verdict": _words(*CHECK_OUTCOMES, "pass", "fail"),
        "errors": OPT_INT,
        "pass_rate": OPT_NUMBER,
    },
}
#: The fields each object must have (others have defaults, or are derived when older).
_REQUIRED: Mapping[type, tuple[str, ...]] = {
    CheckRecord: ("nodeid", "intent"),
    Leaf: ("intent",),
    RepeatedTest: ("nodeid", "verdict", "runs", "passes"),
    TestRecord: ("nodeid", "outcome"),
    RelationRecord: ("nodeid", "relation", "applicable", "violations", "judged", "errors", "rate"),
    Shard: ("path",),
}
_SPECS: dict[type, Mapping[str, _Expected]] = {}
_TOKENS = dict.fromkeys(("prompt_tokens", "completion_tokens"), INT)


def _spec(cls: type) -> Mapping[str, _Expected]:
    spec = _SPECS.get(cls)
    if spec is None:
        found = {f.name: _BY_TYPE[str(f.type)] for f in fields(cls) if str(f.type) in _BY_TYPE}
        spec = _SPECS[cls] = found | dict(_OLDER.get(cls, {}))
    return spec


def _fail(where: str, value: object, expected: str) -> ReportDocumentError:
    return ReportDocumentError(
        f"{where} is {_shown(value)} ({_kind(value)}); expected {expected}. The file is not a "
        f"report semantix wrote: {_AGAIN}"
    )


def _object(
    value: object, spec: Mapping[str, _Expected], where: str, required: tuple[str, ...] = ()
) -> dict[str, Any]:
    """``value`` checked against ``spec`` (the fields it knows; the others are left alone)."""
    if type(value) is not dict:
        raise _fail(where, value, "an object")
    for name, item in value.items():
        expected = spec.get(name)
        if expected is None:
            continue
        words, types, test = expected
        if type(item) not in types or (test is not None and item is not None and not test(item)):
            raise _fail(f"{where}.{name}", item, words)
    for name in required:
        if name not in value:
            raise ReportDocumentError(
                f"{where}.{name} is missing; expected {spec[name][0]}. The file is not a report "
                f"semantix wrote: {_AGAIN}"
            )
    return value


def _checked(value: object, cls: type, where: str) -> dict[str, Any]:
    """``value`` checked against the fields of the model class ``cls``."""
    return _object(value, _SPECS.get(cls) or _spec(cls), where, _REQUIRED.get(cls, ()))


def _list(value: object, where: str) -> list[Any]:
    if type(value) is not list:
        raise _fail(where, value, "a list of objects")
    return value


def _many(cls: type, value: object, where: str) -> list[Any]:
    """The objects of a list, each checked and built as a ``cls``."""
    return [
        build(cls, _checked(item, cls, f"{where}[{i}]"))
        for i, item in enumerate(_list(value, where))
    ]


def _section(document: Mapping[str, Any], name: str, spec: Mapping[str, _Expected]) -> Any:
    value = document.get(name)
    return {} if value is None else _object(value, spec, name)


def record_from_json(value: object, where: str = "record") -> CheckRecord:
    """One record of the current version from its JSON (a stream of records, `semantix eval`'s),
    checked like a report's; `ReportDocumentError` naming ``where`` and the field."""
    return _record(value, where, current=True)


def _record(value: object, where: str, current: bool) -> CheckRecord:
    """A record (of an older version: no check outcome but ``passed``, leaves' ``ok``)."""
    record = _known(value, CheckRecord, where)
    if "leaves" in record or current:
        record["leaves"] = tuple(
            _leaf(leaf, f"{where}.leaves[{i}]")
            for i, leaf in enumerate(_list(record.get("leaves"), f"{where}.leaves"))
        )
    if record.get("outcome") is None:
        record["outcome"] = "passed" if record.get("passed") else "failed"
    if record.get("borderline") is None:
        record["borderline"] = False  # null: not borderline
    return CheckRecord(**record)


def _leaf(value: object, where: str) -> Leaf:
    """A leaf, its usage checked (a leaf of an older version: ``ok`` for ``passed``)."""
    leaf = _known(value, Leaf, where)
    usage = leaf.get("usage")
    if "passed" not in leaf:
        leaf["passed"] = value.get("ok")  # type: ignore[attr-defined]
    if usage is not None:
        leaf["usage"] = build(TokenUsage, _object(usage, _TOKENS, f"{where}.usage", tuple(_TOKENS)))
    return Leaf(**leaf)


def _known(value: object, cls: type, where: str) -> dict[str, Any]:
    """The fields of the model class ``cls`` that ``value`` holds, each checked (`_checked`),
    in a new dict (fields this version does not know left out): the one pass of the hot path,
    a record and its leaves."""
    if type(value) is not dict:
        raise _fail(where, value, "an object")
    spec = _SPECS.get(cls) or _spec(cls)
    names = model_fields(cls)[0]
    known = {}
    for name, item in value.items():
        expected = spec.get(name)
        if expected is not None:
            words, types, test = expected
            if type(item) not in types or (
                test is not None and item is not None and not test(item)
            ):
                raise _fail(f"{where}.{name}", item, words)
        elif name not in names:
            continue
        known[name] = item
    for name in _REQUIRED.get(cls, ()):
        if name not in value:
            _object(value, spec, where, (name,))  # its error
    return known


def _meta(value: object) -> Meta:
    if value is None:
        return Meta()
    meta = _checked(value, Meta, "meta")
    cost, shards = meta.get("judge_cost"), meta.get("shards")
    _check_shard(meta.get("shard"))
    return build(  # type: ignore[no-any-return]
        Meta,
        meta,
        judge_cost=None
        if cost is None
        else build(JudgeCost, _checked(cost, JudgeCost, "meta.judge_cost")),
        shards=None if shards is None else tuple(_many(Shard, shards, "meta.shards")),
    )


def _relation(value: object, where: str) -> RelationRecord:
    case = _checked(value, RelationRecord, where)
    variants = tuple(_many(Variant, case.get("results") or [], f"{where}.results"))
    return build(RelationRecord, case, results=variants)  # type: ignore[no-any-return]


def _snapshots(value: object) -> Snapshots | None:
    if value is None:
        return None
    data = _checked(value, Snapshots, "snapshots")
    counts = data.get("counts") or {}
    _object(counts, dict.fromkeys(counts, INT), "snapshots.counts")
    entries = {
        name: tuple(_many(SnapshotEntry, data.get(name) or [], f"snapshots.{name}"))
        for name in ("snapshots", "unused")
    }
    return build(Snapshots, data, counts=dict(counts), **entries)  # type: ignore[no-any-return]


def _repeated(value: object, where: str, current: bool) -> RepeatedTest:
    """A repeated test, its counts checked; of an older version, its verdict in pytest's words
    and its derived figures (the rate, the interval) added."""
    test = _checked(value, RepeatedTest, where)
    _check_counts(test, where, current=current)
    if not current:
        test = _upgraded(test)
    return build(RepeatedTest, test, errors=test.get("errors") or 0)  # type: ignore[no-any-return]


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


def _upgraded(test: Mapping[str, Any]) -> dict[str, Any]:
    from semantix._proportions import wilson_interval

    test = dict(test)
    test["verdict"] = {"pass": "passed", "fail": "failed"}.get(test["verdict"], test["verdict"])
    runs, passes = test["runs"], test["passes"]
    if test.get("pass_rate") is None:
        test["pass_rate"] = passes / runs
    if test.get("interval") is None:
        test["interval"] = list(wilson_interval(passes, runs))
    if test.get("min_pass_rate") is not None:
        unproven = test["interval"][0] < test["min_pass_rate"]
        test.setdefault("floor_unproven", test.get("below_floor", unproven))
    return test


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
