"""Structural checks on the tool calls of an output: ``CalledTool`` and ``NoToolCalls``.

Tool calls come from the output view: OpenAI Chat Completions ``tool_calls`` (and the legacy
``function_call``), Responses ``function_call`` items and Anthropic ``tool_use`` blocks, with the
arguments parsed from JSON. Arguments that are not a JSON object never match ``args=``; the
reason quotes them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from semantix.checks.base import Structural, build, check_text, verdict
from semantix.checks.json import json_equal
from semantix.intent import Intent
from semantix.judges.base import Verdict
from semantix.outputs import OutputView, ToolCall, describe_calls
from semantix.text import preview

__all__ = ["CalledTool", "NoToolCalls"]

ArgsCheck = Mapping[str, Any] | Callable[[Mapping[str, Any]], object]


class CalledToolCheck(Structural, abstract=True):
    """Base of ``CalledTool``: ``tool`` is the name, ``args`` what its arguments must hold."""

    needs: ClassVar[str] = "tool calls"
    tool: ClassVar[str]
    args: ClassVar[Mapping[str, Any] | Callable[[Mapping[str, Any]], object] | None]
    exact: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = [call for call in view.tool_calls if call.name == cls.tool]
        if not calls:
            made = (
                f"calls made: {describe_calls(view.tool_calls)}"
                if view.tool_calls
                else "no tool calls were made"
                + ("" if view.text is None else f"; the text: {preview(view.text, 80)}")
            )
            return verdict(False, f"{cls.tool} was not called; {made}")
        if cls.args is None:
            return verdict(True, f"called {describe_calls(calls)}")
        problems = []
        for call in calls:
            problem = cls._mismatch(call)
            if problem is None:
                return verdict(True, f"called {call}")
            problems.append(f"{call}: {problem}")
        return verdict(False, "; ".join(problems))

    @classmethod
    def _mismatch(cls, call: ToolCall) -> str | None:
        """Why ``call``'s arguments do not satisfy ``args``, or None when they do."""
        if call.arguments is None:
            return "its arguments are not a JSON object"
        if callable(cls.args):
            check = cls.args
            return None if check(call.arguments) else f"rejected by {_callable_name(check)}"
        expected = cls.args or {}
        problems = []
        for key, value in expected.items():
            if key not in call.arguments:
                problems.append(f"{key!r} missing, expected {_shown(value)}")
            elif not json_equal(call.arguments[key], value):
                problems.append(
                    f"{key!r} is {_shown(call.arguments[key])}, expected {_shown(value)}"
                )
        if cls.exact:
            extra = [key for key in call.arguments if key not in expected]
            if extra:
                problems.append(f"unexpected {', '.join(map(repr, extra))} (exact=True)")
        return "; ".join(problems) or None


def CalledTool(name: str, args: ArgsCheck | None = None, *, exact: bool = False) -> type[Intent]:
    """The check "the model called the tool ``name``", optionally with arguments.

    Args:
        name: the tool's name, exactly as the model calls it.
        args: a mapping the arguments must contain (other keys are allowed, values compare as
            JSON), or a callable that gets the parsed arguments and returns True to accept them.
            One matching call among several passes.
        exact: with a mapping, the arguments must be exactly ``args`` (no other keys).

    Raises:
        TypeError: ``name`` is not a str, or ``args`` is neither a mapping nor a callable.
        ValueError: ``name`` is empty, or ``exact=True`` without a mapping.
    """
    tool = check_text(name, factory="CalledTool", what="tool name", example="'issue_refund'")
    if not isinstance(exact, bool):
        raise TypeError(f"CalledTool(exact=...) must be True or False, got {exact!r}")
    if args is not None and not isinstance(args, Mapping) and not callable(args):
        raise TypeError(
            f"CalledTool({tool!r}, args=...) must be a dict the arguments contain or a callable "
            f"that accepts them, got {type(args).__name__} {args!r:.80}"
        )
    if exact and not isinstance(args, Mapping):
        raise ValueError(
            f"CalledTool({tool!r}, exact=True) compares the arguments with a dict: pass it as "
            "args=, e.g. args={'order_id': 'A17'}"
        )
    if isinstance(args, Mapping):
        for key in args:
            if not isinstance(key, str):
                raise TypeError(
                    f"CalledTool({tool!r}, args=...) keys must be argument names (str), got {key!r}"
                )
        shown = _shown(dict(args))
        option = f", args={dict(args)!r}" + (", exact=True" if exact else "")
        what = f" with exactly the arguments {shown}" if exact else f" with arguments {shown}"
        frozen: Any = dict(args)
    elif args is not None:
        option = f", args={_callable_name(args)}"
        what = f" with arguments accepted by {_callable_name(args)}"
        frozen = staticmethod(args)
    else:
        option = what = ""
        frozen = None
    return build(
        CalledToolCheck,
        f"CalledTool({tool!r}{option})",
        f"The model called the tool {tool!r}{what}.",
        tool=tool,
        args=frozen,
        exact=exact,
    )


class NoToolCalls(Structural):
    """The model made no tool calls."""

    needs: ClassVar[str] = "tool calls"

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.tool_calls:
            return verdict(False, f"tool calls were made: {describe_calls(view.tool_calls)}")
        return verdict(True, "no tool calls were made")


NoToolCalls.__module__ = "semantix.checks"


def _callable_name(check: object) -> str:
    return str(getattr(check, "__qualname__", None) or repr(check))


def _shown(value: Any) -> str:
    return preview(repr(value), 80, quote=False)
