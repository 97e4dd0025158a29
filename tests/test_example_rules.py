"""The held-out set that chose the embedding judge's example rule (issue 25, item 5):
tests/data/negative_requirements{.csv,_examples.json}, committed before any score on it.

These tests keep the data what docs/judges/embedding.md says it is, and the figures published
there (from scripts/compare-example-rules) true for both rules compared.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from embedding_fixtures import DATA, load_calibration, load_examples, minilm_dir_fixture  # noqa: F401
from semantix import Intent, evaluate_semantic
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._phrasing import negated_statement
from semantix.judges._similarity import ExampleRule

CASES = DATA / "negative_requirements.csv"
EXAMPLES = DATA / "negative_requirements_examples.json"
PAGE = Path(__file__).resolve().parent.parent / "docs" / "judges" / "embedding.md"
ROW = "| negative requirements, 12 + 12 (the deciding set) |"


def test_the_set_is_what_the_docs_say() -> None:
    rows = load_calibration(CASES)
    examples = load_examples(EXAMPLES)
    assert len(rows) == 100 and len(examples) == 10
    assert {row.intent for row in rows} == set(examples)
    outputs = {row.output for row in rows}
    assert len(outputs) == 100
    for requirement, sets in examples.items():
        assert len(sets["examples"]) == len(sets["counterexamples"]) == 12, requirement
        assert not outputs & {*sets["examples"], *sets["counterexamples"]}, requirement
        labels = [row.expected for row in rows if row.intent == requirement]
        assert labels.count(True) == labels.count(False) == 5, requirement
    # Negatively phrased: the pipeline judges each as NOT its positive statement, but for the
    # one whose "never ... without" is not the negation of one statement (it stays as written).
    as_written = {text for text in examples if negated_statement(text) is None}
    travel = (
        "The travel agent never changes or cancels a booking without first asking the user to "
        "confirm."
    )
    assert as_written == {travel}


def _balanced(judge: EmbeddingJudge) -> float:
    examples = load_examples(EXAMPLES)
    intents = {
        text: type("Requirement", (Intent,), {"__doc__": text, **sets})
        for text, sets in examples.items()
    }
    outcomes = [
        (evaluate_semantic(row.output, intents[row.intent], judge=judge).passed, row.expected)
        for row in load_calibration(CASES)
    ]
    recalls = [
        sum(predicted == label for predicted, label in outcomes if label == side)
        / sum(label == side for _, label in outcomes)
        for side in (True, False)
    ]
    return sum(recalls) / 2


def _published() -> list[float]:
    line = next(
        line for line in PAGE.read_text(encoding="utf-8").splitlines() if line.startswith(ROW)
    )
    return [float(value) for value in re.findall(r"\d\.\d\d", line)]


def test_the_published_figures_of_both_rules_hold(minilm_dir: Path) -> None:
    closest, mean_of_3, _mean_of_all = _published()
    assert mean_of_3 > closest  # why the default is what it is
    assert ExampleRule() == ExampleRule(closest=3)
    measured = {
        rule.closest: _balanced(EmbeddingJudge(minilm_dir, threads=2, rule=rule))
        for rule in (ExampleRule(closest=1), ExampleRule(closest=3))
    }
    assert measured[1] == pytest.approx(closest, abs=0.006)
    assert measured[3] == pytest.approx(mean_of_3, abs=0.006)
