"""Metamorphic relations: the built-in relations, user functions and field paths."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from semantix.errors import ConfigurationError
from semantix.relations import (
    MissingVariantsWarning,
    NotApplicable,
    Variant,
    VariantsFileError,
    distractor,
    format_jitter,
    order,
    paraphrase,
    relation,
)
from semantix.relations._base import check_fields
from semantix.relations._variants import VariantsFile, write_variants

CASE: dict[str, Any] = {
    "id": "refund-1",
    "question": "How long does a refund take, roughly?",
    "documents": ["d0", "d1", "d2"],
}


def labels(made: object) -> list[str]:
    assert isinstance(made, tuple), made
    return [variant.label for variant in made]


# --- order -----------------------------------------------------------------------------------


def test_order_records_each_permutation_reversal_first() -> None:
    made = order("documents", count=3).variants(CASE)
    assert labels(made) == ["order [2, 1, 0]", "order [1, 2, 0]", "order [0, 2, 1]"]
    assert isinstance(made, tuple)
    assert [variant.case["documents"] for variant in made] == [
        ["d2", "d1", "d0"],
        ["d1", "d2", "d0"],
        ["d0", "d2", "d1"],
    ]
    assert CASE["documents"] == ["d0", "d1", "d2"]  # the original is never changed


def test_order_is_seeded() -> None:
    case = {"documents": list(range(8))}
    first = labels(order("documents", count=4, seed=7).variants(case))
    assert first == labels(order("documents", count=4, seed=7).variants(case))
    assert first != labels(order("documents", count=4, seed=8).variants(case))
    assert len(set(first)) == 4 and "order [0, 1, 2, 3, 4, 5, 6, 7]" not in first


def test_order_of_two_items_has_one_variant_and_keeps_tuples() -> None:
    made = order("documents", count=5).variants({"documents": ("a", "b")})
    assert isinstance(made, tuple) and len(made) == 1
    assert made[0].case["documents"] == ("b", "a")


@pytest.mark.parametrize("documents", [[], ["only"]])
def test_order_of_fewer_than_two_items_is_not_applicable(documents: list[str]) -> None:
    made = order("documents").variants({"documents": documents})
    assert isinstance(made, NotApplicable)
    assert "nothing to reorder" in made.reason


def test_a_missing_field_is_not_applicable_naming_the_fields() -> None:
    made = order("documents").variants({"id": "x", "question": "q"})
    assert made == NotApplicable("the case has no field 'documents' (its fields: id, question)")


def test_order_of_a_text_field_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match=r"order\(question\).*holds str, not a list"):
        order("question").variants(CASE)


def test_nested_field_paths() -> None:
    case: dict[str, Any] = {
        "retrieval": {"documents": ["a", "b"]},
        "messages": [{"content": "Hi there"}],
    }
    made = order("retrieval.documents").variants(case)
    assert isinstance(made, tuple)
    assert made[0].case["retrieval"]["documents"] == ["b", "a"]
    assert case["retrieval"]["documents"] == ["a", "b"]
    jittered = format_jitter("messages.0.content", kinds=["casing"], count=1).variants(case)
    assert isinstance(jittered, tuple)
    assert jittered[0].case["messages"][0]["content"] in ("hi there", "HI THERE", "hI THERE")
    assert case["messages"][0]["content"] == "Hi there"


@pytest.mark.parametrize("path", ["", "a..b", ".a", 3, None])
def test_a_bad_field_path_is_an_error_when_built(path: object) -> None:
    with pytest.raises(ConfigurationError, match="field must be a field name or a dotted path"):
        order(path)  # type: ignore[arg-type]


@pytest.mark.parametrize("count", [0, -1, 1.5, True])
def test_a_bad_count_is_an_error(count: object) -> None:
    with pytest.raises(ConfigurationError, match="count must be a positive int"):
        order("documents", count=count)  # type: ignore[arg-type]


# --- distractor ------------------------------------------------------------------------------


def test_distractor_inserts_one_pool_document_per_variant() -> None:
    pool = ["The canteen opens at 9.", "Parking is free on Sundays."]
    made = distractor("documents", pool, count=2, seed=1).variants(CASE)
    assert isinstance(made, tuple) and len(made) == 2
    for variant in made:
        documents = variant.case["documents"]
        assert len(documents) == 4
        added = [document for document in documents if document in pool]
        assert len(added) == 1
        assert [d for d in documents if d not in pool] == CASE["documents"]
        position = documents.index(added[0])
        assert variant.label == f"distractor {added[0]!r} at {position}"
    assert labels(made) == labels(distractor("documents", pool, count=2, seed=1).variants(CASE))


def test_distractor_skips_pool_documents_already_there() -> None:
    made = distractor("documents", ["d1"]).variants(CASE)
    assert made == NotApplicable("every document of the pool is already in 'documents'")


@pytest.mark.parametrize("pool", [[], "not a list", None])
def test_distractor_needs_a_pool(pool: object) -> None:
    with pytest.raises(ConfigurationError, match="needs pool= a non-empty list"):
        distractor("documents", pool)  # type: ignore[arg-type]


# --- format jitter ---------------------------------------------------------------------------


def test_format_jitter_makes_one_kind_per_variant() -> None:
    made = format_jitter("question").variants(CASE)
    assert isinstance(made, tuple)
    kinds = [variant.label.split(":")[0] for variant in made]
    assert kinds == ["whitespace", "casing", "punctuation"]
    texts = [variant.case["question"] for variant in made]
    assert texts[0].split() == CASE["question"].split() and texts[0] != CASE["question"]
    assert texts[1].lower() == CASE["question"].lower() and texts[1] != CASE["question"]
    assert texts[2] == "How long does a refund take, roughly"
    assert made[2].label == "punctuation: removed trailing '?'"
    again = format_jitter("question").variants(CASE)
    assert isinstance(again, tuple)
    assert [variant.case["question"] for variant in again] == texts


@pytest.mark.parametrize("text", ["", "   "])
def test_format_jitter_of_empty_text_is_not_applicable(text: str) -> None:
    made = format_jitter("question").variants({"question": text})
    assert isinstance(made, NotApplicable) and "empty" in made.reason


def test_format_jitter_of_a_list_is_an_error() -> None:
    with pytest.raises(ConfigurationError, match="holds list, not text"):
        format_jitter("documents").variants(CASE)


@pytest.mark.parametrize("kinds", [[], ["spacing"], "casing"])
def test_format_jitter_kinds_are_checked(kinds: object) -> None:
    with pytest.raises(ConfigurationError, match="kinds must be a non-empty list of whitespace"):
        format_jitter("question", kinds=kinds)  # type: ignore[arg-type]


# --- paraphrase ------------------------------------------------------------------------------


def frozen(tmp_path: Path, original: str, paraphrases: list[str]) -> Path:
    file = VariantsFile("refund-1", {"question": (original, paraphrases)}, {"model": "m"})
    path = write_variants(tmp_path, file)
    assert path is not None
    return path


def test_paraphrase_reads_the_reviewed_file(tmp_path: Path) -> None:
    frozen(tmp_path, CASE["question"], ["What is the refund delay?", "How soon is my refund?"])
    made = paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")
    assert labels(made) == ["paraphrase 1", "paraphrase 2"]
    assert isinstance(made, tuple)
    assert made[1].case == {**CASE, "question": "How soon is my refund?"}


def test_a_missing_variants_file_is_not_applicable_with_a_warning(tmp_path: Path) -> None:
    with pytest.warns(MissingVariantsWarning, match="no variants file .*refund-1.yaml"):
        made = paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")
    assert isinstance(made, NotApplicable) and "semantix freeze-variants" in made.reason


def test_a_file_frozen_for_another_text_is_not_applicable(tmp_path: Path) -> None:
    frozen(tmp_path, "How do refunds work?", ["Explain refunds."])
    with pytest.warns(MissingVariantsWarning, match="frozen for another 'question'"):
        made = paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")
    assert isinstance(made, NotApplicable) and "--force" in made.reason


def test_a_file_with_every_paraphrase_deleted_is_not_applicable(tmp_path: Path) -> None:
    frozen(tmp_path, CASE["question"], [])
    made = paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")
    assert isinstance(made, NotApplicable) and "all deleted" in made.reason


def test_paraphrase_needs_a_case_id(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="needs the case's id"):
        paraphrase("question", directory=tmp_path).variants(CASE, case_id=None)


def test_a_damaged_variants_file_is_an_error_naming_it(tmp_path: Path) -> None:
    (tmp_path / "refund-1.yaml").write_text("fields: [unclosed\n", encoding="utf-8")
    with pytest.raises(VariantsFileError, match=r"refund-1.yaml is not valid YAML"):
        paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")
    (tmp_path / "refund-1.yaml").write_text("fields:\n  question: 3\n", encoding="utf-8")
    with pytest.raises(VariantsFileError, match="field 'question' has no 'original' text"):
        paraphrase("question", directory=tmp_path).variants(CASE, case_id="refund-1")


# --- your own relations ----------------------------------------------------------------------


def test_a_function_relation_takes_cases_variants_or_not_applicable() -> None:
    def politer(case: dict[str, object]) -> list[object]:
        return [{**case, "question": "Please: " + str(case["question"])}, Variant(case, "same")]

    made = relation(politer).variants(CASE)
    assert labels(made) == ["variant 1", "same"]
    assert relation(politer).label == "politer"
    assert relation(lambda case: [], name="nothing").variants(CASE) == NotApplicable(
        "nothing made no variant of this case"
    )
    assert relation(lambda case: NotApplicable("why")).variants(CASE) == NotApplicable("why")
    missing = relation(politer, field="answer").variants(CASE)
    assert isinstance(missing, NotApplicable) and "no field 'answer'" in missing.reason


@pytest.mark.parametrize(
    ("returned", "message"),
    [("text", "returned str"), (3, "returned int"), ([3], "made a int as variant 1")],
)
def test_a_function_relation_returning_garbage_is_an_error(returned: object, message: str) -> None:
    with pytest.raises(TypeError, match=message):
        relation(lambda case: returned, name="bad").variants(CASE)


def test_check_fields_rejects_a_field_no_case_has() -> None:
    cases = [CASE, {"id": "2", "question": "q"}]
    check_fields([order("documents")], cases)  # one case lacks it: not applicable there
    with pytest.raises(ConfigurationError, match=r"order\(documnets\): no case has the field"):
        check_fields([order("documnets")], cases)


def test_reprs_show_the_relation() -> None:
    assert repr(order("documents")) == "<Relation order(documents)>"
    assert repr(Variant({}, "order [1, 0]")) == "<Variant order [1, 0]>"


def test_import_semantix_imports_no_relations_nor_yaml() -> None:
    code = "import sys, semantix; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run(
        [sys.executable, "-c", "import json; " + code],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    modules = json.loads(out)
    assert "semantix" in modules
    assert not [m for m in modules if m.startswith(("semantix.relations", "yaml"))]
