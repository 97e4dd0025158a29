"""The one place where `semantix eval` meets the report module: a row's records, and the JSON
report written from a stream of them. Everything else in `semantix.datasets` passes records on
as the report's JSON (`Record`), so a change of the report's record types is a change of this
module.

The report is the pytest plugin's versioned JSON report (`semantix.report._records`): one record
per row and intent, its ``nodeid`` the row's id, plus the row's place (``source``) and label
(``expected``). It is written as a stream, record by record (bounded memory), with the summary
counted from the records as they are decided (`Tally`).

A row's record is made as its JSON at once (`row_record`: what
`semantix.report._records.result_record` gives, as `semantix.report._model.to_json` writes it;
a test keeps the two equal), not as a typed record turned into JSON: the per-row cost of a
structural check is mostly that (issue 46).
"""

from __future__ import annotations

import importlib
import json
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from json.encoder import c_make_encoder, encode_basestring  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

from semantix._files import replace
from semantix.pipeline._results import SemanticResult
from semantix.report._counts import Counts
from semantix.report._model import to_json
from semantix.report._records import _PLAIN, _clean, error_record, known_secrets
from semantix.report._schema import REPORT_VERSION, paused_gc, record_from_json

__all__ = [
    "Record",
    "ReportFile",
    "RowError",
    "Tally",
    "encode",
    "known_secrets",
    "paused_gc",
    "row_error",
    "row_record",
    "write_report",
]

#: A record as `semantix eval` passes it on and streams it to disk: its JSON form.
Record = dict[str, Any]


class RowError(ValueError):
    """A row that cannot be judged (its message names the file and line)."""


def row_record(
    result: SemanticResult,
    row_id: str,
    where: str,
    expected: bool | None,
    secrets: tuple[str, ...] | None = None,
) -> Record:
    """The record of one row's check of one intent, as its JSON (``secrets``: `known_secrets`,
    read once)."""
    if secrets is None:
        secrets = known_secrets()
    leaves = []
    for found in result.leaves:
        leaf = found.to_dict()
        for name, value in leaf.items():  # only what `_clean` may change (the common case: none)
            kind = type(value)
            if (kind is not str or secrets or not value.isascii()) and kind not in _PLAIN:
                leaf[name] = _clean(value, secrets)
        leaf["qualname"] = _text(f"{found.intent.__module__}.{found.intent.__qualname__}", secrets)
        leaves.append(leaf)
    record = {
        "nodeid": _text(row_id, secrets),
        "outcome": "passed" if result.passed else "failed",
        "test_outcome": None,
        "intent": _text(result.intent.__name__, secrets),
        "judge": _text(str(result.judge), secrets),
        "passed": result.passed,
        "borderline": result.borderline,
        "empty": result.empty,
        "duration_ms": result.duration_ms,
        "output": _text(result.output, secrets),
        "leaves": leaves,
        "source": where,
    }
    if expected is not None:
        record["expected"] = expected
    return record


def _text(value: str, secrets: tuple[str, ...]) -> str:
    """``value`` as `_clean` gives it (as it is: ASCII, no secrets known)."""
    return value if not secrets and value.isascii() else _clean(value, secrets)


def row_error(
    row_id: str, where: str, error: BaseException, *, intent: str | None, output: str | None
) -> Record:
    """The record of a row and intent that could not be judged: an error, never a pass."""
    record = error_record(row_id, error, intent=intent, output=output, source=where)
    return to_json(record)  # type: ignore[no-any-return]


@dataclass
class Tally:
    """The report's summary, counted as records are decided, and every judge that decided one."""

    summary: Counts = field(default_factory=Counts)
    judges: set[str] = field(default_factory=set)

    def add(self, records: Iterable[Record]) -> None:
        for record in records:
            self.summary.add(record)
            if record["judge"]:
                self.judges.add(record["judge"])

    def add_json(self, records: Iterable[Record]) -> Iterator[Record]:
        """``records`` as they are, each counted as it passes (read back from JSON, checked
        like a report's record: a worker's or an interrupted run's)."""
        for record in records:
            record_from_json(record)
            self.add((record,))
            yield record


