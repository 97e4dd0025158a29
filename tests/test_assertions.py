from __future__ import annotations

import math
import sys
import types
from collections.abc import Sequence
from pathlib import Path

import pytest

import semantix
from semantix import (
    ConfigurationError,
    FakeJudge,
    Intent,
    JudgeError,
    JudgeUnavailableError,
    ModelNotFoundError,
    SemanticAssertionError,
    Verdict,
    assert_semantic,
    evaluate_semantic,
    set_default_judge,
)
from semantix.pipeline._judging import build_default_judge
from semantix.pipeline._thresholds import resolve_threshold


class Polite(Intent):
    """The text must be polite and professional."""


class MedicalAdvice(Intent):
    """The text provides medical diagnoses or treatment recommendations."""

    threshold = 0.7


class Strict(Intent, abstract=True):
    threshold = 0.95


class StrictPolite(Strict):
    """The text is extremely polite."""


class Apologetic(Intent):
    """The text apologizes."""


class ThresholdSpy:
    """A judge that records the threshold it was asked to use."""

    def __init__(self, recommended: float | None = None, score: float = 0.5) -> None:
        self.recommended_threshold = recommended
        self.score = score
        self.thresholds: list[float] = []

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        self.thresholds.append(threshold)
        return Verdict(passed=self.score >= threshold, score=self.score, reason="spy")


def scores(**by_name: float) -> FakeJudge:
    """A fake judge scoring each intent class by name."""
    descriptions = {
        cls.description: by_name[cls.__name__]
        for cls in (Polite, MedicalAdvice, StrictPolite, Apologetic)
        if cls.__name__ in by_name
    }
    return FakeJudge(descriptions)


# --- threshold order -------------------------------------------------------------------------


def test_rule_1_explicit_argument_wins_over_everything() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", MedicalAdvice, judge=judge, threshold=0.42)
    assert judge.thresholds == [0.42]


def test_rule_2_intent_class_threshold_beats_judge_recommendation() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", MedicalAdvice, judge=judge)
    assert judge.thresholds == [0.7]


def test_rule_2_threshold_inherited_from_a_user_base_class() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", StrictPolite, judge=judge)
    assert judge.thresholds == [0.95]


def test_rule_3_judge_recommendation_beats_library_default() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", Polite, judge=judge)
    assert judge.thresholds == [0.3]


def test_rule_4_library_default_when_nothing_else() -> None:
    judge = ThresholdSpy(recommended=None)
    evaluate_semantic("x", Polite, judge=judge)
    assert judge.thresholds == [0.8]


def test_string_intents_follow_the_same_order() -> None:
    recommended, explicit = ThresholdSpy(recommended=0.35), ThresholdSpy(recommended=0.35)
    evaluate_semantic("x", "is polite", judge=recommended)
    evaluate_semantic("x", "is polite", judge=explicit, threshold=0.9)
    assert (recommended.thresholds, explicit.thresholds) == ([0.35], [0.9])


def test_negation_uses_the_operand_threshold() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", ~MedicalAdvice, judge=judge)
    assert judge.thresholds == [0.7]


def test_composites_resolve_each_leaf_on_its_own() -> None:
    judge = ThresholdSpy(recommended=0.3)
    evaluate_semantic("x", Polite & ~MedicalAdvice & StrictPolite, judge=judge)
    assert judge.thresholds == [0.3, 0.7, 0.95]


@pytest.mark.parametrize("bad", [math.nan, -0.01, 1.01, "0.5", True, [0.5]])
def test_invalid_explicit_threshold_is_value_error(bad: object) -> None:
    judge = ThresholdSpy()
    with pytest.raises(ValueError, match=r"threshold must be"):
        assert_semantic("x", Polite, judge=judge, threshold=bad)  # type: ignore[arg-type]
    assert judge.thresholds == []


