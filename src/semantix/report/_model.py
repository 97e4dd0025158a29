"""The report as a frozen typed model: what every renderer (terminal, JUnit, HTML, compare,
merge) reads. `semantix.report._schema.load_report` builds a `Report` from a JSON file (checked,
older versions upgraded); `Report.to_json` (`to_json`) writes the JSON report back, the same
document version 4 has always been (docs/architecture.md, "Runs are data: records").

```python
from semantix.report._model import CheckRecord, outcome

record = CheckRecord(nodeid="t.py::test_a", outcome="failed", intent="Polite", test_outcome="passed")
print(record, outcome(record))
#> <CheckRecord t.py::test_a Polite: failed, test passed> caught
```
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Literal

from semantix.judges._verdict import TokenUsage
from semantix.report._json import to_json

__all__ = [
    "CheckOutcome",
    "CheckRecord",
    "Counted",
    "JudgeCost",
    "Leaf",
    "Meta",
    "RelationRecord",
    "RepeatedTest",
    "Report",
    "SnapshotEntry",
    "Snapshots",
    "Summary",
    "TestOutcome",
    "TestRecord",
    "Variant",
    "outcome",
    "runs_section",
    "summarize",
    "summary_of",
    "to_json",
]

#: Version of the JSON report's layout (2: outcomes with errors, borderline, outputs, sections;
#: 3: each record's and each test's pytest outcome, xfailed/xpassed/skipped/topical counts,
#: topical leaves, the tests and relations sections; 4: every test that ran in ``tests``, the
#: ``caught`` count, ``meta.run_id`` and ``meta.shard``, an unknown judge cost as null). Every
#: earlier version is upgraded when it is read.
REPORT_VERSION = 4


#: A check's own outcome, whatever its test did.
CheckOutcome = Literal["passed", "failed", "error"]

#: pytest's outcome of a test (a record's ``test_outcome``, the ``tests`` section's ``outcome``).
TestOutcome = Literal["passed", "failed", "error", "skipped", "xfailed", "xpassed"]
#: What every report counts a record as (`outcome`): only ``failed`` and ``error`` are bad.
Counted = Literal["passed", "failed", "error", "caught", "xfailed", "xpassed", "skipped"]
#: A leaf that structural leaves decided before any judge was asked.
NOT_JUDGED = "not judged"


@dataclass(frozen=True, slots=True, kw_only=True)
class Leaf:
    """One leaf intent's verdict in a check (`semantix.pipeline._results.LeafResult.to_dict`)."""

    intent: str
    description: str | None = None
    judged_as: str | None = None
    expected: bool | None = None
    satisfied: bool | None = None
    passed: bool | None = None
    #: False: the composite was decided by its structural leaves before a judge was asked.
    judged: bool | None = None
    score: float | None = None
    threshold: float | None = None
    threshold_source: str | None = None
    borderline: bool | None = None
    #: Judged by topical closeness alone (a similarity judge, an intent without examples).
    topical: bool | None = None
    reason: str | None = None
    evidence: str | None = None
    judge: str | None = None
    judge_model: str | None = None
    latency_ms: float | None = None
    usage: TokenUsage | None = None
    qualname: str | None = None

    def __repr__(self) -> str:
        score = "n/a" if self.score is None else f"{self.score:.2f}"
        return f"<Leaf {self.intent} {score}: {self.decided}>"

    @property
    def decided(self) -> str:
        """``passed``, ``failed`` or ``not judged`` (never a failure)."""
        if self.judged is False:
            return NOT_JUDGED
        return "passed" if self.passed else "failed"


