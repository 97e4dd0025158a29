"""pytest-semantic's matcher on semantix: `SemanticMatcher`, the ``semantic_matcher`` fixture and
its ini keys (issue 22, item 17); pytest-semantic installed beside us: tests/test_other_semantix.py."""

from __future__ import annotations

import textwrap
import zlib
from pathlib import Path

import numpy as np
import pytest

from embedding_fixtures import minilm_dir_fixture, minilm_judge_fixture  # noqa: F401
from semantix.errors import ConfigurationError, SemanticAssertionError
from semantix.judges._embedding import EmbeddingJudge
from semantix.testing import SemanticMatcher

DIMS = 64
GREETINGS = ["hello there friend", "hi there", "good morning friend"]
FAREWELLS = ["goodbye for now", "see you later"]


def words(text: str) -> list[float]:
    """A deterministic toy embedding of one text (pytest-semantic's custom_embed_fn shape)."""
    row = [0.0] * DIMS
    for word in text.lower().split():
        row[zlib.crc32(word.encode()) % DIMS] += 1.0
    return row


def mean_similarity(text: str, references: list[str]) -> float:
    x = np.asarray(words(text))
    sims = [
        x @ np.asarray(words(r)) / np.linalg.norm(x) / np.linalg.norm(words(r)) for r in references
    ]
    return float(np.mean(sims))


def test_pytest_semantics_rule_mean_of_all_with_a_margin_and_a_floor() -> None:
    response = "hello there my friend"
    valid, invalid = mean_similarity(response, GREETINGS), mean_similarity(response, FAREWELLS)
    assert valid - invalid > 0.2 and valid < 0.9  # the figures the cases below rest on
    matcher = SemanticMatcher(
        GREETINGS, FAREWELLS, margin=0.2, min_similarity=0.1, custom_embed_fn=words
    )
    assert response == matcher
    assert matcher.result is not None
    assert matcher.result.leaves[0].verdict.score == pytest.approx(valid, abs=1e-6)
    too_close = SemanticMatcher(
        GREETINGS,
        FAREWELLS,
        margin=round(valid - invalid + 0.01, 3),
        custom_embed_fn=words,
        min_similarity=0.1,
    )
    assert response != too_close
    assert "not more than the margin" in repr(too_close)
    too_far = SemanticMatcher(
        GREETINGS, FAREWELLS, margin=0.0, min_similarity=0.9, custom_embed_fn=words
    )
    assert response != too_far


def test_a_mismatch_shows_the_verdict_and_check_raises() -> None:
    matcher = SemanticMatcher(GREETINGS, FAREWELLS, custom_embed_fn=words, min_similarity=0.1)
    assert repr(matcher) == (
        "SemanticMatcher(valid=3 examples, invalid=2 examples, margin=0.15, min_similarity=0.1)"
    )
    assert "see you later friend" != matcher
    assert repr(matcher).startswith("SemanticMatcher(valid=3 examples")
    assert "closer to counterexamples (" in repr(matcher)
    with pytest.raises(SemanticAssertionError, match="SemanticMatch"):
        matcher.check("see you later friend")
    assert matcher.check("hello there friend").passed


def test_without_invalid_examples_the_valid_ones_decide() -> None:
    matcher = SemanticMatcher(GREETINGS, margin=0.1, min_similarity=0.1, custom_embed_fn=words)
    assert matcher.invalid == ()
    assert "hello there" == matcher
    assert "the invoice is attached" != matcher
    strict = SemanticMatcher(GREETINGS, margin=0.9, min_similarity=0.1, custom_embed_fn=words)
    assert "hello there" != strict
    assert "not above the margin 0.9 (no counterexamples)" in repr(strict)


def test_one_judge_per_function_and_margin() -> None:
    first = SemanticMatcher(GREETINGS, custom_embed_fn=words)
    assert SemanticMatcher(FAREWELLS, custom_embed_fn=words).judge is first.judge
    assert SemanticMatcher(GREETINGS, custom_embed_fn=words, margin=0.3).judge is not first.judge


@pytest.mark.parametrize(
    ("arguments", "words_in_error"),
    [
        ({"valid": []}, "needs at least one example"),
        ({"valid": "hello"}, "must be a list of example responses"),
        ({"valid": ["hello", ""]}, "must hold non-empty strings"),
        ({"valid": ["hi"], "invalid": [3]}, "must hold non-empty strings, got 3"),
        ({"valid": ["hi"], "margin": 1.5}, "SemanticMatcher(margin=...)"),
        ({"valid": ["hi"], "min_similarity": -1}, "SemanticMatcher(min_similarity=...)"),
        ({"valid": ["hi"], "custom_embed_fn": "openai"}, "must be a function text -> vector"),
        ({"valid": ["hi"], "custom_embed_fn": words, "model_name": "x"}, "not both"),
    ],
)
def test_bad_arguments_say_what_to_write(arguments: dict[str, object], words_in_error: str) -> None:
    with pytest.raises((ConfigurationError, ValueError)) as caught:
        SemanticMatcher(**arguments)  # type: ignore[arg-type]
    assert words_in_error in str(caught.value)


