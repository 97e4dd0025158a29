"""Leaves for runs of several agents, where each step names its agent (a trace: see
`semantix.agents.capture_spans`): ``AnsweredBy``, ``HandedOff`` and ``ByAgent``.

A run whose steps name no agent (a transcript, a single response) cannot say which agent did
what: these leaves raise ``TypeError`` on it, never pass. An agent the run never names is no
error (``~HandedOff("triage", "billing")`` passes when billing never ran); the reason lists the
agents the run names, so a misspelt name shows.
"""

from __future__ import annotations

from itertools import pairwise
from typing import ClassVar, cast

from semantix._intent import (
    Conjunction,
    Disjunction,
    Intent,
    IntentLike,
    Negation,
    as_intent,
    iter_leaves,
)
from semantix._text import preview
from semantix.agents._turns import steps_of
from semantix.checks._base import Structural, build, check_text, verdict
from semantix.judges._base import Verdict
from semantix.outputs import OutputView, Step, Usage

__all__ = ["AnsweredBy", "ByAgent", "HandedOff", "agents_in"]


def agents_in(view: OutputView, name: str) -> list[str]:
    """The agents of the run in the order control passed between them (``triage``, ``billing``,
    ``triage``); a ``TypeError`` when its steps name none."""
    order: list[str] = []
    for step in steps_of(view):
        if step.agent is not None and (not order or order[-1] != step.agent):
            order.append(step.agent)
    if not order:
        raise TypeError(
            f"{name} needs a run whose steps name their agents, such as a trace "
            f"(semantix.agents.capture_spans); the output's {len(steps_of(view))} steps name "
            "none, so which agent did what cannot be told"
        )
    return order


class AnsweredByCheck(Structural, abstract=True):
    """Base of ``AnsweredBy``: ``agent`` gave the final reply."""

    needs: ClassVar[str] = "agents"
    agent: ClassVar[str]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        order = agents_in(view, cls.__name__)
        if view.judged_turn is None:
            return verdict(
                False, f"the run has no assistant reply with text (agents: {_path(order)})"
            )
        final = steps_of(view)[view.judged_turn]
        shown = preview(final.text or "", 60)
        if final.agent == cls.agent:
            return verdict(True, f"the final reply came from {cls.agent!r}: {shown}")
        return verdict(
            False,
            f"the final reply came from {final.agent!r}, not {cls.agent!r}: {shown} "
            f"(agents: {_path(order)})",
        )


def AnsweredBy(agent: str) -> type[Intent]:
    """The check "the final reply came from ``agent``" (the agent its step names)."""
    name = check_text(agent, factory="AnsweredBy", what="agent name", example="'billing'")
    return build(
        AnsweredByCheck,
        f"AnsweredBy({name!r})",
        f"Agent {name!r} gave the final reply.",
        agent=name,
    )


class HandedOffCheck(Structural, abstract=True):
    """Base of ``HandedOff``: a step of ``source`` directly followed by a step of ``target``."""

    needs: ClassVar[str] = "agents"
    source: ClassVar[str]
    target: ClassVar[str]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        order = agents_in(view, cls.__name__)
        passed = any(a == cls.source and b == cls.target for a, b in pairwise(order))
        said = "passed" if passed else "never passed"
        return verdict(
            passed, f"control {said} from {cls.source!r} to {cls.target!r}: {_path(order)}"
        )


def HandedOff(source: str, target: str) -> type[Intent]:
    """The check "agent ``source`` handed the run to agent ``target``": a step of ``source``
    directly followed by a step of ``target`` (a handoff, or ``source`` running ``target`` as a
    tool)."""
    first = check_text(
        source, factory="HandedOff", what="agent name", example="'triage', 'billing'"
    )
    second = check_text(
        target, factory="HandedOff", what="agent name", example="'triage', 'billing'"
    )
    if first == second:
        raise ValueError(
            f"HandedOff({first!r}, {second!r}) names one agent twice; a handoff goes from one "
            "agent to another, e.g. HandedOff('triage', 'billing')"
        )
    return build(
        HandedOffCheck,
        f"HandedOff({first!r}, {second!r})",
        f"Agent {first!r} handed the run to agent {second!r}.",
        source=first,
        target=second,
    )


class ByAgentCheck(Structural, abstract=True):
    """Base of ``ByAgent``: ``inner`` (structural) decided on the steps of ``agent`` alone."""

    needs: ClassVar[str] = "agents"
    agent: ClassVar[str]
    inner: ClassVar[type[Intent]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        order = agents_in(view, cls.__name__)
        own = _steps_view([s for s in steps_of(view) if s.agent == cls.agent])
        passed, reason = _holds(cls.inner, own)
        if cls.agent not in order:
            reason = f"{reason} (agent {cls.agent!r} took no step; agents: {_path(order)})"
        return verdict(passed, f"agent {cls.agent!r}: {reason}")


def ByAgent(agent: str, check: IntentLike) -> type[Intent]:
    """``check`` (structural: ``CalledTool``, ``NoToolCalls``, ``Contains``, ..., combined with
    ``~ & |``) on the steps of ``agent`` alone: its calls, and its last reply as the text.

    ``ByAgent("billing", CalledTool("issue_refund"))``: billing made the refund;
    ``ByAgent("triage", NoToolCalls)``: triage called no tool.

    Raises:
        TypeError: ``check`` has a semantic leaf (judge the agent's replies with ``FinalTurn``
            on a trace of that agent instead).
    """
    name = check_text(agent, factory="ByAgent", what="agent name", example="'billing', NoToolCalls")
    node = as_intent(check)
    semantic = [leaf.__name__ for leaf in iter_leaves(node) if not issubclass(leaf, Structural)]
    if semantic:
        raise TypeError(
            f"ByAgent({name!r}, {node.__name__}) takes structural checks (tool calls, text "
            f"patterns, budgets); {', '.join(semantic)} needs a judge"
        )
    return build(
        ByAgentCheck,
        f"ByAgent({name!r}, {node.__name__})",
        f"On the steps of agent {name!r}: {node.description}",
        agent=name,
        inner=node,
    )


def _steps_view(steps: list[Step]) -> OutputView:
    replies = [s for s in steps if s.role == "assistant" and (s.text or "").strip()]
    usages = [s.usage for s in steps if s.usage is not None]
    usage = None
    if usages:  # a count some step does not report is not reported for the agent
        counts = {
            field: None if None in values else sum(values)
            for field in ("input_tokens", "output_tokens", "total_tokens")
            for values in [[getattr(u, field) for u in usages]]
        }
        usage = Usage(**counts)
    return OutputView(
        text=replies[-1].text if replies else None,
        tool_calls=tuple(call for step in steps for call in step.tool_calls),
        usage=usage,
        model=next((s.model for s in reversed(steps) if s.model), None),
        steps=tuple(steps),
        judged_turn=steps.index(replies[-1]) if replies else None,
    )


def _holds(node: type[Intent], view: OutputView) -> tuple[bool, str]:
    if issubclass(node, Negation):
        passed, reason = _holds(node.operand, view)
        return not passed, reason
    if issubclass(node, (Conjunction, Disjunction)):
        results = [(operand, *_holds(operand, view)) for operand in node.operands]
        passed = (all if issubclass(node, Conjunction) else any)(ok for _, ok, _ in results)
        return passed, "; ".join(f"{operand.__name__}: {why}" for operand, _, why in results)
    decided = cast("type[Structural]", node).decide(view)
    return decided.passed, decided.reason or ""


def _path(order: list[str]) -> str:
    return " -> ".join(order)
