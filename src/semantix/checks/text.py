"""Structural checks on the text: substrings, equality, regular expressions, length.

``Contains``, ``ContainsAll`` and ``ContainsAny`` ignore case by default (``case_sensitive=True``
to match exactly); ``Equals`` and ``Matches`` are case-sensitive by default (``Equals(...,
case_sensitive=False)``, ``Matches(..., flags=re.IGNORECASE)``), as a regular expression is.
The same arguments give the same class.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import ClassVar

from semantix.cache import memo
from semantix.checks.base import Structural, build, check_text, no_text, verdict
from semantix.intent import Intent
from semantix.judges.base import Verdict
from semantix.outputs import OutputView
from semantix.text import preview

__all__ = ["Contains", "ContainsAll", "ContainsAny", "Equals", "Length", "Matches"]

_CACHE_SIZE = 256


class ContainsCheck(Structural, abstract=True):
    """Base of ``Contains``, ``ContainsAll`` and ``ContainsAny``."""

    needles: ClassVar[tuple[str, ...]]
    case_sensitive: ClassVar[bool]
    #: "all": every needle must be found; "any": at least one.
    mode: ClassVar[str]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        haystack = view.text if cls.case_sensitive else view.text.casefold()
        found: dict[str, int] = {}
        missing: list[str] = []
        for needle in cls.needles:
            at = haystack.find(needle if cls.case_sensitive else needle.casefold())
            if at >= 0:
                found[needle] = at
            else:
                missing.append(needle)
        passed = not missing if cls.mode == "all" else bool(found)
        how = "" if cls.case_sensitive else " (ignoring case)"
        parts = []
        if found:
            parts.append(
                "found "
                + ", ".join(f"{needle!r} at character {at}" for needle, at in found.items())
            )
        if missing:
            parts.append(
                f"{_listed(missing)} not found{how} in {len(view.text)} characters of text"
            )
        return verdict(passed, "; ".join(parts))


def Contains(needle: str, *, case_sensitive: bool = False) -> type[Intent]:
    """The check "the text contains ``needle``", ignoring case unless ``case_sensitive``.

    Raises:
        TypeError: ``needle`` is not a str.
        ValueError: ``needle`` is empty or only whitespace.
    """
    text = check_text(needle, factory="Contains", what="substring", example="'refund'")
    return _contains((text,), "one", _flag(case_sensitive, "Contains"))


def ContainsAll(*needles: str | Sequence[str], case_sensitive: bool = False) -> type[Intent]:
    """The check "the text contains every one of ``needles``" (``ContainsAll("a", "b")`` or a list).

    Raises:
        TypeError: a needle is not a str.
        ValueError: no needle, or an empty one.
    """
    checked = _needles(needles, factory="ContainsAll")
    return _contains(checked, "all", _flag(case_sensitive, "ContainsAll"))


def ContainsAny(*needles: str | Sequence[str], case_sensitive: bool = False) -> type[Intent]:
    """The check "the text contains at least one of ``needles``".

    Raises:
        TypeError: a needle is not a str.
        ValueError: no needle, or an empty one.
    """
    checked = _needles(needles, factory="ContainsAny")
    return _contains(checked, "any", _flag(case_sensitive, "ContainsAny"))


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


class EqualsCheck(Structural, abstract=True):
    """Base of ``Equals``."""

    expected: ClassVar[str]
    case_sensitive: ClassVar[bool]
    strip: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        text = view.text.strip() if cls.strip else view.text
        expected = cls.expected.strip() if cls.strip else cls.expected
        if not cls.case_sensitive:
            text, expected = text.casefold(), expected.casefold()
        if text == expected:
            return verdict(True, f"the text equals {preview(cls.expected, 80)}")
        at = next(
            (i for i, (a, b) in enumerate(zip(text, expected, strict=False)) if a != b),
            min(len(text), len(expected)),
        )
        return verdict(
            False,
            f"the text {preview(view.text, 80)} differs from {preview(cls.expected, 80)} "
            f"from character {at} on",
        )


def Equals(expected: str, *, case_sensitive: bool = True, strip: bool = True) -> type[Intent]:
    """The check "the text is exactly ``expected``" (surrounding whitespace ignored by default).

    Raises:
        TypeError: ``expected`` is not a str.
    """
    if not isinstance(expected, str):
        raise TypeError(
            f"Equals() needs the expected text as a str, e.g. Equals('OK'); got "
            f"{type(expected).__name__} {expected!r:.80}"
        )
    return _equals(expected, _flag(case_sensitive, "Equals"), _flag(strip, "Equals", "strip"))


@memo(maxsize=_CACHE_SIZE)
def _equals(expected: str, case_sensitive: bool, strip: bool) -> type[Intent]:
    options = ("" if case_sensitive else ", case_sensitive=False") + (
        "" if strip else ", strip=False"
    )
    notes = [] if case_sensitive else ["ignoring case"]
    notes += ["ignoring surrounding whitespace"] if strip else []
    how = f" ({', '.join(notes)})" if notes else ""
    return build(
        EqualsCheck,
        f"Equals({expected!r}{options})",
        f"The text equals {expected!r}{how}.",
        expected=expected,
        case_sensitive=case_sensitive,
        strip=strip,
    )


class MatchesCheck(Structural, abstract=True):
    """Base of ``Matches``."""

    pattern: ClassVar[re.Pattern[str]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        match = cls.pattern.search(view.text)
        if match is None:
            return verdict(
                False,
                f"no match for {cls.pattern.pattern!r} in {len(view.text)} characters of text",
            )
        return verdict(True, f"matched {preview(match.group(0), 80)} at character {match.start()}")


def Matches(pattern: str | re.Pattern[str], flags: int | re.RegexFlag = 0) -> type[Intent]:
    """The check "the regular expression ``pattern`` matches somewhere in the text" (``re.search``).

    Anchor the pattern (``^...$``, or ``re.fullmatch`` semantics with ``\\A...\\Z``) to match
    the whole text. ``flags`` are ``re`` flags, e.g. ``re.IGNORECASE | re.MULTILINE``.

    Raises:
        TypeError: ``pattern`` is neither a str nor a compiled pattern, or ``flags`` is no int.
        ValueError: ``pattern`` is not a valid regular expression, or is empty.
    """
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
        compiled = re.compile(source, flags)
    except re.error as exc:
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
            count = counts[unit]
            word = "characters" if unit == "chars" else "words"
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
    """The check "the text's length is within the bounds given" (words are whitespace-separated).

    Raises:
        TypeError: a bound is not an int.
        ValueError: no bound is given, a bound is negative, or a minimum exceeds its maximum.
    """
    given = {
        "min_chars": min_chars,
        "max_chars": max_chars,
        "min_words": min_words,
        "max_words": max_words,
    }
    for what, value in given.items():
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise TypeError(f"Length({what}=...) must be an int, got {value!r}; e.g. {what}=80")
        if value is not None and value < 0:
            raise ValueError(f"Length({what}={value!r}) must be 0 or more; e.g. {what}=80")
    if all(value is None for value in given.values()):
        raise ValueError(
            "Length() needs at least one bound: min_chars, max_chars, min_words or max_words, "
            "e.g. Length(max_words=80)"
        )
    bounds = []
    for unit, low, high in (("chars", min_chars, max_chars), ("words", min_words, max_words)):
        if low is not None and high is not None and low > high:
            raise ValueError(
                f"Length(min_{unit}={low}, max_{unit}={high}): the minimum exceeds the maximum"
            )
        if low is not None or high is not None:
            bounds.append((unit, low, high))
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
    parts = []
    for unit, low, high in bounds:
        word = "characters" if unit == "chars" else "words"
        if low is not None and high is not None:
            parts.append(f"between {low} and {high} {word}")
        elif low is not None:
            parts.append(f"at least {low} {word}")
        else:
            parts.append(f"at most {high} {word}")
    return " and ".join(parts)


def _needles(values: tuple[str | Sequence[str], ...], *, factory: str) -> tuple[str, ...]:
    flat: list[object] = []
    for value in values:
        if isinstance(value, (list, tuple)):
            flat.extend(value)
        else:
            flat.append(value)
    if not flat:
        raise ValueError(
            f"{factory}() needs at least one substring, e.g. {factory}('refund', 'order')"
        )
    example = "'refund', 'order'"
    return tuple(
        dict.fromkeys(
            check_text(v, factory=factory, what="substring", example=example) for v in flat
        )
    )


def _flag(value: object, factory: str, what: str = "case_sensitive") -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{factory}({what}=...) must be True or False, got {value!r}")
    return value


def _listed(values: Sequence[str]) -> str:
    return ", ".join(repr(value) for value in values)
