"""Structural checks on the tool calls of an output: ``CalledTool`` and ``NoToolCalls``.

Tool calls come from the output view: OpenAI Chat Completions ``tool_calls`` (and the legacy
``function_call``), Responses ``function_call`` items and Anthropic ``tool_use`` blocks, with the
arguments parsed from JSON; for a transcript, every call of the run. Arguments that are not a
JSON object never match ``args=``; the reason quotes them. The argument rules (`fit`,
`mismatch`) are shared with the trajectory checks of `semantix.agents`.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from semantix._intent import Intent
from semantix._text import preview
from semantix.checks._base import Structural, build, check_text, verdict
from semantix.checks._matchers import (
    Refused,
    ask,
    callable_name,
    plain,
    result_matches,
    shown,
    unnamed_keys,
    value_matches,
)
from semantix.judges._base import Verdict
from semantix.outputs import OutputView, ToolCall, ToolResult
from semantix.outputs._view import describe_calls

__all__ = [
    "CalledTool",
    "CalledToolCheck",
    "NoToolCalls",
    "called_tool",
    "fit",
    "mismatch",
    "results_of",
    "selects",
]

ArgsCheck = Mapping[str, Any] | Callable[[Mapping[str, Any]], object]
#: What a tool's result must hold: a str it contains, a dict its JSON object contains, a
#: callable that accepts its text, or any object that compares equal to its text.
ResultCheck = Any
#: The kinds of call (`semantix.outputs.ToolCall.kind`).
KINDS = ("function", "mcp", "provider")
_GLOB = frozenset("*?[")


class CalledToolCheck(Structural, abstract=True):
    """Base of ``CalledTool``: ``tool`` is the name (or a glob pattern, ``pattern`` then matches
    it), ``args`` what its arguments must hold, ``kind``/``server`` which calls count,
    ``result`` what the call's result must hold; ``key``: checks with equal keys apply the same
    rule (the trajectory matching decides each rule once per distinct call)."""

    needs: ClassVar[str] = "tool calls"
    tool: ClassVar[str]
    args: ClassVar[Mapping[str, Any] | Callable[[Mapping[str, Any]], object] | None]
    exact: ClassVar[bool]
    #: Every value of ``args`` is a str (then ``==`` compares them as JSON does).
    texts: ClassVar[bool]
    ignore: ClassVar[frozenset[str]] = frozenset()
    kind: ClassVar[str | None] = None
    server: ClassVar[str | None] = None
    result: ClassVar[ResultCheck] = None
    pattern: ClassVar[Callable[[str], object] | None] = None
    key: ClassVar[object] = None
    #: No pattern and no kind: a call is selected by its name alone.
    named_only: ClassVar[bool] = True

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        calls = [call for call in view.tool_calls if selects(cls, call)]
        if not calls:
            return verdict(False, not_called(cls.named(), view))
        if cls.args is None and cls.result is None:
            return verdict(True, f"called {describe_calls(calls)}")
        results = results_of(view) if cls.result is not None else None
        problems = []
        for call in calls:
            extra = fit(cls, call, results)
            if extra is not None:
                return verdict(
                    True, f"called {call}" + (f"; {extra} not in args=" if extra else "")
                )
            problems.append(f"{call}: {mismatch(cls, call, results)}")
        return verdict(False, "; ".join(problems))

    @classmethod
    def named(cls) -> str:
        """The tool in short, with the kind of call: ``search (mcp docs)``."""
        if cls.kind is None:
            return cls.tool
        return f"{cls.tool} ({cls.kind}{f' {cls.server}' if cls.server else ''})"

    @classmethod
    def expected(cls) -> str:
        """The expected call in short: ``issue_refund(order_id='A17')``."""
        if cls.args is None:
            call = cls.tool
        elif callable(cls.args):
            call = f"{cls.tool}(<{callable_name(cls.args)}>)"
        else:
            listed = ", ".join(f"{key}={shown(value)}" for key, value in cls.args.items())
            call = f"{cls.tool}({listed}{', exact' if cls.exact else ''})"
        return call + (f" ({cls.named().partition(' (')[2]}" if cls.kind else "")


def selects(check: type[CalledToolCheck], call: ToolCall) -> bool:
    """Whether ``call`` is a call of the tool ``check`` names (name or glob, kind, server)."""
    if check.pattern is None:
        if call.name != check.tool:
            return False
    elif call.name is None or not check.pattern(call.name):
        return False
    return check.kind is None or (
        call.kind == check.kind and (check.server is None or call.server == check.server)
    )


def results_of(view: OutputView) -> dict[int, ToolResult]:
    """The result of each call of ``view``, by the call's ``id()``."""
    return {id(result.call): result for step in view.steps for result in step.tool_results}


