"""Structural checks on JSON text: ``IsJSON``, ``JSONPath`` and ``JSONSchema``.

The text must be one JSON document (surrounding whitespace allowed, no Markdown fence: strip it
yourself if the model adds one). ``JSONPath`` uses jsonpath-ng (its extended syntax: filters
such as ``$.items[?(@.qty > 1)]``), ``JSONSchema`` the jsonschema library, with the format
checker on; both come with the ``[json]`` extra and are imported when a check is built, never
at ``import semantix``.
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from semantix.checks.base import Structural, build, check_text, no_text, verdict
from semantix.intent import Intent
from semantix.judges.base import Verdict
from semantix.models.deps import require
from semantix.outputs import OutputView
from semantix.text import preview

__all__ = ["IsJSON", "JSONPath", "JSONSchema", "json_equal", "parse_json"]

#: How many schema violations a reason lists before "and N more".
MAX_VIOLATIONS = 20
_MISSING: Any = object()


def parse_json(view: OutputView) -> tuple[Any, Verdict | None]:
    """The JSON document of the view's text, or a failing verdict saying why there is none."""
    if view.text is None:
        return None, no_text(view)
    try:
        return json.loads(view.text), None
    except ValueError as exc:
        return None, verdict(False, f"the text is not JSON ({exc}): {preview(view.text, 80)}")


class IsJSON(Structural):
    """The text is valid JSON."""

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        document, failed = parse_json(view)
        if failed is not None:
            return failed
        return verdict(True, f"the text is JSON ({_kind(document)})")


IsJSON.__module__ = "semantix.checks"


class JSONPathCheck(Structural, abstract=True):
    """Base of ``JSONPath``: ``expression`` is the parsed path, ``path`` the text."""

    path: ClassVar[str]
    expression: ClassVar[Any]
    expected: ClassVar[Any]
    pattern: ClassVar[re.Pattern[str] | None]
    exists: ClassVar[bool]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        document, failed = parse_json(view)
        if failed is not None:
            return failed
        found = [
            (_path_text(match.full_path), match.value) for match in cls.expression.find(document)
        ]
        if not found:
            keys = (
                f" (its top-level keys: {', '.join(map(str, document))})"
                if isinstance(document, dict) and document
                else f" (the document is {_kind(document)})"
            )
            return verdict(not cls.exists, f"{cls.path} not found{keys}")
        values = "; ".join(f"{where} is {_shown(value)}" for where, value in found)
        if not cls.exists:
            return verdict(False, f"{cls.path} exists: {values}")
        if cls.expected is not _MISSING:
            wrong = [(w, v) for w, v in found if not json_equal(v, cls.expected)]
            if wrong:
                shown = "; ".join(f"{where} is {_shown(value)}" for where, value in wrong)
                return verdict(False, f"{shown}, expected {_shown(cls.expected)}")
        if cls.pattern is not None:
            wrong = [(w, v) for w, v in found if not (isinstance(v, str) and cls.pattern.search(v))]
            if wrong:
                shown = "; ".join(f"{where} is {_shown(value)}" for where, value in wrong)
                return verdict(
                    False, f"{shown}, expected a string matching {cls.pattern.pattern!r}"
                )
        return verdict(True, values)


def JSONPath(
    path: str, *, equals: Any = _MISSING, matches: str | None = None, exists: bool = True
) -> type[Intent]:
    """The check "the text is JSON and ``path`` holds what is asked".

    With neither ``equals`` nor ``matches``, the path must exist; ``equals`` compares JSON values
    exactly (``1`` equals ``1.0``, ``true`` does not equal ``1``); ``matches`` is a regular
    expression the string value must contain (``re.search``); ``exists=False`` asks that the path
    is absent. A path that finds several values (``$.items[*].status``) needs every one to pass.

    Raises:
        JudgeUnavailableError: jsonpath-ng is not installed (the ``[json]`` extra).
        TypeError, ValueError: ``path`` is not a valid JSONPath, ``matches`` is not a valid
            regular expression, or the options contradict each other.
    """
    text = check_text(path, factory="JSONPath", what="path", example="'$.status', equals='ok'")
    if not isinstance(exists, bool):
        raise TypeError(f"JSONPath(exists=...) must be True or False, got {exists!r}")
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
            pattern = re.compile(source)
        except re.error as exc:
            raise ValueError(
                f"JSONPath({text!r}, matches={source!r}): invalid regular expression: {exc}"
            ) from None
    if equals is not _MISSING:
        try:
            json.dumps(equals, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise TypeError(
                f"JSONPath({text!r}, equals={equals!r:.80}) must be a JSON value (str, number, "
                f"bool, None, list, dict): {exc}"
            ) from None
    parser = require("jsonpath_ng.ext", extra="json", feature="JSONPath")
    errors = require("jsonpath_ng.exceptions", extra="json", feature="JSONPath")
    try:
        expression = parser.parse(text)
    except errors.JSONPathError as exc:
        raise ValueError(
            f"JSONPath() got an invalid path {text!r}: {exc}; write e.g. '$.status', "
            "'$.items[0].id' or '$.items[*].price'"
        ) from None
    if equals is not _MISSING:
        option, what = f", equals={equals!r}", f" equal to {_shown(equals)}"
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
        f"JSONPath({text!r}{option})",
        description,
        path=text,
        expression=expression,
        expected=copy.deepcopy(equals) if equals is not _MISSING else _MISSING,
        pattern=pattern,
        exists=exists,
    )


