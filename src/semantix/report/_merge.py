"""Shards of one suite merged into the report an unsharded run would have written.

```python
from semantix.report._merge import merge_reports

def shard(nodeid, outcome):
    return {"version": 2, "meta": {"judges": ["J"], "verdicts_mode": "off"}, "assertions": [
        {"nodeid": nodeid, "outcome": outcome, "intent": "Polite", "judge": "J", "leaves": []}]}

merged = merge_reports([("a.json", shard("t.py::a", "passed")), ("b.json", shard("t.py::b", "failed"))])
print(merged.summary.total, merged.summary.failed, merged.meta.judges)
#> 2 1 ('J',)
```

`assemble` builds a `semantix.report._model.Report` from its parts and is the one function both writers use: the
pytest session (xdist workers' payloads merged in) and `merge_reports` (every shard's parts).
Every derived figure (the summary, "decided by", the stability score, the relations' summary) is
computed from the merged parts when it is written (`Report.to_json`), so a merge equals the unsharded report by construction;
what only a shard knows (snapshot counts, the judges' cost, timing) is combined as
[Comparing runs](comparing-runs.md#shards-semantix-report-merge) says. A merge is one run's
shards, each once: the same file twice, the same shard twice, shards of two runs (``meta.run_id``),
a missing shard of ``i/N``, shards of different report versions or verdict modes, or a test (its
assertions, a repeated test, a relation) in two shards are each a `ReportDocumentError` naming
the files.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from semantix.report._json import build
from semantix.report._model import (
    REPORT_VERSION,
    CheckRecord,
    JudgeCost,
    Meta,
    RelationRecord,
    RepeatedTest,
    Report,
    Shard,
    SnapshotEntry,
    Snapshots,
    TestRecord,
)
from semantix.report._records import sorted_records
from semantix.report._schema import ReportDocumentError, check_document

__all__ = ["OUTSIDE_TEST", "assemble", "merge_reports", "merged_parts"]

#: The test id of assertions made outside any test (they may be in every shard).
OUTSIDE_TEST = "(outside a test)"


def assemble(
    records: Sequence[CheckRecord],
    *,
    meta: Meta | Mapping[str, Any],
    tests: Sequence[TestRecord] = (),
    runs: Sequence[RepeatedTest] = (),
    once: Sequence[str] = (),
    relations: Sequence[RelationRecord] = (),
    snapshots: Snapshots | None = None,
) -> Report:
    """The report of these parts, sorted by test id (each test's own in the order it made them);
    every summary is computed from them when it is written (`Report.to_json`)."""
    return Report(
        meta=meta if isinstance(meta, Meta) else build(Meta, meta),
        assertions=tuple(sorted_records(records)),
        tests=tuple(sorted(tests, key=lambda test: test.nodeid)),
        snapshots=snapshots,
        repeated=tuple(sorted_records(runs)),
        once=tuple(sorted(set(once))),
        relations=tuple(sorted_records(relations)),
    )


def merge_reports(shards: Sequence[tuple[str, Report | Mapping[str, Any]]]) -> Report:
    """One report from the ``(path, report)`` of every shard (each read by `load_report`, or a
    JSON document upgraded and checked here)."""
    if not shards:
        raise ReportDocumentError("no reports to merge; pass the shards' JSON reports")
    _check_paths([path for path, _ in shards])
    reports = [(path, check_document(document)) for path, document in shards]
    merged = merged_parts(reports, [report.assertions for _, report in reports])
    # Each shard's records in its own order, then the shards' order: sorted by test id after.
    numbered = [record for _, report in reports for record in report.assertions]
    if any(record.seq for record in numbered):  # all 0 (as read): the sort keeps this order
        numbered = [replace(record, seq=seq) for seq, record in enumerate(numbered)]
    return replace(merged, assertions=tuple(sorted_records(numbered)))


def merged_parts(shards: Sequence[tuple[str, Report]], records: Sequence[Iterable[Any]]) -> Report:
    """The merged report of the shards (checked to be one run's, each once) but their records:
    ``records`` holds each shard's (its records, or the set of their node ids), for the check
    that each test is in one shard."""
    _check_compatible(shards)
    _check_one_run(shards, records)
    parts = [report for _, report in shards]
    snapshots = [report.snapshots for report in parts if report.snapshots is not None]
    return assemble(
        (),
        meta=_meta(shards),
        tests=[test for report in parts for test in report.tests],
        runs=[test for report in parts for test in report.repeated],
        once=[nodeid for report in parts for nodeid in report.once],
        relations=[case for report in parts for case in report.relations],
        snapshots=_snapshots(snapshots) if snapshots else None,
    )


def _check_paths(paths: Sequence[str]) -> None:
    twice = sorted(path for path, count in Counter(paths).items() if count > 1)
    if twice:
        raise ReportDocumentError(
            f"{', '.join(map(repr, twice))} given more than once: its counts would be added twice; "
            "name each shard's report once (check overlapping globs)"
        )


def _check_compatible(shards: Sequence[tuple[str, Report]]) -> None:
    for what, value in (
        ("report version", lambda report: report.upgraded_from or REPORT_VERSION),
        ("verdict mode", lambda report: report.meta.verdicts_mode or "off"),
    ):
        values = {path: value(report) for path, report in shards}
        if len(set(values.values())) > 1:
            listed = ", ".join(f"{path!r}: {value!r}" for path, value in values.items())
            raise ReportDocumentError(
                f"these reports have different {what}s ({listed}), so they are not shards of "
                "one run; write them again with the same semantix and options"
                + (" (semantix report renders each older one)" if what == "report version" else "")
            )


def _check_one_run(shards: Sequence[tuple[str, Report]], records: Sequence[Iterable[Any]]) -> None:
    """One run (``meta.run_id``), each shard ``i/N`` once and none missing, each test in one
    shard (its assertions, its repeated runs, its relations, its pytest outcome)."""
    runs = {path: report.meta.run_id for path, report in shards}
    if len(set(runs.values())) > 1:
        listed = ", ".join(f"{path!r}: {value!r}" for path, value in runs.items())
        raise ReportDocumentError(
            f"these reports are of different runs ({listed}); merge the shards of one run "
            "(set SEMANTIX_RUN_ID to the same value on every shard's machine, or compare two "
            "runs with semantix compare)"
        )
    numbers = {path: report.meta.shard for path, report in shards}
    if any(value is not None for value in numbers.values()):
        _check_shards(numbers)
    seen: list[tuple[str, set[str]]] = []
    for (path, report), held in zip(shards, records, strict=True):
        ids = set(held) if type(held) is set else {item.nodeid for item in held}
        parts: Sequence[Sequence[Any]] = (report.repeated, report.tests, report.relations)
        ids.update(item.nodeid for part in parts for item in part)
        ids.discard(OUTSIDE_TEST)
        twice = [(min(ids & owned), owner) for owner, owned in seen if not ids.isdisjoint(owned)]
        if twice:
            nodeid, owner = min(twice)
            raise ReportDocumentError(
                f"test {nodeid!r} is in both {owner!r} and {path!r}: shards of one "
                "suite run different tests, so its counts would be added twice; merge the "
                "reports of one run's shards only (or compare two runs with semantix compare)"
            )
        seen.append((path, ids))


def _check_shards(numbers: Mapping[str, str | None]) -> None:
    """Every report is a shard ``i/N`` of the same N, each i once, none missing."""
    unnumbered = [path for path, value in numbers.items() if value is None]
    if unnumbered:
        raise ReportDocumentError(
            f"{', '.join(map(repr, unnumbered))} is not a shard (no meta.shard) but the other "
            "reports are: merge the reports of one sharded run (pytest --semantic-shard i/N)"
        )
    split = {path: tuple(int(n) for n in str(value).split("/")) for path, value in numbers.items()}
    counts = {count for _, count in split.values()}
    if len(counts) > 1:
        listed = ", ".join(f"{path!r}: {value!r}" for path, value in numbers.items())
        raise ReportDocumentError(
            f"these shards split the run differently ({listed}); merge the shards of one split"
        )
    owners: dict[int, str] = {}
    for path, (index, _) in split.items():
        if owners.setdefault(index, path) != path:
            raise ReportDocumentError(
                f"{owners[index]!r} and {path!r} are both shard {numbers[path]}: the same shard "
                "twice would add its counts twice; merge each shard's report once"
            )
    (count,) = counts
    missing = sorted(set(range(1, count + 1)) - set(owners))
    if missing:
        raise ReportDocumentError(
            f"shard{'s' if len(missing) > 1 else ''} {', '.join(f'{i}/{count}' for i in missing)} "
            f"of the run {'are' if len(missing) > 1 else 'is'} missing: a merge covers the whole "
            "run once; add the missing shard's report"
        )


def _meta(shards: Sequence[tuple[str, Report]]) -> Meta:
    metas = [report.meta for _, report in shards]
    costs = [meta.judge_cost for meta in metas if meta.judge_cost is not None]
    starts = [meta.started for meta in metas if meta.started]
    durations = [meta.duration_s for meta in metas if meta.duration_s is not None]
    return Meta(
        judge_cost=_judge_cost(costs) if costs else None,
        run_id=metas[0].run_id,
        shard=None,  # the whole run
        judges=tuple(sorted({judge for meta in metas for judge in meta.judges})),
        verdicts_mode=metas[0].verdicts_mode or "off",
        started=min(starts) if starts else None,
        duration_s=round(sum(durations), 3) if durations else None,
        shards=tuple(
            Shard(path=path, started=meta.started, duration_s=meta.duration_s)
            for (path, _), meta in zip(shards, metas, strict=True)
        ),
    )


def _judge_cost(costs: Sequence[JudgeCost]) -> JudgeCost:
    """The run's cost: the shards' added up; unknown in one shard, unknown for the run."""
    usd, known = [cost.usd for cost in costs], [cost.known_usd for cost in costs]
    return JudgeCost(
        verdicts=sum(cost.verdicts for cost in costs),
        prompt_tokens=sum(cost.prompt_tokens for cost in costs),
        completion_tokens=sum(cost.completion_tokens for cost in costs),
        usd=None if None in usd else sum(value for value in usd if value is not None),
        known_usd=None if all(k is None for k in known) else sum(k or 0 for k in known),
        unpriced=tuple(sorted({model for cost in costs for model in cost.unpriced})),
        unknown=sum(cost.unknown for cost in costs),
    )


def _snapshots(sections: Sequence[Snapshots]) -> Snapshots:
    counts: Counter[str] = Counter()
    for section in sections:
        counts.update({k: v for k, v in section.counts.items() if k != "unused"})
    unused: dict[str, SnapshotEntry] = {
        str(entry.path): entry for section in sections for entry in section.unused
    }
    return Snapshots(
        counts=dict(counts) | {"unused": len(unused)},
        snapshots=tuple(
            sorted(
                (entry for section in sections for entry in section.snapshots),
                key=lambda entry: str(entry.path),
            )
        ),
        unused=tuple(unused[path] for path in sorted(unused)),
        deleted=tuple(sorted({path for section in sections for path in section.deleted})),
    )
