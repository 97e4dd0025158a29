"""``ToolCalls``: the tool calls of a run against the expected ones, and ``AnyOrder`` groups."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from itertools import zip_longest
from typing import Any, ClassVar

from semantix._intent import Intent
from semantix._text import preview
from semantix.agents._matching import Expected, Match, Rules, any_order, describe, in_order
from semantix.agents._results import ToolOutcomeCheck
from semantix.checks._base import Structural, build, verdict
from semantix.checks._tools import CalledToolCheck, fit, results_of
from semantix.judges._base import Verdict
from semantix.outputs import OutputView, ToolCall

__all__ = ["AnyOrder", "ToolCalls"]

ORDERS = ("in_order", "any_order")
EXTRAS = ("forbid", "allow")
#: agentevals' trajectory match modes, as (order, extra, missing).
MODES = {
    "strict": ("in_order", "forbid", "forbid"),
    "unordered": ("any_order", "forbid", "forbid"),
    "subset": ("any_order", "forbid", "allow"),
    "superset": ("any_order", "allow", "forbid"),
}
#: Widths of the aligned table's columns, so a failure reads at 100 columns.
_EXPECTED_WIDTH, _ACTUAL_WIDTH = 32, 40
#: Rows of the table shown before and after the first mismatch.
_AROUND = 5


class AnyOrder:
    """Calls made together in one step (parallel calls), in any order among themselves: an item
    of `ToolCalls` only. ``AnyOrder(CalledTool("a"), CalledTool("b"))``."""

    __slots__ = ("calls",)

    def __init__(self, *calls: type[Intent]) -> None:
        if not calls:
            raise ValueError(
                "AnyOrder() needs the calls made together, e.g. "
                "AnyOrder(CalledTool('a'), CalledTool('b'))"
            )
        self.calls = tuple(expected_item(call, "AnyOrder") for call in calls)

    def __repr__(self) -> str:
        return f"AnyOrder({', '.join(call.__name__ for call in self.calls)})"

    def _outside(self, *_: object) -> Any:
        raise TypeError(
            f"{self!r} is a group of calls made together inside ToolCalls(...), not an intent of "
            f"its own: write ToolCalls(..., {self!r}, ...)"
        )

    __and__ = __rand__ = __or__ = __ror__ = __invert__ = _outside


class ToolCallsCheck(Structural, abstract=True):
    """Base of ``ToolCalls``: ``items`` are the expected calls, a group per `AnyOrder`."""

    needs: ClassVar[str] = "tool calls"
    items: ClassVar[tuple[tuple[Expected, ...], ...]]
    #: The expected calls, groups flattened; ``made``: how a pass's reason starts; ``fast``:
    #: in order, exactly, no group: call k may be tried against expected call k.
    slots: ClassVar[tuple[Expected, ...]]
    made: ClassVar[str]
    fast: ClassVar[bool]
    order: ClassVar[str]
    extra: ClassVar[str]
    missing: ClassVar[str]
    #: Some expected call checks the call's result.
    results: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls, slots = view.tool_calls, cls.slots
        results = results_of(view) if cls.results else None
        if cls.fast and len(calls) == len(slots):  # call k is expected call k, each in its step
            named = (
                list(map(fit, slots, calls))
                if results is None
                else [fit(slot, call, results) for slot, call in zip(slots, calls, strict=True)]
            )
            if None not in named and _one_call_a_step(view):
                return verdict(True, _summary(cls, zip(calls, named, strict=True)))
        steps = [index for index, step in enumerate(view.steps) for _ in step.tool_calls]
        steps = steps or [0] * len(calls)  # a single response: one step
        rules = Rules(cls.extra == "allow", cls.missing == "allow", results)
        match = (in_order if cls.order == "in_order" else any_order)(cls.items, calls, steps, rules)
        if match.problem is not None:
            return verdict(False, f"{match.problem}\n{_table(cls, calls, match)}")
        taken = set(match.pairs.values())
        extras = [call for j, call in enumerate(calls) if j not in taken]
        matched = [
            (calls[j], fit(slots[s], calls[j], results)) for s, j in sorted(match.pairs.items())
        ]
        left_out = [slots[s] for s in range(len(slots)) if s not in match.pairs]
        return verdict(True, _summary(cls, matched, extras, left_out))


def ToolCalls(
    *expected: type[Intent] | AnyOrder,
    order: str | None = None,
    extra: str | None = None,
    missing: str | None = None,
    mode: str | None = None,
) -> type[Intent]:
    """The check "the run made these tool calls", matched one expected call to one actual call.

    Args:
        expected: `semantix.checks.CalledTool` leaves (their ``args=`` / ``exact=`` rules) and
            `AnyOrder` groups of calls made together in one step.
        order: ``"in_order"`` (the default): in this order, each in a later step than the one
            before (calls made together in one step are an `AnyOrder` group);
            ``"any_order"``: in any order.
        extra: ``"forbid"`` (the default): no other call was made; ``"allow"``: other calls
            may come in between (they are listed in the reason).
        missing: ``"forbid"`` (the default): every expected call was made; ``"allow"``:
            expected calls may be left out, but every call made must be an expected one.
        mode: agentevals' names for these, instead of them: ``"strict"`` (in order, nothing
            else: the defaults), ``"unordered"`` (``order="any_order"``), ``"subset"`` (no call
            outside the expected ones: ``order="any_order", missing="allow"``) and
            ``"superset"`` (at least the expected ones: ``order="any_order", extra="allow"``).

    Raises:
        TypeError: an item that is neither a ``CalledTool`` leaf nor an ``AnyOrder``.
        ValueError: an unknown ``order``, ``extra``, ``missing`` or ``mode``, ``mode`` beside
            the options it sets, or a check that cannot fail (nothing expected with
            ``extra="allow"``; ``extra="allow"`` with ``missing="allow"``).
    """
    given = {"order": order, "extra": extra, "missing": missing}
    if mode is not None:
        if mode not in MODES:
            raise ValueError(
                f"ToolCalls(mode={mode!r}) must be one of {', '.join(map(repr, MODES))}"
            )
        both = [f"{key}={value!r}" for key, value in given.items() if value is not None]
        if both:
            raise ValueError(
                f"ToolCalls(mode={mode!r}, {', '.join(both)}): mode= sets order, extra and "
                f"missing ({dict(zip(given, MODES[mode], strict=True))}); give one or the other"
            )
        order, extra, missing = MODES[mode]
    order, extra, missing = order or "in_order", extra or "forbid", missing or "forbid"
    for keyword, value, allowed in (
        ("order", order, ORDERS),
        ("extra", extra, EXTRAS),
        ("missing", missing, EXTRAS),
    ):
        if value not in allowed:
            listed = ", ".join(map(repr, allowed))
            raise ValueError(f"ToolCalls({keyword}={value!r}) must be one of {listed}")
    if extra == "allow" and (not expected or missing == "allow"):
        raise ValueError(
            f"ToolCalls(extra='allow'{', missing=' + repr(missing) if expected else ''}) "
            f"{'with no expected call ' if not expected else ''}passes on every output; name the "
            "calls expected, or use ToolCalls() for 'no tool calls at all'"
        )
    items = tuple(
        item.calls if isinstance(item, AnyOrder) else (expected_item(item, "ToolCalls"),)
        for item in expected
    )
    slots = tuple(member for members in items for member in members)
    how = "in order" if order == "in_order" else "in any order"
    if missing == "allow":
        made = f"every call made is one of the {len(slots)} expected, {how}"
    elif slots:
        count = f"{len(slots)} expected call{'s were' if len(slots) != 1 else ' was'}"
        made = f"the {count} made, {how}"
    else:
        made = "no tool calls were made"
    if mode is not None:
        options = [f"mode={mode!r}"]
    else:
        options = [f"order={order!r}"] if order != "in_order" else []
        options += [f"extra={extra!r}"] if extra != "forbid" else []
        options += [f"missing={missing!r}"] if missing != "forbid" else []
    calls = ", ".join(describe(members) for members in items) or "none"
    how = (
        "only tool calls among these"
        if missing == "allow"
        else ("exactly these" if extra == "forbid" else "at least these") + " tool calls"
    )
    sequence = "in this order, each in a later step" if order == "in_order" else "in any order"
    return build(
        ToolCallsCheck,
        f"ToolCalls({', '.join([describe(members) for members in items] + options)})",
        f"The model made {how}, {sequence}: {calls}.",
        items=items,
        slots=slots,
        made=made,
        order=order,
        extra=extra,
        missing=missing,
        results=any(slot.result is not None for slot in slots),
        fast=order == "in_order" and extra == missing == "forbid" and len(items) == len(slots),
    )


def expected_item(item: object, factory: str) -> Expected:
    if (
        isinstance(item, type)
        and issubclass(item, CalledToolCheck)
        and not issubclass(item, ToolOutcomeCheck)
    ):
        return item
    if isinstance(item, AnyOrder):
        raise TypeError(
            f"{factory}() got {item!r} inside an AnyOrder: groups do not nest; list its calls "
            "in one AnyOrder"
        )
    groups = " and AnyOrder(...) groups" if factory == "ToolCalls" else ""
    raise TypeError(
        f"{factory}() takes CalledTool(...) leaves{groups}, got {item!r:.80}; e.g. "
        f"{factory}(CalledTool('lookup_order'), CalledTool('issue_refund'))"
    )


def _one_call_a_step(view: OutputView) -> bool:
    """No step of ``view`` made two calls or more (a single response: at most one call)."""
    if not view.steps:
        return len(view.tool_calls) < 2
    for step in view.steps:  # a plain loop: this is on every passing trajectory's path
        if len(step.tool_calls) > 1:
            return False
    return True


def _summary(
    check: type[ToolCallsCheck],
    matched: Iterable[tuple[ToolCall, str | None]],
    extras: Sequence[ToolCall] = (),
    left_out: Sequence[Expected] = (),
) -> str:
    """The reason of a pass: ``matched`` are the calls the expected calls took, in their order,
    each with its arguments they do not name (`fit`); ``extras`` the calls none took,
    ``left_out`` the expected calls not made."""
    parts = [check.made]
    if extras:
        shown = ", ".join(map(str, extras[:10]))
        parts.append(f"other calls (extra='allow'): {preview(shown, 160, quote=False)}")
    if left_out:
        shown = ", ".join(slot.expected() for slot in left_out[:10])
        parts.append(
            f"expected calls not made (missing='allow'): {preview(shown, 160, quote=False)}"
        )
    named = [f"{call.name}: {keys}" for call, keys in matched if keys]
    if named:
        parts.append(f"arguments no expected call names: {'; '.join(named)}")
    return "; ".join(parts)


def _table(check: type[ToolCallsCheck], calls: Sequence[ToolCall], match: Match) -> str:
    """Expected and actual calls side by side; ``>`` marks the first mismatch."""
    slots = [member.expected() for member in check.slots]
    by_call = {j: slot for slot, j in match.pairs.items()}
    rows: list[tuple[int | None, int | None]]
    if check.order == "in_order":  # the calls matched, then the rest side by side
        mark = len(calls) if match.call is None else match.call
        rows = [(by_call.get(j), j) for j in range(mark)]
        rest = range(len(slots) if match.slot is None else match.slot, len(slots))
        rows += list(zip_longest(rest, range(mark, len(calls))))
    else:  # each expected call with the call it took, then the calls no one took
        rows = [(slot, match.pairs.get(slot)) for slot in range(len(slots))]
        extra = [j for j in range(len(calls)) if j not in by_call]
        rows += [(None, j) for j in extra]
        mark = match.slot if match.slot is not None else len(slots) + extra.index(match.call or 0)
    low, high = max(0, mark - _AROUND), min(len(rows), mark + _AROUND + 1)
    shown = [slots[slot] for slot, _ in rows[low:high] if slot is not None]
    width = min(_EXPECTED_WIDTH, max([len("expected"), *(len(text) for text in shown)]))
    lines = [f"        {'expected':<{width}}  actual"]
    if low:
        lines.append(f"        ... {low} rows before")
    for row in range(low, high):
        slot, j = rows[row]
        number = "  " if slot is None else f"{slot + 1:>2}"
        wanted = "-" if slot is None else preview(slots[slot], width, quote=False)
        actual = "-" if j is None else preview(str(calls[j]), _ACTUAL_WIDTH, quote=False)
        lines.append(f"  {'>' if row == mark else ' '} {number}  {wanted:<{width}}  {actual}")
    if high < len(rows):
        lines.append(f"        ... {len(rows) - high} rows after")
    return "\n".join(lines)
