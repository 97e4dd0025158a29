"""The semantic_snapshot fixture and --semantic-snapshot-update, end to end with pytester."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from semantix.snapshots._files import read_snapshot

# The three ways the plugin must work: no xdist flags, two xdist workers, xdist disabled.
PLUGIN_ARGS = [
    pytest.param([], id="plain"),
    pytest.param(["-n", "2"], id="xdist-2"),
    pytest.param(["-p", "no:xdist"], id="no-xdist"),
]

# A stand-in judge: a text entails another when it has all of the other's numbers and the word
# "refund" when the other has it (so a rewording passes, a changed number or a lost fact drifts).
STAND_IN = """
import re
from semantix import FakeJudge

def facts(text):
    found = set(re.findall(r"\\d+", text))
    if "refund" in text.lower():
        found.add("refund")
    return found

judge = FakeJudge(
    lambda output, stored: 1.0 if facts(stored) <= facts(output) else 0.0,
    name="StandInJudge",
    recommended_threshold=0.5,
)
"""

STORED = "You can get a refund within 30 days."
PARAPHRASE = "Within 30 days, a refund is yours."
DRIFTED = "You can get a refund within 14 days."


def suite(answer: str) -> str:
    return f"""
def test_refund_policy(semantic_snapshot):
    assert semantic_snapshot == {answer!r}
"""


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(stand_in=STAND_IN)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)  # our src too
    monkeypatch.delenv("CI", raising=False)
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess(
        "-p", "no:cacheprovider", "--semantic-judge", "stand_in:judge", *args
    )


def snapshots(project: pytest.Pytester, module: str = "test_bot") -> Path:
    return project.path / "__semantic_snapshots__" / module


def test_record_then_pass_on_a_paraphrase(project: pytest.Pytester) -> None:
    project.makepyfile(test_bot=suite(STORED))
    recorded = run(project, "--semantic-snapshot-update")
    recorded.assert_outcomes(passed=1)
    recorded.stdout.fnmatch_lines(["*semantic snapshots: 1 written*"])
    stored = read_snapshot(snapshots(project) / "test_refund_policy.txt")
    assert stored is not None
    assert stored.text == STORED
    assert stored.test == "test_bot.py::test_refund_policy"
    assert stored.judge == "StandInJudge"

    project.makepyfile(test_bot=suite(PARAPHRASE))
    later = run(project)
    later.assert_outcomes(passed=1)
    later.stdout.fnmatch_lines(["*semantic snapshots: 1 passed*"])
    assert read_snapshot(snapshots(project) / "test_refund_policy.txt").text == STORED  # type: ignore[union-attr]


def test_missing_snapshot_fails_with_the_output_and_the_command(project: pytest.Pytester) -> None:
    project.makepyfile(test_bot=suite(STORED))
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*no semantic snapshot 'test_refund_policy' yet*",
            f"*the output to review: {STORED!r}*",
            "*Record it with: pytest --semantic-snapshot-update*",
            "*semantic snapshots: 1 missing*",
        ]
    )
    assert not snapshots(project).exists()


def test_drift_fails_with_both_directions_and_the_diff(project: pytest.Pytester) -> None:
    project.makepyfile(test_bot=suite(STORED))
    run(project, "--semantic-snapshot-update").assert_outcomes(passed=1)
    project.makepyfile(test_bot=suite(DRIFTED))
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(
        [
            "*semantic snapshot 'test_refund_policy' drifted*",
            "*threshold 0.5*",
            "*same meaning, both ways: 0.000 < 0.5 FAIL*",
            "*the new output does not state: '30'*",
            "*the new output adds: '14'*",
            "*semantic snapshots: 1 drifted*",
        ]
    )
    assert "Full output truncated" in result.stdout.str()  # pytest shortens `assert ==`
    verbose = run(project, "-vv")  # the whole explanation: the word diff too
    assert "You can get a refund within [-30-] {+14+} days." in verbose.stdout.str()
    # the update flag accepts the new output
    updated = run(project, "--semantic-snapshot-update")
    updated.assert_outcomes(passed=1)
    updated.stdout.fnmatch_lines(["*semantic snapshots: 1 updated*"])
    assert read_snapshot(snapshots(project) / "test_refund_policy.txt").text == DRIFTED  # type: ignore[union-attr]


def test_missing_snapshot_always_fails_in_ci(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    project.makepyfile(test_bot=suite(STORED))
    result = run(project, "--semantic-snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*CI is set*even with the update flag*"])
    assert not snapshots(project).exists()


UNUSED_SUITE = """
def test_kept(semantic_snapshot):
    assert semantic_snapshot == "You can get a refund within 30 days."

def test_removed_later(semantic_snapshot):
    assert semantic_snapshot == "Shipping takes 3 days."
