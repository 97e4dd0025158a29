from __future__ import annotations

import math

import pytest

from semantix import FakeJudge, Judge, JudgeIdentity, TokenUsage, Verdict
from semantix.judges._base import capabilities


def test_verdict_needs_only_passed_score_reason() -> None:
    verdict = Verdict(passed=True, score=0.9, reason="entailed")
    assert (verdict.passed, verdict.score, verdict.reason) == (True, 0.9, "entailed")
    assert verdict.threshold is None and verdict.judge is None


def test_verdict_is_frozen() -> None:
    verdict = Verdict(passed=True)
    with pytest.raises(AttributeError):
        verdict.passed = False  # type: ignore[misc]


def test_verdict_repr_shows_the_decision() -> None:
    verdict = Verdict(
        passed=False,
        score=0.41,
        reason="neutral",
        threshold=0.8,
        judge=JudgeIdentity("QuantizedNLIJudge", model="org/model", revision="0123456789abcdef"),
    )
    assert repr(verdict) == (
        "<Verdict FAIL score=0.410 < 0.80 judge=QuantizedNLIJudge(org/model@0123456789ab) "
        "reason='neutral'>"
    )


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"passed": 1}, TypeError, "passed must be a bool"),
        ({"passed": True, "score": 1.2}, ValueError, "score must be between 0 and 1"),
        ({"passed": True, "score": math.nan}, ValueError, "score must be between 0 and 1"),
        ({"passed": True, "score": "0.5"}, TypeError, "score must be a float"),
        ({"passed": True, "reason": 5}, TypeError, "reason must be a str or None"),
        ({"passed": True, "threshold": 2}, ValueError, "Verdict.threshold must be between"),
    ],
)
def test_verdict_rejects_garbage(kwargs: dict[str, object], error: type, pattern: str) -> None:
    with pytest.raises(error, match=pattern):
        Verdict(**kwargs)  # type: ignore[arg-type]


def test_token_usage_total() -> None:
    assert TokenUsage(prompt_tokens=12, completion_tokens=5).total_tokens == 17


def test_fake_judge_records_calls_and_compares_to_threshold() -> None:
    judge = FakeJudge(lambda output, intent: 0.6)
    assert judge.evaluate("out", "intent", 0.5).passed is True
    assert judge.evaluate("out", "intent", 0.7).passed is False
    assert judge.calls == [("out", "intent"), ("out", "intent")]


def test_fake_judge_from_mapping_and_verdict() -> None:
    judge = FakeJudge({"a": 0.9})
    assert judge.evaluate("x", "a", 0.8).score == 0.9
    fixed = Verdict(passed=True, score=0.1, reason="custom")
    assert FakeJudge(lambda o, i: fixed).evaluate("x", "a", 0.8) is fixed


def test_fake_judge_rejects_non_callables() -> None:
    with pytest.raises(TypeError, match="FakeJudge needs a function"):
        FakeJudge(42)  # type: ignore[arg-type]


def test_protocol_is_structural() -> None:
    class Minimal:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0, reason="")

    assert isinstance(Minimal(), Judge)
    assert not isinstance(object(), Judge)


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_positive_int_check_names_the_value_and_an_example(bad: object) -> None:
    from semantix import ConfigurationError
    from semantix._config import check_positive_int

    with pytest.raises(
        ConfigurationError,
        match=rf"threads must be a positive int or None .*got {bad!r}; pass e.g. threads=2",
    ):
        check_positive_int(bad, what="threads", example=2, optional=True)
    check_positive_int(None, what="threads", example=2, optional=True)
    with pytest.raises(ConfigurationError, match="batch_size must be a positive int, got None"):
        check_positive_int(None, what="batch_size", example=16)


def test_a_semantix_ai_style_verdict_constructs() -> None:
    # Judges written for semantix-ai pass reason=None and may give no score.
    verdict = Verdict(passed=True, score=None, reason=None)
    assert (verdict.passed, verdict.score, verdict.reason) == (True, None, None)
    assert repr(verdict) == "<Verdict PASS>"


def test_a_judge_subclass_sets_its_declared_abilities_like_plain_attributes() -> None:
    # semantix-ai's users subclass Judge and set recommended_threshold on the instance.
    class MockJudge(Judge):
        def __init__(self) -> None:
            self.recommended_threshold = 0.7

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    judge = MockJudge()
    declared = capabilities(judge)
    assert declared.recommended_threshold == 0.7
    assert (declared.reads_negation, declared.uses_examples, declared.costly) == (
        True,
        False,
        False,
    )
    assert declared.identity == JudgeIdentity("MockJudge")
    assert judge.evaluate_batch([("a", "b", 0.5)]) == [Verdict(passed=True, score=1.0)]


def test_a_plain_object_is_a_judge_with_the_defaults() -> None:
    class Plain:
        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    assert isinstance(Plain(), Judge)
    assert not isinstance(object(), Judge)
    declared = capabilities(Plain())
    assert declared.batch is None and declared.recommended_threshold is None
    assert declared.scale == "score" and declared.secrets == ()


def test_what_a_judge_declares_is_read_again_when_its_attributes_change() -> None:
    from semantix import FakeJudge, evaluate_semantic
    from semantix.judges._base import capabilities
    from semantix.verdicts import RecordReplayJudge

    judge = FakeJudge(lambda output, description: 0.6)
    state = dict(vars(judge))
    assert capabilities(judge) == capabilities(judge)
    assert vars(judge) == state  # nothing kept on the user's judge
    judge.recommended_threshold = 0.7
    assert capabilities(judge).recommended_threshold == 0.7
    assert evaluate_semantic("Thanks.", "The text is polite.", judge=judge).passed is False
    judge.recommended_threshold = 0.5
    assert evaluate_semantic("Thanks.", "The text is polite.", judge=judge).passed is True
    wrapper = RecordReplayJudge(judge)
    assert capabilities(wrapper).costly is False
    judge.costly = True  # the wrapped judge's change is seen through the wrapper
    assert capabilities(wrapper).costly is True