@dataclass(frozen=True, slots=True, kw_only=True)
class CheckRecord:
    """One semantic assertion: the check's own outcome and its test's pytest outcome."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        ("error", "judge_cost_usd", "source", "expected")
    )

    nodeid: str
    outcome: CheckOutcome
    test_outcome: TestOutcome | None = None
    intent: str
    judge: str | None = None
    passed: bool | None = None
    borderline: bool = False
    empty: bool | None = None
    duration_ms: float | None = None
    output: str | None = None
    #: Why the check could not be judged (an ``error`` record).
    error: str | None = None
    leaves: tuple[Leaf, ...] = ()
    judge_cost_usd: float | None = None
    #: A dataset row's place (``file:line``) and label (`semantix eval`), None in a test's.
    source: str | None = None
    expected: bool | None = None
    #: The order the run made it in (not in the JSON: the report is sorted by test).
    seq: int = field(default=0, compare=False, metadata={"json": False})

    def __repr__(self) -> str:
        test = f", test {self.test_outcome}" if self.test_outcome else ""
        return f"<CheckRecord {self.nodeid} {self.intent}: {self.outcome}{test}>"

    @property
    def topical(self) -> bool:
        """Whether a leaf was judged by topical closeness alone."""
        return any(leaf.topical for leaf in self.leaves)


def outcome(record: CheckRecord) -> Counted:
    """The one rule every report (terminal, JSON summary, JUnit, HTML, compare, merge) counts a
    record by: the check's own outcome counted with its test's pytest outcome, so a run pytest
    calls green reads green:

    - in a test pytest skipped: ``skipped``;
    - a check that passed: ``xpassed`` in an xfail test that passed, else ``passed``;
    - a check that failed or errored: ``xfailed`` in a test pytest calls xfailed (an expected
      failure), ``caught`` in a test that passed (``pytest.raises`` expected it, or a pass rate
      that reached its floor held it), else its own ``failed`` or ``error``.
    """
    check, test = record.outcome, record.test_outcome
    if test == "skipped":
        return "skipped"
    if check == "passed":
        return "xpassed" if test == "xpassed" else "passed"
    if test == "xfailed":
        return "xfailed"
    if test in ("passed", "xpassed"):
        return "caught"
    return check


@dataclass(frozen=True, slots=True, kw_only=True)
class TestRecord:
    """A test that ran, with pytest's outcome (asserting or not)."""

    __test__: ClassVar[bool] = False  # not a pytest test class

    nodeid: str
    outcome: TestOutcome
    reason: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RepeatedTest:
    """A repeated test (or an ``assert_pass_rate``): `semantix.runs.RunStats.to_dict` and its
    test's node id and pytest outcome."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(
        ("judge_accuracy", "corrected_pass_rate", "corrected_interval", "test_outcome")
    )

    nodeid: str
    name: str | None = None
    runs: int
    passes: int
    failures: int | None = None
    errors: int = 0
    pass_rate: float
    interval: tuple[float, float]
    min_pass_rate: float | None = None
    floor_unproven: bool = False
    #: Deprecated: repeats ``floor_unproven`` for readers of older reports.
    below_floor: bool = False
    verdict: str
    outcomes: tuple[str, ...] = ()
    latency_ms: tuple[float | None, ...] = ()
    judge_accuracy: tuple[float, ...] | None = None
    corrected_pass_rate: float | None = None
    corrected_interval: tuple[float, float] | None = None
    test_outcome: TestOutcome | None = None
    seq: int = field(default=0, compare=False, metadata={"json": False})

    def __repr__(self) -> str:
        return f"<RepeatedTest {self.label}: {self.passes}/{self.runs} {self.verdict}>"

    @property
    def label(self) -> str:
        """The test id, and the check's name when it is not the test (an ``assert_pass_rate``)."""
        same = self.name in (None, self.nodeid)
        return self.nodeid if same else f"{self.nodeid} ({self.name})"


@dataclass(frozen=True, slots=True, kw_only=True)
class Variant:
    """One variant of a relation's case (`semantix.relations.VariantResult.to_dict`)."""

    label: str | None = None
    outcome: str | None = None
    direction: str | None = None
    value: str | None = None
    passes: int | None = None
    runs: int | None = None
    error: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class RelationRecord:
    """One metamorphic relation on one case (`semantix.relations.RelationResult.to_dict`)."""

    nodeid: str
    relation: str
    case_id: str | None = None
    applicable: bool
    outcome: str | None = None
    not_applicable: str | None = None
    variants: int = 0
    judged: int
    violations: int
    errors: int
    rate: float | None
    max_violation_rate: float | None = None
    original: Mapping[str, int] | None = None
    results: tuple[Variant, ...] = ()
    test_outcome: TestOutcome | None = None
    seq: int = field(default=0, compare=False, metadata={"json": False})

    def __repr__(self) -> str:
        case = f"{self.relation} case {self.case_id} in {self.nodeid}"
        return f"<RelationRecord {case}: {self.violations}/{self.judged} violations>"


