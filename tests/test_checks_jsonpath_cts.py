"""JSONPath follows RFC 9535: every case of the standard's compliance test suite (issue 34.17).

The data is the suite's cts.json, vendored under tests/data/jsonpath-cts with its licence and
where it came from. Each valid selector runs through the check's own compiled query (the one
with semantix's time-bounded match() and search()), and through the check itself on the
document's JSON text; each invalid one is the check's clear ValueError.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from semantix.checks import JSONPath
from semantix.outputs import output_view

CTS = json.loads(
    (Path(__file__).parent / "data" / "jsonpath-cts" / "cts.json").read_text(encoding="utf-8")
)["tests"]


def _disagreement(case: dict[str, Any]) -> str | None:
    """Why the check disagrees with the suite on ``case``, or None when it agrees."""
    name, selector = case["name"], case["selector"]
    if case.get("invalid_selector"):
        try:
            JSONPath(selector)
        except ValueError as error:
            return None if str(error).startswith("JSONPath() got an invalid path") else str(error)
        return f"{name}: {selector!r} is invalid, the check accepted it"
    try:
        check = JSONPath(selector)
    except ValueError as error:
        return f"{name}: {selector!r} is valid, the check refused it: {error}"
    nodes = check.query.find(case["document"])  # type: ignore[attr-defined]
    found = ([node.value for node in nodes], [node.path() for node in nodes])
    allowed = (
        list(zip(case["results"], case["results_paths"], strict=True))
        if "results" in case
        else [(case["result"], case["result_paths"])]
    )
    if not any(found == (values, paths) for values, paths in allowed):
        return f"{name}: {selector!r} found {found}, expected one of {allowed}"
    passed = check.decide(output_view(json.dumps(case["document"]))).passed
    if passed != bool(found[0]):
        return f"{name}: {selector!r} found {found[0]} but the check's verdict is {passed}"
    return None


def test_the_whole_rfc_9535_compliance_suite_passes() -> None:
    assert len(CTS) == 703
    disagreements = [problem for case in CTS if (problem := _disagreement(case)) is not None]
    assert disagreements == []


@pytest.mark.parametrize(
    ("selector", "document", "reason"),
    [
        ("$['a\\u0041']", '{"aA": 1}', "$.aA is 1"),  # an escape in a quoted name
        ("$[?@.qty > 1].sku", '[{"qty": 2, "sku": "A"}, {"qty": 1}]', '$[0].sku is "A"'),
        ("$[?length(@.tags) == 2].id", '[{"id": 7, "tags": [1, 2]}]', "$[0].id is 7"),
        ("$[?match(@.id, 'A[0-9]+')].id", '[{"id": "A17"}, {"id": "B2"}]', '$[0].id is "A17"'),
        ("$..id", '{"a": {"id": 1}, "b": [{"id": 2}]}', "$.a.id is 1; $.b[0].id is 2"),
    ],
)
def test_the_standard_syntax_reads_as_the_rfc_says(
    selector: str, document: str, reason: str
) -> None:
    verdict = JSONPath(selector).decide(output_view(document))
    assert (verdict.passed, verdict.reason) == (True, reason)


@pytest.mark.parametrize(
    "selector",
    ["$.1", " $.a", "$.a ", "$.items.`len`", "$.items[?(@.price > 10 * 2)]", "$.a[?(@ =~ 'x')]"],
)
def test_what_the_standard_does_not_define_is_a_clear_error(selector: str) -> None:
    # jsonpath-ng accepted these (its extensions, or leniency the RFC does not allow).
    with pytest.raises(ValueError, match=r"got an invalid path .*write an RFC 9535 path"):
        JSONPath(selector)
