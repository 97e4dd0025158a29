"""The semantic-snapshot section of the end-of-session report (terminal lines and the report's
`semantix.report._model.Snapshots`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from semantix.report._model import SnapshotEntry, Snapshots
from semantix.snapshots._session import OUTCOMES, SnapshotSession

__all__ = ["UPDATE_FLAG", "snapshot_lines", "snapshot_section"]

UPDATE_FLAG = "--semantic-snapshot-update"


def _relative(path: str, root: Path | None) -> str:
    """``path`` relative to ``root`` (with ``/``), as it is when it lies elsewhere."""
    if root is not None:
        try:
            return Path(path).relative_to(root).as_posix()
        except ValueError:
            pass
    return path


def snapshot_lines(session: SnapshotSession, *, relative_to: Path | None = None) -> list[str]:
    """The summary: counts, drifted/missing/unused files; empty when no snapshot was involved."""
    counts = Counter(session.outcomes.values())
    unused = session.unused()
    if not counts and not unused:
        return []
    parts = [f"{counts[outcome]} {outcome}" for outcome in OUTCOMES if counts[outcome]]
    if unused:
        parts.append(f"{len(unused)} unused" + (" (deleted)" if session.deleted else ""))
    lines = ["semantic snapshots: " + ", ".join(parts)]
    for outcome in ("drifted", "missing"):
        lines += [
            f"  {outcome}: {_relative(path, relative_to)}"
            for path, result in sorted(session.outcomes.items())
            if result == outcome
        ]
    verb = "deleted" if session.deleted else "unused"
    lines += [f"  {verb}: {_relative(path, relative_to)} (of {owner})" for path, owner in unused]
    if unused and not session.deleted:
        lines.append(f"  Re-run pytest with {UPDATE_FLAG} to delete unused snapshots.")
    if counts["missing"] and not session.update:
        lines.append(f"  Record missing snapshots with pytest {UPDATE_FLAG}, then review them.")
    return lines


def snapshot_section(session: SnapshotSession, relative_to: Path | None = None) -> Snapshots:
    """The ``snapshots`` section of the report; paths relative to ``relative_to`` (the rootdir:
    the report reads the same in every checkout) when they lie under it."""
    counts = Counter(session.outcomes.values())
    unused = session.unused()
    return Snapshots(
        counts={outcome: counts[outcome] for outcome in OUTCOMES} | {"unused": len(unused)},
        snapshots=tuple(
            # A drifted entry also carries both texts (stored, output): the HTML page's word diff.
            SnapshotEntry(
                path=_relative(path, relative_to),
                outcome=outcome,
                stored=session.texts.get(path, {}).get("stored"),
                output=session.texts.get(path, {}).get("output"),
            )
            for path, outcome in sorted(session.outcomes.items())
        ),
        unused=tuple(
            SnapshotEntry(path=_relative(path, relative_to), test=owner) for path, owner in unused
        ),
        deleted=tuple(_relative(path, relative_to) for path in session.deleted),
    )
