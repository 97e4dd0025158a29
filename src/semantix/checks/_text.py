"""Structural checks on the text: substrings, equality, ends, regular expressions, length.

Case defaults, offsets and options: docs/structural-checks.md. The same arguments give the same
class.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any, ClassVar

from semantix._cache import memo
from semantix._intent import Intent
from semantix._text import preview
from semantix.checks._base import Structural, build, check_flag, check_text, no_text, verdict
from semantix.checks._patterns import check_bound, compile_pattern, search
from semantix.judges._base import Verdict
from semantix.outputs import OutputView

__all__ = [
    "Contains",
    "ContainsAll",
    "ContainsAny",
    "EndsWith",
    "Equals",
    "Length",
    "Matches",
    "StartsWith",
]

_CACHE_SIZE = 256


class ContainsCheck(Structural, abstract=True):
    """Base of ``Contains``, ``ContainsAll`` and ``ContainsAny`` (``mode`` "all" or "any")."""

    needles: ClassVar[tuple[str, ...]]
    case_sensitive: ClassVar[bool]
    mode: ClassVar[str]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        haystack, where = (view.text, None) if cls.case_sensitive else _fold(view.text)
        found: dict[str, int] = {}
        missing: list[str] = []
        for needle in cls.needles:
            at = haystack.find(needle if cls.case_sensitive else needle.casefold())
            if at >= 0:
                found[needle] = at if where is None else where[at]
            else:
                missing.append(needle)
        passed = not missing if cls.mode == "all" else bool(found)
        how = "" if cls.case_sensitive else " (ignoring case)"
        shown = ", ".join(f"{needle!r} at character {at}" for needle, at in found.items())
        parts = [f"found {shown}"] if found else []
        if missing:
            parts.append(
                f"{_listed(missing)} not found{how} in {len(view.text)} characters of text"
            )
        return verdict(passed, "; ".join(parts))


def Contains(needle: str | float, *, case_sensitive: bool = False) -> type[Intent]:
    """The check "the text contains ``needle``", ignoring case unless ``case_sensitive``; a
    number is looked for by its text (``Contains(42)`` is ``Contains("42")``).

    Raises:
        TypeError: ``needle`` is not a str or a number (a bool is not a number here).
        ValueError: ``needle`` is blank, or a float without a plain decimal text (``1e20``).
    """
    text = _needle(needle, "Contains")
    return _contains((text,), "one", check_flag(case_sensitive, "Contains", "case_sensitive"))


def ContainsAll(
    *needles: str | float | Sequence[str | int | float], case_sensitive: bool = False
) -> type[Intent]:
    """The check "the text contains every one of ``needles``" (``ContainsAll("a", "b")`` or a
    list); a TypeError or ValueError for no needle, or one that `Contains` would refuse."""
    checked = _needles(needles, factory="ContainsAll")
    return _contains(checked, "all", check_flag(case_sensitive, "ContainsAll", "case_sensitive"))


def ContainsAny(
    *needles: str | float | Sequence[str | int | float], case_sensitive: bool = False
) -> type[Intent]:
    """The check "the text contains at least one of ``needles``"; a TypeError or ValueError for
    no needle, or one that `Contains` would refuse."""
    checked = _needles(needles, factory="ContainsAny")
    return _contains(checked, "any", check_flag(case_sensitive, "ContainsAny", "case_sensitive"))


@memo(maxsize=_CACHE_SIZE)
def _contains(needles: tuple[str, ...], mode: str, case_sensitive: bool) -> type[Intent]:
    factory = {"one": "Contains", "all": "ContainsAll", "any": "ContainsAny"}[mode]
    option = ", case_sensitive=True" if case_sensitive else ""
    name = f"{factory}({', '.join(repr(needle) for needle in needles)}{option})"
    how = "" if case_sensitive else " (ignoring case)"
    which = {"one": "", "all": "all of ", "any": "at least one of "}[mode]
    description = f"The text contains {which}{_listed(needles)}{how}."
    return build(
        ContainsCheck,
        name,
        description,
        needles=needles,
        mode="any" if mode == "any" else "all",
        case_sensitive=case_sensitive,
    )


#: The factory and the verb of each mode of `EqualsCheck`.
_EQUALS = {
    "equals": ("Equals", "equals"),
    "starts": ("StartsWith", "starts with"),
    "ends": ("EndsWith", "ends with"),
}


class EqualsCheck(Structural, abstract=True):
    """Base of ``Equals``, ``StartsWith`` and ``EndsWith`` (``mode`` "equals", "starts", "ends")."""

    expected: ClassVar[str]
    case_sensitive: ClassVar[bool]
    strip: ClassVar[bool]
    mode: ClassVar[str] = "equals"

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        text = view.text.strip() if cls.strip else view.text
        expected = cls.expected.strip() if cls.strip else cls.expected
        folded, where = (text, None) if cls.case_sensitive else _fold(text)
        wanted = expected if cls.case_sensitive else expected.casefold()
        if cls.mode == "starts":
            passed, edge = folded.startswith(wanted), text[: len(expected)]
        elif cls.mode == "ends":
            passed, edge = folded.endswith(wanted), text[max(0, len(text) - len(expected)) :]
        else:
            passed, edge = folded == wanted, text
        verb = _EQUALS[cls.mode][1]
        if passed:
            return verdict(True, f"the text {verb} {preview(cls.expected, 80)}")
        if cls.mode != "equals":
            return verdict(
                False, f"the text {verb} {preview(edge, 80)}, not {preview(cls.expected, 80)}"
            )
        at = next(
            (i for i, (a, b) in enumerate(zip(folded, wanted, strict=False)) if a != b),
            min(len(folded), len(wanted)),
        )
        lead = len(view.text) - len(view.text.lstrip()) if cls.strip else 0
        return verdict(
            False,
            f"the text {preview(view.text, 80)} differs from {preview(cls.expected, 80)} "
            f"from character {lead + (at if where is None else where[at])} on",
        )


def Equals(expected: str, *, case_sensitive: bool = True, strip: bool = True) -> type[Intent]:
    """The check "the text is exactly ``expected``" (surrounding whitespace ignored by default);
    a TypeError when ``expected`` is not a str."""
    if not isinstance(expected, str):
        raise TypeError(
            f"Equals() needs the expected text as a str, e.g. Equals('OK'); got "
            f"{type(expected).__name__} {expected!r:.80}"
        )
    return _equals(expected, *_options("Equals", case_sensitive, strip), "equals")


def StartsWith(prefix: str, *, case_sensitive: bool = True, strip: bool = True) -> type[Intent]:
    """The check "the text starts with ``prefix``" (leading whitespace ignored by default); a
    TypeError or ValueError when ``prefix`` is not a str, or is blank."""
    text = check_text(prefix, factory="StartsWith", what="prefix", example="'Dear'")
    return _equals(text, *_options("StartsWith", case_sensitive, strip), "starts")


def EndsWith(suffix: str, *, case_sensitive: bool = True, strip: bool = True) -> type[Intent]:
    """The check "the text ends with ``suffix``" (trailing whitespace ignored by default); a
    TypeError or ValueError when ``suffix`` is not a str, or is blank."""
    text = check_text(suffix, factory="EndsWith", what="suffix", example="'Best regards'")
    return _equals(text, *_options("EndsWith", case_sensitive, strip), "ends")


def _options(factory: str, case_sensitive: object, strip: object) -> tuple[bool, bool]:
    return (
        check_flag(case_sensitive, factory, "case_sensitive"),
        check_flag(strip, factory, "strip"),
    )


@memo(maxsize=_CACHE_SIZE)
def _equals(expected: str, case_sensitive: bool, strip: bool, mode: str) -> type[Intent]:
    options = ("" if case_sensitive else ", case_sensitive=False") + (
        "" if strip else ", strip=False"
    )
    notes = [] if case_sensitive else ["ignoring case"]
    notes += ["ignoring surrounding whitespace"] if strip else []
    how = f" ({', '.join(notes)})" if notes else ""
    factory, verb = _EQUALS[mode]
    return build(
        EqualsCheck,
        f"{factory}({expected!r}{options})",
        f"The text {verb} {expected!r}{how}.",
        expected=expected,
        case_sensitive=case_sensitive,
        strip=strip,
        mode=mode,
    )


class MatchesCheck(Structural, abstract=True):
    pattern: ClassVar[Any]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        with check_bound():
            match = search(cls.pattern, view.text)
        if match is None:
            return verdict(
                False,
                f"no match for {cls.pattern.pattern!r} in {len(view.text)} characters of text",
            )
        return verdict(True, f"matched {preview(match.group(0), 80)} at character {match.start()}")


def Matches(pattern: str | re.Pattern[str], flags: int | re.RegexFlag = 0) -> type[Intent]:
    """The check "the regular expression ``pattern`` matches somewhere in the text" (``re.search``
    with ``re`` ``flags``, time-bounded: `semantix.checks._patterns`); anchor it (``^...$``) to
    match the whole text. A TypeError when ``pattern`` is neither a str nor a compiled pattern
    or ``flags`` no int, a ValueError when ``pattern`` is invalid or empty."""
    if isinstance(flags, bool) or not isinstance(flags, int):
        raise TypeError(f"Matches() flags must be re flags, e.g. re.IGNORECASE; got {flags!r}")
    if isinstance(pattern, re.Pattern):
        if flags:
            raise ValueError(
                f"Matches() got a compiled pattern {pattern.pattern!r} and flags={flags!r}; "
                "compile the pattern with its flags, or pass the pattern as a str"
            )
        return _matches(pattern.pattern, pattern.flags)
    source = check_text(pattern, factory="Matches", what="pattern", example=r"r'order #\d+'")
    return _matches(source, int(flags))


@memo(maxsize=_CACHE_SIZE)
def _matches(source: str, flags: int) -> type[Intent]:
    try:
        compiled = compile_pattern(source, flags)
    except ValueError as exc:
        raise ValueError(
            f"Matches() got an invalid regular expression {source!r}: {exc}; fix the pattern "
            "(or re.escape() a literal text, or use Contains)"
        ) from None
    shown = flags & ~re.UNICODE  # the default of str patterns, not worth naming
    option = f", flags={re.RegexFlag(shown)!r}" if shown else ""
    return build(
        MatchesCheck,
        f"Matches({source!r}{option})",
        f"The text matches the regular expression {source!r}.",
        pattern=compiled,
    )


_UNITS = {"chars": "characters", "words": "words"}


class LengthCheck(Structural, abstract=True):
    """Base of ``Length``: ``bounds`` maps "chars"/"words" to (min or None, max or None)."""

    bounds: ClassVar[tuple[tuple[str, int | None, int | None], ...]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        counts = {"chars": len(view.text), "words": len(view.text.split())}
        problems, facts = [], []
        for unit, low, high in cls.bounds:
            count, word = counts[unit], _UNITS[unit]
            facts.append(f"{count} {word}")
            if low is not None and count < low:
                problems.append(f"{count} {word}, fewer than the minimum {low}")
            if high is not None and count > high:
                problems.append(f"{count} {word}, more than the maximum {high}")
        if problems:
            return verdict(False, "; ".join(problems))
        return verdict(True, f"{', '.join(facts)}: within {_bounds_text(cls.bounds)}")


def Length(
    *,
    min_chars: int | None = None,
    max_chars: int | None = None,
    min_words: int | None = None,
    max_words: int | None = None,
) -> type[Intent]:
    """The check "the text's length is within the bounds given" (words are whitespace-separated);
    a TypeError for a bound that is no int, a ValueError for none, a negative one, or a minimum
    above its maximum."""
    bounds = []
    for unit, low, high in (("chars", min_chars, max_chars), ("words", min_words, max_words)):
        for what, value in ((f"min_{unit}", low), (f"max_{unit}", high)):
            if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
                raise TypeError(f"Length({what}=...) must be an int, got {value!r}; e.g. {what}=80")
            if value is not None and value < 0:
                raise ValueError(f"Length({what}={value!r}) must be 0 or more; e.g. {what}=80")
        if low is not None and high is not None and low > high:
            raise ValueError(
                f"Length(min_{unit}={low}, max_{unit}={high}): the minimum exceeds the maximum"
            )
        if low is not None or high is not None:
            bounds.append((unit, low, high))
    if not bounds:
        raise ValueError(
            "Length() needs at least one bound: min_chars, max_chars, min_words or max_words, "
            "e.g. Length(max_words=80)"
        )
    return _length(tuple(bounds))


@memo(maxsize=_CACHE_SIZE)
def _length(bounds: tuple[tuple[str, int | None, int | None], ...]) -> type[Intent]:
    arguments = ", ".join(
        f"{side}_{unit}={value}"
        for unit, low, high in bounds
        for side, value in (("min", low), ("max", high))
        if value is not None
    )
    return build(
        LengthCheck,
        f"Length({arguments})",
        f"The text has {_bounds_text(bounds)}.",
        bounds=bounds,
    )


def _bounds_text(bounds: Sequence[tuple[str, int | None, int | None]]) -> str:
    return " and ".join(
        f"between {low} and {high} {_UNITS[unit]}"
        if low is not None and high is not None
        else f"at least {low} {_UNITS[unit]}"
        if low is not None
        else f"at most {high} {_UNITS[unit]}"
        for unit, low, high in bounds
    )


def _needles(values: tuple[object, ...], *, factory: str) -> tuple[str, ...]:
    flat = [
        item
        for value in values
        for item in (value if isinstance(value, (list, tuple)) else [value])
    ]
    if not flat:
        raise ValueError(
            f"{factory}() needs at least one substring, e.g. {factory}('refund', 'order')"
        )
    return tuple(dict.fromkeys(_needle(value, factory) for value in flat))


def _needle(value: object, factory: str) -> str:
    if isinstance(value, float) and (not math.isfinite(value) or "e" in repr(value)):
        raise ValueError(
            f"{factory}({value!r}): a number is looked for by its text, and {value!r} has no "
            f"plain decimal one; pass the text the reply should hold, e.g. {factory}('1000000')"
        )
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value)
    return check_text(value, factory=factory, what="substring", example="'refund'")


def _fold(text: str) -> tuple[str, list[int] | None]:
    """``text.casefold()`` and, when folding changed its length ("ß" folds to "ss"), the index in
    ``text`` of each folded character and of the end (None when they line up)."""
    folded = text.casefold()
    if len(folded) == len(text):  # folding never shortens a character: they line up
        return folded, None
    return folded, [i for i, char in enumerate(text) for _ in char.casefold()] + [len(text)]


def _listed(values: Sequence[str]) -> str:
    return ", ".join(repr(value) for value in values)
