"""Two runs compared: what got worse, paired by test id and intent, with honest statistics.

```python
from semantix.report._compare import compare

def run(*outcomes):
    return {"version": 2, "assertions": [
        {"nodeid": f"t.py::test_{i}", "outcome": o, "intent": "Polite", "judge": "J", "leaves": []}
        for i, o in enumerate(outcomes)]}

comparison = compare(run("passed", "passed", "failed"), run("passed", "failed", "passed"))
print(comparison.summary_line())
#> 1 regression, 1 fix, 0 new, 0 removed over 3 paired assertions; McNemar exact p = 1.000 (1 regression vs 1 fix)
```

An assertion pairs with the one of the same test id and intent in the other run (the k-th with
the k-th; `pairing_key`: no memory address in a repr breaks a pair); each is counted by the one
rule of `semantix.report._records.outcome`. An assertion the candidate never made because its test
failed or raised first is a regression. Repeated tests are compared by pass rate
(`semantix._proportions.rate_change`, the rule relations use), and McNemar's exact test weighs the
paired flips: [Comparing runs](comparing-runs.md) says what each figure means. Reading the reports
is `semantix.report._schema.load_report`'s; rendering `semantix.report._compare_views`'.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from semantix._proportions import mcnemar_exact, newcombe_interval, rate_change, wilson_interval
from semantix.report._model import CheckRecord, Leaf, Report, TestRecord, outcome
from semantix.report._records import BAD
from semantix.report._schema import check_document, load_report

__all__ = [
    "FAIL_ON",
    "KINDS",
    "Comparison",
    "Flip",
    "LeafPair",
    "RateChange",
    "compare",
    "load_report",
    "pairing_key",
]

#: The kinds of rows, in the order every view lists them.
KINDS = ("regression", "fix", "new", "removed", "judge")
#: ``--fail-on`` modes: what makes a comparison fail.
FAIL_ON = ("regressions", "significant", "never")
#: The significance level of McNemar's test and of the Newcombe intervals (95 %).
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class LeafPair:
    """A leaf of a flipped assertion in each run (None: not in that run)."""

    intent: str
    base: Leaf | None
    candidate: Leaf | None

    def to_dict(self) -> dict[str, Any]:
        return {"intent": self.intent, "base": _leaf(self.base), "candidate": _leaf(self.candidate)}


def _leaf(leaf: Leaf | None) -> dict[str, Any] | None:
    if leaf is None:
        return None
    fields = {"score": leaf.score, "threshold": leaf.threshold, "reason": leaf.reason}
    return {"outcome": leaf.decided} | fields


@dataclass(frozen=True, slots=True)
class Flip:
    """An assertion whose outcome or judge changed, or that is in one run only.

    ``kind`` is ``regression``, ``fix``, ``new``, ``removed`` or ``judge`` (the same outcome
    from another judge: not like for like); ``occurrence`` counts the
    assertions of the same intent in the test from 0; ``base`` / ``candidate`` are the outcomes
    (None: not in that run); ``leaves`` are the leaves of the pair (`LeafPair`).
    """

    kind: str
    nodeid: str
    intent: str
    occurrence: int
    base: str | None
    candidate: str | None
    base_judge: str | None = None
    candidate_judge: str | None = None
    leaves: tuple[LeafPair, ...] = ()
    error: str | None = None
    #: The outputs each run's record carries (masked as recorded; None: none recorded), shown
    #: beside a regression's scores on the HTML page; left out of `to_dict`, so a comparison's
    #: JSON stays the size of its flips.
    base_output: str | None = field(default=None, repr=False)
    candidate_output: str | None = field(default=None, repr=False)

    @property
    def judge_changed(self) -> bool:
        """Both runs judged it, with different judges (not a like-for-like comparison)."""
        return None not in (self.base_judge, self.candidate_judge) and (
            self.base_judge != self.candidate_judge
        )

    @property
    def label(self) -> str:
        """The intent, with ``#2`` for the second assertion of it in the same test."""
        return self.intent if not self.occurrence else f"{self.intent} #{self.occurrence + 1}"

    def to_dict(self) -> dict[str, Any]:
        leaves = [leaf.to_dict() for leaf in self.leaves]
        data = {**asdict(self), "judge_changed": self.judge_changed, "leaves": leaves}
        del data["base_output"], data["candidate_output"]
        return data

    def __repr__(self) -> str:
        return f"<Flip {self.kind} {self.nodeid} {self.label}: {self.base} -> {self.candidate}>"


