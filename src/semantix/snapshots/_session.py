"""What semantic snapshots did in one test session: outcomes, unused files, the end report's data.

A snapshot file is **unused** when its owning test (the header's ``test`` line) ran and passed
without asking for it, or when that test is gone from a module collected whole (not narrowed by
a ``path::test`` argument); deselected, skipped or failed tests keep theirs, as in syrupy. Under
pytest-xdist each worker publishes `SnapshotSession.to_data` and the controller merges them.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from semantix.snapshots._errors import SnapshotFileError
from semantix.snapshots._files import SUFFIX, module_directory, read_snapshot

__all__ = ["OUTCOMES", "SnapshotSession", "narrowed_modules"]

#: Every outcome of one snapshot check, in report order.
OUTCOMES = ("written", "updated", "passed", "drifted", "missing", "error")


@dataclass
class SnapshotSession:
    """Snapshot bookkeeping of one test session (one process, or merged from xdist workers)."""

    update: bool = False
    #: snapshot file -> outcome of its (last) check, and a drifted one's stored and new texts
    outcomes: dict[str, str] = field(default_factory=dict)
    texts: dict[str, dict[str, str]] = field(default_factory=dict)
    #: test node id -> snapshot files it asked for, and "passed" or "failed" (not skipped ones)
    used: dict[str, set[str]] = field(default_factory=dict)
    tests: dict[str, str] = field(default_factory=dict)
    #: node ids of every collected test, deselected ones included
    collected: set[str] = field(default_factory=set)
    #: test module file -> whether it was collected whole
    modules: dict[str, bool] = field(default_factory=dict)
    #: snapshot files deleted as unused at the end of the session
    deleted: list[str] = field(default_factory=list)
    _unused: list[tuple[str, str]] | None = field(default=None, repr=False)

    def record(
        self, nodeid: str, path: Path, outcome: str, *, texts: tuple[str, str] | None = None
    ) -> None:
        """One snapshot check of test ``nodeid`` on ``path`` ended with ``outcome``."""
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown snapshot outcome {outcome!r}; expected one of {OUTCOMES}")
        key = str(path)
        self.outcomes[key] = outcome
        self.texts.pop(key, None)
        if texts is not None:  # (stored, new output) of a drifted check
            self.texts[key] = {"stored": texts[0], "output": texts[1]}
        self.used.setdefault(nodeid, set()).add(key)

    def test_finished(self, nodeid: str, *, passed: bool) -> None:
        """A phase of test ``nodeid`` ended; one failed phase marks the whole test failed."""
        if self.tests.get(nodeid) != "failed":
            self.tests[nodeid] = "passed" if passed else "failed"

    def collected_module(self, module: Path, *, whole: bool) -> None:
        """Test module ``module`` was collected (``whole``: all its tests, not some)."""
        key = str(module)
        self.modules[key] = self.modules.get(key, False) or whole

    def to_data(self) -> dict[str, Any]:
        """This session's bookkeeping as plain JSON-able data (what a worker publishes)."""
        return {
            "outcomes": dict(self.outcomes),
            "texts": dict(self.texts),
            "used": {nodeid: sorted(paths) for nodeid, paths in self.used.items()},
            "tests": dict(self.tests),
            "collected": sorted(self.collected),
            "modules": dict(self.modules),
        }

    def merge(self, data: dict[str, Any]) -> None:
        """Add a worker's `to_data` to this (the controller's) session."""
        self.outcomes.update(data.get("outcomes", {}))
        self.texts.update(data.get("texts", {}))
        for nodeid, paths in data.get("used", {}).items():
            self.used.setdefault(nodeid, set()).update(paths)
        for nodeid, outcome in data.get("tests", {}).items():
            self.test_finished(nodeid, passed=outcome == "passed")
        self.collected.update(data.get("collected", ()))
        for module, whole in data.get("modules", {}).items():
            self.collected_module(Path(module), whole=bool(whole))
        self._unused = None

    def unused(self) -> list[tuple[str, str]]:
        """(snapshot file, owning test) of every unused snapshot, sorted by file."""
        if self._unused is not None:
            return self._unused
        used = set().union(*self.used.values()) if self.used else set()
        found: list[tuple[str, str]] = []
        for module, whole in sorted(self.modules.items()):
            folder = module_directory(Path(module))
            if not folder.is_dir():
                continue
            for path in sorted(folder.glob(f"*{SUFFIX}")):
                if path.name.startswith(".") or str(path) in used:
                    continue
                try:
                    stored = read_snapshot(path)
                except SnapshotFileError:
                    continue  # reported by the test that owns it, not deleted behind its back
                if stored is None or stored.test is None:
                    continue  # written by assert_semantic_snapshot: no owning test to go by
                owner = stored.test
                gone = whole and owner not in self.collected and _same_module(owner, module)
                if self.tests.get(owner) == "passed" or gone:  # ran without it, or is gone
                    found.append((str(path), owner))
        self._unused = found
        return found

    def delete_unused(self) -> list[str]:
        """Delete the unused snapshot files (the update flag does this) and return them."""
        for path, _ in self.unused():
            Path(path).unlink(missing_ok=True)
            self.deleted.append(path)
        return list(self.deleted)


def _same_module(nodeid: str, module: str) -> bool:
    """Whether ``nodeid`` names a test in ``module`` (its file part ends with the module path)."""
    file_part = nodeid.partition("::")[0]
    return bool(file_part) and Path(module).as_posix().endswith(Path(file_part).as_posix())


def narrowed_modules(args: Iterable[str], base: Path) -> set[Path]:
    """Test modules that command-line ``args`` narrow to some of their tests (``file::test``):
    a test absent from them was just not asked for."""
    narrowed: set[Path] = set()
    for arg in args:
        file_part, separator, _ = str(arg).partition("::")
        if separator and file_part:
            narrowed.add((base / file_part).resolve())
    return narrowed
