"""Counting and picking calls: ``CallCount`` (at most / at least N calls, in all or of one
tool), ``Call`` (the first, last or n-th call) and ``StepCalls`` (a check of tool calls on one
assistant step's calls)."""

from __future__ import annotations

from typing import ClassVar

from semantix._intent import Intent, IntentLike, as_intent, iter_leaves
from semantix.agents._matching import listed
from semantix.agents._results import ToolOutcomeCheck
from semantix.agents._turns import holds, steps_of, whole_bounds
from semantix.checks._base import Structural, build, verdict
from semantix.checks._tools import CalledTool, CalledToolCheck, fit, mismatch, results_of, selects
from semantix.judges._base import Verdict
from semantix.outputs import OutputView

__all__ = ["Call", "CallCount", "StepCalls"]


def _rule(item: object, factory: str, example: str) -> type[CalledToolCheck]:
    """``item`` as the rule of one tool's calls: a name (or glob) or a ``CalledTool`` leaf."""
    if isinstance(item, str):
        return CalledTool(item)  # type: ignore[return-value]
    if (
        isinstance(item, type)
        and issubclass(item, CalledToolCheck)
        and not issubclass(item, ToolOutcomeCheck)
    ):
        return item
    raise TypeError(
        f"{factory}() counts the calls of a tool: give its name (a glob works: 'search_*') or "
        f"a CalledTool(...) leaf, got {item!r:.80}; e.g. {example}"
    )


class CallCountCheck(Structural, abstract=True):
    """Base of ``CallCount``: the number of calls (of ``rule``'s tool) within the bounds."""

    needs: ClassVar[str] = "tool calls"
    rule: ClassVar[type[CalledToolCheck] | None]
    low: ClassVar[int | None]
    high: ClassVar[int | None]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        rule = cls.rule
        if rule is None:
            counted = list(view.tool_calls)
        else:
            results = results_of(view) if rule.result is not None else None
            counted = [call for call in view.tool_calls if fit(rule, call, results) is not None]
        of = "" if rule is None else f" of {rule.expected()}"
        count = f"{len(counted)} call{'' if len(counted) == 1 else 's'}{of}"
        which = f": {listed(map(str, counted))}" if counted and rule is not None else ""
        if cls.high is not None and len(counted) > cls.high:
            return verdict(False, f"{count}, more than the maximum {cls.high}{which}")
        if cls.low is not None and len(counted) < cls.low:
            return verdict(False, f"{count}, fewer than the minimum {cls.low}{which}")
        bounds = " and ".join(
            f"{word} {bound}"
            for word, bound in (("at least", cls.low), ("at most", cls.high))
            if bound is not None
        )
        return verdict(True, f"{count} ({bounds})")


def CallCount(
    tool: str | type[Intent] | None = None, *, max: int | None = None, min: int | None = None
) -> type[Intent]:
    """The check "the run made between ``min`` and ``max`` tool calls": in all, or of one tool
    (``tool``: its name, a glob such as ``"search_*"``, or a ``CalledTool(...)`` leaf whose
    ``args=`` / ``kind=`` pick the calls counted).

    Raises:
        TypeError: ``tool`` is neither a name nor a ``CalledTool`` leaf.
        ValueError: no bound, a bound that is not a whole number 0 or more, ``min > max``.
    """
    rule = None if tool is None else _rule(tool, "CallCount", "CallCount('search', max=3)")
    given = whole_bounds("CallCount", min, max, "calls")
    named = [] if tool is None else [repr(tool) if isinstance(tool, str) else tool.__name__]
    what = "tool calls" if rule is None else f"calls of {rule.expected()}"
    return build(
        CallCountCheck,
        f"CallCount({', '.join(named + [f'{keyword}={value}' for keyword, _, value in given])})",
        f"The run made {' and '.join(f'{words} {value}' for _, words, value in given)} {what}.",
        rule=rule,
        low=None if min is None else int(min),
        high=None if max is None else int(max),
    )


def _index(index: object, factory: str, what: str) -> int:
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(
            f"{factory} needs the index of {what} as an int (0 the first, -1 the last), got "
            f"{index!r}"
        )
    return index


