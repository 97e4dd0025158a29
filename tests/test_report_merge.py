"""``semantix report merge``: ``-k`` shards of one project merged equal the unsharded report."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import run
from compare_project import JUDGES, SIDES, SUITE
from semantix.report._merge import merge_reports
from semantix.report._schema import ReportDocumentError

#: Timing is the one thing two runs of the same tests never share.
TIMED = ("started", "duration_s", "shards")


def untimed(document: dict[str, Any]) -> dict[str, Any]:
    plain = json.loads(json.dumps(document))
    plain["meta"] = {key: value for key, value in plain["meta"].items() if key not in TIMED}
    for record in plain["assertions"]:
        record.pop("duration_ms")
    return plain


def test_k_shards_merge_into_the_unsharded_report(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytester.makepyfile(judges_mod=JUDGES, test_app=SUITE)
    for name, value in SIDES["cand"].items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(pytester.path), *sys.path]))
    monkeypatch.setenv("SEMANTIX_RUN_ID", "run-1")  # what CI sets on every shard's machine
    common = ["-p", "no:cacheprovider", "--semantic-judge", SIDES["cand"]["JUDGE"]]
    pytester.runpytest_subprocess(*common, "--semantic-report-json", "all.json")
    selection = "flaky or sorry or boom"
    pytester.runpytest_subprocess(*common, "-k", selection, "--semantic-report-json", "a.json")
    shard_b = ["-k", f"not ({selection})", "--semantic-report-json", "b.json", "-n", "2"]
    pytester.runpytest_subprocess(*common, *shard_b)

    root = pytester.path
    capsys.readouterr()  # what pytester echoed of the runs
    status, out, err = run(
        capsys,
        "report",
        "merge",
        str(root / "a.json"),
        str(root / "b.json"),
        "-o",
        str(root / "merged.json"),
    )
    assert (status, err) == (0, "")
    assert out == f"merged 2 reports into {root / 'merged.json'} (29 assertions)\n"
    merged = json.loads((root / "merged.json").read_text(encoding="utf-8"))
    unsharded = json.loads((root / "all.json").read_text(encoding="utf-8"))
    a = json.loads((root / "a.json").read_text(encoding="utf-8"))
    assert 0 < len(a["assertions"]) < len(unsharded["assertions"])  # the shards split the tests
    expected, got = untimed(unsharded), untimed(merged)
    assert got.keys() == expected.keys()
    for key in expected:  # field by field, so a failure names the section
        assert got[key] == expected[key], key
    assert [shard["path"] for shard in merged["meta"]["shards"]] == [
        str(root / "a.json"),
        str(root / "b.json"),
    ]
    # The existing renderer takes the merged report as it takes any other.
    status, out, _ = run(capsys, "report", str(root / "merged.json"), "-o", str(root / "all.html"))
    assert status == 0 and (root / "all.html").read_text(encoding="utf-8").startswith("<!DOCTYPE")


def test_merge_needs_shards_and_an_output(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    status, _, err = run(capsys, "report", "merge", "-o", str(tmp_path / "x.json"))
    assert status == 2 and "name the shards' JSON reports to merge" in err
    shard = tmp_path / "a.json"
    shard.write_text(json.dumps(shard_report("t.py::a")), encoding="utf-8")
    status, _, err = run(capsys, "report", "merge", str(shard))
    assert status == 2 and "name the merged report with -o" in err
    status, _, err = run(capsys, "report", "merge", str(shard), "-o", str(shard))
    assert status == 2 and "would overwrite a shard" in err
    status, _, err = run(capsys, "report", str(shard), str(shard))
    assert status == 2 and "renders one JSON report, got 2; to merge shards write" in err


def shard_report(*nodeids: str, **meta: Any) -> dict[str, Any]:
    return {
        "version": 2,
        "meta": {"judges": ["J"], "verdicts_mode": "off", **meta},
        "assertions": [
            {"nodeid": n, "outcome": "passed", "intent": "Polite", "judge": "J", "leaves": []}
            for n in nodeids
        ],
    }


@pytest.mark.parametrize(
    ("second", "message"),
    [
        (
            {**shard_report("t.py::b"), "version": 1},
            r"different report versions \('a.json': 2, 'b.json': 1\)",
        ),
        (
            shard_report("t.py::b", verdicts_mode="replay"),
            r"different verdict modes \('a.json': 'off', 'b.json': 'replay'\)",
        ),
        (shard_report("t.py::a"), r"test 't.py::a' is in both 'a.json' and 'b.json'"),
    ],
)
def test_reports_that_are_not_shards_of_one_run_are_refused(
    second: dict[str, Any], message: str
) -> None:
    with pytest.raises(ReportDocumentError, match=message):
        merge_reports([("a.json", shard_report("t.py::a")), ("b.json", second)])


def test_assertions_outside_any_test_may_be_in_every_shard() -> None:
    merged = merge_reports(
        [
            ("a.json", shard_report("(outside a test)", "t.py::a")),
            ("b.json", shard_report("(outside a test)")),
        ]
    )
    assert [record.nodeid for record in merged.assertions] == [
        "(outside a test)",
        "(outside a test)",
        "t.py::a",
    ]


def test_snapshot_counts_add_up_and_unused_files_join_once() -> None:
    def snapshots(passed: int, path: str, unused: list[str]) -> dict[str, Any]:
        return {
            "counts": {"passed": passed, "drifted": 0, "unused": len(unused)},
            "snapshots": [{"path": path, "outcome": "passed"}],
            "unused": [{"path": p, "test": "t.py::gone"} for p in unused],
            "deleted": [],
        }

    a = {**shard_report("t.py::a"), "snapshots": snapshots(2, "s/b.txt", ["s/old.txt"])}
    b = {**shard_report("t.py::b"), "snapshots": snapshots(1, "s/a.txt", ["s/old.txt"])}
    merged = merge_reports([("a.json", a), ("b.json", b)]).to_json()["snapshots"]
    assert merged["counts"] == {"passed": 3, "drifted": 0, "unused": 1}
    assert [entry["path"] for entry in merged["snapshots"]] == ["s/a.txt", "s/b.txt"]
    assert merged["unused"] == [{"path": "s/old.txt", "test": "t.py::gone"}]


def test_judge_cost_and_timing_combine() -> None:
    # Verdicts of unknown usage add up too (they were dropped from a merged report's meta).
    cost = {"verdicts": 2, "prompt_tokens": 100, "completion_tokens": 10, "usd": 0.25, "unknown": 1}
    a = shard_report("t.py::a", started="2026-01-02T10:00:05+00:00", duration_s=3.5,
                     judge_cost={**cost, "unpriced": ["m2"]})  # fmt: skip
    b = shard_report("t.py::b", started="2026-01-02T10:00:01+00:00", duration_s=1.25,
                     judge_cost={**cost, "unpriced": ["m1"]})  # fmt: skip
    meta = merge_reports([("a.json", a), ("b.json", b)]).to_json()["meta"]
    assert meta["judge_cost"] == {
        "verdicts": 4, "prompt_tokens": 200, "completion_tokens": 20, "usd": 0.5,
        "unpriced": ["m1", "m2"], "unknown": 2,
    }  # fmt: skip
    assert (meta["started"], meta["duration_s"]) == ("2026-01-02T10:00:01+00:00", 4.75)
    assert meta["shards"][0] == {
        "path": "a.json",
        "started": a["meta"]["started"],
        "duration_s": 3.5,
    }


def test_nothing_to_merge_is_an_error() -> None:
    with pytest.raises(ReportDocumentError, match="no reports to merge"):
        merge_reports([])
