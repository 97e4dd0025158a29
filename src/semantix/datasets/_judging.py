"""A batch of rows judged through the one pipeline (`semantix.pipeline.check`): the code path of
every engine, so the embedded engine and Ray's workers give the same records for the same rows.

Rows are grouped by intent and each group is one `check` call over the rows' output views, so
the semantic leaves of a whole batch go to the judge in one batch; structural leaves never wait
for a model. A row that cannot be judged — unreadable, no output, an output semantix cannot
read, an intent spec that does not load — is that row's error record, never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from semantix._intent import Intent, as_intent
from semantix._text import preview
from semantix.datasets._records import Record, RowError, known_secrets, row_error, row_record
from semantix.datasets._rows import Row
from semantix.outputs import OutputView, output_view
from semantix.pipeline import check
from semantix.pipeline._intent_specs import intent_from_spec
from semantix.pipeline._options import Options

__all__ = ["Judging"]

#: Records of one row, in the order of its intents.
Records = list[Record]


@dataclass
class Judging:
    """How every batch of a run is judged: the ``specs`` given for every row, the check's
    ``options``, and the intents each spec (and its negation, for rows labelled false) names,
    loaded once."""

    specs: tuple[str, ...]
    options: Options
    _intents: dict[tuple[str, bool], type[Intent] | Exception] = field(default_factory=dict)

    def intent(self, spec: str, negated: bool) -> type[Intent] | Exception:
        key = (spec, negated)
        found = self._intents.get(key)
        if found is None:
            try:
                intent = as_intent(intent_from_spec(spec))
                found = ~intent if negated else intent
            except Exception as exc:  # noqa: BLE001 - this spec's rows' error, named there
                found = exc
            if len(self._intents) > 4096:  # rows naming their own intents: bounded
                self._intents.clear()
            self._intents[key] = found
        return found

    def __getstate__(self) -> dict[str, Any]:
        """What a Ray worker gets: the specs and options; it loads the intents itself (intent
        classes built from specs are not importable by name)."""
        return {"specs": self.specs, "options": self.options}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.specs, self.options, self._intents = state["specs"], state["options"], {}

    def label(self, spec: str, negated: bool = False) -> str:
        """The intent name a spec's records carry (what `semantix compare` pairs by)."""
        intent = self.intent(spec, negated)
        return spec if isinstance(intent, Exception) else intent.__name__

    def judge(self, rows: Sequence[Row]) -> list[Records]:
        """The records of each row (one per row and intent), in row order."""
        # Each row's records, in its intents' order: its slots filled as each group is checked.
        out: list[list[Record | None]] = [[] for _ in rows]
        groups: dict[type[Intent], list[tuple[int, int, OutputView]]] = {}
        for position, row in enumerate(rows):
            specs = (*self.specs, *row.intents) if row.intents else self.specs
            if row.error is not None:
                error = RowError(row.error)
                out[position] = [
                    row_error(row.id, row.where, error, intent=label, output=None)
                    for label in [self.label(spec) for spec in specs] or ["?"]
                ]
                continue
            if not specs:
                error = RowError(f"{row.where}: no intent; pass --intent or give the row one")
                out[position] = [row_error(row.id, row.where, error, intent="?", output=None)]
                continue
            negated = row.expected is False
            try:
                view = output_view(row.output)
            except (TypeError, ValueError) as exc:
                error = RowError(f"{row.where}: {exc}")
                shown = preview(repr(row.output), 200, quote=False)
                out[position] = [
                    row_error(
                        row.id, row.where, error, intent=self.label(spec, negated), output=shown
                    )
                    for spec in specs
                ]
                continue
            slots = out[position] = [None] * len(specs)
            for slot, spec in enumerate(specs):
                intent = self.intent(spec, negated)
                if isinstance(intent, Exception):
                    slots[slot] = row_error(
                        row.id, row.where, intent, intent=spec, output=view.text
                    )
                else:
                    groups.setdefault(intent, []).append((position, slot, view))
        secrets = known_secrets()  # read once a batch, not once a record
        for intent, members in groups.items():
            self._check(rows, intent, members, out, secrets)
        return out  # type: ignore[return-value]  # every slot filled by now

    def _check(
        self,
        rows: Sequence[Row],
        intent: type[Intent],
        members: list[tuple[int, int, OutputView]],
        slots: list[list[Record | None]],
        secrets: tuple[str, ...],
    ) -> None:
        views = [view for _, _, view in members]
        try:
            outcomes: list[Any] = check(views, intent, self.options)
        except Exception as exc:  # noqa: BLE001 - the judge's error: every row of the group's
            outcomes = [exc] * len(views)
        for (position, slot, view), outcome in zip(members, outcomes, strict=True):
            row = rows[position]
            if isinstance(outcome, BaseException):
                slots[position][slot] = row_error(
                    row.id, row.where, outcome, intent=intent.__name__, output=view.text
                )
            else:
                slots[position][slot] = row_record(
                    outcome, row.id, row.where, row.expected, secrets
                )