@dataclass(frozen=True, slots=True)
class RateChange:
    """A repeated test in either run: passes out of runs in each (None: not in that run)."""

    nodeid: str
    name: str | None
    base: tuple[int, int] | None
    candidate: tuple[int, int] | None
    base_verdict: str | None = None
    candidate_verdict: str | None = None

    @property
    def difference(self) -> float | None:
        """Candidate's pass rate minus the baseline's."""
        if self.base is None or self.candidate is None:
            return None
        return self.candidate[0] / self.candidate[1] - self.base[0] / self.base[1]

    @property
    def interval(self) -> tuple[float, float] | None:
        """Newcombe's 95 % interval of the difference."""
        if self.base is None or self.candidate is None:
            return None
        return newcombe_interval(*self.base, *self.candidate)

    @property
    def change(self) -> str | None:
        """``worse``, ``better`` or None: `semantix._proportions.rate_change`."""
        if self.base is None or self.candidate is None:
            return None
        return rate_change(self.base, self.candidate)

    @property
    def significant(self) -> bool:
        return self.change is not None

    @property
    def worse(self) -> bool:
        """Significantly lower in the candidate."""
        return self.change == "worse"

    @property
    def regression(self) -> bool:
        """Its verdict went from passed to failed or error."""
        return self.base_verdict == "passed" and self.candidate_verdict not in (None, "passed")

    def to_dict(self) -> dict[str, Any]:
        sides = {"base": self.base, "candidate": self.candidate}
        return {
            "nodeid": self.nodeid,
            "name": self.name,
            **{f"{side}_passes": None if n is None else n[0] for side, n in sides.items()},
            **{f"{side}_runs": None if n is None else n[1] for side, n in sides.items()},
            **{f"{side}_interval": n and list(wilson_interval(*n)) for side, n in sides.items()},
            "base_verdict": self.base_verdict,
            "candidate_verdict": self.candidate_verdict,
            "difference": self.difference,
            "difference_interval": self.interval and list(self.interval),
            "significant": self.significant,
            "regression": self.regression,
        }


@dataclass(frozen=True, slots=True)
class Comparison:
    """Every change between a baseline and a candidate run, and the figures over them."""

    flips: tuple[Flip, ...]
    rates: tuple[RateChange, ...] = ()
    #: Assertions present in both runs (McNemar's pairs).
    paired: int = 0
    #: Of the pairs, how many were judged by another judge in the candidate.
    judge_changes: int = 0
    base_path: str | None = None
    candidate_path: str | None = None

    def __repr__(self) -> str:
        return f"<Comparison {self.summary_line()}>"

    def of_kind(self, kind: str) -> tuple[Flip, ...]:
        """The rows of one kind (one of `KINDS`), in order."""
        return tuple(flip for flip in self.flips if flip.kind == kind)

    @property
    def regressions(self) -> tuple[Flip, ...]:
        return self.of_kind("regression")

    @property
    def fixes(self) -> tuple[Flip, ...]:
        return self.of_kind("fix")

    @property
    def p_value(self) -> float:
        """McNemar's exact two-sided p-value on the regressions and fixes of the pairs."""
        return mcnemar_exact(len(self.regressions), len(self.fixes))

    @property
    def significant(self) -> bool:
        """Significantly worse: McNemar below 0.05 with more regressions than fixes, or a
        repeated test whose pass rate's difference lies wholly below 0."""
        flips_worse = self.p_value < ALPHA and len(self.regressions) > len(self.fixes)
        return flips_worse or any(rate.worse for rate in self.rates)

    def failed(self, fail_on: str) -> bool:
        """Whether ``--fail-on fail_on`` fails on this comparison."""
        if fail_on == "regressions":
            return bool(self.regressions) or any(rate.regression for rate in self.rates)
        if fail_on == "significant":
            return self.significant
        return False

    def summary_line(self) -> str:
        """``2 regressions, 1 fix, 0 new, 0 removed over 40 paired assertions; McNemar ...``."""
        kinds = Counter(flip.kind for flip in self.flips)
        counts = [_count(kinds["regression"], "regression"), _count(kinds["fix"], "fix", "fixes")]
        counts += [f"{kinds['new']} new", f"{kinds['removed']} removed"]
        line = (
            f"{', '.join(counts)} over {_count(self.paired, 'paired assertion')}; McNemar exact "
            f"p = {self.p_value:.3f} ({counts[0]} vs {counts[1]})"
        )
        if self.rates:
            worse = sum(rate.worse for rate in self.rates)
            better = sum(rate.significant and not rate.worse for rate in self.rates)
            line += (
                f"; {_count(len(self.rates), 'repeated test')}: {worse} significantly worse, "
                f"{better} significantly better"
            )
        if self.judge_changes:
            line += (
                f"; {self.judge_changes} of the pairs judged by another judge (not like for like)"
            )
        return line

    def to_dict(self) -> dict[str, Any]:
        return {
            "base": self.base_path,
            "candidate": self.candidate_path,
            "summary": self.summary_line(),
            "paired": self.paired,
            "judge_changes": self.judge_changes,
            "mcnemar": {
                "regressions": len(self.regressions),
                "fixes": len(self.fixes),
                "p_value": self.p_value,
            },
            "significant": self.significant,
            "flips": [flip.to_dict() for flip in self.flips],
            "repeated": [rate.to_dict() for rate in self.rates],
        }


