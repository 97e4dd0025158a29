"""Matching expected tool calls against the actual ones, one expected call to one actual call
(so duplicates count), in the two orders of `ToolCalls`.

``in_order`` walks the expected items left to right: each takes the next actual call that fits
(``extra="forbid"``: the very next one), an ``AnyOrder`` group the next calls of one step that
fit its members in some order; the earliest fit is taken, which finds a match whenever one
exists. ``any_order`` is a bipartite matching (augmenting paths) of expected calls to actual
calls, each ``AnyOrder`` group tried in each step that could hold it.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from semantix.checks.tools import CalledToolCheck, fit, mismatch
from semantix.outputs import ToolCall
from semantix.text import preview

Expected = type[CalledToolCheck]


@dataclass(frozen=True, slots=True)
class Match:
    """``pairs``: expected slot (the expected calls numbered from 0, groups flattened) -> actual
    call index; ``problem``: the first mismatch (None: matched); ``slot`` and ``call``: where the
    first mismatch is, for the aligned table."""

    pairs: dict[int, int]
    problem: str | None = None
    slot: int | None = None
    call: int | None = None


def in_order(
    items: Sequence[tuple[Expected, ...]],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    allow: bool,
) -> Match:
    pairs: dict[int, int] = {}
    position = slot = 0
    for members in items:
        found = _place(members, calls, steps, position, allow)
        if found is None:
            return Match(pairs, _why_not(members, calls, steps, position, allow), slot, position)
        pairs.update(zip(range(slot, slot + len(members)), found, strict=True))
        position, slot = max(found) + 1, slot + len(members)
    if not allow and position < len(calls):
        return Match(
            pairs, f"call {position + 1} is not expected: {calls[position]}", slot, position
        )
    return Match(pairs)


def _place(
    members: tuple[Expected, ...],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    position: int,
    allow: bool,
) -> list[int] | None:
    """The calls that take ``members``, from ``position`` on, ending as early as possible."""
    first_end = position + len(members) - 1
    for end in range(first_end, len(calls) if allow else min(first_end + 1, len(calls))):
        if len(members) == 1:
            if fit(members[0], calls[end]) is not None:
                return [end]
            continue
        pool = [j for j in range(position, end + 1) if steps[j] == steps[end]]
        if not allow and len(pool) != len(members):
            return None
        owner = _assign([[j for j in pool if fit(m, calls[j]) is not None] for m in members])
        if len(owner) == len(members):
            return [call for call, _ in sorted(owner.items(), key=lambda pair: pair[1])]
    return None


def _why_not(
    members: tuple[Expected, ...],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    position: int,
    allow: bool,
) -> str:
    wanted = describe(members)
    if len(members) > 1:
        made = ", ".join(f"{calls[j]} (step {steps[j] + 1})" for j in range(position, len(calls)))
        return (
            f"{wanted} was not made in one step from call {position + 1} on; calls: "
            f"{made or 'none'}"
        )
    expected = members[0]
    if not allow and position < len(calls):
        return f"call {position + 1}{_explained(expected, calls[position], wanted)}"
    same = [j for j in range(len(calls)) if calls[j].name == expected.tool]
    later = [f"call {j + 1}{_explained(expected, calls[j], wanted)}" for j in same if j >= position]
    if later:
        return f"{wanted} was not called after call {position}; " + "; ".join(later)
    if same and same[0] < position:
        return (
            f"{wanted} was not called after call {position}; it was called before, as call "
            f"{same[0] + 1} (order='in_order')"
        )
    return f"{wanted} was not called" + (f" (no call after call {position})" if position else "")


def any_order(
    items: Sequence[tuple[Expected, ...]],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    allow: bool,
) -> Match:
    slots = [member for members in items for member in members]
    group_of: list[int | None] = []
    for index, members in enumerate(items):
        group_of.extend([index if len(members) > 1 else None] * len(members))
    fits = [
        [j for j, call in enumerate(calls) if fit(member, call) is not None] for member in slots
    ]
    groups = sorted({group for group in group_of if group is not None})
    choices: list[list[int | None]] = []
    for group in groups:  # the steps that could hold every member of the group
        together = [s for s, g in enumerate(group_of) if g == group]
        common = set.intersection(*({steps[j] for j in fits[s]} for s in together))
        options: list[int | None] = [*sorted(common)] if common else [None]
        choices.append(options)
    best: dict[int, int] = {}
    for choice in itertools.product(*choices):
        chosen = dict(zip(groups, choice, strict=True))
        candidates = [
            [j for j in fits[s] if (g := group_of[s]) is None or steps[j] == chosen[g]]
            for s in range(len(slots))
        ]
        owner = {slot: call for call, slot in _assign(candidates).items()}
        if len(owner) > len(best) or not best:
            best = owner
        if len(best) == len(slots):
            break
    missing = [s for s in range(len(slots)) if s not in best]
    if missing:
        s = missing[0]
        return Match(best, _why_missing(slots[s], group_of[s], calls, fits[s]), s)
    taken = set(best.values())
    extra = [j for j in range(len(calls)) if j not in taken]
    if extra and not allow:
        return Match(
            best, f"call {extra[0] + 1} is not expected: {calls[extra[0]]}", None, extra[0]
        )
    return Match(best)


def _why_missing(
    expected: Expected,
    group: int | None,
    calls: Sequence[ToolCall],
    fitting: list[int],
) -> str:
    wanted = expected.expected()
    if fitting and group is not None:
        return f"{wanted} was not made in one step with the rest of its AnyOrder group"
    if fitting:
        numbers = ", ".join(str(j + 1) for j in fitting)
        return (
            f"{wanted} was not called often enough: its calls ({numbers}) are taken by other "
            "expected calls (each expected call takes one call)"
        )
    same = [
        f"call {j + 1}{_explained(expected, call, wanted)}"
        for j, call in enumerate(calls)
        if call.name == expected.tool
    ]
    return f"{wanted} was not called" + ("; " + "; ".join(same) if same else "")


def _assign(candidates: list[list[int]]) -> dict[int, int]:
    """A maximum matching of slots to calls (``candidates[slot]``): call index -> slot."""
    owner: dict[int, int] = {}

    def augment(slot: int, seen: set[int]) -> bool:
        for call in candidates[slot]:
            if call not in seen:
                seen.add(call)
                if call not in owner or augment(owner[call], seen):
                    owner[call] = slot
                    return True
        return False

    for slot in range(len(candidates)):
        augment(slot, set())
    return owner


def _explained(expected: Expected, call: ToolCall, wanted: str) -> str:
    """``: expected X, got Y`` for another tool, `` Y: why`` for other arguments."""
    shown = preview(str(call), 60, quote=False)
    if call.name != expected.tool:
        return f": expected {wanted}, got {shown}"
    problem = mismatch(expected, call)
    return f" {shown}" if problem is None else f" {shown}: {problem}"


def describe(members: tuple[Expected, ...]) -> str:
    """An expected item in short: ``lookup_order(order_id='A17')``, ``AnyOrder(a, b)``."""
    if len(members) == 1:
        return members[0].expected()
    return f"AnyOrder({', '.join(member.expected() for member in members)})"
