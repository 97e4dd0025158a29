"""``JSONSchema``: the text is JSON valid against a JSON Schema (the jsonschema library, the
``[json]`` extra, imported when a check is built).

The draft is the schema's ``$schema``, else the latest. jsonschema's own keyword code runs
unchanged on the time-bounded engine (`semantix.checks._patterns`), so every pattern the schema
applies to the document is bounded.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, ClassVar

from semantix._cache import memo
from semantix._intent import Intent
from semantix._text import preview
from semantix.checks._base import build, check_flag
from semantix.checks._json import JSONCheck, kind, listed
from semantix.checks._patterns import bounded, compile_pattern
from semantix.errors import ConfigurationError
from semantix.models._deps import require

__all__ = ["JSONSchema"]


class JSONSchemaCheck(JSONCheck, abstract=True):
    """Base of ``JSONSchema``: ``validator`` is a (time-bounded) jsonschema validator."""

    schema: ClassVar[Any]
    validator: ClassVar[Any]

    @classmethod
    def check(cls, document: Any, text: str) -> tuple[bool, str]:
        unresolvable = require("referencing.exceptions", extra="json", feature="JSONSchema")
        try:
            errors = sorted(
                cls.validator.iter_errors(document), key=lambda e: (e.json_path, e.message)
            )
        except unresolvable.Unresolvable as exc:
            raise ConfigurationError(
                f"{cls.__name__} cannot resolve a $ref of its schema ({exc}); semantix fetches "
                "no remote schema: put the referenced schema under $defs and point at it "
                "('#/$defs/name')"
            ) from None
        if not errors:
            return True, f"the JSON ({kind(document)}) is valid against the schema"
        return False, listed([f"{e.json_path}: {e.message}" for e in errors], "schema violation")


def JSONSchema(schema: Mapping[str, Any] | bool, *, extract: bool = False) -> type[Intent]:
    """The check "the text is JSON valid against ``schema``" (any draft jsonschema supports); a
    failure lists every violation with its JSON path. ``extract=True`` finds the JSON in prose.

    Raises:
        JudgeUnavailableError: jsonschema is not installed (the ``[json]`` extra).
        TypeError: ``schema`` is not a mapping or bool.
        ValueError: ``schema`` is not JSON (NaN, a set, an object), names an unknown
            ``$schema``, or is not a valid JSON Schema (the message names the problem).
    """
    if not isinstance(schema, (Mapping, bool)):
        raise TypeError(
            f"JSONSchema() needs the schema as a dict, e.g. JSONSchema({{'type': 'object'}}); "
            f"got {type(schema).__name__} {schema!r:.80}"
        )
    check_flag(extract, "JSONSchema", "extract")
    try:  # a JSON copy: frozen, and nothing a comparison with NaN would let pass
        frozen = json.loads(json.dumps(schema, allow_nan=False))
    except RecursionError:  # its repr would recurse too: the message does without
        raise ValueError("JSONSchema() got a schema nested too deeply to read") from None
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"JSONSchema() needs a JSON schema, got {preview(repr(schema), 80)}: {exc}; use "
            "dicts, lists, str, finite numbers, bool and None only"
        ) from None
    validators = require("jsonschema.validators", extra="json", feature="JSONSchema")
    exceptions = require("jsonschema.exceptions", extra="json", feature="JSONSchema")
    if isinstance(frozen, dict) and "$schema" in frozen:
        uri = frozen["$schema"]
        known = validators.validator_for(frozen, default=None) if isinstance(uri, str) else None
        if known is None:
            raise ValueError(
                f"JSONSchema() got $schema {uri!r}, which names no draft jsonschema knows; "
                "name one, e.g. 'https://json-schema.org/draft/2020-12/schema' or "
                "'http://json-schema.org/draft-07/schema#', or leave $schema out for the latest "
                "draft"
            )
    validator_class = validators.validator_for(frozen)
    try:
        validator_class.check_schema(frozen)
    except exceptions.SchemaError as exc:
        where = "/".join(str(part) for part in exc.path) or "the top level"
        raise ValueError(
            f"JSONSchema() got an invalid schema {preview(json.dumps(frozen), 80)}: {exc.message} "
            f"(at {where} of the schema); fix the schema"
        ) from None
    except RecursionError:  # a pattern nested thousands deep: re cannot even compile it
        raise ValueError("JSONSchema() got a schema with a pattern nested too deeply") from None
    bounded_class = _bounded(validator_class)
    validator = bounded_class(frozen, format_checker=bounded_class.FORMAT_CHECKER)
    title = frozen.get("title") if isinstance(frozen, dict) else None
    shown = repr(title) if isinstance(title, str) else preview(json.dumps(frozen), 60, quote=False)
    return build(
        JSONSchemaCheck,
        f"JSONSchema({shown}{', extract=True' if extract else ''})",
        f"The text is JSON valid against the schema {shown}.",
        schema=frozen,
        validator=validator,
        extract=extract,
    )


@memo(maxsize=8)
def _bounded(validator_class: Any) -> Any:
    """``validator_class`` with every keyword, and the ``regex`` format, on the bounded engine."""
    validators = require("jsonschema.validators", extra="json", feature="JSONSchema")
    keywords = {name: bounded(function) for name, function in validator_class.VALIDATORS.items()}
    checker = validator_class.FORMAT_CHECKER
    if "regex" in checker.checkers:
        checker = copy.copy(checker)
        checker.checkers = dict(checker.checkers)
        checker.checks("regex", raises=ValueError)(_is_pattern)
    return validators.extend(validator_class, keywords, format_checker=checker)


def _is_pattern(instance: object) -> bool:
    if isinstance(instance, str):
        compile_pattern(instance)
    return True