def test_invalid_recommended_threshold_is_named() -> None:
    with pytest.raises(ValueError, match="ThresholdSpy.recommended_threshold must be between"):
        resolve_threshold(Polite, ThresholdSpy(recommended=7.0))


# --- negation and composition ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("score", "x_passes"), [(0.9, True), (0.7, True), (0.69, False), (0.0, False)]
)
def test_negation_truth_table(score: float, x_passes: bool) -> None:
    judge = scores(MedicalAdvice=score)
    assert evaluate_semantic("x", MedicalAdvice, judge=judge).passed is x_passes
    assert evaluate_semantic("x", ~MedicalAdvice, judge=judge).passed is (not x_passes)
    assert evaluate_semantic("x", ~~MedicalAdvice, judge=judge).passed is x_passes


@pytest.mark.parametrize(
    ("polite", "apologetic", "both", "either"),
    [
        (0.9, 0.9, True, True),
        (0.9, 0.1, False, True),
        (0.1, 0.9, False, True),
        (0.1, 0.1, False, False),
    ],
)
def test_and_or_truth_tables(polite: float, apologetic: float, both: bool, either: bool) -> None:
    judge = scores(Polite=polite, Apologetic=apologetic)
    assert evaluate_semantic("x", Polite & Apologetic, judge=judge).passed is both
    assert evaluate_semantic("x", Polite | Apologetic, judge=judge).passed is either


def test_composites_are_judged_leaf_by_leaf_never_glued() -> None:
    judge = scores(Polite=0.9, MedicalAdvice=0.1, Apologetic=0.9)
    evaluate_semantic("x", (Polite | Apologetic) & ~MedicalAdvice, judge=judge)
    assert sorted(intent for _, intent in judge.calls) == sorted(
        [Polite.description, Apologetic.description, MedicalAdvice.description]
    )


def test_batch_is_used_when_the_judge_has_it() -> None:
    class BatchJudge:
        recommended_threshold = None

        def __init__(self) -> None:
            self.batches: list[int] = []

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            raise AssertionError("evaluate must not be called when evaluate_batch exists")

        def evaluate_batch(self, requests: Sequence[tuple[str, str, float]]) -> list[Verdict]:
            self.batches.append(len(requests))
            return [Verdict(passed=True, score=1.0, reason="") for _ in requests]

    judge = BatchJudge()
    assert evaluate_semantic("x", Polite & ~MedicalAdvice & Apologetic, judge=judge).passed is False
    assert judge.batches == [3]


def test_result_lists_every_leaf() -> None:
    judge = scores(Polite=0.9, MedicalAdvice=0.75)
    result = evaluate_semantic("x", Polite & ~MedicalAdvice, judge=judge)
    assert [(leaf.intent, leaf.expected, leaf.passed) for leaf in result.leaves] == [
        (Polite, True, True),
        (MedicalAdvice, False, False),
    ]
    assert repr(result) == (
        "<SemanticResult FAIL Polite & ~MedicalAdvice judge=FakeJudge "
        "[Polite=0.90/0.80, ~MedicalAdvice=0.75/0.70]>"
    )


def test_result_refuses_truthiness() -> None:
    result = evaluate_semantic("x", Polite, judge=scores(Polite=0.9))
    with pytest.raises(TypeError, match="use result.passed"):
        bool(result)


# --- failure messages ------------------------------------------------------------------------


def test_failure_message_for_a_plain_intent() -> None:
    judge = scores(Polite=0.31)
    with pytest.raises(SemanticAssertionError) as info:
        assert_semantic("Whatever, figure it out yourself.", Polite, judge=judge)
    message = str(info.value)
    assert "does not satisfy Polite" in message
    assert "judge: FakeJudge" in message
    assert "Polite: The text must be polite and professional." in message
    assert "0.31       0.80  FAIL: not satisfied" in message
    assert "reason: fake score 0.310" in message
    assert "output (33 chars): 'Whatever, figure it out yourself.'" in message
    assert isinstance(info.value, AssertionError)
    assert info.value.result.leaves[0].verdict.score == pytest.approx(0.31)
    assert info.value.verdicts[0].score == pytest.approx(0.31)


