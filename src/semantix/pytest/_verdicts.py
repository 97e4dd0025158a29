"""The frozen-verdict store's summary at the end of a pytest session: verdicts recorded, replayed
and judged live, and the stored ones this run did not use (``--semantic-verdicts-prune`` deletes
those, after a passing run only)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:  # the store's modules are imported when a run used a store, not at start-up
    from semantix._context import Run
    from semantix.verdicts import VerdictUsage

__all__ = ["VerdictSummary"]


class VerdictSummary:
    """Counts of the run's frozen verdicts, unused files, and pruning them on request."""

    def __init__(self, *, prune: bool) -> None:
        self.prune = prune
        self.usage: VerdictUsage | None = None  # None: no store was used
        self.stores: set[Path] = set()
        self.unused: list[Path] = []
        self.pruned: list[Path] = []

    def collect(self, run: Run) -> None:
        """Add what the run's recording judges — the run's own and the user's — did with their
        stores (they report it to the run: `semantix._context.note_verdicts`), once, at the end."""
        for path, used in run.verdicts.items():
            from semantix.verdicts import VerdictUsage

            self._add(VerdictUsage(used.recorded, used.replayed, used.judged, frozenset(used.used)))
            self.stores.add(Path(path))

    def _add(self, usage: VerdictUsage) -> None:
        self.usage = usage if self.usage is None else self.usage + usage

    def payload(self) -> dict[str, Any] | None:
        if self.usage is None:
            return None
        return {"usage": self.usage.to_dict(), "stores": sorted(map(str, self.stores))}

    def merge(self, data: dict[str, Any] | None) -> None:
        if data is None:
            return
        from semantix.verdicts import VerdictUsage

        self._add(VerdictUsage.from_dict(data["usage"]))
        self.stores.update(Path(path) for path in data["stores"])

    def finish(self, exitstatus: int) -> None:
        """List (or, with prune, delete) the unused verdicts, after a passing run only."""
        if exitstatus != pytest.ExitCode.OK or self.usage is None:
            return  # a failing or interrupted run cannot say what is unused: delete nothing
        from semantix.verdicts import VerdictStore

        for path in sorted(self.stores):
            store = VerdictStore(path)
            if self.prune:
                self.pruned.extend(store.prune(self.usage.used))
            else:
                self.unused.extend(store.unused(self.usage.used))

    def write_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        usage = self.usage
        if not self.stores or usage is None:
            return
        line = (
            f"frozen verdicts: {usage.recorded} recorded, {usage.replayed} replayed, "
            f"{usage.judged} judged live"
        )
        if self.pruned:
            line += f", {len(self.pruned)} unused deleted"
        elif self.unused:
            line += (
                f", {len(self.unused)} not used by this run (delete them with "
                "--semantic-verdicts-prune): "
                + ", ".join(path.name for path in self.unused[:5])
                + (" …" if len(self.unused) > 5 else "")
            )
        terminalreporter.write_line(line)
