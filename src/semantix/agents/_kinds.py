"""Which expected calls fit which actual calls, decided once per *kind* of expected call (equal
rules) and *kind* of actual call (equal name, kind, server, arguments and result), and a maximum
matching between them as a flow between the kinds: a looping agent's 10,000 calls of a few tools
cost a few rule decisions each, not 10,000 x 10,000. An expected call that names an argument
with a plain JSON value is only tried against the calls holding that value (an index), so
calls with 10,000 distinct arguments stay near-linear too."""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping, Sequence
from itertools import pairwise

from semantix.checks._tools import CalledToolCheck, fit
from semantix.outputs import ToolCall, ToolResult

__all__ = ["FitTable"]

Expected = type[CalledToolCheck]
Results = Mapping[int, ToolResult] | None


class FitTable:
    """Which expected calls fit which actual calls, decided once per kind of expected call (its
    rule's ``key``) and kind of actual call (name, kind, server, arguments, result)."""

    def __init__(self, slots: Sequence[Expected], calls: Sequence[ToolCall], results: Results):
        self.slots, self.calls, self.results = slots, calls, results
        kinds: dict[object, int] = {}
        self.kind_of_slot = [kinds.setdefault(_rule(slot), len(kinds)) for slot in slots]
        rule_of: dict[int, Expected] = dict(zip(self.kind_of_slot, slots, strict=True))
        self.rules = [rule_of[kind] for kind in range(len(kinds))]  # none when nothing expected
        found: dict[object, int] = {}
        self.kind_of_call = [
            found.setdefault(_call_key(call, results), len(found)) for call in calls
        ]
        self.members: list[list[int]] = [[] for _ in found]
        for j, kind in enumerate(self.kind_of_call):
            self.members[kind].append(j)
        self._fits: dict[tuple[int, int], bool] = {}

    def fits(self, slot: int, call: int) -> bool:
        key = (self.kind_of_slot[slot], self.kind_of_call[call])
        known = self._fits.get(key)
        if known is None:
            rule = self.rules[key[0]]
            known = self._fits[key] = fit(rule, self.calls[call], self.results) is not None
        return known

    def fitting(self, slot: int) -> list[int]:
        return [j for j in range(len(self.calls)) if self.fits(slot, j)]

    def flow(self, singles: Sequence[int], free: Sequence[int]) -> dict[int, int]:
        """A maximum matching of the ``singles`` slots to the ``free`` calls: slot -> call."""
        need: dict[int, list[int]] = {}
        for s in singles:
            need.setdefault(self.kind_of_slot[s], []).append(s)
        have: dict[int, list[int]] = {}
        for j in free:
            have.setdefault(self.kind_of_call[j], []).append(j)
        edges = self.edges({d: slots[0] for d, slots in need.items()}, have)
        flows = _max_flow(
            {d: len(s) for d, s in need.items()}, {c: len(j) for c, j in have.items()}, edges
        )
        pairs: dict[int, int] = {}
        given = dict.fromkeys(need, 0)
        got = dict.fromkeys(have, 0)
        for (d, c), amount in sorted(flows.items()):
            for _ in range(amount):
                pairs[need[d][given[d]]] = have[c][got[c]]
                given[d] += 1
                got[c] += 1
        return pairs

    def edges(
        self, slots: Mapping[int, int], have: Mapping[int, list[int]]
    ) -> dict[int, list[int]]:
        """For each kind of expected call (``slots``: kind -> one slot of it), the kinds of
        call in ``have`` (kind -> its calls) that fit it."""
        by_name: dict[str | None, list[int]] = {}
        for c, members in have.items():
            by_name.setdefault(self.calls[members[0]].name, []).append(c)
        index: dict[tuple[str, str], dict[object, list[int]]] = {}
        edges: dict[int, list[int]] = {}
        for d, slot in slots.items():
            rule = self.rules[d]
            if rule.pattern is not None:
                pool = sorted(have)
            else:
                pool = by_name.get(rule.tool, [])
                probe = _probe(rule)
                if probe is not None and len(pool) > 8:  # only the calls with that value
                    values = index.get((rule.tool, probe[0]))
                    if values is None:
                        values = index[rule.tool, probe[0]] = self._values(pool, have, probe[0])
                    pool = values.get(probe[1], [])
            edges[d] = [c for c in pool if self.fits(slot, have[c][0])]
        return edges

    def _values(
        self, pool: list[int], have: Mapping[int, list[int]], key: str
    ) -> dict[object, list[int]]:
        """The kinds of call in ``pool`` by the value of their argument ``key``."""
        values: dict[object, list[int]] = {}
        for c in pool:
            arguments = self.calls[have[c][0]].arguments
            if arguments is not None and key in arguments:
                value = _canonical(arguments[key])
                if value is not None:
                    values.setdefault(value, []).append(c)
        return values


