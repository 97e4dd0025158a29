"""Building the report's records (`result_record`, `error_record`: typed, `semantix.report._model`)
and writing the JSON report (`json_document`, `write_json_report`).

A record is what every rendering reads (terminal, JSON, JUnit, HTML, an xdist payload), so they
always agree; it is clean when built (`clean`), so no sink shows an API key or fails to encode.
`outcome` is the one rule every renderer counts a record by, `Leaf.decided` a leaf's
(docs/pytest-plugin.md, "two outcomes").
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from semantix import _config as config
from semantix._files import encodable, write_atomic
from semantix._text import mask_secrets, preview, usable_secrets
from semantix.pipeline._results import OUTCOME_WORDS as CHECK_WORDS
from semantix.pipeline._results import SemanticResult
from semantix.report._json import build, to_json
from semantix.report._model import (
    NOT_JUDGED,
    REPORT_VERSION,
    CheckOutcome,
    CheckRecord,
    Counted,
    Leaf,
    Meta,
    RelationRecord,
    Report,
    Summary,
    TestOutcome,
    TestRecord,
    Variant,
    outcome,
    summarize,
)
from semantix.report._schema import paused_gc

if TYPE_CHECKING:
    from semantix.relations._results import RelationResult

__all__ = [
    "BAD",
    "NOT_JUDGED",
    "OUTCOME_WORDS",
    "REPORT_VERSION",
    "CheckOutcome",
    "CheckRecord",
    "Counted",
    "Summary",
    "TestOutcome",
    "clean",
    "error_record",
    "format_usd",
    "json_document",
    "known_secrets",
    "outcome",
    "relation_record",
    "result_record",
    "sorted_records",
    "summarize",
    "with_test_outcomes",
    "write_json_report",
]

_Sorted = TypeVar("_Sorted", bound=Any)

#: The outcomes of a record as the reports count it (`outcome`), and the word each renderer
#: shows for it: a check's own, and its test's when pytest expected it to fail or skipped it.
OUTCOME_WORDS = {**CHECK_WORDS, "xfailed": "XFAIL", "xpassed": "XPASS", "skipped": "SKIP"}
#: A check that failed or raised inside a test pytest calls passed: the test expected it
#: (``pytest.raises``) or held it to a pass rate its runs reached. Shown, never counted as a
#: failure of the run.
OUTCOME_WORDS["caught"] = "CAUGHT"
#: The counted outcomes that fail a run: everything else reads green.
BAD = frozenset(("failed", "error"))


def format_usd(value: float) -> str:
    """US dollars as every report shows them: 6 significant digits, never rounded to zero
    (``$0.0011952``, ``$12.3457``, ``$1,234.50``)."""
    if value == 0 or not math.isfinite(value):
        return f"${value:.2f}"
    digits = min(12, max(2, 5 - math.floor(math.log10(abs(value)))))
    text = f"{value:,.{digits}f}".rstrip("0")
    whole, _, cents = text.partition(".")
    return f"${whole}.{cents.ljust(2, '0')}"


def known_secrets() -> tuple[str, ...]:
    """The run's known secrets (the API keys semantix reads), to mask in every report."""
    return usable_secrets(config.api_keys())


def clean(value: Any) -> Any:
    """``value`` with the known API keys masked and unencodable characters replaced, in every
    string it holds (dicts and lists walked; keys too)."""
    return _clean(value, known_secrets())


_PLAIN = frozenset((int, float, bool, type(None)))


def _clean(value: Any, secrets: tuple[str, ...]) -> Any:
    kind = type(value)
    if kind is str:  # the common case first: an ASCII string and no secret is as it is
        return value if not secrets and value.isascii() else mask_secrets(encodable(value), secrets)
    if kind in _PLAIN:
        return value
    if isinstance(value, str):
        return mask_secrets(encodable(value), secrets)
    if isinstance(value, Mapping):
        return {_clean(key, secrets): _clean(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item, secrets) for item in value]
    return value