def fit(
    check: type[CalledToolCheck],
    call: ToolCall,
    results: Mapping[int, ToolResult] | None = None,
) -> str | None:
    """How ``call`` fits the call ``check`` expects: None when it does not (`mismatch` says why),
    else the arguments that ``check``'s ``args`` dict does not name, as ``'a', 'b'`` ("" for
    none; nested ones as ``'customer.email'``): allowed, but shown, so a hallucinated
    ``delete_database`` is visible. ``results`` (`results_of`) for a check of the result.

    Raises:
        ValueError: a matcher of ``check`` raised on the call.
        TypeError: a matcher answered something else than True or False.
    """
    if check.named_only:  # the common case, on every expected call's path: kept inline
        if call.name != check.tool:
            return None
    elif not selects(check, call):
        return None
    args: Any = check.args  # a mapping where check.texts (no cast: this is the hot path)
    found = call.arguments
    if args is None:  # any arguments
        unnamed: str | None = ""
    elif check.texts and found is not None and not check.exact:
        if not args.items() <= found.items():  # str values: ``==`` is their JSON comparison
            return None
        if len(found) == len(args):
            unnamed = ""
        else:
            unnamed = ", ".join([repr(key) for key in found if key not in args])
    else:
        try:
            unnamed = _fit_arguments(check, found)
        except Refused as refused:
            raise refused.error(check.__name__, call) from refused.__cause__
    if unnamed is None or check.result is None:
        return unnamed
    result = results.get(id(call)) if results else None
    try:
        if result is None or not result_matches(check.result, result.content):
            return None
    except Refused as refused:
        raise refused.error(check.__name__, call) from refused.__cause__
    return unnamed


def _fit_arguments(check: type[CalledToolCheck], found: Mapping[str, Any] | None) -> str | None:
    args = check.args
    if args is None:
        return ""
    if found is None:
        return None
    if callable(args):
        return "" if ask(args, found, "the arguments") else None
    if check.texts:  # str values: ``==`` is their JSON comparison, done for all at once
        if not args.items() <= found.items():
            return None
    else:
        partial = not check.exact
        for key, value in args.items():
            if key not in found:
                return None
            try:
                if not value_matches(found[key], value, partial):
                    return None
            except Refused as refused:
                refused.where = f"the argument {key!r}"
                raise
    if check.exact:
        for key in found:
            if key not in args and key not in check.ignore:
                return None
        return ""
    if len(found) == len(args) and check.texts:
        return ""
    return ", ".join(map(repr, unnamed_keys(found, args, "")))


