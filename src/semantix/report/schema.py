"""The shape of a JSON report, checked in one place before anything renders it, and the one
reader of report files (`load_report`): every error names the file, or the field by its path, what
it holds and what was expected (docs/html-report.md, "Damaged or foreign files").
"""

from __future__ import annotations

import json
import math
from collections.abc import Hashable, Mapping
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
#: topical leaves, the tests and relations sections). Every earlier version still reads.
REPORT_VERSION = 3

#: The check's own outcomes (a record's ``outcome``).
CHECK_OUTCOMES = ("passed", "failed", "error")
#: pytest's outcomes of a test (a record's ``test_outcome``, the ``tests`` section's ``outcome``).
TEST_OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")

_AGAIN = "write it again with pytest --semantic-report-json PATH"
_WRITTEN_BY = "pass the file written by pytest --semantic-report-json PATH"


class ReportDocumentError(ValueError):
    """The data given to a report renderer is not a semantix JSON report (the message names the
    field, what it holds and what was expected)."""


# A field's type is a Python type, a word it must equal, None (null), "number", a nested shape (a
# Mapping of field -> type), a one-element list (a list of that type), or a tuple of these.

_NUMBER = "number"
_OPT_STR = (str, None)
_OPT_NUMBER = (_NUMBER, None)
_OPT_BOOL = (bool, None)

_LEAF: Mapping[str, Any] = {
    "intent": str,
    **dict.fromkeys(("qualname", "description", "judged_as", "threshold_source"), _OPT_STR),
    **dict.fromkeys(("reason", "evidence", "judge", "judge_model"), _OPT_STR),
    **dict.fromkeys(("expected", "satisfied", "passed", "judged"), _OPT_BOOL),
    **dict.fromkeys(("borderline", "topical"), _OPT_BOOL),
    **dict.fromkeys(("score", "threshold", "latency_ms"), _OPT_NUMBER),
}

_RECORD: Mapping[str, Any] = {
    "nodeid": str,
    "outcome": CHECK_OUTCOMES,
    "test_outcome": (*TEST_OUTCOMES, None),
    **dict.fromkeys(("intent", "judge", "output", "error"), _OPT_STR),
    **dict.fromkeys(("passed", "borderline", "empty"), _OPT_BOOL),
    "duration_ms": _OPT_NUMBER,
    "leaves": [_LEAF],
}

_RUN: Mapping[str, Any] = {
    **dict.fromkeys(("nodeid", "name", "verdict"), _OPT_STR),
    **dict.fromkeys(("runs", "passes", "errors"), (int, None)),
    **dict.fromkeys(("pass_rate", "min_pass_rate"), _OPT_NUMBER),
    "interval": ([_NUMBER], None),
    "test_outcome": (*TEST_OUTCOMES, None),
}

_SNAPSHOT: Mapping[str, Any] = dict.fromkeys(
    ("path", "outcome", "stored", "output", "test"), _OPT_STR
)

_DOCUMENT: Mapping[str, Any] = {
    "meta": {
        "judges": [str],
        "verdicts_mode": _OPT_STR,
        "started": _OPT_STR,
        "duration_s": _OPT_NUMBER,
    },
    "summary": {
        **dict.fromkeys(("total", "passed", "failed", "errors", "xfailed", "xpassed"), int),
        **dict.fromkeys(("skipped", "borderline", "topical"), int),
        "decided_by": ({}, None),
    },
    "assertions": [_RECORD],
    "tests": ([{"nodeid": str, "outcome": TEST_OUTCOMES, "reason": _OPT_STR}], None),
    "runs": (
        {
            "stability": _OPT_NUMBER,
            "below_floor": (int, None),
            "left_out": (int, None),
            "tests": [_RUN],
            "once": ([str], None),
        },
        None,
    ),
    "relations": (
        {
            "results": ([{"nodeid": _OPT_STR, "relation": str, "case_id": _OPT_STR}], None),
            "summary": ([{"relation": str, "cases": int, "violations": int}], None),
        },
        None,
    ),
    "snapshots": (
        {
            "counts": ({}, None),
            "snapshots": ([_SNAPSHOT], None),
            "unused": ([_SNAPSHOT], None),
            "deleted": ([str], None),
        },
        None,
    ),
}