def result_record(
    result: SemanticResult,
    nodeid: str,
    *,
    source: str | None = None,
    expected: bool | None = None,
    secrets: tuple[str, ...] | None = None,
) -> CheckRecord:
    """The record of one finished assertion (passed or failed); each leaf is
    `semantix.pipeline._results.LeafResult.to_dict`'s, with the intent's qualified name.
    ``source`` and ``expected``: a dataset row's place and label; ``secrets``: the known secrets
    (`known_secrets`, read once by a caller making many records)."""
    if secrets is None:
        secrets = known_secrets()
    leaves = []
    for found in result.leaves:
        data = {
            name: value
            if type(value) in _PLAIN or (type(value) is str and value.isascii() and not secrets)
            else _clean(value, secrets)
            for name, value in found.to_dict().items()
        }
        data["usage"] = found.verdict.usage
        qualname = f"{found.intent.__module__}.{found.intent.__qualname__}"
        leaves.append(Leaf(**data, qualname=_clean(qualname, secrets)))
    return CheckRecord(
        nodeid=_clean(nodeid, secrets),
        outcome="passed" if result.passed else "failed",
        intent=_clean(result.intent.__name__, secrets),
        judge=_clean(str(result.judge), secrets),
        passed=result.passed,
        borderline=result.borderline,
        empty=result.empty,
        duration_ms=result.duration_ms,
        output=_clean(result.output, secrets),
        leaves=tuple(leaves),
        source=source,
        expected=expected,
    )


def error_record(
    nodeid: str,
    error: BaseException,
    *,
    intent: str | None = None,
    output: str | None = None,
    source: str | None = None,
) -> CheckRecord:
    """The record of an assertion that could not be judged (a judge or configuration error);
    ``source``: a dataset row's place."""
    error_text = f"{type(error).__name__}: {preview(str(error), 400, quote=False)}"
    return CheckRecord(
        nodeid=clean(nodeid),
        outcome="error",
        intent=clean(intent or "?"),
        passed=False,
        empty=False,
        output=clean(output),
        error=clean(error_text),
        source=source,
    )


def relation_record(result: RelationResult, nodeid: str) -> RelationRecord:
    """The record of one relation on one case."""
    data = result.to_dict()
    variants = tuple(build(Variant, variant) for variant in data["results"])
    return build(RelationRecord, data, nodeid=nodeid, results=variants)  # type: ignore[no-any-return]


def with_test_outcomes(
    records: Sequence[_Sorted], tests: Mapping[str, TestRecord]
) -> list[_Sorted]:
    """``records`` (checks, repeated tests, relations), each with its test's pytest outcome."""
    return [
        replace(record, test_outcome=tests[record.nodeid].outcome)
        if record.nodeid in tests
        else record
        for record in records
    ]


def sorted_records(records: Sequence[_Sorted]) -> list[_Sorted]:
    """Records grouped by test (by node id), in the order each test made its assertions."""
    return sorted(records, key=lambda record: (record.nodeid, record.seq))


def json_document(
    records: Sequence[CheckRecord],
    *,
    meta: Meta | Mapping[str, Any] | None = None,
    sections: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report of ``records`` (`Report.to_json`): version, run metadata (a mapping as it
    is, so a writer may add its own fields), summary, every assertion, then ``sections`` as they
    are."""
    report = Report(meta=meta if isinstance(meta, Meta) else Meta(), assertions=tuple(records))
    document = report.to_json() | ({"meta": dict(meta)} if isinstance(meta, Mapping) else {})
    del document["tests"]  # a section like the others: only when given
    return document | dict(sections or {})


def write_json_report(path: Path, document: Report | Mapping[str, Any]) -> None:
    """Write ``document`` (a `Report`, or its JSON) to ``path`` (parents created), as indented
    UTF-8 JSON with each assertion on one line (encoded by the C encoder: a merged report of a
    million records is written in seconds), whole or not at all (`semantix._files.write_atomic`)."""
    if isinstance(document, Report):  # the records encoded one by one, not held twice as JSON
        plain = replace(document, assertions=()).to_json()
        plain["summary"] = to_json(document.summary)
        records: Sequence[Any] = document.assertions
    else:
        plain = dict(document)
        records = plain.get("assertions") or []
    if type(records) not in (list, tuple) or not records:
        write_atomic(path, json.dumps(plain, indent=2, ensure_ascii=False) + "\n")
        return
    plain["assertions"] = []
    head, marker, tail = json.dumps(plain, indent=2, ensure_ascii=False).partition(_EMPTY)
    if not marker:  # not a report's layout: as it is
        plain["assertions"] = records if type(records) is list else to_json(records)
        write_atomic(path, json.dumps(plain, indent=2, ensure_ascii=False) + "\n")
        return
    with paused_gc():
        body = ",\n    ".join(
            _encode(record if type(record) is dict else to_json(record)) for record in records
        )
    write_atomic(path, f"{head}{marker[:-1]}\n    {body}\n  ]{tail}\n")


#: The top-level ``assertions`` of an indented report before its records are put in.
_EMPTY = '\n  "assertions": []'
_encode = json.JSONEncoder(ensure_ascii=False).encode