@dataclass(frozen=True, slots=True, kw_only=True)
class SnapshotEntry:
    """A snapshot the run checked (``outcome``; a drifted one with both texts) or left unused
    (``test``: the test that owns it)."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(("outcome", "stored", "output", "test"))

    path: str | None = None
    outcome: str | None = None
    stored: str | None = None
    output: str | None = None
    test: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Snapshots:
    """The ``snapshots`` section: counts, every snapshot checked, unused and deleted ones."""

    counts: Mapping[str, int] = field(default_factory=dict)
    snapshots: tuple[SnapshotEntry, ...] = ()
    unused: tuple[SnapshotEntry, ...] = ()
    deleted: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class JudgeCost:
    """What the judges spent over a run: tokens, and USD where every model had a price."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(("known_usd",))

    #: LLM-judged verdicts, those of unknown usage included.
    verdicts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    #: The cost of every verdict; None (unknown) when one was unpriced or of unknown usage.
    usd: float | None = None
    #: The cost of the verdicts that were priced (all of ``usd`` when it is known; None in a
    #: report older than the field).
    known_usd: float | None = None
    #: Models that spent tokens without a price (then ``usd`` leaves them out, and says so).
    unpriced: tuple[str, ...] = ()
    #: LLM-judged verdicts that carried no usage: their cost is unknown, not in ``usd``.
    unknown: int = 0

    def to_dict(self) -> dict[str, Any]:
        return to_json(self)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shard:
    """A merged shard's file and timing (``meta.shards``)."""

    path: str
    started: str | None = None
    duration_s: float | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Meta:
    """The run: its judges, verdict mode, start, duration, id and shard, the judges' cost."""

    _OPTIONAL: ClassVar[frozenset[str]] = frozenset(("judge_cost", "shards"))

    judge_cost: JudgeCost | None = None
    judges: tuple[str, ...] = ()
    verdicts_mode: str | None = None
    started: str | None = None
    duration_s: float | None = None
    run_id: str | None = None
    shard: str | None = None
    #: The shards a merged report was made of.
    shards: tuple[Shard, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
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
    #: Checks with a leaf judged by topical closeness alone.
    topical: int = 0
    #: How many leaf verdicts each judge decided (escalation shows which level decided).
    decided_by: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return to_json(self)  # type: ignore[no-any-return]


def summarize(records: Sequence[CheckRecord]) -> Summary:
    """Count each record under its `outcome`, the borderline and topical ones, and who decided
    each leaf."""
    deciders = Counter(
        leaf.judge
        for record in records
        for leaf in record.leaves
        if leaf.judge and leaf.decided != NOT_JUDGED
    )
    return summary_of(
        Counter(outcome(record) for record in records),
        borderline=sum(1 for record in records if record.borderline),
        topical=sum(1 for record in records if record.topical),
        decided_by=deciders,
    )


def summary_of(
    outcomes: Counter[str], *, borderline: int, topical: int, decided_by: Mapping[str, int]
) -> Summary:
    """The summary of records counted by their `outcome` (``outcomes``) and the rest."""
    return Summary(
        total=sum(outcomes.values()),
        passed=outcomes["passed"],
        failed=outcomes["failed"],
        errors=outcomes["error"],
        xfailed=outcomes["xfailed"],
        xpassed=outcomes["xpassed"],
        skipped=outcomes["skipped"],
        caught=outcomes["caught"],
        borderline=borderline,
        topical=topical,
        decided_by=dict(decided_by),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """A JSON report, read (`semantix.report._schema.load_report`) or assembled
    (`semantix.report._merge.assemble`); `to_json` is the file."""

    meta: Meta = field(default_factory=Meta)
    assertions: tuple[CheckRecord, ...] = ()
    #: Every test that ran, with pytest's outcome.
    tests: tuple[TestRecord, ...] = ()
    snapshots: Snapshots | None = None
    #: The repeated tests, and the tests ``--semantic-runs`` ran once.
    repeated: tuple[RepeatedTest, ...] = ()
    once: tuple[str, ...] = ()
    relations: tuple[RelationRecord, ...] = ()
    #: ``pytest --semantic-baseline``'s comparison (`semantix.report._compare.Comparison.to_dict`).
    baseline: Mapping[str, Any] | None = None
    #: The version of the file this report was read from, when it was older.
    upgraded_from: int | None = None

    def __repr__(self) -> str:
        return (
            f"<Report {len(self.assertions)} assertions, {len(self.tests)} tests, "
            f"{len(self.repeated)} repeated, {len(self.relations)} relations>"
        )

    @property
    def summary(self) -> Summary:
        return summarize(self.assertions)

    def to_json(self) -> dict[str, Any]:
        """The JSON report: version, run metadata, summary, every assertion, the sections."""
        from semantix.relations._results import summarize as summarize_relations

        document: dict[str, Any] = {
            "version": REPORT_VERSION,
            "meta": to_json(self.meta),
            "summary": to_json(self.summary),
            "assertions": to_json(self.assertions),
            "tests": to_json(self.tests),
        }
        if self.snapshots is not None:
            document["snapshots"] = to_json(self.snapshots)
        if self.repeated or self.once:
            document["runs"] = runs_section(self.repeated, self.once)
        if self.relations:
            document["relations"] = {
                "results": to_json(self.relations),
                "summary": to_json(summarize_relations(self.relations)),
            }
        if self.baseline is not None:
            document["baseline"] = to_json(self.baseline)
        return document


def runs_section(tests: Sequence[RepeatedTest], once: Sequence[str] = ()) -> dict[str, Any]:
    """The JSON report's ``runs`` section: every repeated test, the stability score, how many have
    not proven their floor, how many were left out (xfailed or skipped), and the tests
    ``--semantic-runs`` ran once."""
    from semantix.runs._stats import suite_stability

    counted = [test for test in tests if test.test_outcome not in ("xfailed", "skipped")]
    score, below = suite_stability(counted)
    return {
        "stability": score,
        "below_floor": below,
        "left_out": len(tests) - len(counted),
        "tests": to_json(tuple(tests)),
        "once": list(once),
    }