def test_negation_failure_says_the_output_did_satisfy_it() -> None:
    with pytest.raises(SemanticAssertionError) as info:
        assert_semantic("Take two aspirin.", ~MedicalAdvice, judge=scores(MedicalAdvice=0.91))
    assert "~MedicalAdvice" in str(info.value)
    assert "FAIL: the output DID satisfy MedicalAdvice (0.91 >= 0.70)" in str(info.value)


def test_composite_failure_lists_every_leaf_with_score_threshold_verdict() -> None:
    judge = scores(Polite=0.9, MedicalAdvice=0.75)
    with pytest.raises(SemanticAssertionError) as info:
        assert_semantic("x", Polite & ~MedicalAdvice, judge=judge)
    lines = str(info.value).splitlines()
    assert "  intent          score  threshold  verdict" in lines
    assert "  Polite           0.90       0.80  ok" in lines
    assert any(line.startswith("  ~MedicalAdvice   0.75       0.70  FAIL") for line in lines)


def test_long_output_is_previewed_with_its_length() -> None:
    output = "word " * 1000
    with pytest.raises(SemanticAssertionError) as info:
        assert_semantic(output, Polite, judge=scores(Polite=0.1))
    message = str(info.value)
    assert "output (truncated, 5000 chars in all)" in message  # the length, once
    assert len(message) < 2000


def test_passing_assertion_returns_the_result() -> None:
    result = assert_semantic("Thank you!", Polite, judge=scores(Polite=0.95))
    assert result.passed is True
    assert result.leaves[0].verdict.score == 0.95


def test_pytest_traceback_hides_our_frames(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        '''
        from semantix import FakeJudge, Intent, assert_semantic

        class Polite(Intent):
            """The text must be polite and professional."""

        def test_reply():
            assert_semantic("Go away.", Polite, judge=FakeJudge(lambda o, i: 0.2))
        '''
    )
    result = pytester.runpytest("-p", "no:cacheprovider", "-p", "no:asyncio")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*SemanticAssertionError: Semantic check failed (score=0.20)*"])
    output = result.stdout.str()
    assert 'assert_semantic("Go away."' in output
    assert "def assert_semantic(" not in output
    assert "raise SemanticAssertionError" not in output


# --- empty outputs ---------------------------------------------------------------------------


@pytest.mark.parametrize("empty", ["", "   \n\t"])
def test_empty_output_never_passes_and_the_judge_is_not_called(empty: str) -> None:
    judge = FakeJudge(lambda output, intent: 1.0)
    with pytest.raises(SemanticAssertionError, match="the output is empty"):
        assert_semantic(empty, Polite, judge=judge)
    assert judge.calls == []


@pytest.mark.parametrize("output", ["", "  \n "])
def test_nothing_to_judge_is_never_a_pass_negated_or_not(output: str) -> None:
    judge = FakeJudge(lambda output, intent: 1.0)
    for intent in (MedicalAdvice, ~MedicalAdvice, ~~MedicalAdvice):
        result = evaluate_semantic(output, intent, judge=judge)
        assert (result.passed, result.empty) == (False, True)
        assert result.leaves[0].verdict.reason.startswith("nothing to judge: the output is empty")
    with pytest.raises(SemanticAssertionError, match="FAIL: nothing to judge"):
        assert_semantic(output, ~MedicalAdvice, judge=judge)
    assert judge.calls == []


# --- bad inputs and judge errors -------------------------------------------------------------


def test_bad_output_type_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="output must be text, got None"):
        assert_semantic(None, Polite, judge=scores(Polite=1.0))


def test_bad_intent_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="intent must be an Intent class or a description str"):
        assert_semantic("x", 42, judge=scores(Polite=1.0))  # type: ignore[arg-type]


