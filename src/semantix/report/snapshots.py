"""The semantic-snapshot section of the end-of-session report (terminal lines and JSON)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

from semantix.snapshots.session import OUTCOMES, SnapshotSession

__all__ = ["UPDATE_FLAG", "snapshot_lines", "snapshot_section"]

UPDATE_FLAG = "--semantic-snapshot-update"


def snapshot_lines(session: SnapshotSession, *, relative_to: Path | None = None) -> list[str]:
    """The summary: counts, drifted/missing/unused files; empty when no snapshot was involved."""
    counts = Counter(session.outcomes.values())
    unused = session.unused()
    if not counts and not unused:
        return []

    def shown(path: str) -> str:
        if relative_to is not None:
            try:
                return Path(path).relative_to(relative_to).as_posix()
            except ValueError:
                pass
        return path

    parts = [f"{counts[outcome]} {outcome}" for outcome in OUTCOMES if counts[outcome]]
    if unused:
        parts.append(f"{len(unused)} unused" + (" (deleted)" if session.deleted else ""))
    lines = ["semantic snapshots: " + ", ".join(parts)]
    for outcome in ("drifted", "missing"):
        lines += [
            f"  {outcome}: {shown(path)}"
            for path, result in sorted(session.outcomes.items())
            if result == outcome
        ]
    verb = "deleted" if session.deleted else "unused"
    lines += [f"  {verb}: {shown(path)} (of {owner})" for path, owner in unused]
    if unused and not session.deleted:
        lines.append(f"  Re-run pytest with {UPDATE_FLAG} to delete unused snapshots.")
    if counts["missing"] and not session.update:
        lines.append(f"  Record missing snapshots with pytest {UPDATE_FLAG}, then review them.")
    return lines


def snapshot_section(session: SnapshotSession) -> dict[str, Any]:
    """The ``snapshots`` section of the JSON report."""
    counts = Counter(session.outcomes.values())
    unused = session.unused()
    return {
        "counts": {outcome: counts[outcome] for outcome in OUTCOMES} | {"unused": len(unused)},
        "snapshots": [
            # A drifted entry also carries both texts (stored, output): the HTML page's word diff.
            {"path": path, "outcome": outcome, **session.texts.get(path, {})}
            for path, outcome in sorted(session.outcomes.items())
        ],
        "unused": [{"path": path, "test": owner} for path, owner in unused],
        "deleted": list(session.deleted),
    }
