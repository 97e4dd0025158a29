"""EmbeddingFunctionJudge: the similarity rule over a user's own ``texts -> vectors`` function."""

from __future__ import annotations

import math
import zlib
from pathlib import Path

import numpy as np
import pytest

from embedding_fixtures import minilm_dir_fixture, minilm_judge_fixture  # noqa: F401
from semantix import Intent, IntentDescription, assert_semantic, evaluate_semantic
from semantix.errors import ConfigurationError, JudgeError, SemanticAssertionError
from semantix.judges import EmbeddingFunctionJudge, ExampleRule
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._embedding_function import per_text

DIMS = 64


def bag_of_words(texts: list[str]) -> list[list[float]]:
    """A deterministic toy embedding: each word hashed into one of 64 counts."""
    rows = []
    for text in texts:
        row = [0.0] * DIMS
        for word in text.lower().replace(".", " ").replace("!", " ").split():
            row[zlib.crc32(word.encode()) % DIMS] += 1.0
        rows.append(row)
    return rows


def cosine(a: str, b: str) -> float:
    x, y = (np.asarray(v) for v in bag_of_words([a, b]))
    return float(x @ y / (np.linalg.norm(x) * np.linalg.norm(y)))


class Greeting(Intent):
    """The text greets the user."""

    examples = ("hello there friend", "hi there", "good morning friend", "hello and welcome")
    counterexamples = ("goodbye for now", "see you later", "the invoice is attached")


def test_a_description_only_verdict_is_the_cosine_of_the_vectors() -> None:
    judge = EmbeddingFunctionJudge(bag_of_words, name="bow")
    verdict = judge.evaluate("hello there", "hello world", 0.4)
    assert verdict.score == pytest.approx(cosine("hello there", "hello world"), abs=1e-6)
    assert verdict.passed == (cosine("hello there", "hello world") >= 0.4)
    assert "cosine similarity to the intent description" in verdict.reason


def test_examples_decide_by_the_rule_on_the_functions_vectors() -> None:
    judge = EmbeddingFunctionJudge(bag_of_words, name="bow", rule=ExampleRule(closest=3))
    passed = evaluate_semantic("hello there my friend", Greeting, judge=judge, threshold=0.1)
    failed = evaluate_semantic("see you later", Greeting, judge=judge, threshold=0.1)
    assert passed.passed and not failed.passed
    nearest = sorted((cosine("hello there my friend", e) for e in Greeting.examples), reverse=True)
    assert passed.leaves[0].verdict.score == pytest.approx(sum(nearest[:3]) / 3, abs=1e-6)
    assert failed.leaves[0].verdict.reason.startswith("closer to counterexamples (")


def test_the_function_gets_distinct_texts_in_batches_and_references_alone() -> None:
    calls: list[list[str]] = []

    def recording(texts: list[str]) -> list[list[float]]:
        calls.append(list(texts))
        return bag_of_words(texts)

    judge = EmbeddingFunctionJudge(recording, name="bow", batch_size=2)
    outputs = ["hello a", "hello b", "hello a", "hello c"]
    judge.evaluate_batch([(output, "a greeting", 0.1) for output in outputs])
    assert calls[0] == ["a greeting"]  # a reference, embedded on its own
    assert calls[1:] == [["hello a", "hello b"], ["hello c"]]  # distinct outputs, 2 at a time
    calls.clear()
    judge.evaluate("hello d", "a greeting", 0.1)
    assert calls == [["hello d"]]  # the description is remembered


@pytest.mark.parametrize(
    ("returned", "error", "words"),
    [
        ([[1.0, 0.0]], TypeError, "was given 2 text(s) and must return as many vectors"),
        ("not vectors", TypeError, "must return one vector"),
        ([[1.0, math.nan], [1.0, 0.0]], ValueError, "NaN or infinite"),
        ([[0.0, 0.0], [1.0, 0.0]], ValueError, "all-zero vector for 'hello'"),
    ],
)
def test_a_bad_return_is_an_error_naming_the_function(
    returned: object, error: type[Exception], words: str
) -> None:
    judge = EmbeddingFunctionJudge(lambda texts: returned, name="my-embedder")
    with pytest.raises(error, match="my-embedder") as caught:
        judge._embed_many(["hello", "world"])
    assert words in str(caught.value)


def test_a_bad_return_is_a_judge_error_never_a_pass() -> None:
    judge = EmbeddingFunctionJudge(lambda texts: [[0.0, 0.0]] * len(texts), name="zeros")
    with pytest.raises(JudgeError, match="zeros"):
        assert_semantic("hello", "a greeting", judge=judge, threshold=0.0)


def test_an_exception_in_the_function_surfaces() -> None:
    def broken(texts: list[str]) -> list[list[float]]:
        raise ConnectionError("embeddings API unreachable")

    with pytest.raises(JudgeError) as caught:
        assert_semantic("hello", "a greeting", judge=EmbeddingFunctionJudge(broken), threshold=0.0)
    assert isinstance(caught.value.__cause__, ConnectionError)


