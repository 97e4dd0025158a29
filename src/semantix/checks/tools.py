"""Structural checks on the tool calls of an output: ``CalledTool`` and ``NoToolCalls``.

Tool calls come from the output view: OpenAI Chat Completions ``tool_calls`` (and the legacy
``function_call``), Responses ``function_call`` items and Anthropic ``tool_use`` blocks, with the
arguments parsed from JSON; for a transcript, every call of the run. Arguments that are not a
JSON object never match ``args=``; the reason quotes them. The argument rules (`fit`,
`mismatch`) are shared with the trajectory checks of `semantix.agents`.
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

__all__ = [
    "CalledTool",
    "CalledToolCheck",
    "NoToolCalls",
    "called_tool",
    "fit",
    "mismatch",
]

ArgsCheck = Mapping[str, Any] | Callable[[Mapping[str, Any]], object]
_SCALARS = frozenset({str, int, float, bool, type(None)})


class CalledToolCheck(Structural, abstract=True):
    """Base of ``CalledTool``: ``tool`` is the name, ``args`` what its arguments must hold."""

    needs: ClassVar[str] = "tool calls"
    tool: ClassVar[str]
    args: ClassVar[Mapping[str, Any] | Callable[[Mapping[str, Any]], object] | None]
    exact: ClassVar[bool]
    #: Every value of ``args`` is a str (then ``==`` compares them as JSON does).
    texts: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = [call for call in view.tool_calls if call.name == cls.tool]
        if not calls:
            return verdict(False, not_called(cls.tool, view))
        if cls.args is None:
            return verdict(True, f"called {describe_calls(calls)}")
        problems = []
        for call in calls:
            extra = fit(cls, call)
            if extra is not None:
                return verdict(
                    True, f"called {call}" + (f"; {extra} not in args=" if extra else "")
                )
            problems.append(f"{call}: {mismatch(cls, call)}")
        return verdict(False, "; ".join(problems))

    @classmethod
    def expected(cls) -> str:
        """The expected call in short: ``issue_refund(order_id='A17')``."""
        if cls.args is None:
            return cls.tool
        if callable(cls.args):
            return f"{cls.tool}(<{_callable_name(cls.args)}>)"
        shown = ", ".join(f"{key}={_shown(value)}" for key, value in cls.args.items())
        return f"{cls.tool}({shown}{', exact' if cls.exact else ''})"


def fit(check: type[CalledToolCheck], call: ToolCall) -> str | None:
    """How ``call`` fits the call ``check`` expects: None when it does not (`mismatch` says why),
    else the arguments that ``check``'s ``args`` dict does not name, as ``'a', 'b'`` ("" for
    none): allowed, but shown, so a hallucinated ``delete_database`` is visible."""
    if call.name != check.tool:
        return None
    args, found = check.args, call.arguments
    if args is None:
        return ""
    if found is None:
        return None
    if callable(args):
        return "" if args(found) else None
    if check.texts:  # str values: ``==`` is their JSON comparison, done for all at once
        if not args.items() <= found.items():
            return None
    elif not all(key in found and value_matches(found[key], v) for key, v in args.items()):
        return None
    if len(found) == len(args):
        return ""
    if check.exact:
        return None
    shown = []
    for key in found:  # a loop, not a comprehension: this is on every passing call's path
        if key not in args:
            shown.append(repr(key))
    return ", ".join(shown)


def mismatch(check: type[CalledToolCheck], call: ToolCall) -> str | None:
    """Why ``call`` is not the call ``check`` expects (name, then arguments), or None."""
    if fit(check, call) is not None:
        return None
    if call.name != check.tool:
        return f"expected {check.tool}, got {call.name or 'a call with no name'}"
    if call.arguments is None:
        return "its arguments are not a JSON object"
    if callable(check.args):
        return f"rejected by {_callable_name(check.args)}"
    assert check.args is not None
    problems = []
    for key, value in check.args.items():
        if key not in call.arguments:
            problems.append(f"{key!r} missing, expected {_shown(value)}")
        elif not value_matches(call.arguments[key], value):
            problems.append(f"{key!r} is {_shown(call.arguments[key])}, expected {_shown(value)}")
    extra = [key for key in call.arguments if key not in check.args]
    if check.exact and extra:
        problems.append(f"unexpected {', '.join(map(repr, extra))} (exact=True)")
    return "; ".join(problems)


def value_matches(found: Any, expected: Any) -> bool:
    """JSON values compare as JSON (``1 == 1.0``, ``True != 1``), deeply; any other object with
    ``==`` (a dirty-equals matcher, a class of your own); a function is called with the value
    and accepts it when it returns a true value."""
    if type(expected) in _SCALARS:
        return found == expected if type(found) is type(expected) else json_equal(found, expected)
    if isinstance(expected, Mapping):
        return (
            isinstance(found, Mapping)
            and found.keys() == expected.keys()
            and all(value_matches(found[key], value) for key, value in expected.items())
        )
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(found, list)
            and len(found) == len(expected)
            and all(map(value_matches, found, expected))
        )
    if isinstance(expected, (bool, int, float, str)):  # their subclasses
        return json_equal(found, expected)
    if callable(expected) and not isinstance(expected, type):
        return bool(expected(found))
    try:
        return bool(expected == found)
    except (TypeError, ValueError):  # dirty-equals: a comparison that raises is "not equal"
        return False


def not_called(tool: str, view: OutputView) -> str:
    if view.tool_calls:
        return f"{tool} was not called; calls made: {describe_calls(view.tool_calls)}"
    text = "" if view.text is None else f"; the text: {preview(view.text, 80)}"
    return f"{tool} was not called; no tool calls were made{text}"


def called_tool(
    base: type[CalledToolCheck],
    factory: str,
    name: str,
    args: ArgsCheck | None,
    exact: bool,
    what: str,
    **attributes: Any,
) -> type[Intent]:
    """The checked ``factory(name, args=..., exact=...)`` leaf on ``base``; ``what`` is its
    description's verb phrase ("called the tool")."""
    tool = check_text(name, factory=factory, what="tool name", example="'issue_refund'")
    if not isinstance(exact, bool):
        raise TypeError(f"{factory}(exact=...) must be True or False, got {exact!r}")
    if args is not None and not isinstance(args, Mapping) and not callable(args):
        raise TypeError(
            f"{factory}({tool!r}, args=...) must be a dict the arguments contain or a callable "
            f"that accepts them, got {type(args).__name__} {args!r:.80}"
        )
    if exact and not isinstance(args, Mapping):
        raise ValueError(
            f"{factory}({tool!r}, exact=True) compares the arguments with a dict: pass it as "
            "args=, e.g. args={'order_id': 'A17'}"
        )
    if isinstance(args, Mapping):
        for key in args:
            if not isinstance(key, str):
                raise TypeError(
                    f"{factory}({tool!r}, args=...) keys must be argument names (str), got {key!r}"
                )
        shown = _shown(dict(args))
        option = f", args={dict(args)!r}" + (", exact=True" if exact else "")
        described = f" with exactly the arguments {shown}" if exact else f" with arguments {shown}"
        frozen: Any = dict(args)
    elif args is not None:
        option = f", args={_callable_name(args)}"
        described = f" with arguments accepted by {_callable_name(args)}"
        frozen = staticmethod(args)
    else:
        option = described = ""
        frozen = None
    return build(
        base,
        f"{factory}({tool!r}{option})",
        f"The model {what} {tool!r}{described}.",
        tool=tool,
        args=frozen,
        exact=exact,
        texts=isinstance(args, Mapping) and all(type(value) is str for value in args.values()),
        **attributes,
    )


def CalledTool(name: str, args: ArgsCheck | None = None, *, exact: bool = False) -> type[Intent]:
    """The check "the model called the tool ``name``", optionally with arguments.

    Args:
        name: the tool's name, exactly as the model calls it.
        args: a mapping the arguments must contain (other keys are allowed, and the reason names
            them), or a callable that gets the parsed arguments and returns True to accept them.
            Values compare as JSON (``1 == 1.0``, ``True != 1``); any other object compares with
            ``==`` (dirty-equals matchers work), and a function is called with the value. One
            matching call among several passes.
        exact: with a mapping, the arguments must be exactly ``args`` (no other keys).

    Raises:
        TypeError: ``name`` is not a str, or ``args`` is neither a mapping nor a callable.
        ValueError: ``name`` is empty, or ``exact=True`` without a mapping.
    """
    return called_tool(CalledToolCheck, "CalledTool", name, args, exact, "called the tool")


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
    if callable(value) and not isinstance(value, type):
        return _callable_name(value)
    return preview(repr(value), 80, quote=False)