def _count(number: int, noun: str, plural: str | None = None) -> str:
    return f"{number} {noun if number == 1 else plural or noun + 's'}"


def compare(
    base: Report | Mapping[str, Any],
    candidate: Report | Mapping[str, Any],
    *,
    base_path: str | None = None,
    candidate_path: str | None = None,
) -> Comparison:
    """Compare two reports (read by `load_report`, or JSON documents `check_document` upgrades
    and checks): baseline, then candidate."""
    base, candidate = check_document(base), check_document(candidate)
    # Repeated tests are compared by rate (`_rates`), not by pairs, on either side.
    repeated = {test.nodeid for side in (base, candidate) for test in side.repeated}
    old, new = _assertions(base, repeated), _assertions(candidate, repeated)
    # Tests that failed or raised with no failed check to say why: they crashed (the agent
    # raised) before making the assertions they no longer have.
    explained = {record.nodeid for record in candidate.assertions if outcome(record) in BAD}
    crashed = {
        test.nodeid: test.outcome
        for test in candidate.tests
        if test.outcome in BAD and test.nodeid not in explained
    }
    flips: list[Flip] = []
    paired = judge_changes = 0
    for key, record in new.items():
        before = old.get(key)
        if before is None:
            flips.append(_flip("new", key, None, record))
            continue
        paired += 1
        judges = (before.judge, record.judge)
        changed_judge = None not in judges and judges[0] != judges[1]
        judge_changes += changed_judge
        good_before, good_now = _good(before), _good(record)
        if good_before is not None and good_now is not None and good_before != good_now:
            flips.append(_flip("fix" if good_now else "regression", key, before, record))
        elif changed_judge:
            flips.append(_flip("judge", key, before, record))
    for key, record in old.items():
        if key in new:
            continue
        if key[0] in crashed and _good(record):
            # Its test failed or raised before making it: the worst regression, not "removed".
            paired += 1
            flips.append(_flip("regression", key, record, None, crashed=crashed[key[0]]))
        else:
            flips.append(_flip("removed", key, record, None))
    order = {kind: rank for rank, kind in enumerate(KINDS)}
    flips.sort(key=lambda flip: (order[flip.kind], flip.nodeid, flip.intent, flip.occurrence))
    rates = _rates(base, candidate)
    return Comparison(tuple(flips), rates, paired, judge_changes, base_path, candidate_path)


def _good(record: CheckRecord) -> bool | None:
    """Passed is good, failed and error are bad (`outcome`, the one rule); any other outcome (an
    expected failure, a skip, a check its passing test caught) is neither, so its pair is never
    a regression nor a fix."""
    return {"passed": True, "failed": False, "error": False}.get(outcome(record))


#: A memory address in a repr: ``<f at 0x7f27...>``, and a mock's ``<Mock id='1402...'>``.
_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+| id='\d+'")


def pairing_key(intent: str) -> str:
    """The intent's name as runs pair it: without the memory addresses a repr embeds
    (``functools.partial(<function f at 0x7f27...>)``, ``<Matcher object at 0x...>``), which
    differ in every process."""
    return _ADDRESS.sub("", intent) if " at 0x" in intent or " id='" in intent else intent


