"""The object behind the pytest ``semantic_snapshot`` fixture (no pytest import here): ``==``
follows dirty-equals (False on any error, kept in ``error``); calling the fixture raises it.
"""

from __future__ import annotations

from pathlib import Path

from semantix.judges._base import Judge
from semantix.snapshots._assertion import PYTEST_UPDATE, SnapshotResult, check_snapshot
from semantix.snapshots._compare import FactsMode
from semantix.snapshots._errors import (
    DuplicateSnapshotError,
    SnapshotDriftError,
    SnapshotMissingError,
)
from semantix.snapshots._files import module_directory, node_basename, snapshot_filename
from semantix.snapshots._session import SnapshotSession

__all__ = ["SemanticSnapshot"]


class SemanticSnapshot:
    """The semantic snapshots of one test: compare with ``==`` or call with an optional name."""

    __module__ = "semantix.snapshots"

    def __init__(
        self,
        *,
        nodeid: str,
        module: Path,
        session: SnapshotSession | None = None,
        update: bool = False,
        judge: Judge | str | None = None,
        threshold: float | None = None,
        timeout: float | None = None,
        facts: FactsMode = "fail",
    ) -> None:
        self.nodeid = nodeid
        self.directory = module_directory(module)
        self.session = session
        self.update = update
        self.judge = judge
        self.threshold = threshold
        self.timeout = timeout
        self.facts: FactsMode = facts
        #: What the last ``==`` met that made it False (None after a match); its name.
        self.error: Exception | None = None
        self.label = ""
        self._base = node_basename(nodeid)
        self._unnamed = 0
        self._names: dict[Path, str] = {}

    def __call__(
        self,
        output: object,
        name: str | None = None,
        *,
        judge: Judge | str | None = None,
        threshold: float | None = None,
        timeout: float | None = None,
        facts: FactsMode | None = None,
    ) -> SnapshotResult:
        """Assert that ``output`` means the same as this test's next (or named) snapshot."""
        __tracebackhide__ = True
        path, label = self._next(name)
        self.label = label
        try:
            result = check_snapshot(
                output,
                path,
                name=label,
                judge=judge if judge is not None else self.judge,
                threshold=threshold if threshold is not None else self.threshold,
                timeout=timeout if timeout is not None else self.timeout,
                update=self.update,
                facts=facts if facts is not None else self.facts,
                test=self.nodeid,
                how_to_update=PYTEST_UPDATE,
            )
        except SnapshotDriftError as exc:
            self._record(path, "drifted", texts=(exc.stored, exc.output))
            raise
        except SnapshotMissingError:
            self._record(path, "missing")
            raise
        except Exception:
            self._record(path, "error")
            raise
        self._record(path, result.status)
        return result

    def __eq__(self, other: object) -> bool:
        """Whether ``other`` means the same as the next snapshot: False on a drift (kept in
        ``error``); a comparison that cannot be made (no snapshot, a broken file, a judge
        error) raises, so that neither ``==`` nor ``!=`` passes on it."""
        self.error = None
        try:
            self(other)
        except SnapshotDriftError as exc:  # recorded and reported; explained under the assert
            self.error = exc
            return False
        except Exception as exc:
            self.error = exc
            raise
        return True

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        if self.error is not None:
            first = str(self.error).splitlines()[0] if str(self.error) else ""
            return f"<SemanticSnapshot {self.label}: {type(self.error).__name__}: {first}>"
        return f"<SemanticSnapshot {self._base} in {self.directory}>"

    def _next(self, name: str | None) -> tuple[Path, str]:
        if name is None:
            self._unnamed += 1
            filename = snapshot_filename(self._base, index=self._unnamed)
            label = self._base if self._unnamed == 1 else f"{self._base}.{self._unnamed}"
        else:
            filename = snapshot_filename(self._base, name=name)
            label = f"{self._base}.{name}"
        path = self.directory / filename
        if path in self._names:
            raise DuplicateSnapshotError(
                f"test {self.nodeid} asked for two semantic snapshots named {label!r} "
                f"(file {path}, first as {self._names[path]!r}); give each snapshot of a "
                "test its own name=..."
            )
        self._names[path] = label
        return path, label

    def _record(self, path: Path, outcome: str, *, texts: tuple[str, str] | None = None) -> None:
        if self.session is not None:
            self.session.record(self.nodeid, path, outcome, texts=texts)
