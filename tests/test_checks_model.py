"""MatchesModel (issue 35): the text is JSON a pydantic v2 model accepts; every error with its
field path; a class that is no model, or pydantic missing, is a clear error."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from semantix.checks import MatchesModel
from semantix.errors import JudgeUnavailableError
from semantix.outputs import output_view

pydantic = pytest.importorskip("pydantic")


class Item(pydantic.BaseModel):  # type: ignore[misc,name-defined]
    sku: str
    qty: int


class Order(pydantic.BaseModel):  # type: ignore[misc,name-defined]
    id: str
    items: list[Item]
    total: float = 0.0


def decide(check: Any, text: str) -> tuple[bool, str]:
    verdict = check.decide(output_view(text))
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.reason


def test_a_valid_document_passes() -> None:
    check = MatchesModel(Order)
    assert repr(check) == "MatchesModel(Order)"
    assert check.description == "The text is JSON that the pydantic model Order accepts."
    assert decide(check, '{"id": "A1", "items": [{"sku": "x", "qty": 2}]}') == (
        True,
        "the JSON (an object with 2 keys) is a valid Order",
    )
    assert MatchesModel(Order) is MatchesModel(Order)


def test_a_failure_lists_every_error_with_its_field_path() -> None:
    text = '{"id": 7, "items": [{"sku": "x", "qty": "two"}, {"qty": 1}]}'
    assert decide(MatchesModel(Order), text) == (
        False,
        (
            "Order: 3 validation errors: id: Input should be a valid string (got 7); "
            "items[0].qty: Input should be a valid integer, unable to parse string as an integer "
            '(got "two"); items[1].sku: Field required'
        ),
    )
    assert decide(MatchesModel(Order), "[]") == (
        False,
        "Order: 1 validation error: $: Input should be an object",
    )


def test_json_that_rfc_8259_does_not_allow_fails_before_pydantic_reads_it() -> None:
    # pydantic's own parser reads NaN into a float field; the JSON checks never do.
    text = '{"id": "A1", "items": [], "total": NaN}'
    passed, reason = decide(MatchesModel(Order), text)
    assert not passed
    assert reason.startswith("the text is not JSON (NaN is not a JSON number")


def test_extract_finds_the_json_in_prose() -> None:
    check = MatchesModel(Order, extract=True)
    assert repr(check) == "MatchesModel(Order, extract=True)"
    text = 'Your order:\n```json\n{"id": "A1", "items": []}\n```\nThanks!'
    assert decide(check, text) == (
        True,
        (
            "the JSON (an object with 2 keys) is a valid Order; the JSON is extracted from the "
            "```json block at character 12"
        ),
    )
    assert decide(check, "No order today.")[1].startswith("no JSON found in the text")


@pytest.mark.parametrize(
    ("model", "pattern"),
    [
        (dict, r"needs a pydantic v2 model class .*got the class dict$"),
        (Order(id="A", items=[]), r"got Order Order\(id='A'"),
        ("Order", r"got str 'Order'"),
    ],
)
def test_what_is_not_a_pydantic_v2_model_is_a_type_error_naming_it(
    model: Any, pattern: str
) -> None:
    with pytest.raises(TypeError, match=pattern):
        MatchesModel(model)
    with pytest.raises(TypeError, match=r"MatchesModel\(extract=...\) must be True or False"):
        MatchesModel(Order, extract=1)  # type: ignore[arg-type]


def test_a_pydantic_v1_model_is_named_as_such() -> None:
    v1 = pytest.importorskip("pydantic.v1")

    class Old(v1.BaseModel):  # type: ignore[misc,name-defined]
        id: str

    with pytest.raises(TypeError, match=r"got the class .*Old \(a pydantic v1 model"):
        MatchesModel(Old)


def test_pydantic_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pydantic", None)  # import fails as if it were not installed
    with pytest.raises(JudgeUnavailableError, match=r"MatchesModel needs pydantic.*\[json\]"):
        MatchesModel(Order)


def test_the_checks_import_no_optional_library_until_one_is_built() -> None:
    probe = (
        "import sys, semantix, semantix.checks as c\n"
        "c.Contains('x'); c.Length(max_words=3); c.IsJSON(extract=True)\n"
        "print(' '.join(sorted(m for m in ('regex', 'jsonschema', 'jsonpath_rfc9535', "
        "'pydantic') if m in sys.modules)))"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == ""
