"""The exceptions of semantic snapshots (docs/errors.md draws the tree)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from semantix.errors import SemanticAssertionError, SemantixError

if TYPE_CHECKING:
    from semantix.pipeline import SemanticResult
    from semantix.snapshots._compare import Equivalence

__all__ = [
    "DuplicateSnapshotError",
    "SnapshotDriftError",
    "SnapshotFileError",
    "SnapshotMissingError",
]


class SnapshotDriftError(SemanticAssertionError):
    """The new output does not mean the same as the stored snapshot (in one direction or both),
    with both texts, the file (``path``) and the judgement (``equivalence``)."""

    __module__ = "semantix"

    def __init__(
        self,
        message: str,
        result: SemanticResult,
        *,
        path: Path,
        stored: str,
        output: str,
        equivalence: Equivalence,
    ) -> None:
        super().__init__(message, result)
        self.path = path
        self.stored = stored
        self.output = output
        self.equivalence = equivalence


class SnapshotMissingError(SemantixError, AssertionError):
    """No snapshot is stored for this check yet; the message says how to record one."""

    __module__ = "semantix"

    def __init__(self, message: str, *, path: Path, output: str) -> None:
        super().__init__(message)
        self.path = path
        self.output = output


class SnapshotFileError(SemantixError, ValueError):
    """A snapshot file cannot be read (edited into something that is not a snapshot)."""

    __module__ = "semantix"

    def __init__(self, message: str, *, path: Path) -> None:
        super().__init__(message)
        self.path = path


class DuplicateSnapshotError(SemantixError, ValueError):
    """One test asked for two snapshots with the same name."""

    __module__ = "semantix"
