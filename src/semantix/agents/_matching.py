"""Matching expected tool calls against the actual ones, one expected call to one actual call
(so duplicates count), in the two orders of `ToolCalls`; iterative and near-linear in the calls.

The calls are taken step by step (a step: the calls one assistant message made together).
``in_order`` walks the expected items and the steps together: each item takes a later step than
the one before (in order means *separate steps in that order*; calls made together are an
``AnyOrder`` group), the earliest step that holds it (``extra="forbid"``: the very next step,
holding exactly the item), which finds a match whenever one exists; with ``missing="allow"``
each step takes the earliest remaining item that holds it. ``any_order`` places each
``AnyOrder`` group in the first step that holds all its members (then, if that leaves something
unmatched, in the last), then matches the single expected calls to the remaining calls as a
maximum flow between *kinds* of expected call (equal rules) and *kinds* of actual call (equal
name and arguments), so a looping agent's 10,000 calls of a few tools cost a few rule decisions
each, not 10,000 x 10,000.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from semantix._text import preview
from semantix.agents._kinds import FitTable
from semantix.checks._tools import CalledToolCheck, fit, mismatch, selects
from semantix.outputs import ToolCall, ToolResult

Expected = type[CalledToolCheck]
Results = Mapping[int, ToolResult] | None
#: How many calls a reason lists before it says how many more there are.
_LISTED = 5


@dataclass(frozen=True, slots=True)
class Match:
    """``pairs``: expected slot (the expected calls numbered from 0, groups flattened) -> actual
    call index; ``problem``: the first mismatch (None: matched); ``slot`` and ``call``: where the
    first mismatch is, for the aligned table."""

    pairs: dict[int, int]
    problem: str | None = None
    slot: int | None = None
    call: int | None = None


@dataclass(frozen=True, slots=True)
class Rules:
    """How the calls must relate to the expected ones: other calls allowed (``extra``),
    expected calls that were not made allowed (``missing``), the results to check against."""

    extra: bool
    missing: bool
    results: Results = None


def step_spans(steps: Sequence[int]) -> list[range]:
    """The calls of each step, as ranges of call indexes (``steps[j]``: call j's step)."""
    spans, start = [], 0
    for j in range(1, len(steps) + 1):
        if j == len(steps) or steps[j] != steps[start]:
            spans.append(range(start, j))
            start = j
    return spans


# --- in order ------------------------------------------------------------------------------------


def in_order(
    items: Sequence[tuple[Expected, ...]],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    rules: Rules,
) -> Match:
    spans = step_spans(steps)
    if rules.missing:
        return _in_order_subset(items, calls, spans, rules)
    pairs: dict[int, int] = {}
    p = slot = 0
    for members in items:
        start = p
        found = None
        while p < len(spans):
            found = _take(members, calls, spans[p], rules)
            if found is not None or not rules.extra:
                break
            p += 1
        if found is None:
            at = spans[start].start if start < len(spans) else len(calls)
            why = _why_not(members, calls, steps, spans, start, pairs, rules)
            return Match(pairs, why, slot, at)
        pairs.update(zip(range(slot, slot + len(members)), found, strict=True))
        p, slot = p + 1, slot + len(members)
    if not rules.extra and p < len(spans):
        j = spans[p].start
        return Match(pairs, f"call {j + 1} is not expected: {calls[j]}", slot, j)
    return Match(pairs)


def _in_order_subset(
    items: Sequence[tuple[Expected, ...]],
    calls: Sequence[ToolCall],
    spans: Sequence[range],
    rules: Rules,
) -> Match:
    """``missing="allow"``: every step is an expected item, in order; items may be left out."""
    firsts = [0]
    for members in items:
        firsts.append(firsts[-1] + len(members))
    pairs: dict[int, int] = {}
    i = 0
    for span in spans:
        while i < len(items):
            found = _take(items[i], calls, span, rules)
            i += 1
            if found is not None:
                pairs.update(zip(range(firsts[i - 1], firsts[i]), found, strict=True))
                break
        else:
            j = span.start
            return Match(
                pairs,
                f"call {j + 1} is not expected: {calls[j]} (no expected call after the last one "
                "matched fits it; missing='allow' allows leaving expected calls out, not others)",
                None,
                j,
            )
    return Match(pairs)


def _take(
    members: tuple[Expected, ...], calls: Sequence[ToolCall], span: range, rules: Rules
) -> list[int] | None:
    """The calls of one step (``span``) that take ``members``, in the members' order; with
    ``rules.extra`` False the step must hold exactly them."""
    if not rules.extra and len(span) != len(members):
        return None
    if len(members) == 1:
        for j in span:
            if fit(members[0], calls[j], rules.results) is not None:
                return [j]
        return None
    candidates = [[j for j in span if fit(m, calls[j], rules.results) is not None] for m in members]
    owner = assign(candidates)
    if len(owner) < len(members):
        return None
    return [call for call, _ in sorted(owner.items(), key=lambda pair: pair[1])]


def _why_not(
    members: tuple[Expected, ...],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    spans: Sequence[range],
    p: int,
    pairs: dict[int, int],
    rules: Rules,
) -> str:
    wanted = describe(members)
    position = spans[p].start if p < len(spans) else len(calls)
    if len(members) > 1:
        made = listed(f"{calls[j]} (step {steps[j] + 1})" for j in range(position, len(calls)))
        return (
            f"{wanted} was not made in one step from call {position + 1} on; calls: "
            f"{made or 'none'}"
        )
    expected = members[0]
    if not rules.extra and p < len(spans):
        span = spans[p]
        fitting = [j for j in span if fit(expected, calls[j], rules.results) is not None]
        if fitting and len(span) > 1:
            together = ", ".join(str(j + 1) for j in span)
            return (
                f"calls {together} were made together in one step (step {steps[span.start] + 1}): "
                f"{listed(str(calls[j]) for j in span)}; order='in_order' means separate steps "
                "in this order: expect calls made together as AnyOrder(...)"
            )
        return f"call {span.start + 1}{explained(expected, calls[span.start], wanted, rules)}"
    same = [j for j in range(len(calls)) if selects(expected, calls[j])]
    later = [
        f"call {j + 1}{explained(expected, calls[j], wanted, rules)}" for j in same if j >= position
    ]
    if later:
        return f"{wanted} was not called after call {position}; " + listed(later, "; ")
    before = [
        j for j in same if j < position and fit(expected, calls[j], rules.results) is not None
    ]
    if before:
        j = before[-1]
        previous = [call for call in pairs.values() if steps[call] == steps[j]]
        if previous and j not in pairs.values():
            return (
                f"{wanted} was made in the same step as the expected call before it (calls "
                f"{previous[-1] + 1} and {j + 1}, step {steps[j] + 1}), not after it: "
                "order='in_order' means separate steps in this order; expect calls made "
                "together as AnyOrder(...)"
            )
    if same and same[0] < position:
        return (
            f"{wanted} was not called after call {position}; it was called before, as call "
            f"{same[0] + 1} (order='in_order')"
        )
    return f"{wanted} was not called" + (f" (no call after call {position})" if position else "")


# --- any order -----------------------------------------------------------------------------------


def any_order(
    items: Sequence[tuple[Expected, ...]],
    calls: Sequence[ToolCall],
    steps: Sequence[int],
    rules: Rules,
) -> Match:
    """Each ``AnyOrder`` group takes the first step that holds it, then the single calls are
    matched; when that leaves something unmatched, the groups are tried again from the last
    step back (a group that took calls a single call needed)."""
    table = FitTable([member for members in items for member in members], calls, rules.results)
    match = _any_order(items, table, step_spans(steps), rules, backwards=False)
    if match.problem is not None and any(len(members) > 1 for members in items):
        again = _any_order(items, table, step_spans(steps), rules, backwards=True)
        if again.problem is None:
            return again
    return match


def _any_order(
    items: Sequence[tuple[Expected, ...]],
    table: FitTable,
    spans: Sequence[range],
    rules: Rules,
    backwards: bool,
) -> Match:
    slots, calls = table.slots, table.calls
    group_of: list[int | None] = []
    for index, members in enumerate(items):
        group_of.extend([index if len(members) > 1 else None] * len(members))
    pairs: dict[int, int] = {}
    taken: set[int] = set()
    order = list(reversed(spans)) if backwards else list(spans)
    cursor: dict[tuple[object, ...], int] = {}  # per kind of group: the first step worth trying
    first = 0
    for members in items:
        slot_range = range(first, first + len(members))
        first += len(members)
        if len(members) == 1:
            continue
        signature = tuple(table.kind_of_slot[s] for s in slot_range)
        p = cursor.get(signature, 0)
        while p < len(order):
            free = [j for j in order[p] if j not in taken]
            owner = assign([[j for j in free if table.fits(s, j)] for s in slot_range])
            if len(owner) == len(members):
                for call, index in owner.items():
                    pairs[slot_range[index]] = call
                taken.update(owner)
                break
            p += 1
        cursor[signature] = p
    singles = [s for s in range(len(slots)) if group_of[s] is None]
    pairs.update(table.flow(singles, [j for j in range(len(calls)) if j not in taken]))
    missing = [s for s in range(len(slots)) if s not in pairs]
    if missing and not rules.missing:
        s = min(missing)
        why = _why_missing(slots[s], group_of[s], calls, table.fitting(s), rules)
        return Match(pairs, why, s)
    used = set(pairs.values())
    extra = [j for j in range(len(calls)) if j not in used]
    if extra and not rules.extra:
        return Match(
            pairs, f"call {extra[0] + 1} is not expected: {calls[extra[0]]}", None, extra[0]
        )
    return Match(pairs)


def _why_missing(
    expected: Expected,
    group: int | None,
    calls: Sequence[ToolCall],
    fitting: list[int],
    rules: Rules,
) -> str:
    wanted = expected.expected()
    if fitting and group is not None:
        return f"{wanted} was not made in one step with the rest of its AnyOrder group"
    if fitting:
        numbers = listed(str(j + 1) for j in fitting)
        return (
            f"{wanted} was not called often enough: its calls ({numbers}) are taken by other "
            "expected calls (each expected call takes one call)"
        )
    same = [
        f"call {j + 1}{explained(expected, call, wanted, rules)}"
        for j, call in enumerate(calls)
        if selects(expected, call)
    ]
    return f"{wanted} was not called" + ("; " + listed(same, "; ") if same else "")


# --- shared --------------------------------------------------------------------------------------


def assign(candidates: Sequence[Sequence[int]]) -> dict[int, int]:
    """A maximum matching of slots to calls (``candidates[slot]``): call index -> slot
    (augmenting paths, with a stack of our own: no recursion)."""
    owner: dict[int, int] = {}
    for root in range(len(candidates)):
        seen: set[int] = set()
        came: dict[int, tuple[int, int | None]] = {}  # call -> (slot that reached it, its call)
        stack: list[tuple[int, int | None]] = [(root, None)]
        end = None
        while stack and end is None:
            slot, via = stack.pop()
            for call in candidates[slot]:
                if call in seen:
                    continue
                seen.add(call)
                came[call] = (slot, via)
                if call not in owner:
                    end = call
                    break
                stack.append((owner[call], call))
        while end is not None:
            slot, via = came[end]
            owner[end] = slot
            end = via
    return owner


def explained(expected: Expected, call: ToolCall, wanted: str, rules: Rules) -> str:
    """``: expected X, got Y`` for another tool, `` Y: why`` for other arguments."""
    shown = preview(str(call), 60, quote=False)
    if not selects(expected, call):
        return f": expected {wanted}, got {shown}"
    problem = mismatch(expected, call, rules.results)
    return f" {shown}" if problem is None else f" {shown}: {problem}"


def listed(parts: Iterable[str], separator: str = ", ") -> str:
    """At most `_LISTED` of ``parts``, then how many more."""
    shown: list[str] = []
    more = 0
    for part in parts:
        if len(shown) < _LISTED:
            shown.append(part)
        else:
            more += 1
    return separator.join(shown) + (f"{separator}... {more} more" if more else "")


def describe(members: tuple[Expected, ...]) -> str:
    """An expected item in short: ``lookup_order(order_id='A17')``, ``AnyOrder(a, b)``."""
    if len(members) == 1:
        return members[0].expected()
    return f"AnyOrder({', '.join(member.expected() for member in members)})"
