"""agentevals' own trajectory-match cases (``python/tests/test_trajectory.py``), run through
semantix: each case's reference trajectory becomes the expected calls of a ``ToolCalls`` check
in the same mode, its output trajectory is the subject, as written there (LangChain messages as
their dicts, tool messages without ``tool_call_id``), and semantix must reach agentevals'
expected score, except for the differences docs/agents.md states ("Compared with other
tools"). Where the cases come from and how to refresh them: tests/peers/README.md."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from recorded import recorded_cases

from semantix import evaluate_semantic
from semantix.agents import AnyOrder, ToolCalls
from semantix.checks import CalledTool

CASES = recorded_cases("agentevals_trajectory")

Args = dict[str, Any]


def _sf(output: Args, reference: Args) -> bool:
    """test_trajectory_match_with_langchain_messages_and_override's ``get_weather`` lambda."""
    return output["city"] in ("SF", "San Francisco") and reference["city"] in (
        "SF",
        "San Francisco",
    )


def _upgrade(output: Args, reference: Args) -> bool:
    """test_trajectory_match_with_overrides' ``lookup_policy_query_matcher``."""
    if reference.get("query", {}) and "upgrade" in reference.get("query", {}):
        return "upgrade" in output.get("query", {})
    return True


#: The tests' own matchers (code, so not in the data file), by the test that defines them.
MATCHERS: dict[str, Callable[[Args, Args], bool]] = {
    "test_trajectory_match_with_langchain_messages_and_override": _sf,
    "test_trajectory_match_with_overrides": _upgrade,
}

#: Cases where semantix decides otherwise, by choice: each is a row of docs/agents.md's
#: "Compared with other tools". The test checks they still differ, so the list stays true.
#: All are one choice: two parallel calls answered by two tool messages without
#: ``tool_call_id`` cannot be paired with their results, so the run is not read.
_UNPAIRED = "results without tool_call_id while two calls wait are a ValueError, not a guess"
DIFFERENCES: dict[str, str] = {
    f"{test}[trajectory_{mode}_match-{mode}{suffix}]": _UNPAIRED
    for test, suffixes in (
        ("test_trajectory_with_different_tool_message_order", {}),
        (
            "test_trajectory_with_extra_tool_calls_and_override",
            {"strict": "-0.0", "unordered": "-0.0", "subset": "-0.0", "superset": "-1.0"},
        ),
    )
    for mode in ("strict", "unordered", "subset", "superset")
    for suffix in [suffixes.get(mode, "")]
}


def _nested(args: Args, path: str) -> Any:
    value: Any = args
    for part in path.split("."):
        value = value.get(part) if isinstance(value, dict) else None
        if value is None:
            return None
    return value


def _expected_call(name: str, reference: Args, case: dict[str, Any]) -> type:
    """``CalledTool`` with the rule agentevals applies to this tool's arguments."""
    rule = (case["tool_args_match_overrides"] or {}).get(name) or case["tool_args_match_mode"]
    if rule == "exact":
        return CalledTool(name, args=reference, exact=True)
    if rule == "ignore":
        return CalledTool(name)
    if rule == "superset":  # the call's arguments hold the reference's
        return CalledTool(name, args=reference)
    if rule == "subset":  # every argument of the call is the reference's
        return CalledTool(
            name, args=lambda a: all(reference.get(k, ...) == v for k, v in a.items())
        )
    if isinstance(rule, list):  # only these (dotted) keys must be equal
        return CalledTool(
            name, args=lambda a: all(_nested(a, key) == _nested(reference, key) for key in rule)
        )
    matcher = MATCHERS[rule["callable"]]
    return CalledTool(name, args=lambda a: matcher(a, reference))


def _calls(message: dict[str, Any]) -> list[tuple[str, Args]]:
    """A reference message's calls: OpenAI's (``function``) or LangChain's (``name``, ``args``)."""
    calls = message.get("tool_calls") or []
    return [
        (c["function"]["name"], json.loads(c["function"]["arguments"]))
        if "function" in c
        else (c["name"], c["args"])
        for c in calls
    ]


def translate(case: dict[str, Any]) -> type:
    """The semantix check for one agentevals case: strict keeps each reference message's calls
    together (``AnyOrder``, as agentevals compares one message's calls as a set); the other
    modes compare all calls of the run, as agentevals does."""
    steps = [
        [_expected_call(name, args, case) for name, args in _calls(message)]
        for message in case["reference_outputs"]
    ]
    mode = case["trajectory_match_mode"]
    if mode == "strict":
        items = [step[0] if len(step) == 1 else AnyOrder(*step) for step in steps if step]
        return ToolCalls(*items)
    return ToolCalls(*[call for step in steps for call in step], mode=mode)


def test_the_cases_are_agentevals_own() -> None:
    """Every case records agentevals' expected score, and agentevals 0.0.9 itself reached it."""
    assert len(CASES) == 64
    assert all(case["expected"] == case["agentevals"] for case in CASES)
    assert sum(case["expected"] for case in CASES) == 31


@pytest.mark.parametrize("case", CASES, ids=[case["id"] for case in CASES])
def test_semantix_agrees_with_agentevals(case: dict[str, Any]) -> None:
    if case["id"] in DIFFERENCES:
        with pytest.raises(ValueError, match="so which one it answers is unknown"):
            evaluate_semantic(case["outputs"], translate(case))
    else:
        assert evaluate_semantic(case["outputs"], translate(case)).passed is case["expected"]