_Key = tuple[str, str, int]


def _assertions(report: Report, repeated: set[str]) -> dict[_Key, CheckRecord]:
    """Each assertion of a report under (test id, `pairing_key`, occurrence in the test)."""
    keyed: dict[_Key, CheckRecord] = {}
    seen: dict[tuple[str, str], int] = {}
    for record in report.assertions:
        nodeid, intent = record.nodeid, pairing_key(record.intent)
        if nodeid in repeated:
            continue
        occurrence = seen.get((nodeid, intent), 0)
        seen[(nodeid, intent)] = occurrence + 1
        keyed[(nodeid, intent, occurrence)] = record
    return keyed


def _flip(
    kind: str,
    key: _Key,
    base: CheckRecord | None,
    candidate: CheckRecord | None,
    *,
    crashed: str | None = None,
) -> Flip:
    error = (candidate and candidate.error) or (base and base.error) or None
    if crashed is not None:
        error = (
            f"the test {'raised' if crashed == 'error' else 'failed'} before making this "
            "assertion (pytest's outcome: " + crashed + ")"
        )
    return Flip(
        kind,
        *key,
        base=None if base is None else outcome(base),
        candidate=crashed if candidate is None else outcome(candidate),
        base_judge=None if base is None else base.judge,
        candidate_judge=None if candidate is None else candidate.judge,
        leaves=_leaves(base, candidate),
        error=error,
        base_output=None if base is None else base.output,
        candidate_output=None if candidate is None else candidate.output,
    )


def _leaves(base: CheckRecord | None, candidate: CheckRecord | None) -> tuple[LeafPair, ...]:
    """Each leaf of either record, in each run."""
    before = {leaf.intent: leaf for leaf in base.leaves} if base else {}
    after = {leaf.intent: leaf for leaf in candidate.leaves} if candidate else {}
    names = dict.fromkeys([*after, *before])
    return tuple(LeafPair(name, before.get(name), after.get(name)) for name in names)


_RateKey = tuple[str, str | None]
#: A test's passes and runs, and its verdict.
_Rate = tuple[int, int, str]


def _rates(base: Report, candidate: Report) -> tuple[RateChange, ...]:
    """Each repeated test's pass rate in both runs. A test repeated in one run only is compared
    with the other run's plain assertions of it, as one run (`_as_one_run`): a branch run once
    against a nightly repeated run still shows its failures."""

    def keyed(report: Report) -> dict[_RateKey, _Rate]:
        return {(t.nodeid, t.name): (t.passes, t.runs, t.verdict) for t in report.repeated}

    before, after = keyed(base), keyed(candidate)
    for mine, theirs, report in ((before, after, base), (after, before, candidate)):
        alone = {key for key in theirs if key[0] not in {nodeid for nodeid, _ in mine}}
        if alone:
            outcomes: dict[str, list[str]] = {}
            for record in report.assertions:
                outcomes.setdefault(record.nodeid, []).append(outcome(record))
            tests = {test.nodeid: test for test in report.tests}
            for key in alone:
                once = _as_one_run(outcomes.get(key[0], []), tests.get(key[0]))
                if once is not None:
                    mine[key] = once
    keys = sorted(set(before) | set(after), key=lambda key: (key[0], str(key[1])))
    return tuple(
        RateChange(
            *key,
            None if old is None else old[:2],
            None if new is None else new[:2],
            None if old is None else old[2],
            None if new is None else new[2],
        )
        for key in keys
        for old, new in [(before.get(key), after.get(key))]
    )


def _as_one_run(outcomes: list[str], test: TestRecord | None) -> _Rate | None:
    """A test the run did not repeat, as one run of it: passed when every assertion it made
    passed (`outcome`), else failed or error; its pytest outcome when it made none and failed
    or raised; None when the run has no trace of it."""
    if not outcomes:
        if test is None or test.outcome not in BAD:
            return None
        outcomes = [test.outcome]
    verdict = "error" if "error" in outcomes else "failed" if "failed" in outcomes else "passed"
    if verdict == "passed" and not {"passed", "caught"} & set(outcomes):
        return None  # only expected failures and skips: neither way
    return int(verdict == "passed"), 1, verdict
