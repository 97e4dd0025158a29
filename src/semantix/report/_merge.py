"""Shards of one suite merged into the report an unsharded run would have written.

```python
from semantix.report._merge import merge_reports

def shard(nodeid, outcome):
    return {"version": 2, "meta": {"judges": ["J"], "verdicts_mode": "off"}, "assertions": [
        {"nodeid": nodeid, "outcome": outcome, "intent": "Polite", "judge": "J", "leaves": []}]}

merged = merge_reports([("a.json", shard("t.py::a", "passed")), ("b.json", shard("t.py::b", "failed"))])
print(merged["summary"]["total"], merged["summary"]["failed"], merged["meta"]["judges"])
#> 2 1 ['J']
```

`assemble` builds a JSON report from its parts and is the one function both writers use: the
pytest session (xdist workers' payloads merged in) and `merge_reports` (every shard's parts).
Every derived figure (the summary, "decided by", the stability score, the relations' summary) is
computed there from the merged parts, so a merge equals the unsharded report by construction;
what only a shard knows (snapshot counts, the judges' cost, timing) is combined as
[Comparing runs](comparing-runs.md#shards-semantix-report-merge) says. A merge is one run's
shards, each once: the same file twice, the same shard twice, shards of two runs (``meta.run_id``),
a missing shard of ``i/N``, shards of different report versions or verdict modes, or a test (its
assertions, a repeated test, a relation) in two shards are each a `ReportDocumentError` naming
the files.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from semantix.relations._results import summarize as summarize_relations
from semantix.report._records import Record, json_document, sorted_records
from semantix.report._runs import runs_section
from semantix.report._schema import ReportDocumentError, check_document

__all__ = ["OUTSIDE_TEST", "assemble", "merge_reports"]

#: The test id of assertions made outside any test (they may be in every shard).
OUTSIDE_TEST = "(outside a test)"


def assemble(
    records: Sequence[Record],
    *,
    meta: Mapping[str, Any],
    tests: Sequence[Record] = (),
    runs: Sequence[Record] = (),
    once: Sequence[str] = (),
    relations: Sequence[Record] = (),
    snapshots: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The JSON report of these parts, sorted by test id (each test's own in the order it made
    them), with every summary computed from them."""
    sections: dict[str, Any] = {"tests": sorted(tests, key=lambda test: str(test["nodeid"]))}
    if snapshots is not None:
        sections["snapshots"] = dict(snapshots)
    if runs or once:
        sections["runs"] = runs_section(sorted_records(runs), sorted(set(once)))
    if relations:
        ordered = sorted_records(relations)
        sections["relations"] = {
            "results": ordered,
            "summary": [dataclasses.asdict(row) for row in summarize_relations(ordered)],
        }
    return json_document(sorted_records(records), meta=meta, sections=sections)


