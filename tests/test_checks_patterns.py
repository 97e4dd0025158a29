"""Patterns never hang (issue 33.9): every pattern semantix runs on an output is time-bounded.

Python's ``re`` backtracks for minutes on ``(a|aa)+$`` against 50 characters. Each case runs in
one child interpreter with the bound lowered to 0.05 s, so the code as it was (plain ``re``) ends
this test by the child's timeout instead of hanging the suite.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
import time

import pytest

from semantix.checks import JSONPath, JSONSchema, Matches
from semantix.checks import _patterns as patterns
from semantix.checks._patterns import compile_pattern, search
from semantix.errors import PatternTimeoutError
from semantix.outputs import output_view

BAD = "(a|aa)+$"
TEXT = "a" * 50 + "!"
DRAFT_2019 = "https://json-schema.org/draft/2019-09/schema"
DRAFT_4 = "http://json-schema.org/draft-04/schema#"
CASES = {
    "Matches": (f"Matches({BAD!r})", TEXT),
    "JSONPath matches=": (f"JSONPath('$.id', matches={BAD!r})", json.dumps({"id": TEXT})),
    "RFC 9535 match()": (
        "JSONPath(\"$[?match(@.id, '(a|aa)+')]\")",
        json.dumps([{"id": TEXT}]),
    ),
    "RFC 9535 search()": (
        "JSONPath(\"$[?search(@.id, '(a|aa)+$')]\")",
        json.dumps([{"id": TEXT}]),
    ),
    "schema pattern": (
        f"JSONSchema({{'properties': {{'id': {{'pattern': {BAD!r}}}}}}})",
        json.dumps({"id": TEXT}),
    ),
    "schema patternProperties": (
        f"JSONSchema({{'patternProperties': {{{BAD!r}: {{'type': 'string'}}}}}})",
        json.dumps({TEXT: 1}),
    ),
    "schema additionalProperties": (
        f"JSONSchema({{'patternProperties': {{{BAD!r}: {{}}}}, 'additionalProperties': False}})",
        json.dumps({TEXT: 1}),
    ),
    "schema unevaluatedProperties": (
        (
            f"JSONSchema({{'allOf': [{{'patternProperties': {{{BAD!r}: {{}}}}}}], "
            "'unevaluatedProperties': False})"
        ),
        json.dumps({TEXT: 1}),
    ),
    "draft 2019-09 unevaluatedProperties": (
        (
            f"JSONSchema({{'$schema': {DRAFT_2019!r}, 'patternProperties': {{{BAD!r}: {{}}}}, "
            "'unevaluatedProperties': False})"
        ),
        json.dumps({TEXT: 1}),
    ),
    "schema propertyNames": (
        f"JSONSchema({{'propertyNames': {{'pattern': {BAD!r}}}}})",
        json.dumps({TEXT: 1}),
    ),
    "draft 4 pattern": (
        f"JSONSchema({{'$schema': {DRAFT_4!r}, 'pattern': {BAD!r}}})",
        json.dumps(TEXT),
    ),
}
PROBE = textwrap.dedent(
    """
    import json, sys
    from semantix.checks import JSONPath, JSONSchema, Matches, _patterns as patterns
    from semantix.outputs import output_view
    patterns.TIMEOUT_S = 0.05
    for name, (check, output) in json.loads(sys.argv[1]).items():
        try:
            verdict = eval(check).decide(output_view(output))
            print(json.dumps([name, "verdict", verdict.passed, verdict.reason]))
        except Exception as error:
            print(json.dumps([name, type(error).__name__, None, str(error)]))
    """
)


def test_no_pattern_hangs_on_a_catastrophic_output() -> None:
    completed = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(CASES)],
        capture_output=True,
        text=True,
        timeout=120,  # a hang guard, far above what the bounded checks take
        check=True,
    )
    outcomes = {name: rest for name, *rest in map(json.loads, completed.stdout.splitlines())}
    assert set(outcomes) == set(CASES)
    for name, (kind, passed, message) in outcomes.items():
        assert (name, kind, passed) == (name, "PatternTimeoutError", None)
        pattern = "(a|aa)+" if "match()" in name else BAD
        assert message.startswith(
            f"the pattern {pattern!r} ran past its time bound of 0.05 s on "
        ), (name, message)
        assert "rewrite it without nested repetition" in message


def test_the_reported_pattern_decides_on_its_31_characters() -> None:
    # The issue's own case: the bounded engine reads (a+)+$ without backtracking at all (in a
    # child interpreter too, for the code as it was).
    probe = (
        "from semantix.checks import Matches; from semantix.outputs import output_view; "
        "v = Matches(r'(a+)+$').decide(output_view('a' * 30 + '!')); print(v.passed, v.reason)"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert completed.stdout == "False no match for '(a+)+$' in 31 characters of text\n"


def test_re_flags_mean_what_they_mean_in_re() -> None:
    # The engine numbers flags differently (its 256 is VERSION1, re's is ASCII): they go by name.
    assert search(compile_pattern(r"^\w$", re.ASCII), "é") is None
    assert search(compile_pattern(r"^\w$"), "é") is not None
    assert search(compile_pattern("^B", re.IGNORECASE | re.MULTILINE), "a\nb") is not None
    assert Matches(r"^\w+$", re.ASCII).decide(output_view("café")).passed is False


def test_an_invalid_pattern_is_a_value_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"invalid regular expression '\(unclosed'"):
        Matches("(unclosed")
    with pytest.raises(ValueError, match="nested too deeply"):
        compile_pattern("(" * 5000 + ")" * 5000)


def one_match_seconds(length: int) -> float:
    pattern = compile_pattern(BAD)
    started = time.perf_counter()
    pattern.search("a" * length + "!")
    return time.perf_counter() - started


@pytest.mark.parametrize("check", ["JSONPath", "JSONSchema"])
def test_the_bound_holds_for_all_the_matches_of_one_check_together(
    check: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Strings each far inside the bound, 200 of them far past it (issue 44: ~60 s per check).
    length = next(n for n in range(12, 40) if one_match_seconds(n) > 0.004)
    monkeypatch.setattr(patterns, "TIMEOUT_S", one_match_seconds(length) * 20)
    names = ["a" * length + "!"] * 200
    intent = (
        JSONPath("$.names[*]", matches=BAD)
        if check == "JSONPath"
        else JSONSchema({"properties": {"names": {"items": {"pattern": BAD}}}})
    )
    with pytest.raises(
        PatternTimeoutError,
        match=r"the pattern '\(a\|aa\)\+\$' ran past .* all the matches of one check",
    ):
        intent.decide(output_view(json.dumps({"names": names})))
    # Each check has a bound of its own: a later check starts with the whole of it.
    assert JSONPath("$.names[0]", matches="a+!").decide(output_view('{"names": ["aa!"]}')).passed
