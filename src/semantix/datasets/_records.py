"""The one place where `semantix eval` meets the report module: a row's records, and the JSON
report written from a stream of them. Everything else in `semantix.datasets` handles records as
opaque JSON-able dicts, so a change of the report's record types is a change of this module.

The report is the pytest plugin's versioned JSON report (`semantix.report._records`): one record
per row and intent, its ``nodeid`` the row's id, plus the row's place (``source``) and label
(``expected``). It is written as a stream, record by record (bounded memory), with the summary
counted on the way.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import replace as with_fields
from pathlib import Path
from typing import Any

from semantix._files import replace
from semantix.pipeline._results import SemanticResult
from semantix.report._model import summarize, to_json
from semantix.report._records import error_record, result_record
from semantix.report._schema import REPORT_VERSION, record_from_json

__all__ = ["Record", "RowError", "row_error", "row_record", "write_report"]

#: A record as `semantix eval` passes it around and streams it to disk: its JSON form.
Record = dict[str, Any]


class RowError(ValueError):
    """A row that cannot be judged (its message names the file and line)."""


def row_record(result: SemanticResult, row_id: str, where: str, expected: bool | None) -> Record:
    """The record of one row's check of one intent."""
    record = result_record(result, row_id)
    return to_json(with_fields(record, source=where, expected=expected))  # type: ignore[no-any-return]


def row_error(
    row_id: str, where: str, error: BaseException, *, intent: str | None, output: str | None
) -> Record:
    """The record of a row and intent that could not be judged: an error, never a pass."""
    record = error_record(row_id, error, intent=intent, output=output)
    return to_json(with_fields(record, source=where))  # type: ignore[no-any-return]


def write_report(path: Path, records: Iterable[Record], meta: Mapping[str, Any]) -> Counter[str]:
    """Write the JSON report of ``records`` (in their order) to ``path``, whole or not at all,
    one record at a time; return the summary's counts (``total``, ``passed``, ``failed``,
    ``errors``, ...). ``meta`` gets ``judges``: every judge that decided a record."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_name(f".{path.name[:40]}.{os.urandom(6).hex()}.tmp")
    counts: Counter[str] = Counter()
    deciders: Counter[str] = Counter()
    judges: set[str] = set()
    try:
        with temporary.open("w", encoding="utf-8") as file:
            file.write(f'{{"version": {REPORT_VERSION}, "assertions": [')
            chunk: list[Record] = []  # counted a chunk at a time (bounded)
            for number, record in enumerate(records):
                file.write(",\n" if number else "\n")
                file.write(json.dumps(record, ensure_ascii=False))
                chunk.append(record)
                if len(chunk) == _CHUNK:
                    _count(chunk, counts, deciders, judges)
                    chunk = []
            _count(chunk, counts, deciders, judges)
            shown = {**meta, "judges": sorted(judges)}
            totals = {key: counts[key] for key in _SUMMARY_KEYS}
            file.write(f'\n],\n"meta": {json.dumps(shown, ensure_ascii=False)},\n')
            summary_text = json.dumps({**totals, "decided_by": dict(deciders)})
            file.write(f'"summary": {summary_text}\n}}\n')
        replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    return counts


def _count(
    chunk: list[Record], counts: Counter[str], deciders: Counter[str], judges: set[str]
) -> None:
    typed = [record_from_json(record) for record in chunk]
    summary = summarize(typed).to_dict()
    deciders.update(summary.pop("decided_by"))
    counts.update(summary)
    judges.update(record.judge for record in typed if record.judge)


_CHUNK = 1024
_SUMMARY_KEYS: tuple[str, ...] = ("total", "passed", "failed", "errors", "xfailed", "xpassed")
_SUMMARY_KEYS += ("skipped", "borderline", "topical")
