"""Argument and result matchers of the tool checks (`semantix.checks.CalledTool`): values compare
as JSON, deeply (dicts as a subset unless exact), any other object with ``==`` (dirty-equals),
a function must answer True or False; a matcher that raises or answers anything else is an
error naming the check, the call and the matcher (`Refused`)."""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from typing import Any

from semantix._text import preview, read_model_json
from semantix.checks._json import json_equal

__all__ = [
    "Refused",
    "ask",
    "callable_name",
    "equal",
    "plain",
    "result_matches",
    "shown",
    "unnamed_keys",
    "value_matches",
]

_SCALARS = frozenset({str, int, float, bool, type(None)})


class Refused(Exception):
    """A matcher raised or answered something else than a bool (`fit` names the check)."""

    def __init__(self, matcher: object, where: str, answer: object, raised: bool) -> None:
        super().__init__()
        self.matcher, self.where, self.answer, self.raised = matcher, where, answer, raised

    def error(self, check: str, call: object) -> Exception:
        name = callable_name(self.matcher) + _where(self.matcher)
        on = f"on {self.where} of the call {call}"
        if self.raised:
            exc = self.answer
            return ValueError(
                f"{check}: the matcher {name} raised {type(exc).__name__}: {exc} {on}; "
                "a matcher must answer True or False for every call it may see (e.g. "
                "arguments.get('amount', 0) <= 50 for an argument a call may leave out)"
            )
        return TypeError(
            f"{check}: the matcher {name} answered {self.answer!r:.60} "
            f"({type(self.answer).__name__}) {on}, not True or False; return a bool (a check "
            "that counts any answer as a pass could never fail)"
        )


def ask(matcher: Callable[[Any], object], value: Any, where: str) -> bool:
    """``matcher(value)``, which must be a bool."""
    try:
        answer = matcher(value)
    except Exception as exc:
        raise Refused(matcher, where, exc, True) from exc
    return _boolean(matcher, where, answer)


def _boolean(matcher: object, where: str, answer: object) -> bool:
    if answer is True or answer is False:
        return answer
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(answer, numpy.bool_):
        return bool(answer)
    raise Refused(matcher, where, answer, False)


def unnamed_keys(found: Mapping[str, Any], expected: Mapping[str, Any], prefix: str) -> list[str]:
    """The keys of ``found`` that ``expected`` leaves out, nested ones as ``a.b``."""
    shown = []
    for key in found:  # a loop, not a comprehension: this is on every passing call's path
        if key not in expected:
            shown.append(f"{prefix}{key}")
        elif isinstance(expected[key], Mapping) and isinstance(found[key], Mapping):
            shown.extend(unnamed_keys(found[key], expected[key], f"{prefix}{key}."))
    return shown


def result_matches(expected: Any, content: str | None) -> bool:
    if content is None:
        return False
    if isinstance(expected, str):
        return expected in content
    if isinstance(expected, Mapping):
        try:
            document = read_model_json(content)
        except ValueError:
            return False
        return isinstance(document, dict) and value_matches(document, expected, True)
    if callable(expected) and not isinstance(expected, type):
        return ask(expected, content, "the result")
    return equal(expected, content, "the result")


def value_matches(found: Any, expected: Any, partial: bool = False) -> bool:
    """JSON values compare as JSON (``1 == 1.0``, ``True != 1``), deeply (``partial``: a dict
    matches a dict holding at least its keys); any other object with ``==`` (a dirty-equals
    matcher, a class of your own); a function is called with the value and must answer True or
    False."""
    if type(expected) in _SCALARS:
        return found == expected if type(found) is type(expected) else json_equal(found, expected)
    if isinstance(expected, Mapping):
        return (
            isinstance(found, Mapping)
            and (expected.keys() <= found.keys() if partial else found.keys() == expected.keys())
            and all(value_matches(found[key], value, partial) for key, value in expected.items())
        )
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(found, list)
            and len(found) == len(expected)
            and all(value_matches(f, e, partial) for f, e in zip(found, expected, strict=True))
        )
    if isinstance(expected, (bool, int, float, str)):  # their subclasses
        return json_equal(found, expected)
    if callable(expected) and not isinstance(expected, type):
        return ask(expected, found, "the argument")
    return equal(expected, found, "the argument")


def equal(expected: Any, found: Any, where: str) -> bool:
    """``expected == found``, which must be a bool (dirty-equals matchers answer one); a
    comparison that raises ``TypeError`` or ``ValueError`` is "not equal", as in dirty-equals;
    any other exception, or an answer that is not a bool, is `Refused`."""
    try:
        answer = expected == found
    except (TypeError, ValueError):
        return False
    except Exception as exc:
        raise Refused(expected, where, exc, True) from exc
    return _boolean(expected, where, answer)


def plain(value: object) -> bool:
    """Whether ``value`` holds only data (so its repr names the rule): no function, no
    matcher object."""
    if type(value) in _SCALARS:
        return True
    if isinstance(value, (list, tuple)):
        return all(map(plain, value))
    if isinstance(value, Mapping):
        return all(plain(key) and plain(item) for key, item in value.items())
    return False


def callable_name(check: object) -> str:
    """A function's name as written (``small_amount``, ``<lambda>``: no ``test_x.<locals>.``)."""
    name = getattr(check, "__qualname__", None)
    return str(name).rpartition("<locals>.")[2] if name else repr(check)


def _where(check: object) -> str:
    """`` (test_agent.py, line 18)`` for a function, so a lambda can be found."""
    code = getattr(check, "__code__", None)
    if code is None:
        return ""
    return f" ({code.co_filename.replace(chr(92), '/').rpartition('/')[2]}, line {code.co_firstlineno})"


def shown(value: Any) -> str:
    if callable(value) and not isinstance(value, type):
        return callable_name(value)
    return preview(repr(value), 80, quote=False)
