"""A JSON-able record per semantic assertion, and the JSON report built from them.

A record is what every rendering reads (terminal, JSON, JUnit, HTML, an xdist payload), so they
always agree; it is clean when built (`clean`), so no sink shows an API key or fails to encode.
`outcome` and `leaf_outcome` are the one rule every renderer uses for a record's and a leaf's
outcome (docs/pytest-plugin.md, "two outcomes").
"""

from __future__ import annotations

import json
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from semantix import _config as config
from semantix._files import encodable, write_atomic
from semantix._text import mask_secrets, preview, usable_secrets
from semantix.pipeline._results import OUTCOME_WORDS as CHECK_WORDS
from semantix.pipeline._results import SemanticResult
from semantix.report._schema import CHECK_OUTCOMES, REPORT_VERSION

__all__ = [
    "BAD",
    "OUTCOME_WORDS",
    "REPORT_VERSION",
    "CheckOutcome",
    "Counted",
    "Record",
    "Summary",
    "TestOutcome",
    "check_outcome",
    "clean",
    "error_record",
    "format_usd",
    "is_topical",
    "json_document",
    "known_secrets",
    "leaf_outcome",
    "outcome",
    "result_record",
    "sorted_records",
    "summarize",
    "write_json_report",
]

Record = dict[str, Any]

#: The outcomes of a record as the reports count it (`outcome`), and the word each renderer
#: shows for it: a check's own, and its test's when pytest expected it to fail or skipped it.
OUTCOME_WORDS = {**CHECK_WORDS, "xfailed": "XFAIL", "xpassed": "XPASS", "skipped": "SKIP"}
#: A check that failed or raised inside a test pytest calls passed: the test expected it
#: (``pytest.raises``) or held it to a pass rate its runs reached. Shown, never counted as a
#: failure of the run.
OUTCOME_WORDS["caught"] = "CAUGHT"
#: The counted outcomes that fail a run: everything else reads green.
BAD = frozenset(("failed", "error"))
#: A leaf that structural leaves decided before any judge was asked.
NOT_JUDGED = "not judged"


#: A check's own outcome (a record's ``outcome``), and pytest's outcome of its test.
CheckOutcome = Literal["passed", "failed", "error"]
TestOutcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
#: What every report counts a record as (`outcome`): only ``failed`` and ``error`` are `BAD`.
Counted = Literal["passed", "failed", "error", "caught", "xfailed", "xpassed", "skipped"]


def check_outcome(record: Mapping[str, Any]) -> CheckOutcome:
    """``passed``, ``failed`` or ``error``: the check's own outcome, whatever its test did
    (records of older reports have only ``passed``)."""
    value = record.get("outcome")
    if value == "error" or value == "failed":
        return value  # type: ignore[no-any-return]
    if value == "passed" or (value not in CHECK_OUTCOMES and record.get("passed")):
        return "passed"
    return "failed"


def outcome(record: Mapping[str, Any]) -> Counted:
    """The one rule every report (terminal, JSON summary, JUnit, HTML, compare, merge) counts a
    record by, one of `OUTCOME_WORDS`: the check's own (`check_outcome`) counted with its test's
    pytest outcome, so a run pytest calls green reads green:

    - in a test pytest skipped: ``skipped``;
    - a check that passed: ``xpassed`` in an xfail test that passed, else ``passed``;
    - a check that failed or errored: ``xfailed`` in a test pytest calls xfailed (an expected
      failure), ``caught`` in a test that passed (``pytest.raises`` expected it, or a pass rate
      that reached its floor held it), else its own ``failed`` or ``error``.
    """
    check, test = check_outcome(record), record.get("test_outcome")
    if test == "skipped":
        return "skipped"
    if check == "passed":
        return "xpassed" if test == "xpassed" else "passed"
    if test == "xfailed":
        return "xfailed"
    if test in ("passed", "xpassed"):
        return "caught"
    return check


def format_usd(value: float) -> str:
    """US dollars as every report shows them: 6 significant digits, never rounded to zero
    (``$0.0011952``, ``$12.3457``, ``$1,234.50``)."""
    if value == 0 or not math.isfinite(value):
        return f"${value:.2f}"
    digits = min(12, max(2, 5 - math.floor(math.log10(abs(value)))))
    text = f"{value:,.{digits}f}".rstrip("0")
    whole, _, cents = text.partition(".")
    return f"${whole}.{cents.ljust(2, '0')}"


def leaf_outcome(leaf: Mapping[str, Any]) -> str:
    """``passed``, ``failed`` or ``not judged`` (``"judged": false``: the composite was decided
    by its structural leaves, so this leaf was never sent to a judge; never a failure)."""
    if leaf.get("judged") is False:
        return NOT_JUDGED
    return "passed" if leaf.get("passed", leaf.get("ok")) else "failed"


