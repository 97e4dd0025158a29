"""Structural JSON checks (issue 23): IsJSON, JSONPath, JSONSchema; RFC 8259 only, deep
nesting, bad schemas and extraction from prose (issues 33 and 34)."""

from __future__ import annotations

import json
import math
import sys
from typing import Any

import pytest

from semantix.checks import IsJSON, JSONPath, JSONSchema
from semantix.errors import ConfigurationError, JudgeUnavailableError
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
    assert decide(IsJSON, ' {"a": 1}\n') == (True, "the text is JSON (an object with 1 key)")
    passed, reason = decide(IsJSON, "```json\n{}\n```")
    assert not passed
    assert reason.startswith("the text is not JSON (Expecting value: line 1 column 1 (char 0))")
    assert repr(IsJSON) == "IsJSON"
    with pytest.raises(TypeError, match=r"pass IsJSON, not IsJSON\(\) \(IsJSON\(extract=True\)"):
        IsJSON()
    with pytest.raises(TypeError, match=r"IsJSON\(extract=...\) must be True or False"):
        IsJSON(extract="yes")


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
        ("jsonpath_rfc9535", lambda: JSONPath("$.a")),
    ],
)
def test_a_missing_library_names_the_extra(monkeypatch, module, build) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setitem(sys.modules, module, None)  # import fails as if it were not installed
    with pytest.raises(JudgeUnavailableError, match=r"pip install 'semantix-judge\[json\]'"):
        build()


NOT_RFC_8259 = [
    ("NaN", "NaN is not a JSON number: RFC 8259 has no NaN or Infinity"),
    ('{"a": NaN}', "NaN is not a JSON number"),
    ('{"a": [1, Infinity]}', "Infinity is not a JSON number"),
    ("-Infinity", "-Infinity is not a JSON number"),
    ('{"status": "error", "status": "ok"}', "the name 'status' appears twice in one object"),
]
JSON_CHECKS = [IsJSON, JSONPath("$.a"), JSONPath("$.status", equals="ok"), JSONSchema({})]


@pytest.mark.parametrize("check", JSON_CHECKS, ids=repr)
@pytest.mark.parametrize(("text", "problem"), NOT_RFC_8259)
def test_what_rfc_8259_does_not_allow_fails_with_a_reason(
    check: Any, text: str, problem: str
) -> None:
    passed, reason = decide(check, text)
    assert not passed
    assert reason.startswith(f"the text is not JSON ({problem}")


@pytest.mark.parametrize("check", JSON_CHECKS, ids=repr)
def test_a_repetition_loop_of_brackets_fails_with_a_reason(check: Any) -> None:
    passed, reason = decide(check, "[" * 100000)
    assert not passed
    assert reason.startswith(
        "the text is not JSON (nested more than 100 levels deep, past what semantix reads): '[[["
    )


def nested(depth: int) -> str:
    return '{"x": ' * depth + "1" + "}" * depth


def test_json_nested_as_deep_as_semantix_reads_works_in_every_check() -> None:
    recursive = {
        "$defs": {
            "n": {"anyOf": [{"type": "integer"}, {"properties": {"x": {"$ref": "#/$defs/n"}}}]}
        },
        "$ref": "#/$defs/n",
    }
    assert decide(IsJSON, nested(100))[0]
    assert decide(JSONSchema(recursive), nested(100))[0]
    passed, reason = decide(JSONPath("$..x", exists=False), nested(100))
    assert not passed
    assert reason.startswith("$..x exists: $.x is {")
    assert decide(IsJSON, nested(101)) == (
        False,
        (
            f"the text is not JSON (nested more than 100 levels deep, past what semantix reads): "
            f"'{nested(101)[:79]}…' (truncated, {len(nested(101))} chars in all)"
        ),
    )


def test_a_reason_quoting_a_lone_surrogate_can_be_written_anywhere() -> None:
    # "\ud800" is valid JSON syntax but no character: the reason carries U+FFFD instead.
    passed, reason = decide(JSONPath("$.a"), '{"a": "x\\ud800"}')
    assert (passed, reason) == (True, '$.a is "x\ufffd"')
    reason.encode("utf-8")


@pytest.mark.parametrize(
    ("schema", "error", "pattern"),
    [
        (
            {"$schema": []},
            ValueError,
            r"got \$schema \[\], which names no draft .*e\.g\. 'https://",
        ),
        ({"$schema": None}, ValueError, r"got \$schema None, which names no draft"),
        ({"$schema": "https://example.com/mine"}, ValueError, r"'https://example.com/mine', which"),
        ({"maximum": math.nan}, ValueError, r"needs a JSON schema, got .*nan.*finite numbers"),
        ({"enum": {1, 2}}, ValueError, r"Object of type set is not JSON serializable"),
        ({"minimum": math.inf}, ValueError, r"Out of range float values"),
    ],
)
def test_a_schema_that_is_not_json_or_names_no_draft_is_a_clear_error(
    schema: dict[str, Any], error: type[Exception], pattern: str
) -> None:
    with pytest.raises(error, match=pattern):
        JSONSchema(schema)


def test_a_schema_pattern_nested_too_deeply_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="a schema with a pattern nested too deeply"):
        JSONSchema({"pattern": "(" * 5000 + ")" * 5000})


