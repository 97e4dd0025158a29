"""Two-label models (entailment / not_entailment), the layout of the default universal
zero-shot classifier: scores, thresholds and windows, on tiny two-label models."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from models.fixtures import copy_model
from models.tiny import build_tiny_nli_model
from semantix import Intent, QuantizedNLIJudge, SemanticAssertionError, assert_semantic
from semantix.models._api import default_model

SENTENCES = " ".join(
    f"Sentence number {n} talks about {topic}."
    for n, topic in enumerate(["weather", "prices", "a refund", "the delay", "apologies"] * 6)
)


@pytest.fixture(scope="session")
def wide_two_label_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two labels, entailment second (an index-0 assumption fails), scores that vary."""
    return build_tiny_nli_model(
        tmp_path_factory.mktemp("wide-two-label") / "model",
        "deberta",
        id2label={0: "not_entailment", 1: "entailment"},
        head="wide",
        seed=3,
    )


class Polite(Intent):
    """The text must be polite."""


def test_the_default_model_is_a_two_label_model() -> None:
    assert default_model("nli").labels == ("entailment", "not_entailment")


def test_probabilities_are_the_two_labels_and_the_score_is_entailment(
    two_label_model: Path,
) -> None:
    verdict = QuantizedNLIJudge(two_label_model).evaluate("Hello.", "The text is polite.", 0.5)
    assert verdict.probabilities is not None
    assert set(verdict.probabilities) == {"entailment", "not_entailment"}
    assert sum(verdict.probabilities.values()) == pytest.approx(1.0, abs=1e-6)
    assert verdict.score == verdict.probabilities["entailment"] > 0.5
    assert verdict.reason is not None
    assert verdict.reason.startswith(f"entailment {verdict.score:.2f} (not_entailment ")


def test_labels_are_found_by_name_not_position(wide_two_label_model: Path, tmp_path: Path) -> None:
    swapped = copy_model(wide_two_label_model, tmp_path / "swapped")
    config = json.loads((swapped / "config.json").read_text())
    config["id2label"] = {"0": "entailment", "1": "not_entailment"}
    config["label2id"] = {"entailment": 0, "not_entailment": 1}
    (swapped / "config.json").write_text(json.dumps(config))
    pair = ("The weather is nice today.", "The text is about the weather.")
    original = QuantizedNLIJudge(wide_two_label_model).evaluate(*pair, 0.5)
    renamed = QuantizedNLIJudge(swapped).evaluate(*pair, 0.5)
    assert original.score is not None and renamed.score is not None
    assert renamed.score == pytest.approx(1.0 - original.score, abs=1e-6)


def test_thresholds_and_negation(two_label_model: Path) -> None:
    judge = QuantizedNLIJudge(two_label_model)
    assert judge.recommended_threshold == 0.5
    result = assert_semantic("Thank you for waiting.", Polite, judge=judge)
    assert result.passed
    with pytest.raises(SemanticAssertionError):
        assert_semantic("Thank you for waiting.", ~Polite, judge=judge)
    score = judge.evaluate("Thank you for waiting.", "The text is polite.", 0.5).score
    assert score is not None and score < 0.999
    with pytest.raises(SemanticAssertionError):
        assert_semantic("Thank you for waiting.", Polite, judge=judge, threshold=0.999)


def test_long_outputs_are_windowed_and_the_best_window_decides(
    wide_two_label_model: Path,
) -> None:
    judge = QuantizedNLIJudge(wide_two_label_model)
    hypothesis = "The text is about a refund."
    verdict = judge.evaluate(SENTENCES, hypothesis, 0.5)
    assert verdict.evidence is not None and verdict.evidence in SENTENCES
    assert len(verdict.evidence) < len(SENTENCES)
    assert verdict.reason is not None and "windows: #" in verdict.reason
    alone = judge.evaluate(verdict.evidence, hypothesis, 0.5)
    assert alone.score == pytest.approx(verdict.score, abs=0.02)
