"""The one place where `semantix eval` meets the report module: a row's records, and the JSON
report written from a stream of them. Everything else in `semantix.datasets` passes records on
(typed until they are counted, `Tally`, then as JSON, `as_json`), so a change of the report's
record types is a change of this module.

The report is the pytest plugin's versioned JSON report (`semantix.report._records`): one record
per row and intent, its ``nodeid`` the row's id, plus the row's place (``source``) and label
(``expected``). It is written as a stream, record by record (bounded memory), with the summary
counted from the typed records as they are decided.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semantix._files import replace
from semantix.pipeline._results import SemanticResult
from semantix.report._model import CheckRecord, summarize, to_json
from semantix.report._records import error_record, known_secrets, result_record
from semantix.report._schema import REPORT_VERSION, paused_gc, record_from_json

__all__ = [
    "CheckRecord",
    "Record",
    "ReportFile",
    "RowError",
    "Tally",
    "as_json",
    "encode",
    "known_secrets",
    "paused_gc",
    "row_error",
    "row_record",
    "write_report",
]

#: A record as `semantix eval` streams it to disk: its JSON form.
Record = dict[str, Any]


class RowError(ValueError):
    """A row that cannot be judged (its message names the file and line)."""


def row_record(
    result: SemanticResult,
    row_id: str,
    where: str,
    expected: bool | None,
    secrets: tuple[str, ...] | None = None,
) -> CheckRecord:
    """The record of one row's check of one intent (``secrets``: `known_secrets`, read once)."""
    return result_record(result, row_id, source=where, expected=expected, secrets=secrets)


def row_error(
    row_id: str, where: str, error: BaseException, *, intent: str | None, output: str | None
) -> CheckRecord:
    """The record of a row and intent that could not be judged: an error, never a pass."""
    return error_record(row_id, error, intent=intent, output=output, source=where)


def as_json(records: Sequence[CheckRecord]) -> list[Record]:
    """``records`` as the report's JSON (what the side file and Ray's workers write)."""
    return to_json(records)  # type: ignore[no-any-return]


@dataclass
class Tally:
    """The report's summary, counted as records are decided (typed, before they are JSON), and
    every judge that decided one."""

    counts: Counter[str] = field(default_factory=Counter)
    deciders: Counter[str] = field(default_factory=Counter)
    judges: set[str] = field(default_factory=set)

    def add(self, records: Sequence[CheckRecord]) -> None:
        summary = summarize(records).to_dict()
        self.deciders.update(summary.pop("decided_by"))
        self.counts.update(summary)
        self.judges.update(record.judge for record in records if record.judge)

    def add_json(self, records: Iterable[Record]) -> Iterator[Record]:
        """``records`` as they are, each counted as it passes (read back from JSON, checked
        like a report's record: a worker's or an interrupted run's)."""
        chunk: list[CheckRecord] = []  # counted a chunk at a time (bounded)
        for record in records:
            chunk.append(record_from_json(record))
            if len(chunk) == _CHUNK:
                self.add(chunk)
                chunk = []
            yield record
        self.add(chunk)


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
        totals = {key: tally.counts[key] for key in _SUMMARY_KEYS}
        self._file.write(f'\n],\n"meta": {json.dumps(shown, ensure_ascii=False)},\n')
        summary_text = json.dumps({**totals, "decided_by": dict(tally.deciders)})
        self._file.write(f'"summary": {summary_text}\n}}\n')
        self._file.close()
        replace(self.temporary, self.path)
        return tally.counts

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


#: A record's JSON text, as the report and the side file hold it.
encode = json.JSONEncoder(ensure_ascii=False).encode
_CHUNK = 1024
_SUMMARY_KEYS: tuple[str, ...] = ("total", "passed", "failed", "errors", "xfailed", "xpassed")
_SUMMARY_KEYS += ("skipped", "borderline", "topical")