def test_a_circular_schema_is_a_clear_error() -> None:
    schema: dict[str, Any] = {"type": "object"}
    schema["properties"] = {"self": schema}
    with pytest.raises(ValueError, match=r"needs a JSON schema, got .*Circular reference"):
        JSONSchema(schema)


def test_a_known_draft_is_used() -> None:
    draft4 = JSONSchema(
        {
            "$schema": "http://json-schema.org/draft-04/schema#",
            "maximum": 3,
            "exclusiveMaximum": True,
        }
    )
    assert decide(draft4, "3") == (
        False,
        "1 schema violation: $: 3 is greater than or equal to the maximum of 3",
    )


@pytest.mark.parametrize("ref", ["https://example.com/ticket.json", "#/$defs/missing"])
def test_an_unresolvable_ref_is_an_error_naming_it_never_a_verdict(ref: str) -> None:
    check = JSONSchema({"$ref": ref})
    with pytest.raises(ConfigurationError, match=r"cannot resolve a \$ref of its schema .*\$defs"):
        check.decide(output_view("{}"))


def test_a_regex_format_string_nested_too_deeply_fails_instead_of_crashing() -> None:
    check = JSONSchema({"type": "string", "format": "regex"})
    assert decide(check, json.dumps("^a+$"))[0]
    passed, reason = decide(check, json.dumps("(" * 5000))
    assert not passed
    assert reason.startswith("1 schema violation: $: '((((")
    assert reason.endswith("is not a 'regex'")


EXTRACTED = [
    ('Sure! ```json\n{"status": "ok"}\n``` Anything else?', "the ```json block at character 6"),
    ('Here it is: {"status": "ok"} (as asked)', "the {…} block at character 12"),
    ('Note [see below]: {"status": "ok", "note": "a } and a ]"}', "the {…} block at character 18"),
    ('{ oops {"status": "ok"} and more', "the {…} block at character 7"),
    ('```JSON \n{"status": "ok"}\n  ```', "the ```json block at character 0"),
]


@pytest.mark.parametrize(("text", "where"), EXTRACTED)
def test_extract_finds_the_json_in_prose_and_says_where(text: str, where: str) -> None:
    assert decide(JSONPath("$.status", equals="ok", extract=True), text) == (
        True,
        f'$.status is "ok"; the JSON is extracted from {where}',
    )
    assert decide(JSONPath("$.status", equals="ok"), text)[0] is False


def test_extract_on_every_json_check() -> None:
    assert repr(IsJSON(extract=True)) == "IsJSON(extract=True)"
    assert IsJSON(extract=True) is IsJSON(extract=True)
    assert IsJSON(extract=False) is IsJSON
    assert decide(IsJSON(extract=True), "The list: [1, 2] done.") == (
        True,
        (
            "the text holds JSON (an array of 2 items); the JSON is extracted from the […] block at "
            "character 10"
        ),
    )
    schema = JSONSchema(TICKET, extract=True)
    assert repr(schema) == "JSONSchema('ticket', extract=True)"
    assert decide(schema, 'Ticket: {"id": "T1"}') == (
        False,
        (
            "1 schema violation: $: 'priority' is a required property; the JSON is extracted from "
            "the {…} block at character 8"
        ),
    )
    assert repr(JSONPath("$.a", extract=True)) == "JSONPath('$.a', extract=True)"


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        (
            "I could not produce it.",
            (
                "no JSON found in the text (no ```json block and no balanced {…} or […] block): "
                "'I could not produce it.'"
            ),
        ),
        (
            "Here: ```json\n{'status': 'ok'}\n```",
            (
                "no JSON found in the text: the ```json block at character 6 is not JSON "
                "(Expecting property name enclosed in double quotes: line 1 column 2 (char 1)): "
                "\"{'status': 'ok'}\""
            ),
        ),
        (
            "{like this} or [that]",
            (
                "no JSON found in the text: the {…} block at character 0 is not JSON (Expecting "
                "property name enclosed in double quotes: line 1 column 2 (char 1)): '{like this}' "
                "(nor are the 1 other blocks)"
            ),
        ),
        ("[" * 100000, "no JSON found in the text (no ```json block and no balanced"),
        (
            'Stuck: {"a": NaN}',
            "no JSON found in the text: the {…} block at character 7 is not JSON (NaN",
        ),
    ],
)
def test_no_json_in_the_text_fails_saying_so(text: str, reason: str) -> None:
    passed, found = decide(IsJSON(extract=True), text)
    assert not passed
    assert found.startswith(reason)


def test_extraction_reads_long_adversarial_text() -> None:
    # One pass: many openings, a bracket storm and unclosed strings end in a verdict.
    storm = "{[" * 50000 + '"' + "]}" * 10
    assert decide(IsJSON(extract=True), storm)[0] is False
    fences = "```" * 30000 + "```json\n[1]\n```"
    assert decide(IsJSON(extract=True), fences)[0]


def test_a_value_nested_too_deeply_to_copy_is_a_value_error_not_a_recursion_error() -> None:
    deep: list[object] = []
    inner = deep
    for _ in range(50_000):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    with pytest.raises(ValueError, match=r"JSONPath\('\$.a', equals=...\) is nested too deeply"):
        JSONPath("$.a", equals=deep)
    with pytest.raises(ValueError, match=r"JSONSchema\(\) got a schema nested too deeply"):
        JSONSchema({"const": deep})
