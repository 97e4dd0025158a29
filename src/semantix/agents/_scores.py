"""``ToolCallScore``: partial credit for a trajectory, a score with a threshold (for evaluation,
where ``ToolCalls`` is all or nothing).

``metric="f1"`` (promptfoo's tool-call-f1, by the same one-to-one matching as ``ToolCalls``):
precision is the share of the calls made that an expected call took, recall the share of the
expected calls that took a call, F1 their harmonic mean. ``metric="order"`` (order-aware, as
pydantic-evals' ``TrajectoryMatch(order="in_order")``): the F1 of the longest common subsequence
of the expected calls and the calls made, over each (1.0: the same calls in the same order). Both are 1.0
when nothing is expected and nothing was made.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from semantix._config import is_number
from semantix._intent import Intent
from semantix._text import preview
from semantix.agents._kinds import FitTable
from semantix.agents._matching import Expected, Rules, any_order, describe, listed
from semantix.agents._trajectory import AnyOrder, expected_item
from semantix.checks._base import STRUCTURAL, Structural, build
from semantix.checks._tools import results_of
from semantix.judges._base import Verdict
from semantix.outputs import OutputView

__all__ = ["ToolCallScore", "common_run"]

METRICS = ("f1", "order")


class ToolCallScoreCheck(Structural, abstract=True):
    """Base of ``ToolCallScore``: the score of the calls against ``items``, at least
    ``floor``."""

    needs: ClassVar[str] = "tool calls"
    items: ClassVar[tuple[tuple[Expected, ...], ...]]
    metric: ClassVar[str]
    floor: ClassVar[float]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = view.tool_calls
        slots = [member for members in cls.items for member in members]
        results = results_of(view) if any(slot.result is not None for slot in slots) else None
        if cls.metric == "f1":
            steps = [index for index, step in enumerate(view.steps) for _ in step.tool_calls]
            steps = steps or [0] * len(calls)
            pairs = any_order(cls.items, calls, steps, Rules(True, True, results)).pairs
            matched = len(pairs)
            precision = matched / len(calls) if calls else float(not slots)
            recall = matched / len(slots) if slots else float(not calls)
            total = precision + recall
            score = 2 * precision * recall / total if total else 0.0
            taken = set(pairs.values())
            missing = [slots[s].expected() for s in range(len(slots)) if s not in pairs]
            extra = [str(calls[j]) for j in range(len(calls)) if j not in taken]
            reason = (
                f"F1 {score:.2f} (at least {cls.floor:.2f}): {matched} of the {len(calls)} calls "
                f"made were expected (precision {precision:.2f}), {matched} of the {len(slots)} "
                f"expected calls were made (recall {recall:.2f})"
            )
            if missing:
                reason += f"; not made: {listed(missing)}"
            if extra:
                reason += f"; not expected: {preview(listed(extra), 200, quote=False)}"
        else:
            table = FitTable(slots, calls, results)
            have = dict(enumerate(table.members))
            kinds = {d: table.kind_of_slot.index(d) for d in set(table.kind_of_slot)}
            edges = table.edges(kinds, have)
            masks_of_calls = [sum(1 << j for j in members) for members in table.members]
            masks = dict.fromkeys(kinds, 0)
            for d, fitting in edges.items():
                for c in fitting:
                    masks[d] |= masks_of_calls[c]
            common = common_run([masks[d] for d in table.kind_of_slot], len(calls))
            both = len(slots) + len(calls)  # F1 of LCS/made and LCS/expected: 2 LCS / both
            score = 2 * common / both if both else 1.0
            reason = (
                f"order score {score:.2f} (at least {cls.floor:.2f}): the longest run of expected "
                f"calls made in their order is {common}, of {len(calls)} made (precision "
                f"{common / len(calls) if calls else 0:.2f}) and {len(slots)} expected (recall "
                f"{common / len(slots) if slots else 0:.2f}), F1 of the two"
            )
        return Verdict(
            passed=score >= cls.floor,
            score=score,
            threshold=cls.floor,
            reason=reason,
            judge=STRUCTURAL,
        )


def common_run(masks: Sequence[int], length: int) -> int:
    """The longest common subsequence of the expected calls and ``length`` calls made, where
    ``masks[i]`` has bit j set when call j fits expected call i (bit-parallel, Hyyro 2004: one
    pass of big-integer operations per expected call)."""
    full = (1 << length) - 1
    row = full
    for mask in masks:
        taken = row & mask
        row = ((row + taken) | (row - taken)) & full
    return length - row.bit_count()


def ToolCallScore(
    *expected: type[Intent] | AnyOrder, metric: str = "f1", threshold: float = 1.0
) -> type[Intent]:
    """Partial credit: the tool calls scored against the expected ones (``metric``: ``"f1"`` or
    ``"order"``, see the module), passing at ``threshold`` or above. The verdict's score is the
    metric's value, shown in every report; for an assertion, ``ToolCalls`` says exactly what
    differs.

    Raises:
        TypeError: an item that is neither a ``CalledTool`` leaf nor an ``AnyOrder`` (and no
            ``AnyOrder`` with ``metric="order"``, which compares sequences).
        ValueError: an unknown metric, a threshold outside [0, 1].
    """
    if metric not in METRICS:
        raise ValueError(
            f"ToolCallScore(metric={metric!r}) must be one of {', '.join(map(repr, METRICS))}"
        )
    if isinstance(threshold, bool) or not is_number(threshold, low=0) or threshold > 1:
        raise ValueError(
            f"ToolCallScore(threshold={threshold!r}) must be a number from 0 to 1, e.g. "
            "threshold=0.8"
        )
    items = tuple(
        item.calls if isinstance(item, AnyOrder) else (expected_item(item, "ToolCallScore"),)
        for item in expected
    )
    if metric == "order" and any(len(members) > 1 for members in items):
        raise TypeError(
            "ToolCallScore(metric='order') compares sequences of calls, so an AnyOrder group has "
            "no place in it; list its calls, or use metric='f1'"
        )
    listed_items = [describe(members) for members in items]
    options = [f"metric={metric!r}"] if metric != "f1" else []
    options += [f"threshold={threshold!r}"] if threshold != 1.0 else []
    return build(
        ToolCallScoreCheck,
        f"ToolCallScore({', '.join(listed_items + options)})",
        f"The tool calls score at least {threshold:g} ({metric}) against: "
        f"{', '.join(listed_items) or 'none'}.",
        items=items,
        metric=metric,
        floor=float(threshold),
    )


ToolCallScoreCheck.__module__ = "semantix.agents"