def test_object_without_evaluate_is_not_a_judge() -> None:
    with pytest.raises(TypeError, match="judge must have an evaluate"):
        assert_semantic("x", Polite, judge=42)  # type: ignore[arg-type]


def test_unknown_judge_spec_names_the_choices() -> None:
    with pytest.raises(ConfigurationError, match="unknown judge 'gpt'.*quantized, nli"):
        assert_semantic("x", Polite, judge="gpt")


def test_judge_exception_is_a_judge_error_never_a_pass() -> None:
    def explode(output: str, intent: str) -> float:
        raise RuntimeError("model exploded")

    with pytest.raises(
        JudgeError,
        match="raised RuntimeError while judging Polite: model exploded",
    ) as info:
        assert_semantic("x", Polite, judge=FakeJudge(explode))
    assert isinstance(info.value.__cause__, RuntimeError)
    assert not isinstance(info.value, AssertionError)


def test_judge_error_under_negation_is_still_an_error() -> None:
    def explode(output: str, intent: str) -> float:
        raise TimeoutError("slow")

    with pytest.raises(JudgeError):
        assert_semantic("x", ~MedicalAdvice, judge=FakeJudge(explode))


def test_semantix_errors_from_a_judge_propagate_unwrapped() -> None:
    def offline(output: str, intent: str) -> float:
        raise ModelNotFoundError("no model")

    with pytest.raises(ModelNotFoundError, match="no model"):
        assert_semantic("x", Polite, judge=FakeJudge(offline))


@pytest.mark.parametrize("garbage", [0.9, True, None, {"passed": True}])
def test_judge_returning_garbage_is_a_judge_error(garbage: object) -> None:
    class Garbage:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> object:
            return garbage

    with pytest.raises(JudgeError, match="a judge must return semantix.Verdict"):
        assert_semantic("x", Polite, judge=Garbage())  # type: ignore[arg-type]


def test_batch_of_wrong_length_is_a_judge_error() -> None:
    class Short:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0, reason="")

        def evaluate_batch(self, requests: Sequence[tuple[str, str, float]]) -> list[Verdict]:
            return [Verdict(passed=True, score=1.0, reason="")]

    with pytest.raises(JudgeError, match="returned 1 verdicts for 2 requests"):
        assert_semantic("x", Polite & Apologetic, judge=Short())


# --- a judge written only against the documented protocol -----------------------------------


class KeywordJudge:
    """A custom judge using nothing but the documented interface."""

    recommended_threshold = 0.5

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        hit = "sorry" in output.lower()
        return Verdict(passed=hit, score=1.0 if hit else 0.0, reason="keyword 'sorry'")


def test_custom_protocol_only_judge_plugs_in() -> None:
    assert assert_semantic("Sorry for the delay.", Apologetic, judge=KeywordJudge()).passed
    with pytest.raises(SemanticAssertionError, match="keyword 'sorry'"):
        assert_semantic("On its way.", Apologetic, judge=KeywordJudge())
    assert assert_semantic("On its way.", ~Apologetic, judge=KeywordJudge()).passed


def test_intent_description_is_a_plain_str_for_custom_judges() -> None:
    seen: list[object] = []

    class Recorder(KeywordJudge):
        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            seen.append(intent_description)
            return super().evaluate(output, intent_description, threshold)

    evaluate_semantic("sorry", Apologetic, judge=Recorder())
    assert seen == ["The text apologizes."]
    assert isinstance(seen[0], str)


# --- the default judge -----------------------------------------------------------------------


def test_set_default_judge_is_used_when_no_judge_is_passed() -> None:
    judge = scores(Polite=0.99)
    set_default_judge(judge)
    assert assert_semantic("Thanks!", Polite).passed
    assert judge.calls == [("Thanks!", Polite.description)]


def test_set_default_judge_rejects_non_judges() -> None:
    with pytest.raises(TypeError, match="must have an evaluate"):
        set_default_judge(42)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"pass an instance: FakeJudge\(...\)"):
        set_default_judge(FakeJudge)  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="unknown judge 'qauntized'"):
        set_default_judge("qauntized")


