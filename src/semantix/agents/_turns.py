"""Turn leaves (``FinalTurn``, ``EachTurn``, ``AnyTurn``, ``Turn``, ``WholeConversation``) and
``Steps``.

A turn leaf decides a **structural** intent itself, on each picked turn's view; a **semantic**
intent becomes a `TurnLeaf` the pipeline asks the judge about once per turn (``subjects``) and
folds (``combine``); a composite with semantic parts is distributed over ``~ & |`` where that is
exact, and is a ``TypeError`` where it is not (the rules: "Testing agents", Turns, in the docs).
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from functools import reduce
from typing import ClassVar, cast

from semantix._config import is_number
from semantix._intent import (
    Conjunction,
    Disjunction,
    Intent,
    IntentLike,
    IntentMeta,
    Negation,
    as_intent,
    iter_leaves,
)
from semantix._text import preview
from semantix.checks._base import Scoped, Structural, build, no_text, verdict
from semantix.judges._base import Verdict
from semantix.outputs import OutputView, Step

__all__ = [
    "Answered",
    "AnyTurn",
    "EachTurn",
    "FinalTurn",
    "Steps",
    "Turn",
    "WholeConversation",
    "WholeRun",
    "holds",
    "steps_of",
    "whole_bounds",
]

Subjects = list[tuple[str, OutputView]]


def steps_of(view: OutputView) -> tuple[Step, ...]:
    """The steps of ``view``: a transcript's, or the one assistant step of a single response."""
    if view.steps:
        return view.steps
    return (Step("assistant", view.text, view.tool_calls, (), view.usage, view.model, view.timing),)


def turns(view: OutputView, name: str, last: bool = False) -> Subjects:
    """Every assistant step with text (``last``: the last one), labelled ``turn k of n``; an
    error when there is none."""
    if last and view.unanswered is not None:  # never an earlier reply for the final one
        raise TypeError(f"{name} judges the final reply, but the run has none: {view.unanswered}")
    picked = [s for s in steps_of(view) if s.role == "assistant" and s.text and s.text.strip()]
    if not picked:
        raise TypeError(
            f"{name} judges the assistant's replies, but the output has no assistant step with "
            f"text ({len(steps_of(view))} steps, calls: {len(view.tool_calls)}); pass the "
            "whole transcript, or check tool calls with ToolCalls / CalledTool"
        )
    first, count = (len(picked) if last else 1), len(picked)
    return [
        (
            # a turn other than the final reply (which the failure message shows) is quoted
            f"turn {k} of {count}" + ("" if k == count else f" ({preview(s.text or '', 60)})"),
            OutputView(s.text, s.tool_calls, s.usage, s.model, s.timing),
        )
        for k, s in enumerate(picked[first - 1 :], first)
    ]


@dataclass(frozen=True, slots=True)
class Selector:
    """Which turns a leaf judges (``pick``), how their verdicts fold (``combine``), the operators
    it distributes over exactly (``over``) and the name of its negation's selector (``dual``;
    "" for itself). Leaves are named ``{prefix}{intent})``."""

    prefix: str
    phrase: str
    combine: str
    over: str
    pick: Callable[[OutputView, str], Subjects]
    dual: str = ""

    def negated(self) -> Selector:
        return _SELECTORS[self.dual] if self.dual else self


def _whole(view: OutputView, name: str) -> Subjects:
    turns(view, name)  # an error without any assistant reply
    lines = [
        f"{step.role}: {step.text.strip()}"
        for step in steps_of(view)
        if step.role in ("user", "assistant") and step.text and step.text.strip()
    ]
    return [(f"the whole conversation ({len(lines)} messages)", OutputView("\n".join(lines)))]


def _run(view: OutputView, name: str) -> Subjects:
    """Every user and assistant message, tool call and tool result, one line each."""
    turns(view, name)  # an error without any assistant reply
    import json  # the arguments in full for the judge: only on this leaf's path

    lines = []
    for step in steps_of(view):
        if step.role in ("user", "assistant") and step.text and step.text.strip():
            lines.append(f"{step.role}: {step.text.strip()}")
        for call in step.tool_calls:
            shown = call.raw_arguments or ""
            if call.arguments is not None:
                shown = json.dumps(call.arguments, ensure_ascii=False, default=str)
            lines.append(f"assistant calls {call.name or '<no name>'}({shown})")
        for result in step.tool_results:
            outcome = "failed" if result.is_error else "returned"
            content = "(no content)" if result.content is None else result.content.strip()
            lines.append(f"tool {result.call.name or '<no name>'} {outcome}: {content}")
    return [(f"the whole run ({len(lines)} lines)", OutputView("\n".join(lines)))]


_SELECTORS = {
    "final": Selector(
        "FinalTurn(", "The final assistant reply", "all", "&|", lambda v, n: turns(v, n, last=True)
    ),
    "each": Selector("EachTurn(", "Every assistant reply", "all", "&", turns, "any"),
    "any": Selector("AnyTurn(", "Some assistant reply", "any", "|", turns, "each"),
    "whole": Selector("WholeConversation(", "The whole conversation", "all", "&|", _whole),
    "run": Selector("WholeRun(", "The whole run", "all", "&|", _run),
}