@pytest.mark.parametrize(
    ("arguments", "words"),
    [
        ({"embed": "text-embedding-3-small"}, "must be a function texts -> vectors"),
        ({"embed": bag_of_words, "name": " "}, "must be a non-empty str"),
        ({"embed": bag_of_words, "batch_size": 0}, "batch_size"),
        ({"embed": bag_of_words, "rule": 3}, "must be a semantix.judges.ExampleRule"),
        ({"embed": bag_of_words, "threshold": 1.5}, "1.5"),
    ],
)
def test_bad_arguments_are_configuration_errors(arguments: dict[str, object], words: str) -> None:
    with pytest.raises((ConfigurationError, ValueError)) as caught:
        EmbeddingFunctionJudge(**arguments)  # type: ignore[arg-type]
    assert words in str(caught.value)


@pytest.mark.parametrize(
    ("rule", "words"),
    [({"closest": 0}, "whole number >= 1"), ({"margin": -0.1}, "number in [0, 1]")],
)
def test_a_bad_rule_is_refused(rule: dict[str, float], words: str) -> None:
    with pytest.raises(ConfigurationError) as caught:
        ExampleRule(**rule)  # type: ignore[arg-type]
    assert words in str(caught.value)


def test_identity_names_the_model_and_the_threshold_is_declared() -> None:
    judge = EmbeddingFunctionJudge(bag_of_words, threshold=0.35)
    assert judge.identity.name == "EmbeddingFunctionJudge"
    assert judge.identity.model == f"{__name__}.bag_of_words"
    assert judge.recommended_threshold == 0.35
    result = evaluate_semantic("hello there", "hello world", judge=judge)
    assert result.leaves[0].threshold == 0.35
    named = EmbeddingFunctionJudge(lambda texts: bag_of_words(texts), name="bow-64")
    assert str(named.identity) == "EmbeddingFunctionJudge(bow-64)"


def test_the_rule_is_part_of_a_frozen_verdicts_key() -> None:
    from semantix.verdicts._fingerprint import fingerprint

    description = IntentDescription("greets", examples=Greeting.examples)
    keys = {
        fingerprint(EmbeddingFunctionJudge(bag_of_words, name="bow", rule=rule), "hi", description)
        for rule in (ExampleRule(), ExampleRule(closest=1), ExampleRule(margin=0.1))
    }
    assert len(keys) == 3


def test_a_one_text_function_works_through_per_text() -> None:
    def one(text: str) -> list[float]:
        return bag_of_words([text])[0]

    judge = EmbeddingFunctionJudge(per_text(one))
    assert judge.identity.model == f"{__name__}.{one.__qualname__}"
    verdict = judge.evaluate("hello there", "hello world", 0.0)
    assert verdict.score == pytest.approx(cosine("hello there", "hello world"), abs=1e-6)


def test_a_negative_requirement_is_judged_as_not_its_statement() -> None:
    with pytest.raises(SemanticAssertionError):
        assert_semantic(
            "goodbye for now",
            "The text does not say goodbye.",
            judge=EmbeddingFunctionJudge(bag_of_words),
            threshold=0.2,
        )


def test_real_minilm_vectors_give_the_onnx_judges_verdicts(
    minilm_dir: Path, minilm_judge: EmbeddingJudge
) -> None:
    judge = EmbeddingFunctionJudge(minilm_judge.embed, name="all-MiniLM-L6-v2")
    for output in ("Sorry, I can't help with that.", "Sure, here is the recipe."):
        ours = judge.evaluate(output, "a refusal to help", 0.2)
        theirs = minilm_judge.evaluate(output, "a refusal to help", 0.2)
        assert ours.passed == theirs.passed
        assert ours.score == pytest.approx(theirs.score, abs=1e-5)


@pytest.mark.parametrize("scale", [1e25, 1e-25, 1e300, 5e-324 * 2**20])
def test_large_or_tiny_finite_vectors_give_the_unscaled_verdicts(scale: float) -> None:
    """A float32 norm of 1e25-scaled vectors overflows (and of 1e-25 ones underflows) to zero:
    every similarity was 0.0, so ``~X`` passed whatever the text said."""

    def scaled(texts: list[str]) -> list[list[float]]:
        return [[value * scale for value in row] for row in bag_of_words(texts)]

    plain, big = EmbeddingFunctionJudge(bag_of_words), EmbeddingFunctionJudge(scaled)
    for output in ("hello there my friend", "see you later", "hello world"):
        for description in ("hello world", Greeting):
            ours = evaluate_semantic(output, description, judge=big, threshold=0.3)
            theirs = evaluate_semantic(output, description, judge=plain, threshold=0.3)
            assert ours.passed == theirs.passed
            assert ours.leaves[0].verdict.score == pytest.approx(
                theirs.leaves[0].verdict.score, abs=1e-6
            )
    assert big.evaluate("hello world", "hello world", 0.5).score == pytest.approx(1.0)

    class Hello(Intent):
        """hello world"""

    with pytest.raises(SemanticAssertionError):
        assert_semantic("hello world", ~Hello, judge=big, threshold=0.5)


def test_unit_rows_of_any_finite_scale_are_unit_length() -> None:
    from semantix.judges._similarity import unit_rows

    rows = np.array([[3.0, 4.0], [0.0, 0.0], [-1.0, 1.0]])
    expected = unit_rows(rows)
    for scale in (1e25, 1e-25, 1e-40, 1e300):
        assert np.allclose(unit_rows(rows * scale), expected, atol=1e-6)
    assert np.array_equal(expected[1], [0.0, 0.0])  # a zero row stays zero
    assert unit_rows(rows).dtype == np.float32