def known_secrets() -> tuple[str, ...]:
    """The run's known secrets (the API keys semantix reads), to mask in every report."""
    return usable_secrets(config.api_keys())


def clean(value: Any) -> Any:
    """``value`` with the known API keys masked and unencodable characters replaced, in every
    string it holds (dicts and lists walked; keys too)."""
    return _clean(value, known_secrets())


def _clean(value: Any, secrets: tuple[str, ...]) -> Any:
    if isinstance(value, str):
        return mask_secrets(encodable(value), secrets)
    if isinstance(value, Mapping):
        return {_clean(key, secrets): _clean(item, secrets) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(item, secrets) for item in value]
    return value


def result_record(result: SemanticResult, nodeid: str) -> Record:
    """The record of one finished assertion (passed or failed); each leaf is
    `semantix.pipeline._results.LeafResult.to_dict`'s, with the intent's qualified name."""
    summary = result.to_dict()
    leaves = [
        {**leaf, "qualname": f"{found.intent.__module__}.{found.intent.__qualname__}"}
        for leaf, found in zip(summary["leaves"], result.leaves, strict=True)
    ]
    fields = ("intent", "judge", "passed", "borderline", "empty", "duration_ms")
    shown = {key: summary[key] for key in fields} | {"output": result.output, "leaves": leaves}
    return _record(nodeid, "passed" if result.passed else "failed", shown)


def error_record(
    nodeid: str, error: BaseException, *, intent: str | None = None, output: str | None = None
) -> Record:
    """The record of an assertion that could not be judged (a judge or configuration error)."""
    error_text = f"{type(error).__name__}: {preview(str(error), 400, quote=False)}"
    fields = {"intent": intent or "?", "judge": None, "passed": False, "borderline": False}
    fields |= {"empty": False, "duration_ms": None, "output": output, "error": error_text}
    return _record(nodeid, "error", fields | {"leaves": []})


def _record(nodeid: str, outcome: str, fields: Mapping[str, Any]) -> Record:
    record: Record = clean({"nodeid": nodeid, "outcome": outcome, "test_outcome": None, **fields})
    return record


def sorted_records(records: Sequence[Record]) -> list[Record]:
    """Records grouped by test (by node id), in the order each test made its assertions."""
    return sorted(records, key=lambda record: (record["nodeid"], record.get("seq", 0)))


@dataclass(frozen=True, slots=True)
class Summary:
    """Counts over a run's records, each record under its `outcome`."""

    total: int = 0
    passed: int = 0
    failed: int = 0
    errors: int = 0
    #: Expected failures: checks that failed or errored in tests pytest calls xfailed.
    xfailed: int = 0
    #: Unexpected passes: checks that passed in xfail tests that passed.
    xpassed: int = 0
    #: Checks made in tests pytest then skipped.
    skipped: int = 0
    #: Checks that failed or raised in tests that passed (`outcome`'s ``caught``).
    caught: int = 0
    borderline: int = 0
    #: Checks with a leaf judged by topical closeness alone (`result_record`'s ``topical``).
    topical: int = 0
    #: How many leaf verdicts each judge decided (escalation shows which level decided).
    decided_by: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "decided_by": dict(self.decided_by)}


def summarize(records: Sequence[Mapping[str, Any]]) -> Summary:
    """Count each record under its `outcome`, the borderline and topical ones, and who decided
    each leaf."""
    outcomes = Counter(outcome(record) for record in records)
    deciders: Counter[str] = Counter()
    for record in records:
        for leaf in record.get("leaves") or ():
            if leaf.get("judge") and leaf_outcome(leaf) != NOT_JUDGED:
                deciders[leaf["judge"]] += 1
    return Summary(
        total=len(records),
        passed=outcomes["passed"],
        failed=outcomes["failed"],
        errors=outcomes["error"],
        xfailed=outcomes["xfailed"],
        xpassed=outcomes["xpassed"],
        skipped=outcomes["skipped"],
        caught=outcomes["caught"],
        borderline=sum(1 for record in records if record.get("borderline")),
        topical=sum(1 for record in records if is_topical(record)),
        decided_by=dict(deciders),
    )


def is_topical(record: Mapping[str, Any]) -> bool:
    """Whether a leaf of the record was judged by topical closeness alone."""
    return any(leaf.get("topical") for leaf in record.get("leaves") or ())


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
    """Write ``document`` to ``path`` (parents created), as indented UTF-8 JSON, whole or not at
    all (`semantix._files.write_atomic`)."""
    write_atomic(path, json.dumps(document, indent=2, ensure_ascii=False) + "\n")