"""


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_unused_snapshots_are_reported_then_deleted_by_update(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_bot=UNUSED_SUITE)
    run(project, "--semantic-snapshot-update", *plugin_args).assert_outcomes(passed=2)
    project.makepyfile(test_bot=UNUSED_SUITE.split("def test_removed_later")[0])
    gone = snapshots(project) / "test_removed_later.txt"

    report = run(project, *plugin_args)
    report.assert_outcomes(passed=1)
    report.stdout.fnmatch_lines(
        [
            "*semantic snapshots: 1 passed, 1 unused",
            "*unused: __semantic_snapshots__/test_bot/test_removed_later.txt (of test_bot.py::*",
            "*Re-run pytest with --semantic-snapshot-update to delete unused snapshots.",
        ]
    )
    assert report.ret == 0
    assert gone.exists()

    # running only some tests of the module never calls the others' snapshots unused
    narrowed = run(project, "test_bot.py::test_kept", *plugin_args)
    narrowed.stdout.fnmatch_lines(["semantic snapshots: 1 passed"])
    assert "unused: " not in narrowed.stdout.str()

    deleted = run(
        project, "--semantic-snapshot-update", "--semantic-report-json", "r.json", *plugin_args
    )
    deleted.stdout.fnmatch_lines(["*1 unused (deleted)*", "*deleted: *test_removed_later.txt*"])
    document = json.loads((project.path / "r.json").read_text(encoding="utf-8"))
    # relative to the rootdir, so the report reads the same in every checkout
    assert document["snapshots"]["deleted"] == [gone.relative_to(project.path).as_posix()]
    assert not gone.exists()
    assert (snapshots(project) / "test_kept.txt").exists()


MANY = """
import pytest

@pytest.mark.parametrize("question", ["a/b", "c:d", "ünï", "A B"])
def test_answers(semantic_snapshot, question):
    assert semantic_snapshot == f"Answer {{len(question)}} to {{question}} in {module} days."

def test_two_snapshots(semantic_snapshot):
    semantic_snapshot("Refund within 30 days.")
    semantic_snapshot("Refund within 30 days for sale items.", name="sale items")
"""


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_parametrised_and_named_snapshots_across_workers(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(test_one=MANY.format(module=1), test_two=MANY.format(module=2))
    recorded = run(project, "--semantic-snapshot-update", *plugin_args)
    recorded.assert_outcomes(passed=10)
    recorded.stdout.fnmatch_lines(["*semantic snapshots: 12 written"])
    for module in ("test_one", "test_two"):
        files = sorted(path.name for path in snapshots(project, module).iterdir())
        assert len(files) == 6, files
        assert "test_two_snapshots.txt" in files
    again = run(project, *plugin_args)
    again.assert_outcomes(passed=10)
    again.stdout.fnmatch_lines(["*semantic snapshots: 12 passed"])


def test_two_snapshots_with_one_name_in_a_test_is_an_error(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_bot="""
def test_twice(semantic_snapshot):
    semantic_snapshot("Refund within 30 days.", name="policy")
    semantic_snapshot("Refund within 30 days.", name="policy")
"""
    )
    result = run(project, "--semantic-snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*DuplicateSnapshotError*two semantic snapshots named*policy*"])


def test_a_snapshot_file_edited_into_garbage_is_an_error_naming_it(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(test_bot=suite(STORED))
    run(project, "--semantic-snapshot-update").assert_outcomes(passed=1)
    path = snapshots(project) / "test_refund_policy.txt"
    path.write_text("I rewrote this by hand\n", encoding="utf-8")
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*SnapshotFileError*test_refund_policy.txt cannot be read*"])


def test_non_text_output_is_a_type_error(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_bot="""
def test_bytes(semantic_snapshot):
    assert semantic_snapshot == b"Refund within 30 days."
"""
    )
    result = run(project, "--semantic-snapshot-update")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*TypeError: output is bytes, not text*"])


def test_no_snapshots_no_report(project: pytest.Pytester) -> None:
    project.makepyfile(test_bot="def test_plain():\n    assert True is not False\n")
    result = run(project)
    result.assert_outcomes(passed=1)
    assert "semantic snapshots" not in result.stdout.str()


def test_the_marker_judge_and_threshold_apply_and_the_json_report_has_a_section(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        stand_in_other="""
from semantix import FakeJudge

half = FakeJudge(lambda output, stored: 0.6, name="HalfJudge")
""",
        test_bot=f"""
import pytest

@pytest.mark.semantic(judge="stand_in_other:half", threshold=0.7)
def test_strict(semantic_snapshot):
    assert semantic_snapshot == {PARAPHRASE!r}

@pytest.mark.semantic(judge="stand_in_other:half", threshold=0.5)
def test_lenient(semantic_snapshot):
    assert semantic_snapshot == {PARAPHRASE!r}
""",
    )
    for name in ("test_strict", "test_lenient"):
        path = snapshots(project) / f"{name}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(
            "# semantix semantic snapshot v1\n"
            f"# name: {name}\n# test: test_bot.py::{name}\n# judge: J\n# recorded: 2026-01-01\n"
            f"---\n{STORED}\n",
            encoding="utf-8",
        )
    result = run(project, "--semantic-report-json", "report.json", "--semantic-report")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.fnmatch_lines(["*judge:     HalfJudge, threshold 0.7*"])
    document = json.loads((project.path / "report.json").read_text(encoding="utf-8"))
    # the semantic report lists the snapshot checks with the other semantic assertions
    assert sorted(record["intent"] for record in document["assertions"]) == [
        "Snapshot[test_lenient]",
        "Snapshot[test_strict]",
    ]
    result.stdout.fnmatch_lines(["*2 semantic assertions: 1 passed, 1 failed, 0 errors*"])
    section = document["snapshots"]
    assert section["counts"]["passed"] == 1
    assert section["counts"]["drifted"] == 1
    assert sorted(Path(entry["path"]).name for entry in section["snapshots"]) == [
        "test_lenient.txt",
        "test_strict.txt",
    ]