class CallCheck(Structural, abstract=True):
    """Base of ``Call``: the call at ``index`` is the call ``rule`` expects."""

    needs: ClassVar[str] = "tool calls"
    index: ClassVar[int]
    rule: ClassVar[type[CalledToolCheck]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = view.tool_calls
        if not -len(calls) <= cls.index < len(calls):
            number = cls.index + 1 if cls.index >= 0 else f"{-cls.index} from the end"
            return verdict(False, f"no call {number}: the run made {len(calls)} calls")
        position = cls.index % len(calls)
        call, rule = calls[position], cls.rule
        label = f"call {position + 1} of {len(calls)}"
        results = results_of(view) if rule.result is not None else None
        unnamed = fit(rule, call, results)
        if unnamed is not None:
            return verdict(
                True, f"{label}: {call}" + (f"; {unnamed} not in args=" if unnamed else "")
            )
        if not selects(rule, call):
            return verdict(False, f"{label}: expected {rule.expected()}, got {call}")
        return verdict(False, f"{label}: {call}: {mismatch(rule, call, results)}")


def Call(index: int, expected: str | type[Intent]) -> type[Intent]:
    """The check "the call at ``index`` is ``expected``": ``index`` counts the run's calls from
    0 (``Call(0, ...)`` the first), negative from the end (``Call(-1, ...)`` the last);
    ``expected`` is a tool name or a ``CalledTool(...)`` leaf. A run with fewer calls fails."""
    position = _index(index, "Call(index, expected)", "a call")
    rule = _rule(expected, "Call", "Call(0, CalledTool('lookup_order'))")
    which = {0: "The first call", -1: "The last call"}.get(position)
    if which is None:
        which = f"Call {position + 1}" if position >= 0 else f"Call {-position} from the end"
    return build(
        CallCheck,
        f"Call({position}, {rule.expected()})",
        f"{which} of the run is {rule.expected()}.",
        index=position,
        rule=rule,
    )


class StepCallsCheck(Structural, abstract=True):
    """Base of ``StepCalls``: ``inner`` decided on the calls of assistant step ``index``."""

    needs: ClassVar[str] = "tool calls"
    index: ClassVar[int]
    inner: ClassVar[type[Intent]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        steps = steps_of(view)
        assistant = [k for k, step in enumerate(steps) if step.role == "assistant"]
        if not -len(assistant) <= cls.index < len(assistant):
            return verdict(False, f"no assistant step {cls.index}: the run has {len(assistant)}")
        position = cls.index % len(assistant)
        k = assistant[position]
        end = k + 1
        while end < len(steps) and steps[end].role == "tool":  # its calls' results
            end += 1
        step = steps[k]
        sub = OutputView(
            step.text, step.tool_calls, step.usage, step.model, step.timing, steps[k:end]
        )
        passed, reason = holds(cls.inner, sub)
        return verdict(passed, f"assistant step {position + 1} of {len(assistant)}: {reason}")


def StepCalls(index: int, check: IntentLike) -> type[Intent]:
    """``check`` (a check of tool calls: ``CalledTool``, ``ToolCalls``, ``NoToolCalls``,
    ``CallCount``, ``Call``, ``ToolSucceeded``... and ``~ & |`` of them) on the calls of one
    assistant step: ``index`` counts the assistant steps from 0, negative from the end (as
    `Steps` counts them). ``StepCalls(0, ToolCalls(AnyOrder(a, b)))``: the first step made
    exactly a and b, together."""
    position = _index(index, "StepCalls(index, check)", "an assistant step")
    node = as_intent(check)
    wrong = [
        leaf.__name__
        for leaf in iter_leaves(node)
        if not (issubclass(leaf, Structural) and getattr(leaf, "needs", "") == "tool calls")
    ]
    if wrong:
        raise TypeError(
            f"StepCalls() takes a check of tool calls (CalledTool, ToolCalls, NoToolCalls, "
            f"CallCount, Call, ToolSucceeded, ...), got {', '.join(wrong)}; judge a turn's text "
            "with Turn(index, ...)"
        )
    which = f"step {position + 1}" if position >= 0 else f"step {-position} from the end"
    return build(
        StepCallsCheck,
        f"StepCalls({position}, {node.__name__})",
        f"The calls of assistant {which}: {node.description}",
        index=position,
        inner=node,
    )


for _public in (CallCountCheck, CallCheck, StepCallsCheck):
    _public.__module__ = "semantix.agents"