def load_report(path: Path) -> Mapping[str, Any]:
    """The JSON report at ``path``, read and checked (`check_document`); `ReportDocumentError`
    naming the file when it cannot be read, is not UTF-8 text or JSON, or nests deeper than
    Python reads. An escaped lone surrogate (``"\\ud800"``) reads as it is."""
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


def check_document(document: object) -> Mapping[str, Any]:
    """``document`` if it has the shape of a semantix JSON report, else `ReportDocumentError`.

    Fields this version does not know are left alone (a newer semantix may add some), a missing
    field is fine, and a version newer than `REPORT_VERSION` is refused with the upgrade to make.
    """
    if not isinstance(document, Mapping):
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
    _check_fields(document, _DOCUMENT, "")
    return document


def _check_fields(value: Mapping[str, Any], shape: Mapping[str, Any], where: str) -> None:
    exact = _EXACT_FIELDS.get(id(shape))
    if exact is None:
        exact = _EXACT_FIELDS[id(shape)] = {k: _exact_types(v) for k, v in shape.items()}
    for name, item in value.items():
        if name in exact and type(item) not in exact[name]:  # else the value is fine as it is
            _check(item, shape[name], f"{where}.{name}" if where else name)


def _check(value: object, expected: Any, where: str) -> None:
    options = expected if isinstance(expected, tuple) else (expected,)
    for option in options:
        if isinstance(option, dict) and isinstance(value, (dict, Mapping)):
            _check_fields(value, option, where)
            return
        if isinstance(option, list) and isinstance(value, list):
            for index, item in enumerate(value):
                if type(item) not in _exact_types(option[0]):
                    _check(item, option[0], f"{where}[{index}]")
            return
        if _matches(value, option):
            return
    raise ReportDocumentError(
        f"{where} is {_shown(value)} ({_kind(value)}); expected "
        f"{' or '.join(map(_word, options))}. The file is not a report semantix wrote: {_AGAIN}"
    )


#: The types that always match a shape constant, and a shape's fields (cached by identity).
_EXACT: dict[int, frozenset[type]] = {}
_EXACT_FIELDS: dict[int, dict[str, frozenset[type]]] = {}
_PLAIN = {None: (type(None),), _NUMBER: (int, float), str: (str,), bool: (bool,), int: (int,)}


def _exact_types(expected: Any) -> frozenset[type]:
    """The types whose values always match ``expected``."""
    found = _EXACT.get(id(expected))
    if found is None:
        options = expected if isinstance(expected, tuple) else (expected,)
        found = frozenset(
            kind
            for option in options
            if isinstance(option, Hashable) and option in _PLAIN
            for kind in _PLAIN[option]
        )
        _EXACT[id(expected)] = found
    return found


def _matches(value: object, option: object) -> bool:
    if option is None:
        return value is None
    if option == _NUMBER:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(option, str):  # one of the allowed words
        return value == option
    if option is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(option, type) and isinstance(value, option)


def _word(option: Any) -> str:
    if option is None:
        return "null"
    if option == _NUMBER:
        return "a number"
    if isinstance(option, str):
        return repr(option)
    if isinstance(option, Mapping):
        return "an object"
    if isinstance(option, list):
        return f"a list of {_word(option[0]).split(' ', 1)[1]}s"
    return _NAMES.get(option, str(option.__name__))


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "not a finite number"
    return _KINDS.get(type(value), f"a {type(value).__name__}")


_KINDS = {dict: "an object", list: "a list", type(None): "null", str: "a string"}
_KINDS |= {int: "an integer", float: "a number", bool: "a boolean"}
_NAMES = _KINDS | {bool: "true or false"}  # what a field of each type holds


def _shown(value: object) -> str:
    if isinstance(value, (dict, list)):
        return "{…}" if isinstance(value, dict) else "[…]"
    text = repr(value)
    return text if len(text) <= 40 else text[:39] + "…"