def test_real_minilm_matches_a_paraphrase_and_refuses_a_farewell(
    minilm_dir: Path, minilm_judge: EmbeddingJudge
) -> None:
    valid = ["Hello! How can I help you today?", "Hi there, what can I do for you?"]
    invalid = ["Goodbye, have a nice day.", "Thanks for chatting, bye!"]
    matcher = SemanticMatcher(valid, invalid, model_name=str(minilm_dir), min_similarity=0.3)
    response = "Hey! What can I help you with?"
    assert response == matcher
    vectors = minilm_judge.embed([response, *valid])
    assert matcher.result is not None
    assert matcher.result.leaves[0].verdict.score == pytest.approx(
        float(np.mean(vectors[1:] @ vectors[0])), abs=1e-5
    )
    assert "Bye for now, take care!" != matcher


# -- the fixture and its ini keys ---------------------------------------------------------------


MATCHER_TESTS = textwrap.dedent(
    """
    import zlib

    def words(text):
        row = [0.0] * 64
        for word in text.lower().split():
            row[zlib.crc32(word.encode()) % 64] += 1.0
        return row

    def test_greeting(semantic_matcher):
        matcher = semantic_matcher(
            valid=["hello there friend", "hi there"],
            invalid=["goodbye for now"],
            custom_embed_fn=words,
        )
        assert "hello there my friend" == matcher
    """
)


def test_the_fixture_reads_pytest_semantics_ini_keys(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_match=MATCHER_TESTS)
    pytester.makeini("[pytest]\nsemantic_min_similarity = 0.2\n")
    passed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--semantic-report")
    passed.assert_outcomes(passed=1)
    passed.stdout.fnmatch_lines(
        ["judge: EmbeddingFunctionJudge(test_match.words)*", "*test_greeting*SemanticMat*PASS*"]
    )
    pytester.makeini("[pytest]\nsemantic_min_similarity = 0.2\nsemantic_threshold = 0.9\n")
    failed = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    failed.assert_outcomes(failed=1)
    failed.stdout.fnmatch_lines(
        ["*SemanticMatcher(valid=2 examples*margin=0.9*FAIL*margin +0.610*"]
    )


def test_a_bad_ini_value_is_a_usage_error_naming_the_key(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_match=MATCHER_TESTS)
    pytester.makeini("[pytest]\nsemantic_threshold = high\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*ini option semantic_threshold = ?high? is not a number in ?0, 1?*semantic_threshold = 0.15*"
        ]
    )


def test_semantic_model_names_the_embedding_model(
    pytester: pytest.Pytester, minilm_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(
        test_model=textwrap.dedent(
            """
            def test_model(semantic_matcher):
                matcher = semantic_matcher(valid=["Hello! How can I help you today?"])
                assert matcher.judge.identity.location == MODEL
                assert "Hi! What can I do for you?" == matcher
            """
        ).replace("MODEL", repr(str(minilm_dir.resolve())))
    )
    (pytester.path / "models").mkdir()
    (pytester.path / "models" / "minilm").symlink_to(minilm_dir, target_is_directory=True)
    # A directory relative to the ini file, as every path in it is, wherever pytest runs.
    ini = pytester.makeini(
        "[pytest]\nsemantic_model = models/minilm\nsemantic_min_similarity = 0.3\n"
    )
    monkeypatch.chdir(pytester.mkdir("elsewhere"))
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "-c", str(ini), str(pytester.path / "test_model.py")
    )
    result.assert_outcomes(passed=1)


def _raising(text: str) -> list[float]:
    raise ConnectionError("embedding server closed the connection")


@pytest.mark.parametrize(
    ("embed", "words_in_error"),
    [
        (_raising, "ConnectionError"),
        (lambda text: [float("nan")] * DIMS, "NaN"),
        (lambda text: [0.0] * DIMS, "zero"),
        (lambda text: [1.0] * (len(text) % 3 + 2), "length"),
    ],
    ids=["raises", "nan", "all-zero", "ragged"],
)
def test_a_judge_error_decides_neither_equal_nor_unequal(
    embed: object, words_in_error: str
) -> None:
    """Issue 45, item 4b: a judge that never answered must not make ``!=`` pass."""
    matcher = SemanticMatcher(GREETINGS, custom_embed_fn=embed)  # type: ignore[arg-type]
    with pytest.raises(Exception) as equal:
        _ = "hello there friend" == matcher
    with pytest.raises(Exception) as unequal:
        _ = "hello there friend" != matcher
    for caught in (equal, unequal):
        assert not isinstance(caught.value, SemanticAssertionError)
        assert words_in_error.lower() in str(caught.value).lower()
    assert matcher.error is unequal.value and matcher.result is None