class TurnLeaf(Scoped, abstract=True):
    """A semantic leaf judged on turns: the description (and hypothesis, threshold, examples)
    are the inner intent's, found through the MRO (abstract bases describe nothing). The
    pipeline asks the judge once per subject and folds the verdicts by ``combine``."""

    needs: ClassVar[str] = "assistant turns"
    selector: ClassVar[Selector]
    combine: ClassVar[str]

    @classmethod
    def subjects(cls, view: OutputView) -> list[tuple[str, str]]:
        return [(label, turn.text or "") for label, turn in cls.selector.pick(view, cls.__name__)]


class TurnCheck(Structural, abstract=True):
    """Base of the turn leaves of a structural intent, decided on each turn's view."""

    needs: ClassVar[str] = "assistant turns"
    selector: ClassVar[Selector]
    inner: ClassVar[type[Intent]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        results = [
            (label, holds(cls.inner, turn)) for label, turn in cls.selector.pick(view, cls.__name__)
        ]
        wanted = cls.selector.combine == "any"  # any: the first pass decides; all: the first fail
        label, (passed, reason) = next((r for r in results if r[1][0] is wanted), results[0])
        return verdict(passed, f"{label}: {reason}")


def holds(node: type[Intent], view: OutputView) -> tuple[bool, str]:
    if issubclass(node, Negation):
        passed, reason = holds(node.operand, view)
        return not passed, reason
    if issubclass(node, (Conjunction, Disjunction)):
        results = [(operand, *holds(operand, view)) for operand in node.operands]
        passed = (all if issubclass(node, Conjunction) else any)(ok for _, ok, _ in results)
        return passed, "; ".join(f"{operand.__name__}: {why}" for operand, _, why in results)
    decided = cast("type[Structural]", node).decide(view)
    return decided.passed, decided.reason or ""


def _over(selector: Selector, intent: IntentLike) -> type[Intent]:
    """The leaves of ``intent`` on the turns ``selector`` picks, distributed where exact."""
    node = as_intent(intent)
    name = f"{selector.prefix}{node.__name__})"
    leaves = list(iter_leaves(node))
    nested = [leaf.__name__ for leaf in leaves if issubclass(leaf, (TurnLeaf, TurnCheck))]
    if nested:
        raise TypeError(f"{name}: turn leaves do not nest ({', '.join(nested)})")
    if all(issubclass(leaf, Structural) for leaf in leaves):
        description = f"{selector.phrase}: {node.description}"
        return build(TurnCheck, name, description, selector=selector, inner=node)
    if issubclass(node, Negation):
        return ~_over(selector.negated(), node.operand)
    for kind, symbol, join in (
        (Conjunction, " & ", operator.and_),
        (Disjunction, " | ", operator.or_),
    ):
        if not issubclass(node, kind):
            continue
        if symbol.strip() not in selector.over:
            split = symbol.join(f"{selector.prefix}{op.__name__})" for op in node.operands)
            raise TypeError(
                f"{name} cannot be decided exactly: one turn must satisfy its parts together, "
                "but the judge is asked about each semantic leaf on its own. Write "
                f"{split} if that is what you mean (a different check), or check each turn "
                "with Turn(i, ...)"
            )
        parts = [_over(selector, operand) for operand in node.operands]
        return reduce(join, parts)
    namespace = {
        "__module__": "semantix.agents",
        "__qualname__": name,
        "selector": selector,
        "combine": selector.combine,
    }
    return cast("type[Intent]", IntentMeta(name, (TurnLeaf, node), namespace))


def FinalTurn(intent: IntentLike) -> type[Intent]:
    """``intent`` on the final assistant reply (the last assistant step with text; a run with
    no final answer, `OutputView.unanswered`, is a TypeError that says why)."""
    return _over(_SELECTORS["final"], intent)


def EachTurn(intent: IntentLike) -> type[Intent]:
    """``intent`` on every assistant reply: the first that fails decides."""
    return _over(_SELECTORS["each"], intent)


def AnyTurn(intent: IntentLike) -> type[Intent]:
    """``intent`` on some assistant reply: the first that passes decides."""
    return _over(_SELECTORS["any"], intent)


def WholeConversation(intent: IntentLike) -> type[Intent]:
    """``intent`` on the conversation as one text: its user and assistant messages, each on a
    line labelled with its role (``user: ...``, ``assistant: ...``); tool calls, tool results
    and system messages are left out."""
    return _over(_SELECTORS["whole"], intent)


def WholeRun(intent: IntentLike) -> type[Intent]:
    """``intent`` on the whole run as one text: its user and assistant messages (``user: ...``),
    each tool call with its arguments (``assistant calls lookup_order({"order_id": "A17"})``)
    and each tool result (``tool lookup_order returned: ...``, ``... failed: ...``), in order;
    system messages are left out. For a judge of how the agent went about it."""
    return _over(_SELECTORS["run"], intent)


def Turn(index: int, intent: IntentLike) -> type[Intent]:
    """``intent`` on one assistant reply: ``index`` counts the replies from 0, negative indexes
    from the end (``Turn(-1, X)`` judges what ``FinalTurn(X)`` does); labels count from 1
    ("turn 1 of 3")."""
    if isinstance(index, bool) or not isinstance(index, int):
        raise TypeError(
            f"Turn(index, intent) needs the index of an assistant reply as an int, got {index!r}"
        )

    def pick(view: OutputView, name: str) -> Subjects:
        found = turns(view, name)
        if not -len(found) <= index < len(found):
            raise ValueError(
                f"{name}: the output has {len(found)} assistant replies, so there is no reply "
                f"{index} (0 to {len(found) - 1}, or -{len(found)} to -1)"
            )
        return [found[index]]

    if index >= 0:  # the description counts from 1, as the reason's "turn 2 of 3" does
        phrase = f"Assistant turn {index + 1}"
    else:
        phrase = (
            "The final assistant turn" if index == -1 else f"Assistant turn {-index} from the end"
        )
    return _over(Selector(f"Turn({index}, ", phrase, "all", "&|", pick), intent)


# --- steps -------------------------------------------------------------------------------------


class Answered(Structural):
    """The run ended with a reply: its last step is an assistant reply, not a tool result, a
    call, a refusal or a reply cut at its token limit."""

    needs: ClassVar[str] = "steps"

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        why = view.unanswered
        if why is None and view.steps:
            last = view.steps[-1]
            at = f"(step {len(view.steps)} of {len(view.steps)})"
            if last.role != "assistant":
                what = "a tool result" if last.role == "tool" else f"a {last.role} message"
                why = f"it ended on {what} {at}"
            elif not (last.text and last.text.strip()):
                why = (
                    f"its last step only calls tools {at}"
                    if last.tool_calls
                    else f"its last step holds no text {at}"
                )
        if why is None and not (view.text and view.text.strip()):
            why = no_text(view).reason
        if why is not None:
            return verdict(False, f"the run has no final answer: {why}")
        return verdict(True, f"the run ended with a reply: {preview(view.text or '', 80)}")


Answered.__module__ = "semantix.agents"


class StepsCheck(Structural, abstract=True):
    """Base of ``Steps``: the number of assistant steps within ``low`` and ``high``."""

    needs: ClassVar[str] = "steps"
    low: ClassVar[int | None]
    high: ClassVar[int | None]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        count = sum(1 for step in steps_of(view) if step.role == "assistant")
        if cls.high is not None and count > cls.high:
            return verdict(False, f"{_steps(count)}, more than the maximum {cls.high}")
        if cls.low is not None and count < cls.low:
            return verdict(False, f"{_steps(count)}, fewer than the minimum {cls.low}")
        bounds = " and ".join(
            f"{word} {bound}"
            for word, bound in (("at least", cls.low), ("at most", cls.high))
            if bound is not None
        )
        return verdict(True, f"{_steps(count)} ({bounds})")


def _steps(count: int) -> str:
    return f"{count} assistant step{'' if count == 1 else 's'}"


def whole_bounds(
    factory: str, min: int | None, max: int | None, unit: str
) -> list[tuple[str, str, int]]:
    """The bounds given, as (keyword, words, value): whole numbers 0 or more, at least one,
    ``min`` not above ``max``; else a ``ValueError`` naming ``factory``."""
    bounds = (("min", "at least", min), ("max", "at most", max))
    for keyword, _, value in bounds:
        if value is not None and (not is_number(value, low=0) or not float(value).is_integer()):
            raise ValueError(
                f"{factory}({keyword}={value!r}) must be a whole number of {unit}, 0 or more; "
                f"e.g. {factory}({keyword}=4)"
            )
    if max is None and min is None:
        raise ValueError(f"{factory}() needs max= or min= (or both), e.g. {factory}(max=4)")
    if max is not None and min is not None and min > max:
        raise ValueError(f"{factory}(min={min!r}, max={max!r}): min is above max, so no run passes")
    return [(keyword, words, int(value)) for keyword, words, value in bounds if value is not None]


def Steps(*, max: int | None = None, min: int | None = None) -> type[Intent]:
    """The check "the run took between ``min`` and ``max`` assistant steps" (each assistant
    message is a step: a tool-calling turn, a reply).

    Raises:
        ValueError: no bound, a bound that is not a whole number 0 or more, or ``min > max``.
    """
    given = whole_bounds("Steps", min, max, "steps")
    return build(
        StepsCheck,
        f"Steps({', '.join(f'{keyword}={value}' for keyword, _, value in given)})",
        f"The run took {' and '.join(f'{words} {value}' for _, words, value in given)} "
        f"assistant step{'' if given[-1][2] == 1 else 's'}.",
        low=None if min is None else int(min),
        high=None if max is None else int(max),
    )
