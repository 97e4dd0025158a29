"""Which tool result is an error: the provider's flag where it has one, and the rule for what a
result says (semantix's default, or yours, set once with `set_tool_error_rule`).

The default rule (docs/agents.md, "Which result is an error"): a result is an error when its
text starts with ``Error:``, ``Failed:``, ``Failure:`` or ``Exception:`` (any case), or when it
is a JSON object with a true ``"error"``, ``"errors"``, ``"isError"`` or ``"is_error"``, a
``"status"`` of ``"error"``, ``"failed"`` or ``"failure"`` (any case), or ``"success"`` or
``"ok"`` false. A provider's flag (Anthropic ``is_error``, LangChain ``status="error"``, ...)
makes a result an error whatever it says; no flag makes a result that says it failed a success.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from semantix._text import preview, read_model_json
from semantix.outputs._view import ToolCall

__all__ = ["ToolErrorRule", "default_tool_error_rule", "is_tool_error", "set_tool_error_rule"]

#: A rule: given a result's text (None when it has none) and the call it answers, whether the
#: result says the tool failed.
ToolErrorRule = Callable[[str | None, ToolCall], bool]

_ERROR_TEXT = re.compile(r"\s*(?:error|failed|failure|exception)\s*:", re.IGNORECASE)
_FAILED = frozenset({"error", "failed", "failure"})
#: A JSON result names one of these, or the rule has nothing to read in it.
_KEYS = ('"error', '"isError"', '"is_error"', '"status"', '"success"', '"ok"')


def default_tool_error_rule(content: str | None, call: ToolCall) -> bool:
    """semantix's rule for what a result says (the module docstring); ``call`` is unused."""
    if content is None:
        return False
    if _ERROR_TEXT.match(content):
        return True
    if not content.lstrip().startswith("{") or not any(key in content for key in _KEYS):
        return False
    try:
        parsed = read_model_json(content)
    except ValueError:
        return False
    if not isinstance(parsed, dict):
        return False
    if any(parsed.get(name) for name in ("error", "errors", "isError", "is_error")):
        return True
    status = parsed.get("status")
    if isinstance(status, str) and status.lower() in _FAILED:
        return True
    return parsed.get("success") is False or parsed.get("ok") is False


_rule: list[ToolErrorRule] = [default_tool_error_rule]


def set_tool_error_rule(rule: ToolErrorRule | None) -> ToolErrorRule:
    """Use ``rule`` to decide which tool results say they failed, for every transcript read from
    now on in this process (set it once, e.g. in ``conftest.py``); None restores semantix's
    default. Returns the rule it replaces.

    ``rule(content, call)`` gets the result's text (None when it has none) and the `ToolCall` it
    answers, and returns a bool. A provider's own flag (``is_error``, ``status="error"``) still
    makes a result an error; build on the default with
    ``lambda content, call: default_tool_error_rule(content, call) or ...``.

    Raises:
        TypeError: ``rule`` is not callable.
    """
    if rule is not None and not callable(rule):
        raise TypeError(
            f"set_tool_error_rule() takes a function (content, call) -> bool, or None for the "
            f"default; got {rule!r:.80}"
        )
    previous = _rule[0]
    _rule[0] = default_tool_error_rule if rule is None else rule
    return previous


def is_tool_error(content: str | None, call: ToolCall, flagged: bool, where: str) -> bool:
    """Whether the result ``content`` of ``call`` is an error: ``flagged`` by the provider, or
    so by the rule. A rule that raises or answers no bool is a TypeError naming it and ``where``."""
    if flagged:
        return True
    rule = _rule[0]
    try:
        answer = rule(content, call)
    except Exception as exc:
        raise TypeError(
            f"the tool error rule {_name(rule)} raised {exc!r} on the result of {call} at "
            f"{where} ({'no content' if content is None else preview(content, 80)}); make it "
            "return False for results it does not recognise"
        ) from exc
    if not isinstance(answer, bool):
        raise TypeError(
            f"the tool error rule {_name(rule)} returned {answer!r:.60} "
            f"({type(answer).__name__}) on the result of {call} at {where}; it must return "
            "True (the tool failed) or False"
        )
    return answer


def _name(rule: object) -> str:
    return str(getattr(rule, "__qualname__", None) or repr(rule))
