"""The fixture object and the session bookkeeping, without pytest's plugin machinery."""

from __future__ import annotations

from pathlib import Path

import pytest

from semantix import FakeJudge
from semantix.report._model import to_json
from semantix.report._snapshots import snapshot_lines, snapshot_section
from semantix.snapshots import (
    DuplicateSnapshotError,
    SnapshotDriftError,
    SnapshotMissingError,
    write_snapshot,
)
from semantix.snapshots._files import read_snapshot
from semantix.snapshots._fixture import SemanticSnapshot
from semantix.snapshots._session import SnapshotSession, narrowed_modules

SAME = FakeJudge(lambda output, description: 1.0)
DIFFERENT = FakeJudge(lambda output, description: 0.0)
NODE = "test_bot.py::test_refund[en]"


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests record snapshots, which never happens where CI is set (tested on purpose)."""
    monkeypatch.delenv("CI", raising=False)


def snapshot(tmp_path: Path, session: SnapshotSession, **kwargs: object) -> SemanticSnapshot:
    return SemanticSnapshot(
        nodeid=NODE,
        module=tmp_path / "test_bot.py",
        session=session,
        **kwargs,  # type: ignore[arg-type]
    )


def folder(tmp_path: Path) -> Path:
    return tmp_path / "__semantic_snapshots__" / "test_bot"


def test_fixture_names_files_by_test_index_and_name(tmp_path: Path) -> None:
    session = SnapshotSession(update=True)
    snap = snapshot(tmp_path, session, update=True, judge=SAME)
    assert snap == "First."
    assert snap == "Second."
    snap("Named.", name="sale items")
    names = sorted(path.name for path in folder(tmp_path).iterdir())
    assert names == [
        "test_refund[en].2.txt",
        "test_refund[en].sale_items-" + names[1].rsplit("-", 1)[1],
        "test_refund[en].txt",
    ]
    first = read_snapshot(folder(tmp_path) / "test_refund[en].txt")
    assert first is not None
    assert (first.text, first.test, first.name) == ("First.", NODE, "test_refund[en]")
    assert set(session.outcomes.values()) == {"written"}
    assert len(session.used[NODE]) == 3


def test_fixture_eq_raises_on_a_missing_snapshot_and_keeps_the_whole_explanation(
    tmp_path: Path,
) -> None:
    """Issue 45, item 4b: nothing was compared, so neither == nor != may pass."""
    session = SnapshotSession()
    snap = snapshot(tmp_path, session, judge=SAME)
    with pytest.raises(SnapshotMissingError):
        _ = snap != "Never recorded."
    assert isinstance(snap.error, SnapshotMissingError)
    assert "pytest --semantic-snapshot-update" in str(snap.error)
    assert list(session.outcomes.values()) == ["missing"]
    assert "test_refund[en]: SnapshotMissingError" in repr(snap)


def test_fixture_drift_in_both_forms(tmp_path: Path) -> None:
    write_snapshot(
        folder(tmp_path) / "test_refund[en].txt",
        name="test_refund[en]",
        text="Refunds within 30 days.",
        judge="J",
        test=NODE,
    )
    session = SnapshotSession()
    snap = snapshot(tmp_path, session, judge=DIFFERENT)
    assert ("Something else entirely." == snap) is False  # reflected comparison works too
    assert isinstance(snap.error, SnapshotDriftError) and "drifted" in str(snap.error)
    again = snapshot(tmp_path, session, judge=DIFFERENT)
    with pytest.raises(SnapshotDriftError):
        again("Something else entirely.")
    assert list(session.outcomes.values()) == ["drifted"]
    assert snapshot(tmp_path, session, judge=SAME) == "Refunds in 30 days."


def test_two_snapshots_with_the_same_name_in_one_test_is_an_error(tmp_path: Path) -> None:
    snap = snapshot(tmp_path, SnapshotSession(update=True), update=True, judge=SAME)
    snap("One.", name="policy")
    with pytest.raises(DuplicateSnapshotError, match=r"two semantic snapshots named .*policy"):
        snap("Two.", name="policy")


def test_fixture_is_unhashable(tmp_path: Path) -> None:
    with pytest.raises(TypeError):
        hash(snapshot(tmp_path, SnapshotSession()))


def make(tmp_path: Path, test: str, filename: str) -> Path:
    path = folder(tmp_path) / filename
    write_snapshot(path, name=filename, text="x", judge="J", test=test)
    return path


def test_unused_snapshots_of_passed_tests_and_of_removed_tests(tmp_path: Path) -> None:
    module = tmp_path / "test_bot.py"
    used = make(tmp_path, "test_bot.py::test_a", "test_a.txt")
    leftover = make(tmp_path, "test_bot.py::test_a", "test_a.2.txt")
    removed = make(tmp_path, "test_bot.py::test_gone", "test_gone.txt")
    failed = make(tmp_path, "test_bot.py::test_failed", "test_failed.txt")
    deselected = make(tmp_path, "test_bot.py::test_deselected", "test_deselected.txt")
    plain = folder(tmp_path) / "plain.txt"
    write_snapshot(plain, name="plain", text="x", judge="J")  # no owning test
    (folder(tmp_path) / "broken.txt").write_text("garbage", encoding="utf-8")
    session = SnapshotSession()
    session.collected_module(module, whole=True)
    session.collected |= {
        "test_bot.py::test_a",
        "test_bot.py::test_failed",
        "test_bot.py::test_deselected",
    }
    session.record("test_bot.py::test_a", used, "passed")
    session.test_finished("test_bot.py::test_a", passed=True)
    session.test_finished("test_bot.py::test_failed", passed=True)
    session.test_finished("test_bot.py::test_failed", passed=False)
    assert session.unused() == [
        (str(leftover), "test_bot.py::test_a"),
        (str(removed), "test_bot.py::test_gone"),
    ]
    lines = snapshot_lines(session, relative_to=tmp_path)
    assert lines[0] == "semantic snapshots: 1 passed, 2 unused"
    assert (
        "  unused: __semantic_snapshots__/test_bot/test_a.2.txt (of test_bot.py::test_a)" in lines
    )
    assert (
        lines[-1] == "  Re-run pytest with --semantic-snapshot-update to delete unused snapshots."
    )
    assert session.delete_unused() == [str(leftover), str(removed)]
    assert not leftover.exists()
    assert not removed.exists()
    assert used.exists() and failed.exists() and deselected.exists() and plain.exists()
    assert snapshot_lines(session)[0] == "semantic snapshots: 1 passed, 2 unused (deleted)"


def test_a_module_narrowed_to_some_tests_keeps_the_others_snapshots(tmp_path: Path) -> None:
    other = make(tmp_path, "test_bot.py::test_other", "test_other.txt")
    session = SnapshotSession()
    session.collected_module(tmp_path / "test_bot.py", whole=False)
    session.collected.add("test_bot.py::test_a")
    assert session.unused() == []
    assert other.exists()


def test_worker_data_merges_at_the_controller(tmp_path: Path) -> None:
    module = tmp_path / "test_bot.py"
    a = make(tmp_path, "test_bot.py::test_a", "test_a.txt")
    b = make(tmp_path, "test_bot.py::test_b", "test_b.txt")
    stale = make(tmp_path, "test_bot.py::test_b", "test_b.2.txt")
    workers = [SnapshotSession(), SnapshotSession()]
    for worker in workers:
        worker.collected_module(module, whole=True)
        worker.collected |= {"test_bot.py::test_a", "test_bot.py::test_b"}
    workers[0].record("test_bot.py::test_a", a, "passed")
    workers[0].test_finished("test_bot.py::test_a", passed=True)
    workers[1].record("test_bot.py::test_b", b, "drifted")
    workers[1].test_finished("test_bot.py::test_b", passed=True)
    # the worker that did not run test_b cannot tell its stale snapshot: only the merge can
    assert workers[0].unused() == []
    controller = SnapshotSession()
    for worker in workers:
        controller.merge(worker.to_data())
    assert controller.unused() == [(str(stale), "test_bot.py::test_b")]
    assert snapshot_lines(controller)[0] == "semantic snapshots: 1 passed, 1 drifted, 1 unused"


def test_nothing_to_report_is_no_report() -> None:
    assert snapshot_lines(SnapshotSession()) == []


def test_unknown_outcome_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown snapshot outcome"):
        SnapshotSession().record(NODE, tmp_path / "x.txt", "great")


def test_narrowed_modules_are_the_files_of_node_id_arguments(tmp_path: Path) -> None:
    args = ["tests/test_a.py::test_one", "tests/test_b.py", "tests", "tests/test_c.py::C::t[1]"]
    assert narrowed_modules(args, tmp_path) == {
        (tmp_path / "tests/test_a.py").resolve(),
        (tmp_path / "tests/test_c.py").resolve(),
    }


def test_json_section_lists_outcomes_and_unused(tmp_path: Path) -> None:
    module = tmp_path / "test_bot.py"
    stale = make(tmp_path, "test_bot.py::test_gone", "test_gone.txt")
    session = SnapshotSession()
    session.collected_module(module, whole=True)
    session.record("test_bot.py::test_a", folder(tmp_path) / "test_a.txt", "written")
    section = to_json(snapshot_section(session))
    assert section["counts"]["written"] == 1
    assert section["counts"]["unused"] == 1
    assert section["unused"] == [{"path": str(stale), "test": "test_bot.py::test_gone"}]
    assert section["deleted"] == []


def test_json_section_paths_are_relative_to_the_rootdir(tmp_path: Path) -> None:
    """Absolute paths would differ in every checkout; the terminal already shows them relative."""
    module = tmp_path / "test_bot.py"
    stale = make(tmp_path, "test_bot.py::test_gone", "test_gone.txt")
    session = SnapshotSession()
    session.collected_module(module, whole=True)
    session.record("test_bot.py::test_a", folder(tmp_path) / "test_a.txt", "written")
    section = to_json(snapshot_section(session, tmp_path))
    [entry] = section["snapshots"]
    assert entry["path"] == "__semantic_snapshots__/test_bot/test_a.txt"
    assert section["unused"] == [
        {"path": stale.relative_to(tmp_path).as_posix(), "test": "test_bot.py::test_gone"}
    ]
    elsewhere = to_json(
        snapshot_section(session, tmp_path / "other")
    )  # not under the root: as it is
    assert elsewhere["snapshots"][0]["path"] == str(folder(tmp_path) / "test_a.txt")
