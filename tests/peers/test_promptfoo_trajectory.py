"""promptfoo's trajectory assertions (``test/assertions/trajectory.test.ts``: tool-used,
tool-sequence, tool-args-match, step-count), run through semantix: each case's trace becomes the
run it records (one assistant step per tool span, in order), each assertion the semantix check
that says the same, and semantix must reach promptfoo's expected pass or fail, except for the
differences docs/agents.md states ("Compared with other tools"). Sources: tests/peers/README.md.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from recorded import recorded_cases

from semantix import evaluate_semantic
from semantix.agents import CallCount, ToolCalls
from semantix.checks import CalledTool

CASES = recorded_cases("promptfoo_trajectory")

_ARGS = (
    "semantix compares arguments as given: no defaults= (ignore= drops a key whatever its value)"
)
_GLOB = "ignore= takes argument names, not globs"
_BOTH = "a key both in args= and ignore= is an error, not dropped from the expectation"
_ARRAY = "arguments are a JSON object; an array is left unread and no args= rule matches it"

#: Cases where semantix decides otherwise, by choice, each a row of docs/agents.md's
#: "Compared with other tools": the test checks that they still differ.
DIFFERENCES: dict[str, str] = {
    "tool-args-match > defaults > passes in exact mode when an unexpected actual key matches a "
    "declared default": _ARGS,
    "tool-args-match > defaults > passes in exact mode when actual contains multiple keys all "
    "matching declared defaults": _ARGS,
    "tool-args-match > defaults > supports defaults with structured values via deep equality": _ARGS,
    'tool-args-match > defaults > matches the documented outcome table row "status:Q, page:1" '
    "using the example config": _ARGS,
    "tool-args-match > defaults > strips a null default value when actual emits null for that "
    "key": _ARGS,
    "tool-args-match > defaults > surfaces the stripped keys in the pass reason when multiple "
    "defaults are tolerated": _ARGS,
    "tool-args-match > defaults > fails in partial mode when a key in both args and defaults is "
    "stripped to nothing": _ARGS,
    "tool-args-match > defaults > applies defaults when the expected payload uses the arguments "
    "alias": _ARGS,
    "tool-args-match > defaults > inverts correctly when defaults allow an otherwise-forbidden "
    "match": _ARGS,
    'tool-args-match > defaults > strips a literal "*" default only when the observed value is '
    'exactly "*" (fields "*")': _ARGS,
    "tool-args-match > ignore > composes with defaults and reports both in the pass reason": _ARGS,
    "tool-args-match > ignore > treats entries containing glob characters as key patterns": _GLOB,
    "tool-args-match > ignore > supports single-character ? glob patterns": _GLOB,
    "tool-args-match > ignore > strips the ignored key from the expected payload too": _BOTH,
    "tool-args-match > defaults > treats defaults as a no-op when the actual payload is a "
    "top-level array": _ARRAY,
    "tool-args-match > ignore > treats ignore as a no-op when the actual payload is a top-level "
    "array": _ARRAY,
}


def run(calls: list[list[Any]]) -> list[dict[str, Any]]:
    """The run a case's trace records: each tool span one assistant step and its result."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": "Help with order 123."}]
    for i, (name, args) in enumerate(calls):
        arguments = "" if args is None else json.dumps(args)  # None: no arguments captured
        call = {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": arguments},
        }
        messages.append({"role": "assistant", "content": None, "tool_calls": [call]})
        messages.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "ok"})
    return [*messages, {"role": "assistant", "content": "Done."}]


def _named(value: dict[str, Any]) -> str:
    return str(value.get("name") or value["pattern"])


def _count(value: dict[str, Any], tool: str | None) -> type:
    limits = {key: value[key] for key in ("min", "max") if key in value}
    return CallCount(tool, **limits) if tool is not None else CallCount(**limits)


def _all(checks: list[Any]) -> Any:
    check = checks[0]
    for more in checks[1:]:
        check = check & more
    return check


def translate(assertion: dict[str, Any]) -> Any:
    """The semantix check that says what the promptfoo assertion says."""
    kind, value, inverse = assertion["type"], assertion["value"], assertion["inverse"]
    if kind == "trajectory:tool-used":
        if isinstance(value, dict):
            check = _count(value, _named(value))
            return ~check if inverse else check
        names = [value] if isinstance(value, str) else value
        # promptfoo: every listed tool was used; inverse: none of them was
        return _all([~CalledTool(n) if inverse else CalledTool(n) for n in names])
    if kind == "trajectory:tool-sequence":
        steps = value["steps"] if isinstance(value, dict) else value
        exact = isinstance(value, dict) and value.get("mode") == "exact"
        calls = [CalledTool(step) for step in steps]
        check = ToolCalls(*calls) if exact else ToolCalls(*calls, extra="allow")
        return ~check if inverse else check
    if kind == "trajectory:tool-args-match":
        args = value.get("args", value.get("arguments"))
        exact = value.get("mode") == "exact"
        ignore = value.get("ignore", [])
        ignore = [ignore] if isinstance(ignore, str) else ignore
        if exact:
            check = CalledTool(_named(value), args=args, exact=True, ignore=ignore)
        else:  # partial: keys beyond args= are allowed anyway, so ignore= has nothing to drop
            check = CalledTool(_named(value), args=args)
        return ~check if inverse else check
    assert kind == "trajectory:step-count" and value["type"] == "tool"
    check = _count(value, None)
    return ~check if inverse else check


def outcome(case: dict[str, Any]) -> bool | str:
    try:
        return evaluate_semantic(run(case["calls"]), translate(case["assertion"])).passed
    except (TypeError, ValueError) as error:
        return f"{type(error).__name__}: {error}"


def test_the_cases_are_promptfoos() -> None:
    assert len(CASES) == 65
    assert sum(case["pass"] for case in CASES) == 40
    assert set(DIFFERENCES) <= {case["id"] for case in CASES}


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_semantix_agrees_with_promptfoo(case: dict[str, Any]) -> None:
    got = outcome(case)
    if case["id"] in DIFFERENCES:
        assert got is not case["pass"], f"no longer differs: {DIFFERENCES[case['id']]}"
    else:
        assert got is case["pass"]