def merge_reports(shards: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    """One report from the ``(path, document)`` of every shard (each read by `load_report`, or
    upgraded and checked here)."""
    if not shards:
        raise ReportDocumentError("no reports to merge; pass the shards' JSON reports")
    _check_compatible(shards)
    shards = [(path, check_document(document)) for path, document in shards]
    _check_one_run(shards)
    documents = [document for _, document in shards]

    def gathered(name: str, key: str) -> list[Any]:
        return [item for document in documents for item in _section(document, name, key)]

    snapshots = [document["snapshots"] for document in documents if document.get("snapshots")]
    return assemble(
        [record for document in documents for record in document["assertions"]],
        meta=_meta(shards),
        tests=[test for document in documents for test in document.get("tests") or ()],
        runs=gathered("runs", "tests"),
        once=[str(nodeid) for nodeid in gathered("runs", "once")],
        relations=gathered("relations", "results"),
        snapshots=_snapshots(snapshots) if snapshots else None,
    )


def _section(document: Mapping[str, Any], name: str, key: str) -> list[Record]:
    return list((document.get(name) or {}).get(key) or ())


def _check_compatible(shards: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    paths: dict[str, int] = {}
    for path, _ in shards:
        paths[path] = paths.get(path, 0) + 1
    twice = sorted(path for path, count in paths.items() if count > 1)
    if twice:
        raise ReportDocumentError(
            f"{', '.join(map(repr, twice))} given more than once: its counts would be added twice; "
            "name each shard's report once (check overlapping globs)"
        )
    for key, what in (("version", "report version"), ("verdicts_mode", "verdict mode")):
        values = {
            path: document.get("upgraded_from", document.get(key))
            if key == "version"
            else meta.get(key, "off")
            for path, document in shards
            for meta in [document.get("meta") or {}]
        }
        if len(set(values.values())) > 1:
            listed = ", ".join(f"{path!r}: {value!r}" for path, value in values.items())
            raise ReportDocumentError(
                f"these reports have different {what}s ({listed}), so they are not shards of "
                "one run; write them again with the same semantix and options"
                + (" (semantix report renders each older one)" if key == "version" else "")
            )


def _check_one_run(shards: Sequence[tuple[str, Mapping[str, Any]]]) -> None:
    """One run (``meta.run_id``), each shard ``i/N`` once and none missing, each test in one
    shard (its assertions, its repeated runs, its relations, its pytest outcome)."""
    metas = {path: document.get("meta") or {} for path, document in shards}
    runs = {path: meta.get("run_id") for path, meta in metas.items()}
    if len(set(runs.values())) > 1:
        listed = ", ".join(f"{path!r}: {value!r}" for path, value in runs.items())
        raise ReportDocumentError(
            f"these reports are of different runs ({listed}); merge the shards of one run "
            "(set SEMANTIX_RUN_ID to the same value on every shard's machine, or compare two "
            "runs with semantix compare)"
        )
    numbers = {path: meta.get("shard") for path, meta in metas.items()}
    if any(value is not None for value in numbers.values()):
        _check_shards(numbers)
    owners: dict[str, str] = {}
    for path, document in shards:
        ids = {str(record.get("nodeid")) for record in document["assertions"]}
        ids |= {str(test.get("nodeid")) for test in _section(document, "runs", "tests")}
        ids |= {str(test.get("nodeid")) for test in document.get("tests") or ()}
        ids |= {str(result.get("nodeid")) for result in _section(document, "relations", "results")}
        for nodeid in sorted(ids - {OUTSIDE_TEST, "None"}):
            if owners.setdefault(nodeid, path) != path:
                raise ReportDocumentError(
                    f"test {nodeid!r} is in both {owners[nodeid]!r} and {path!r}: shards of one "
                    "suite run different tests, so its counts would be added twice; merge the "
                    "reports of one run's shards only (or compare two runs with semantix compare)"
                )


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


def _meta(shards: Sequence[tuple[str, Mapping[str, Any]]]) -> dict[str, Any]:
    metas = [dict(document.get("meta") or {}) for _, document in shards]
    meta: dict[str, Any] = {}
    costs = [entry["judge_cost"] for entry in metas if entry.get("judge_cost")]
    if costs:
        meta["judge_cost"] = {
            **{
                key: sum(cost.get(key) or 0 for cost in costs)
                for key in _COST_SUMS
                if any(key in cost for cost in costs)  # (older shards have no known_usd)
            },
            # unknown in one shard: unknown for the run
            "usd": None
            if any(cost.get("usd") is None for cost in costs)
            else sum(cost["usd"] for cost in costs),
            "unpriced": sorted({model for cost in costs for model in cost.get("unpriced", ())}),
        }
    starts = [entry["started"] for entry in metas if entry.get("started")]
    durations = [entry["duration_s"] for entry in metas if entry.get("duration_s") is not None]
    meta |= {
        "run_id": metas[0].get("run_id"),
        "shard": None,  # the whole run
        "judges": sorted({judge for entry in metas for judge in entry.get("judges") or ()}),
        "verdicts_mode": metas[0].get("verdicts_mode", "off"),
        "started": min(starts) if starts else None,
        "duration_s": round(sum(durations), 3) if durations else None,
        "shards": [
            {"path": path, "started": entry.get("started"), "duration_s": entry.get("duration_s")}
            for (path, _), entry in zip(shards, metas, strict=True)
        ],
    }
    return meta


_COST_SUMS = ("verdicts", "prompt_tokens", "completion_tokens", "known_usd", "unknown")


def _snapshots(sections: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    counts: Counter[str] = Counter()
    for section in sections:
        counts.update({k: v for k, v in (section.get("counts") or {}).items() if k != "unused"})
    unused = {entry["path"]: entry for s in sections for entry in s.get("unused") or ()}
    return {
        "counts": dict(counts) | {"unused": len(unused)},
        "snapshots": sorted(
            (entry for s in sections for entry in s.get("snapshots") or ()),
            key=lambda entry: str(entry.get("path")),
        ),
        "unused": [unused[path] for path in sorted(unused)],
        "deleted": sorted({path for s in sections for path in s.get("deleted") or ()}),
    }
