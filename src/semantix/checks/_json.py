"""Structural checks on JSON text: ``IsJSON`` and ``JSONPath`` (RFC 9535, the ``[json]`` extra);
``JSONSchema`` and ``MatchesModel`` build on the reading here: one RFC 8259 document, at most
`MAX_DEPTH` levels deep (docs/structural-checks.md), found in prose with ``extract=True``.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, ClassVar

from semantix._cache import memo
from semantix._intent import Intent, IntentMeta
from semantix._text import MAX_DEPTH, preview, read_model_json
from semantix.checks._base import Structural, build, check_flag, check_text, no_text, verdict
from semantix.checks._extract import candidates
from semantix.checks._patterns import bounded, check_bound, compile_pattern, search
from semantix.judges._base import Verdict
from semantix.models._deps import require
from semantix.outputs import OutputView

__all__ = ["MAX_DEPTH", "MAX_VIOLATIONS", "IsJSON", "JSONCheck", "JSONPath", "json_equal"]

#: How many violations (of a schema, of a model) a reason lists before "and N more".
MAX_VIOLATIONS = 20
_MISSING: Any = object()
_NO_JSON = "no ```json block and no balanced {…} or […] block"


class JSONCheck(Structural, abstract=True):
    """Base of the JSON checks: reads the document (found in prose when ``extract``), then
    ``check`` decides on it."""

    extract: ClassVar[bool] = False

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        if view.text is None:
            return no_text(view)
        read = read_json(view.text, extract=cls.extract)
        if isinstance(read, str):
            return verdict(False, read)
        document, text, where = read
        with check_bound():  # every pattern the check runs, together, within one bound
            passed, reason = cls.check(document, text)
        return verdict(passed, reason if where is None else f"{reason}; the JSON is {where}")

    @classmethod
    def check(cls, document: Any, text: str) -> tuple[bool, str]:
        """(passed, reason) on the parsed ``document`` (``text`` is its JSON)."""
        raise NotImplementedError(f"{cls.__name__} does not implement check(document, text)")


def read_json(text: str, *, extract: bool) -> tuple[Any, str, str | None] | str:
    """(document, its JSON text, where it was found or None) or the reason there is none."""
    failures: list[str] = []
    for body, where in candidates(text) if extract else [(text, None)]:
        document, problem = _load(body)
        if problem is None:
            return document, body, None if where is None else f"extracted from {where}"
        failures.append(f"{where or 'the text'} is not JSON ({problem}): {preview(body, 80)}")
    if not extract:
        return failures[0]
    if not failures:
        return f"no JSON found in the text ({_NO_JSON}): {preview(text, 80)}"
    others = f" (nor are the {len(failures) - 1} other blocks)" if len(failures) > 1 else ""
    return f"no JSON found in the text: {failures[0]}{others}"


def _load(text: str) -> tuple[Any, str | None]:
    try:
        return read_model_json(text), None
    except ValueError as exc:
        return None, str(exc)


class _IsJSONMeta(IntentMeta):
    def __call__(cls, *args: Any, extract: object = _MISSING, **kwargs: Any) -> type[Intent]:
        if cls is not IsJSON or args or kwargs or extract is _MISSING:
            raise TypeError(
                f"intents are used as classes, not instances: pass {cls.__name__}, not "
                f"{cls.__name__}() (IsJSON(extract=True) finds the JSON inside prose)"
            )
        return _is_json(check_flag(extract, "IsJSON", "extract"))


class IsJSON(JSONCheck, metaclass=_IsJSONMeta):
    """The text is valid JSON."""

    if TYPE_CHECKING:  # what IsJSON(extract=True) gives, for type checkers (the metaclass does it)

        def __new__(cls, *, extract: bool) -> type[Intent]: ...  # type: ignore[misc]

    @classmethod
    def check(cls, document: Any, text: str) -> tuple[bool, str]:
        return True, f"the text {'holds' if cls.extract else 'is'} JSON ({kind(document)})"


IsJSON.__module__ = "semantix.checks"


@memo(maxsize=2)
def _is_json(extract: bool) -> type[Intent]:
    if not extract:
        return IsJSON
    description = "The text holds JSON (a ```json block, or a balanced {…} or […] block)."
    return build(IsJSON, "IsJSON(extract=True)", description, extract=True)


class JSONPathCheck(JSONCheck, abstract=True):
    """Base of ``JSONPath``: ``query`` is the compiled RFC 9535 query, ``path`` its text."""

    path: ClassVar[str]
    query: ClassVar[Any]
    expected: ClassVar[Any]
    pattern: ClassVar[Any]
    exists: ClassVar[bool]

    @classmethod
    def check(cls, document: Any, text: str) -> tuple[bool, str]:
        found = [(path_text(node.location), node.value) for node in cls.query.find(document)]
        if not found:
            keys = (
                f" (its top-level keys: {', '.join(map(str, document))})"
                if isinstance(document, dict) and document
                else f" (the document is {kind(document)})"
            )
            return not cls.exists, f"{cls.path} not found{keys}"
        values = "; ".join(f"{where} is {shown(value)}" for where, value in found)
        if not cls.exists:
            return False, f"{cls.path} exists: {values}"
        wrong, wanted = [], ""
        if cls.expected is not _MISSING:  # equals= and matches= never come together
            wrong = [(w, v) for w, v in found if not json_equal(v, cls.expected)]
            wanted = shown(cls.expected)
        elif cls.pattern is not None:
            wrong = [
                (w, v) for w, v in found if not (isinstance(v, str) and search(cls.pattern, v))
            ]
            wanted = f"a string matching {cls.pattern.pattern!r}"
        if wrong:
            listed = "; ".join(f"{where} is {shown(value)}" for where, value in wrong)
            return False, f"{listed}, expected {wanted}"
        return True, values


def JSONPath(
    path: str,
    *,
    equals: Any = _MISSING,
    matches: str | None = None,
    exists: bool = True,
    extract: bool = False,
) -> type[Intent]:
    """The check "the text is JSON and the RFC 9535 ``path`` holds what is asked": it exists, or
    every value it finds ``equals`` a JSON value (``1`` equals ``1.0``, ``true`` not ``1``) or is a
    string that ``matches`` a (time-bounded) pattern; ``exists=False``: it is absent.
    ``extract=True`` finds the JSON inside prose. A TypeError or ValueError for an invalid path or
    pattern or contradicting options; a `JudgeUnavailableError` without jsonpath-rfc9535 (the
    ``[json]`` extra)."""
    text = check_text(path, factory="JSONPath", what="path", example="'$.status', equals='ok'")
    check_flag(exists, "JSONPath", "exists")
    check_flag(extract, "JSONPath", "extract")
    if not exists and (equals is not _MISSING or matches is not None):
        raise ValueError(
            f"JSONPath({text!r}, exists=False) asks that the path is absent, so equals= or "
            "matches= cannot hold as well; drop one of them"
        )
    if equals is not _MISSING and matches is not None:
        raise ValueError(f"JSONPath({text!r}) takes equals= or matches=, not both")
    pattern = None
    if matches is not None:
        source = check_text(
            matches, factory="JSONPath", what="matches pattern", example="r'^A\\d+'"
        )
        try:
            pattern = compile_pattern(source)
        except ValueError as exc:
            raise ValueError(
                f"JSONPath({text!r}, matches={source!r}): invalid regular expression: {exc}"
            ) from None
    if equals is not _MISSING:
        try:
            json.dumps(equals, allow_nan=False)
        except RecursionError:  # its repr would recurse too: the message does without
            raise ValueError(
                f"JSONPath({text!r}, equals=...) is nested too deeply to compare; a document "
                f"semantix reads is at most {MAX_DEPTH} levels deep"
            ) from None
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"JSONPath({text!r}, equals={equals!r:.80}) must be a JSON value (str, number, "
                f"bool, None, list, dict): {exc}"
            ) from None
    library = require("jsonpath_rfc9535", extra="json", feature="JSONPath")
    try:
        query = _environment().compile(text)
    except library.JSONPathError as exc:
        raise ValueError(
            f"JSONPath() got an invalid path {text!r}: {exc}; write an RFC 9535 path, e.g. "
            "'$.status', '$.items[0].id', '$.items[*].price' or '$.items[?@.qty > 1].sku'"
        ) from None
    if equals is not _MISSING:
        option, what = f", equals={equals!r}", f" equal to {shown(equals)}"
    elif pattern is not None:
        option, what = f", matches={pattern.pattern!r}", f" matching {pattern.pattern!r}"
    else:
        option, what = ("", "") if exists else (", exists=False", "")
    description = (
        f"The text is JSON with a value at {text}{what}."
        if exists
        else f"The text is JSON with no value at {text}."
    )
    return build(
        JSONPathCheck,
        f"JSONPath({text!r}{option}{', extract=True' if extract else ''})",
        description,
        path=text,
        query=query,
        expected=copy.deepcopy(equals) if equals is not _MISSING else _MISSING,
        pattern=pattern,
        exists=exists,
        extract=extract,
    )


@memo(maxsize=1)
def _environment() -> Any:
    """The RFC 9535 environment: its ``match()`` and ``search()`` bounded in time, and its
    recursive descent allowed as deep as the documents semantix reads."""
    library = require("jsonpath_rfc9535", extra="json", feature="JSONPath")

    class Environment(library.JSONPathEnvironment):  # type: ignore[misc,name-defined]
        max_recursion_depth = MAX_DEPTH + 2

        def setup_function_extensions(self) -> None:
            super().setup_function_extensions()
            for name in ("match", "search"):
                standard = type(self.function_extensions[name])
                call = bounded(standard.__call__)
                self.function_extensions[name] = type(name, (standard,), {"__call__": call})()

    return Environment()


def json_equal(found: Any, expected: Any) -> bool:
    """JSON equality: bools are not numbers, 1 equals 1.0, containers compare deeply."""
    if isinstance(found, bool) or isinstance(expected, bool):
        return isinstance(found, bool) and isinstance(expected, bool) and found == expected
    if isinstance(found, dict) and isinstance(expected, Mapping):
        return found.keys() == expected.keys() and all(
            json_equal(found[key], expected[key]) for key in found
        )
    if isinstance(found, list) and isinstance(expected, (list, tuple)):
        return len(found) == len(expected) and all(map(json_equal, found, expected))
    if isinstance(found, (int, float)) and isinstance(expected, (int, float)):
        return found == expected
    return type(found) is type(expected) and found == expected


def path_text(location: tuple[str | int, ...]) -> str:
    """``$.items[1].status``, as jsonschema writes paths (``$['a b']`` for other names)."""
    parts = (
        f"[{part}]"
        if isinstance(part, int)
        else f".{part}"
        if part.isascii() and part.isidentifier()
        else f"[{part!r}]"
        for part in location
    )
    return "$" + "".join(parts)


def listed(problems: list[str], noun: str) -> str:
    """ "2 schema violations: a; b", the first `MAX_VIOLATIONS` of ``problems``."""
    more = len(problems) - MAX_VIOLATIONS
    tail = f"; and {more} more" if more > 0 else ""
    count = f"{len(problems)} {noun}{'s' if len(problems) > 1 else ''}"
    return f"{count}: {'; '.join(problems[:MAX_VIOLATIONS])}{tail}"


def shown(value: Any) -> str:
    """A JSON value as a short preview."""
    return preview(json.dumps(value, ensure_ascii=False, default=str), 80, quote=False)


def kind(document: Any) -> str:
    """What a JSON document is, in words: "an object with 2 keys", "the value 3"."""
    if isinstance(document, dict):
        return f"an object with {len(document)} key{'' if len(document) == 1 else 's'}"
    if isinstance(document, list):
        return f"an array of {len(document)} item{'' if len(document) == 1 else 's'}"
    return f"the value {shown(document)}"
