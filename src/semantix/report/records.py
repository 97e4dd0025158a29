"""A JSON-able record per semantic assertion, and the JSON report built from them.

A record is what every rendering reads (the terminal table, the JSON file, JUnit properties, the
HTML page), so they always agree. Records travel from pytest-xdist workers to the controller as
they are, and are sorted by test id so a report is the same with and without xdist.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semantix.pipeline.results import SemanticResult
from semantix.text import preview

__all__ = [
    "REPORT_VERSION",
    "Record",
    "Summary",
    "error_record",
    "json_document",
    "result_record",
    "sorted_records",
    "summarize",
    "write_json_report",
]

#: Version of the JSON report's layout (2: outcomes with errors, borderline, outputs, sections).
REPORT_VERSION = 2

Record = dict[str, Any]


def result_record(result: SemanticResult, nodeid: str) -> Record:
    """The record of one finished assertion (passed or failed)."""
    summary = result.to_dict()
    return {
        "nodeid": nodeid,
        "outcome": "passed" if result.passed else "failed",
        "intent": summary["intent"],
        "judge": summary["judge"],
        "passed": summary["passed"],
        "borderline": summary["borderline"],
        "empty": summary["empty"],
        "duration_ms": summary["duration_ms"],
        "output": result.output,
        "leaves": summary["leaves"],
    }


def error_record(
    nodeid: str, error: BaseException, *, intent: str | None = None, output: str | None = None
) -> Record:
    """The record of an assertion that could not be judged (a judge or configuration error)."""
    return {
        "nodeid": nodeid,
        "outcome": "error",
        "intent": intent or "?",
        "judge": None,
        "passed": False,
        "borderline": False,
        "empty": False,
        "duration_ms": None,
        "output": output,
        "error": f"{type(error).__name__}: {preview(str(error), 400, quote=False)}",
        "leaves": [],
    }


def sorted_records(records: Sequence[Record]) -> list[Record]:
    """Records grouped by test (by node id), in the order each test made its assertions."""
    return sorted(records, key=lambda record: (record["nodeid"], record.get("seq", 0)))


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts over a run's records."""

    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    borderline: int = 0
    #: How many leaf verdicts each judge decided (escalation shows which level decided).
    decided_by: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "total": self.total,
            "passed": self.passed,
            "failed": self.failed,
            "errors": self.errors,
            "borderline": self.borderline,
            "decided_by": dict(self.decided_by),
        }


def summarize(records: Sequence[Record]) -> Summary:
    """Count passed, failed, errored and borderline assertions, and who decided each leaf."""
    outcomes = Counter(
        record.get("outcome", "passed" if record["passed"] else "failed") for record in records
    )
    deciders: Counter[str] = Counter()
    for record in records:
        for leaf in record["leaves"]:
            if leaf.get("judge"):
                deciders[leaf["judge"]] += 1
    return Summary(
        total=len(records),
        passed=outcomes["passed"],
        failed=outcomes["failed"],
        errors=outcomes["error"],
        borderline=sum(1 for record in records if record.get("borderline")),
        decided_by=dict(deciders),
    )


def json_document(
    records: Sequence[Record],
    *,
    meta: Mapping[str, Any] | None = None,
    sections: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report: version, run metadata, summary, every assertion, feature sections."""
    return {
        "version": REPORT_VERSION,
        "meta": dict(meta or {}),
        "summary": summarize(records).to_dict(),
        "assertions": [
            {key: value for key, value in record.items() if key != "seq"} for record in records
        ],
        **dict(sections or {}),
    }


def write_json_report(path: Path, document: Mapping[str, Any]) -> None:
    """Write ``document`` to ``path`` (parents created), as indented UTF-8 JSON."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