def mismatch(
    check: type[CalledToolCheck],
    call: ToolCall,
    results: Mapping[int, ToolResult] | None = None,
) -> str | None:
    """Why ``call`` is not the call ``check`` expects (name, kind, arguments, result), or
    None."""
    if fit(check, call, results) is not None:
        return None
    if not selects(check, call):
        if check.kind is not None and (call.kind != check.kind or call.server != check.server):
            made = f"{call.kind}{f' {call.server}' if call.server else ''}"
            return f"expected {check.named()}, got {call.name or 'a call with no name'} ({made})"
        return f"expected {check.tool}, got {call.name or 'a call with no name'}"
    if _fit_arguments(check, call.arguments) is not None:  # the arguments fit: the result not
        result = results.get(id(call)) if results else None
        if result is None:
            return "no result recorded"
        content = preview(result.content or "", 80)
        if isinstance(check.result, str):
            return f"its result {content} does not contain {check.result!r}"
        return f"its result {content} does not match {shown(check.result)}"
    if call.arguments is None:
        return "its arguments are not a JSON object"
    if callable(check.args):
        return f"rejected by {callable_name(check.args)}"
    assert check.args is not None
    problems = []
    for key, value in check.args.items():
        if key not in call.arguments:
            problems.append(f"{key!r} missing, expected {shown(value)}")
        elif not value_matches(call.arguments[key], value, not check.exact):
            problems.append(f"{key!r} is {shown(call.arguments[key])}, expected {shown(value)}")
    extra = [key for key in call.arguments if key not in check.args and key not in check.ignore]
    if check.exact and extra:
        problems.append(f"unexpected {', '.join(map(repr, extra))} (exact=True)")
    return "; ".join(problems)


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
    *,
    ignore: Iterable[str] = (),
    kind: str | None = None,
    server: str | None = None,
    result: ResultCheck = None,
    **attributes: Any,
) -> type[Intent]:
    """The checked ``factory(name, args=..., exact=..., ...)`` leaf on ``base``; ``what`` is
    its description's verb phrase ("called the tool")."""
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
    ignored = _ignored(factory, tool, ignore, args, exact)
    if kind is not None and kind not in KINDS:
        raise ValueError(
            f"{factory}({tool!r}, kind={kind!r}) must be one of {', '.join(map(repr, KINDS))}"
        )
    if server is not None and (kind != "mcp" or not isinstance(server, str)):
        raise ValueError(
            f"{factory}({tool!r}, server={server!r}): server= names an MCP server: use it with "
            "kind='mcp', e.g. kind='mcp', server='docs'"
        )
    options = []
    if isinstance(args, Mapping):
        for key in args:
            if not isinstance(key, str):
                raise TypeError(
                    f"{factory}({tool!r}, args=...) keys must be argument names (str), got {key!r}"
                )
        listed = shown(dict(args))
        options.append(f"args={dict(args)!r}" + (", exact=True" if exact else ""))
        described = (
            f" with exactly the arguments {listed}" if exact else f" with arguments {listed}"
        )
        frozen: Any = dict(args)
    elif args is not None:
        options.append(f"args={callable_name(args)}")
        described = f" with arguments accepted by {callable_name(args)}"
        frozen = staticmethod(args)
    else:
        described = ""
        frozen = None
    if ignored:
        options.append(f"ignore={sorted(ignored)!r}")
        described += f" (ignoring {', '.join(map(repr, sorted(ignored)))})"
    if kind is not None:
        options.append(f"kind={kind!r}" + (f", server={server!r}" if server else ""))
        described += f" as {'an' if kind == 'mcp' else 'a'} {kind} call"
        described += f" of the server {server!r}" if server else ""
    if result is not None:
        options.append(f"result={shown(result)}")
        described += f" and a result holding {shown(result)}"
    glob = bool(_GLOB & set(tool))
    rule = (base.__name__, tool, kind, server, exact, sorted(ignored), frozen, result, attributes)
    option = "".join(f", {text}" for text in options)
    return build(
        base,
        f"{factory}({tool!r}{option})",
        f"The model {what} {'a tool matching ' if glob else ''}{tool!r}{described}.",
        tool=tool,
        args=frozen,
        exact=exact,
        texts=isinstance(args, Mapping) and all(type(value) is str for value in args.values()),
        ignore=ignored,
        kind=kind,
        server=server,
        result=staticmethod(result) if callable(result) else result,
        pattern=re.compile(fnmatch.translate(tool)).match if glob else None,
        key=repr(rule) if plain(rule) else object(),
        named_only=not glob and kind is None,
        **attributes,
    )


def _ignored(
    factory: str, tool: str, ignore: Iterable[str], args: object, exact: bool
) -> frozenset[str]:
    if isinstance(ignore, str) or not all(isinstance(key, str) for key in ignore):
        raise TypeError(
            f"{factory}({tool!r}, ignore={ignore!r}) takes argument names, e.g. "
            "ignore=['request_id']"
        )
    ignored = frozenset(ignore)
    if ignored and not exact:
        raise ValueError(
            f"{factory}({tool!r}, ignore={sorted(ignored)!r}): ignore= leaves keys out of "
            "exact=True matching; without exact=True every key args= does not name is allowed"
        )
    both = sorted(ignored & set(args)) if isinstance(args, Mapping) else []
    if both:
        raise ValueError(f"{factory}({tool!r}): {both[0]!r} is both in args= and in ignore=")
    return ignored


def CalledTool(
    name: str,
    args: ArgsCheck | None = None,
    *,
    exact: bool = False,
    ignore: Iterable[str] = (),
    kind: str | None = None,
    server: str | None = None,
    result: ResultCheck = None,
) -> type[Intent]:
    """The check "the model called the tool ``name``" (a name or a glob pattern), optionally
    with its arguments (``args``: a dict they contain, ``exact=True`` for exactly that dict
    less ``ignore``, or a callable that accepts them), its kind of call and MCP server, and
    its result. The rules and the errors: docs/agents.md ("Tool calls")."""
    return called_tool(
        CalledToolCheck,
        "CalledTool",
        name,
        args,
        exact,
        "called the tool",
        ignore=ignore,
        kind=kind,
        server=server,
        result=result,
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