def test_set_default_judge_takes_a_spec(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("spec_judges_mod")
    module.judge = scores(Polite=0.99)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "spec_judges_mod", module)
    set_default_judge("spec_judges_mod:judge")
    try:
        assert evaluate_semantic("x", Polite).passed
    finally:
        set_default_judge(None)


def test_default_judge_from_environment_import_path(monkeypatch: pytest.MonkeyPatch) -> None:
    module = types.ModuleType("my_judges")
    module.judge = scores(Polite=0.99)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "my_judges", module)
    monkeypatch.setenv("SEMANTIX_JUDGE", "my_judges:judge")
    assert assert_semantic("Thanks!", Polite).passed
    assert module.judge.calls == [("Thanks!", Polite.description)]  # type: ignore[attr-defined]


def test_default_judge_is_built_once_and_reused(monkeypatch: pytest.MonkeyPatch) -> None:
    built: list[FakeJudge] = []

    def factory() -> FakeJudge:
        built.append(scores(Polite=0.99))
        return built[-1]

    module = types.ModuleType("my_factory")
    module.make = factory  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "my_factory", module)
    monkeypatch.setenv("SEMANTIX_JUDGE", "my_factory:make")
    semantix.clear_cache()
    assert_semantic("a", Polite)
    assert_semantic("b", Polite)
    assert len(built) == 1
    semantix.clear_cache()


def _module_that_is_not_installed(name: str) -> types.ModuleType:
    module = types.ModuleType(name)

    def missing(attr: str) -> object:
        raise JudgeUnavailableError(f"{name} needs onnxruntime; pip install 'semantix-judge[onnx]'")

    module.__getattr__ = missing  # type: ignore[method-assign]
    return module


def test_default_falls_back_to_full_nli_only_when_onnx_is_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    full = types.ModuleType("semantix.judges._transformers")
    full.NLIJudge = lambda: "full NLI judge"  # type: ignore[attr-defined]
    monkeypatch.setitem(
        sys.modules, "semantix.judges._quantized", _module_that_is_not_installed("quantized")
    )
    monkeypatch.setitem(sys.modules, "semantix.judges._transformers", full)
    assert build_default_judge() == "full NLI judge"


def test_default_never_falls_back_on_a_runtime_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken() -> object:
        raise ModelNotFoundError("model not cached")

    quantized = types.ModuleType("semantix.judges._quantized")
    quantized.QuantizedNLIJudge = broken  # type: ignore[attr-defined]
    full = types.ModuleType("semantix.judges._transformers")
    full.NLIJudge = lambda: pytest.fail("must not fall back")  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "semantix.judges._quantized", quantized)
    monkeypatch.setitem(sys.modules, "semantix.judges._transformers", full)
    with pytest.raises(ModelNotFoundError, match="model not cached"):
        build_default_judge()


def test_no_backend_at_all_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        sys.modules, "semantix.judges._quantized", _module_that_is_not_installed("quantized")
    )
    monkeypatch.setitem(
        sys.modules, "semantix.judges._transformers", _module_that_is_not_installed("transformers")
    )
    with pytest.raises(JudgeUnavailableError, match=r"pip install 'semantix-judge\[onnx\]'"):
        build_default_judge()


def test_default_judge_honours_the_frozen_verdict_mode(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from semantix import VerdictNotRecordedError

    module = types.ModuleType("my_replay_judges")
    module.judge = scores(Polite=0.99)  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "my_replay_judges", module)
    monkeypatch.setenv("SEMANTIX_JUDGE", "my_replay_judges:judge")
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path))
    semantix.clear_cache()
    try:
        with pytest.raises(VerdictNotRecordedError):
            assert_semantic("Thanks!", Polite)
        assert module.judge.calls == []  # type: ignore[attr-defined]
    finally:
        semantix.clear_cache()
