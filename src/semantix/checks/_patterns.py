"""Regular expressions on what a model wrote, run with a time bound: a pattern never hangs a run.

Every pattern semantix applies to an output runs on the ``regex`` engine (``re``'s syntax, plus a
``timeout``). One check's matches share one bound (`check_bound`): all of them together may take
`TIMEOUT_S` seconds, so a pattern applied to 200 values cannot take 200 times the bound; past it
a `PatternTimeoutError`, never a pass (which patterns, and why this engine:
docs/structural-checks.md, "Patterns never hang").
"""

from __future__ import annotations

import contextlib
import contextvars
import re
import time
import types
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, cast

from semantix.errors import PatternTimeoutError

__all__ = ["BOUNDED", "TIMEOUT_S", "bounded", "check_bound", "compile_pattern", "search"]

#: The most seconds the matches of one check may take on an output, all together (a module
#: setting: ``semantix.checks._patterns.TIMEOUT_S = 5.0`` raises it for the process).
TIMEOUT_S = 1.0

#: When the check now running must be done matching (`time.monotonic`), or None outside one.
_DEADLINE: contextvars.ContextVar[float | None] = contextvars.ContextVar(
    "semantix_pattern_deadline", default=None
)

F = TypeVar("F", bound=Callable[..., Any])
T = TypeVar("T")


def compile_pattern(source: str, flags: int = 0) -> Any:
    """``source`` compiled by the bounded engine, with ``re`` flags (translated by name), or a
    ValueError with the engine's message."""
    import regex

    engine_flags = 0
    for flag in re.RegexFlag:
        if flags & flag:
            engine_flags |= getattr(regex, str(flag.name))
    try:
        return regex.compile(source, engine_flags)
    except regex.error as exc:
        raise ValueError(str(exc)) from None
    except RecursionError:
        raise ValueError("the pattern is nested too deeply to compile") from None


@contextlib.contextmanager
def check_bound() -> Iterator[None]:
    """The matches made inside share one deadline, `TIMEOUT_S` from now (a check's bound; inside
    another ``check_bound`` the outer deadline holds)."""
    if _DEADLINE.get() is not None:
        yield
        return
    token = _DEADLINE.set(time.monotonic() + TIMEOUT_S)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def search(pattern: Any, text: str) -> Any:
    """``pattern.search(text)`` within what is left of the check's bound (a match, or None; past
    it a `PatternTimeoutError`)."""
    return _within(lambda timeout: pattern.search(text, timeout=timeout), pattern, text)


def _within(run: Callable[[float], T], pattern: Any, text: object) -> T:
    deadline = _DEADLINE.get()
    left = TIMEOUT_S if deadline is None else deadline - time.monotonic()
    try:
        if left <= 0:
            raise TimeoutError
        return run(left)
    except TimeoutError:
        source = getattr(pattern, "pattern", pattern)
        size = f"{len(text)} characters" if isinstance(text, str) else "a value"
        raise PatternTimeoutError(
            f"the pattern {source!r} ran past its time bound of {TIMEOUT_S:g} s on {size} of "
            "the output (the bound of all the matches of one check together): it backtracks "
            "catastrophically there (nested repetition such as (a+)+ or (a|aa)+ does); rewrite "
            "it without nested repetition, or raise semantix.checks._patterns.TIMEOUT_S if the "
            "texts are simply long"
        ) from None


class _Engine:
    """The ``re`` that semantix's copies of library functions see: ``regex``, with the bound."""

    def __getattr__(self, name: str) -> Any:
        import regex

        function = getattr(regex, name)
        if name not in ("search", "match", "fullmatch"):
            return function
        return lambda pattern, string, flags=0, **options: _within(
            lambda timeout: function(pattern, string, flags, timeout=timeout, **options),
            pattern,
            string,
        )


#: A stand-in for the ``re`` module: ``search``, ``match`` and ``fullmatch`` bounded.
BOUNDED = _Engine()


def bounded(function: F) -> F:
    """A copy of a library's ``function`` whose module-level ``re`` is `BOUNDED`, as it is for
    the functions of the same library it calls by name (copied the same way, recursively): the
    library's own code, unchanged, on the bounded engine (jsonschema, the RFC 9535 filters)."""
    return cast("F", _copy(function, function.__module__.partition(".")[0], {}))


def _copy(function: Any, package: str, done: dict[Any, Any]) -> Any:
    if function in done:
        return done[function]
    scope = dict(function.__globals__)
    copied = types.FunctionType(
        function.__code__, scope, function.__name__, function.__defaults__, function.__closure__
    )
    copied.__kwdefaults__ = function.__kwdefaults__
    done[function] = copied
    if isinstance(scope.get("re"), types.ModuleType) and scope["re"].__name__ in ("re", "regex"):
        scope["re"] = BOUNDED
    for name in _names(function.__code__):
        helper = scope.get(name)
        if isinstance(helper, types.FunctionType) and helper.__module__.split(".")[0] == package:
            scope[name] = _copy(helper, package, done)
    return copied


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code nested in it (comprehensions, lambdas) use."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, types.CodeType):
            names |= _names(constant)
    return names
