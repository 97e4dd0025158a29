"""Structural JSON checks (issue 23): IsJSON, JSONPath, JSONSchema."""

from __future__ import annotations

import json
import sys
from typing import Any

import pytest

from semantix.checks import IsJSON, JSONPath, JSONSchema
from semantix.errors import JudgeUnavailableError
from semantix.outputs import output_view

TICKET = {
    "title": "ticket",
    "type": "object",
    "required": ["id", "priority"],
    "properties": {
        "id": {"type": "string"},
        "priority": {"enum": ["low", "high"]},
        "tags": {"type": "array", "items": {"type": "string"}},
    },
}


def decide(check: Any, text: str) -> tuple[bool, str]:
    verdict = check.decide(output_view(text))
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.reason


def test_is_json() -> None:
    assert decide(IsJSON, ' {"a": 1}\n') == (True, "the text is JSON (an object with 1 keys)")
    passed, reason = decide(IsJSON, "```json\n{}\n```")
    assert not passed
    assert reason.startswith("the text is not JSON (Expecting value: line 1 column 1 (char 0))")
    assert repr(IsJSON) == "IsJSON"
    with pytest.raises(TypeError, match=r"pass IsJSON, not IsJSON\(\)"):
        IsJSON()


def test_json_path_equals_shows_path_found_and_expected() -> None:
    check = JSONPath("$.status", equals="ok")
    assert repr(check) == "JSONPath('$.status', equals='ok')"
    assert check.description == 'The text is JSON with a value at $.status equal to "ok".'
    assert decide(check, '{"status": "ok"}') == (True, '$.status is "ok"')
    assert decide(check, '{"status": "pending"}') == (
        False,
        '$.status is "pending", expected "ok"',
    )
    assert decide(check, '{"state": "ok", "id": 3}') == (
        False,
        "$.status not found (its top-level keys: state, id)",
    )
    assert decide(check, "[1, 2]") == (
        False,
        "$.status not found (the document is an array of 2 items)",
    )


def test_json_path_compares_json_values_exactly() -> None:
    assert decide(JSONPath("$.n", equals=1), '{"n": 1.0}')[0]
    assert decide(JSONPath("$.n", equals=1), '{"n": true}') == (False, "$.n is true, expected 1")
    assert decide(JSONPath("$.x", equals=None), '{"x": null}')[0]
    assert decide(JSONPath("$.a", equals={"b": [1, 2]}), '{"a": {"b": [1, 2]}}')[0]


def test_json_path_every_value_found_must_pass() -> None:
    check = JSONPath("$.items[*].status", equals="shipped")
    document = json.dumps({"items": [{"status": "shipped"}, {"status": "lost"}]})
    assert decide(check, document) == (
        False,
        '$.items[1].status is "lost", expected "shipped"',
    )
    assert decide(JSONPath("$.items[?(@.qty > 1)].sku"), '{"items": [{"qty": 2, "sku": "A"}]}')[0]


def test_json_path_exists_and_matches() -> None:
    assert decide(JSONPath("$.id"), '{"id": "A17"}') == (True, '$.id is "A17"')
    assert decide(JSONPath("$.error", exists=False), '{"id": 1}') == (
        True,
        "$.error not found (its top-level keys: id)",
    )
    assert decide(JSONPath("$.error", exists=False), '{"error": "x"}') == (
        False,
        '$.error exists: $.error is "x"',
    )
    assert decide(JSONPath("$.id", matches=r"^A\d+$"), '{"id": "A17"}')[0]
    assert decide(JSONPath("$.id", matches=r"^A\d+$"), '{"id": 17}') == (
        False,
        "$.id is 17, expected a string matching '^A\\\\d+$'",
    )


def test_json_checks_on_text_that_is_not_json() -> None:
    passed, reason = decide(JSONPath("$.a"), "Sure! Here it is.")
    assert not passed
    assert reason.startswith("the text is not JSON (Expecting value")
    assert reason.endswith("'Sure! Here it is.'")


def test_json_schema_lists_every_violation_with_its_path() -> None:
    check = JSONSchema(TICKET)
    assert repr(check) == "JSONSchema('ticket')"
    assert decide(check, '{"id": "T1", "priority": "low"}') == (
        True,
        "the JSON (an object with 2 keys) is valid against the schema",
    )
    assert decide(check, '{"priority": "urgent", "tags": ["a", 3]}') == (
        False,
        (
            "3 schema violations: $: 'id' is a required property; "
            "$.priority: 'urgent' is not one of ['low', 'high']; $.tags[1]: 3 is not of type 'string'"
        ),
    )


def test_json_schema_checks_formats() -> None:
    check = JSONSchema({"type": "object", "properties": {"email": {"format": "email"}}})
    assert decide(check, '{"email": "a@example.com"}')[0]
    assert decide(check, '{"email": "not an email"}') == (
        False,
        "1 schema violation: $.email: 'not an email' is not a 'email'",
    )


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (lambda: JSONPath("$.["), ValueError, r"invalid path '\$\.\['"),
        (lambda: JSONPath(""), ValueError, r"empty path"),
        (
            lambda: JSONPath("$.a", equals=1, matches="x"),
            ValueError,
            r"equals= or matches=, not both",
        ),
        (lambda: JSONPath("$.a", equals=1, exists=False), ValueError, r"exists=False\) asks"),
        (lambda: JSONPath("$.a", matches="("), ValueError, r"invalid regular expression"),
        (lambda: JSONPath("$.a", equals=object()), TypeError, r"must be a JSON value"),
        (
            lambda: JSONSchema({"type": "strin"}),
            ValueError,
            r"invalid schema .*'strin' is not valid",
        ),
        (lambda: JSONSchema('{"type": "object"}'), TypeError, r"needs the schema as a dict"),
    ],
)
def test_bad_json_arguments_are_errors_at_construction(build, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        build()


@pytest.mark.parametrize(
    ("module", "build"),
    [
        ("jsonschema.validators", lambda: JSONSchema({})),
        ("jsonpath_ng.ext", lambda: JSONPath("$.a")),
    ],
)
def test_a_missing_library_names_the_extra(monkeypatch, module, build) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    with pytest.raises(JudgeUnavailableError, match=r"pip install 'semantix-judge\[json\]'"):
        build()