class ReportFile:
    """The JSON report at ``path`` written as a stream while the run goes on (its records first,
    then the run's ``meta`` and summary: `finish`), to a temporary file that replaces ``path``
    whole at the end, or is removed (`discard`)."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self.temporary = path.with_name(f".{path.name[:40]}.{os.urandom(6).hex()}.tmp")
        self._file = self.temporary.open("w", encoding="utf-8")
        self._file.write(f'{{"version": {REPORT_VERSION}, "assertions": [')
        self._separator = "\n"

    def write(self, texts: Sequence[str]) -> None:
        """Append records, each as its JSON text (`encode`)."""
        if texts:
            self._file.write(self._separator + ",\n".join(texts))
            self._separator = ",\n"

    def finish(self, meta: Mapping[str, Any], tally: Tally) -> Counter[str]:
        """Write the run's ``meta`` (with ``judges``: every judge that decided a record) and the
        summary ``tally`` counted; put the report in place; return the summary's counts
        (``total``, ``passed``, ``failed``, ``errors``, ...)."""
        shown = {**meta, "judges": sorted(tally.judges)}
        summary = to_json(tally.summary.summary())
        totals = {key: summary[key] for key in _SUMMARY_KEYS}
        self._file.write(f'\n],\n"meta": {json.dumps(shown, ensure_ascii=False)},\n')
        summary_text = json.dumps({**totals, "decided_by": summary["decided_by"]})
        self._file.write(f'"summary": {summary_text}\n}}\n')
        self._file.close()
        replace(self.temporary, self.path)
        return Counter(totals)

    def discard(self) -> None:
        self._file.close()
        self.temporary.unlink(missing_ok=True)


def write_report(
    path: Path, records: Iterable[Record], meta: Mapping[str, Any], tally: Tally
) -> Counter[str]:
    """Write the JSON report of ``records`` (in their order) to ``path``, whole or not at all,
    one record at a time, with the summary ``tally`` counted (after ``records`` are exhausted:
    a `Tally.add_json` stream counts on the way); return the summary's counts."""
    report = ReportFile(path)
    try:
        for record in records:
            report.write([encode(record)])
        return report.finish(meta, tally)
    except BaseException:
        report.discard()
        raise


def encoder(*, fast: bool = True) -> Callable[[Any], str]:
    """A record's JSON text, as the report and the side file hold it: by orjson where it is
    installed and ``fast`` (``pip install 'semantix-judge[fast]'``: ten times quicker, the most
    of a structural row's cost), else by the C encoder made once (not once a record, as
    `json.JSONEncoder.encode` makes it). orjson writes it without spaces; what orjson does not
    write (an integer over 64 bits) is written by the C encoder."""
    plain = json.JSONEncoder(ensure_ascii=False)
    stdlib: Callable[[Any], str] = plain.encode
    if c_make_encoder is not None:  # CPython
        made = c_make_encoder(
            None, plain.default, encode_basestring, None, ": ", ", ", False, False, True
        )
        stdlib = lambda record: "".join(made(record, 0))
    try:
        dumps = importlib.import_module("orjson").dumps if fast else None
    except ImportError:
        dumps = None
    if dumps is None:
        return stdlib

    def encode(record: Any) -> str:
        try:
            return dumps(record).decode()  # type: ignore[no-any-return]
        except TypeError:  # orjson.JSONEncodeError: what it does not write
            return stdlib(record)

    return encode


#: A record's JSON text, as the report and the side file hold it (`encoder`).
encode = encoder()


_SUMMARY_KEYS: tuple[str, ...] = ("total", "passed", "failed", "errors", "xfailed", "xpassed")
_SUMMARY_KEYS += ("skipped", "borderline", "topical")