def _probe(rule: Expected) -> tuple[str, object] | None:
    """An argument ``rule`` names with a plain JSON scalar, and that value as `_canonical`
    writes it: a call fits ``rule`` only if its argument is that value."""
    if not isinstance(rule.args, Mapping):
        return None
    for key, value in rule.args.items():
        canonical = _canonical(value)
        if canonical is not None:
            return key, canonical
    return None


def _canonical(value: object) -> object:
    """A JSON scalar as a key that is equal exactly when the values are equal as JSON (``1``
    and ``1.0`` alike, ``True`` and ``1`` not); None for anything else."""
    kind = type(value)
    if kind is str:
        return ("s", value)
    if kind is bool:
        return ("b", value)
    if kind is int or kind is float:
        try:
            return ("f", float(value))  # type: ignore[arg-type]
        except OverflowError:  # an int past float's range: left out of the index
            return None
    if value is None:
        return ("n",)
    return None


def _max_flow(
    supply: dict[int, int], demand: dict[int, int], edges: dict[int, list[int]]
) -> dict[tuple[int, int], int]:
    """A maximum flow from the kinds of expected call (``supply``: how many) to the kinds of
    actual call (``demand``), along ``edges``: a greedy start, then shortest augmenting paths
    (breadth first, no recursion)."""
    flows: dict[tuple[int, int], int] = {}
    left = dict(supply)
    room = dict(demand)
    back: dict[int, list[int]] = {}
    for d, targets in edges.items():
        for c in targets:
            back.setdefault(c, []).append(d)
            moved = min(left[d], room[c])
            if moved:
                flows[d, c] = flows.get((d, c), 0) + moved
                left[d] -= moved
                room[c] -= moved
    while True:
        sources = [d for d, amount in left.items() if amount and edges.get(d)]
        if not sources or not any(room.values()):
            return flows
        came: dict[tuple[str, int], tuple[str, int] | None] = {("d", d): None for d in sources}
        queue = deque(("d", d) for d in sources)
        end = None
        while queue and end is None:
            side, node = queue.popleft()
            if side == "d":
                for c in edges.get(node, ()):
                    if ("c", c) not in came:
                        came["c", c] = (side, node)
                        if room[c]:
                            end = ("c", c)
                            break
                        queue.append(("c", c))
            else:
                for d in back.get(node, ()):
                    if ("d", d) not in came and flows.get((d, node), 0):
                        came["d", d] = (side, node)
                        queue.append(("d", d))
        if end is None:
            return flows
        path = []
        at: tuple[str, int] | None = end
        while at is not None:
            path.append(at)
            at = came[at]
        path.reverse()
        amount = min(left[path[0][1]], room[end[1]])
        for (_, a), (side, b) in pairwise(path):
            if side == "d":  # back along a flow from the expected kind b to the call kind a
                amount = min(amount, flows[b, a])
        for (_, a), (side, b) in pairwise(path):
            if side == "c":
                flows[a, b] = flows.get((a, b), 0) + amount
            else:
                flows[b, a] -= amount
        left[path[0][1]] -= amount
        room[end[1]] -= amount


def _rule(slot: Expected) -> object:
    return slot.key if slot.key is not None else slot


def _call_key(call: ToolCall, results: Results) -> object:
    """Calls with equal keys fit every rule alike."""
    if call.arguments is None:
        arguments: object = call.raw_arguments
    else:
        try:
            arguments = json.dumps(call.arguments, default=repr)
        except (TypeError, ValueError, RecursionError):
            return id(call)
    result = None
    if results is not None:
        found = results.get(id(call))
        result = None if found is None else found.content
    return (call.name, call.kind, call.server, call.arguments is None, arguments, result)