class JSONSchemaCheck(Structural, abstract=True):
    """Base of ``JSONSchema``: ``validator`` is a jsonschema validator of ``schema``."""

    schema: ClassVar[Any]
    validator: ClassVar[Any]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        document, failed = parse_json(view)
        if failed is not None:
            return failed
        errors = sorted(cls.validator.iter_errors(document), key=lambda e: (e.json_path, e.message))
        if not errors:
            return verdict(True, f"the JSON ({_kind(document)}) is valid against the schema")
        listed = [f"{error.json_path}: {error.message}" for error in errors[:MAX_VIOLATIONS]]
        more = len(errors) - MAX_VIOLATIONS
        tail = f"; and {more} more" if more > 0 else ""
        count = f"{len(errors)} schema violation{'s' if len(errors) > 1 else ''}"
        return verdict(False, f"{count}: {'; '.join(listed)}{tail}")


def JSONSchema(schema: Mapping[str, Any] | bool) -> type[Intent]:
    """The check "the text is JSON valid against ``schema``" (any draft jsonschema supports).

    The draft comes from the schema's ``$schema``, else the latest; ``format`` is checked for
    the formats jsonschema checks without extra packages. A failure lists every violation with
    its JSON path.

    Raises:
        JudgeUnavailableError: jsonschema is not installed (the ``[json]`` extra).
        TypeError: ``schema`` is not a mapping or bool.
        ValueError: ``schema`` is not a valid JSON Schema (the message names the problem).
    """
    if not isinstance(schema, (Mapping, bool)):
        raise TypeError(
            f"JSONSchema() needs the schema as a dict, e.g. JSONSchema({{'type': 'object'}}); "
            f"got {type(schema).__name__} {schema!r:.80}"
        )
    validators = require("jsonschema.validators", extra="json", feature="JSONSchema")
    exceptions = require("jsonschema.exceptions", extra="json", feature="JSONSchema")
    frozen = copy.deepcopy(dict(schema)) if isinstance(schema, Mapping) else schema
    validator_class = validators.validator_for(frozen)
    try:
        validator_class.check_schema(frozen)
    except exceptions.SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "the top level"
        raise ValueError(
            f"JSONSchema() got an invalid schema {preview(_dumps(frozen), 80)}: {exc.message} "
            f"(at {where} of the schema); fix the schema"
        ) from None
    validator = validator_class(frozen, format_checker=validator_class.FORMAT_CHECKER)
    title = frozen.get("title") if isinstance(frozen, dict) else None
    shown = repr(title) if isinstance(title, str) else preview(_dumps(frozen), 60, quote=False)
    return build(
        JSONSchemaCheck,
        f"JSONSchema({shown})",
        f"The text is JSON valid against the schema {shown}.",
        schema=frozen,
        validator=validator,
    )


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


def _path_text(full_path: object) -> str:
    text = str(full_path)
    return "$" if text in ("$", "`this`") else "$." + text.replace(".[", "[")


def _shown(value: Any) -> str:
    return preview(_dumps(value), 80, quote=False)


def _dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


def _kind(document: Any) -> str:
    if isinstance(document, dict):
        return f"an object with {len(document)} keys"
    if isinstance(document, list):
        return f"an array of {len(document)} items"
    return f"the value {_shown(document)}"
