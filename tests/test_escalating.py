"""EscalatingJudge: the first sure level decides; errors at any level are errors."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from semantix import FakeJudge, JudgeError, Verdict
from semantix.judges import EscalatingJudge as LazyEscalatingJudge
from semantix.judges._base import JudgeIdentity, JudgeRequest
from semantix.judges._escalating import EscalatingJudge, LevelStats


class ScriptedJudge:
    """Scores from a dict keyed by output; records every batch it was given."""

    def __init__(
        self,
        scores: dict[str, float | None],
        *,
        name: str,
        recommended_threshold: float | None = None,
        batch: bool = True,
    ) -> None:
        self.scores = scores
        self.identity = JudgeIdentity(name, model=f"{name.lower()}-model")
        self.recommended_threshold = recommended_threshold
        self.batches: list[list[str]] = []
        self.singles: list[str] = []
        if not batch:
            self.evaluate_batch = None  # type: ignore[assignment]

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        self.singles.append(output)
        score = self.scores[output]
        passed = score is not None and score >= threshold
        return Verdict(
            passed=passed,
            score=score,
            reason=f"{self.identity.name} says {score}",
            threshold=threshold,
        )

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:  # type: ignore[no-redef]
        self.batches.append([output for output, _, _ in requests])
        verdicts = [self.evaluate(*request) for request in requests]
        del self.singles[-len(requests) :]
        return verdicts


def chain(
    first: dict[str, float | None], second: dict[str, float | None], band: float = 0.15
) -> tuple[EscalatingJudge, ScriptedJudge, ScriptedJudge]:
    fast = ScriptedJudge(first, name="Fast", recommended_threshold=0.5)
    slow = ScriptedJudge(second, name="Slow", recommended_threshold=0.7)
    return EscalatingJudge(fast, slow, band=band), fast, slow


def test_a_sure_first_judge_decides_alone() -> None:
    judge, fast, slow = chain({"yes": 0.9, "no": 0.1}, {})
    high, low = judge.evaluate_batch([("yes", "X", 0.5), ("no", "X", 0.5)])
    assert (high.passed, high.score) == (True, 0.9)
    assert (low.passed, low.score) == (False, 0.1)
    assert high.judge == fast.identity
    assert high.reason == (
        "decided by Fast(fast-model) (score 0.90, more than 0.15 from 0.50): Fast says 0.9"
    )
    assert slow.batches == [] and slow.singles == []


def test_an_uncertain_score_goes_to_the_next_judge() -> None:
    judge, _fast, slow = chain({"maybe": 0.46}, {"maybe": 0.2})
    verdict = judge.evaluate("maybe", "X", 0.5)
    assert (verdict.passed, verdict.score) == (False, 0.2)
    assert verdict.judge == slow.identity
    assert verdict.reason == (
        "decided by Slow(slow-model) (Fast(fast-model) score 0.46 within 0.15 of 0.50): "
        "Slow says 0.2"
    )


@pytest.mark.parametrize(
    ("score", "escalates"),
    [(0.35, True), (0.65, True), (0.5, True), (0.34, False), (0.66, False), (0.0, False)],
)
def test_the_band_is_inclusive(score: float, escalates: bool) -> None:
    judge, _, slow = chain({"o": score}, {"o": 1.0})
    verdict = judge.evaluate("o", "X", 0.5)
    assert (verdict.judge == slow.identity) is escalates


def test_band_zero_escalates_only_a_score_at_the_threshold() -> None:
    judge, _, slow = chain({"at": 0.5, "near": 0.49}, {"at": 0.0, "near": 1.0}, band=0.0)
    at, near = judge.evaluate_batch([("at", "X", 0.5), ("near", "X", 0.5)])
    assert at.judge == slow.identity and not at.passed
    assert near.judge != slow.identity and not near.passed


def test_batches_only_the_uncertain_ones_go_on_in_one_batch_in_order() -> None:
    first = {"a": 0.9, "b": 0.55, "c": 0.1, "d": 0.4, "e": 0.62}
    judge, fast, slow = chain(first, {"b": 0.1, "d": 0.95, "e": 0.8})
    requests = [(output, "X", 0.5) for output in first]
    verdicts = judge.evaluate_batch(requests)
    assert fast.batches == [["a", "b", "c", "d", "e"]]
    assert slow.batches == [["b", "d", "e"]]
    assert [v.passed for v in verdicts] == [True, False, False, True, True]
    assert [v.judge.name if v.judge else None for v in verdicts] == [
        "Fast",
        "Slow",
        "Fast",
        "Slow",
        "Slow",
    ]


def test_any_number_of_levels() -> None:
    one = ScriptedJudge({"a": 0.9, "b": 0.5, "c": 0.45}, name="One")
    two = ScriptedJudge({"b": 0.95, "c": 0.55}, name="Two")
    three = ScriptedJudge({"c": 0.3}, name="Three")
    judge = EscalatingJudge(one, two, three, band=0.1)
    a, b, c = judge.evaluate_batch([("a", "X", 0.5), ("b", "X", 0.5), ("c", "X", 0.5)])
    assert [v.judge.name if v.judge else None for v in (a, b, c)] == ["One", "Two", "Three"]
    assert c.reason.startswith(
        "decided by Three(three-model) (One(one-model) score 0.45 within 0.1 of 0.50; "
        "Two(two-model) score 0.55 within 0.1 of 0.50): "
    )
    assert two.batches == [["b", "c"]]
    assert three.batches == [] and three.singles == ["c"]  # a batch of one: evaluate()
    assert [(s.level, s.judge, s.decided, s.escalated) for s in judge.stats()] == [
        (1, "One(one-model)", 1, 2),
        (2, "Two(two-model)", 1, 1),
        (3, "Three(three-model)", 1, 0),
    ]


def test_the_last_level_decides_even_when_uncertain() -> None:
    judge, _, slow = chain({"o": 0.5}, {"o": 0.5})
    verdict = judge.evaluate("o", "X", 0.5)
    assert verdict.judge == slow.identity and verdict.passed


def test_a_verdict_without_a_score_is_uncertain() -> None:
    judge, _, slow = chain({"o": None}, {"o": 0.9})
    verdict = judge.evaluate("o", "X", 0.5)
    assert verdict.judge == slow.identity and verdict.passed
    assert "Fast(fast-model) gave no score" in verdict.reason


def test_a_scoreless_verdict_at_the_last_level_stands() -> None:
    judge, _, slow = chain({"o": 0.5}, {"o": None})
    verdict = judge.evaluate("o", "X", 0.5)
    assert verdict.judge == slow.identity and not verdict.passed and verdict.score is None


def test_judges_without_evaluate_batch_are_asked_one_by_one() -> None:
    fast = ScriptedJudge({"a": 0.5, "b": 0.52}, name="Fast", batch=False)
    slow = ScriptedJudge({"a": 0.9, "b": 0.1}, name="Slow", batch=False)
    judge = EscalatingJudge(fast, slow)
    verdicts = judge.evaluate_batch([("a", "X", 0.5), ("b", "X", 0.5)])
    assert [v.passed for v in verdicts] == [True, False]
    assert fast.singles == ["a", "b"] and slow.singles == ["a", "b"]


def test_identity_covers_the_whole_chain_and_the_band() -> None:
    judge, _, _ = chain({}, {}, band=0.2)
    assert judge.identity == JudgeIdentity(
        "EscalatingJudge[Fast(fast-model) -> Slow(slow-model), band=0.2]"
    )
    other, _, _ = chain({}, {}, band=0.1)
    assert other.identity != judge.identity
    judge.identity = JudgeIdentity("Escalating", note="named by the user")
    assert judge.identity == JudgeIdentity("Escalating", note="named by the user")
    assert judge.own_identity().name.startswith("EscalatingJudge[")


def test_recommended_threshold_is_the_first_judges() -> None:
    judge, _, _ = chain({}, {})
    assert judge.recommended_threshold == 0.5
    no_opinion = EscalatingJudge(FakeJudge(lambda o, i: 0.5), FakeJudge(lambda o, i: 0.5))
    assert no_opinion.recommended_threshold is None


def test_prompt_version_joins_the_levels_that_have_one() -> None:
    judge, _fast, slow = chain({}, {})
    assert judge.prompt_version is None
    slow.prompt_version = "v3"  # type: ignore[attr-defined]
    assert judge.prompt_version == "- -> v3"


def test_reads_negation_only_when_every_level_does() -> None:
    judge, fast, _slow = chain({}, {})
    assert judge.reads_negation is True
    fast.reads_negation = False  # type: ignore[attr-defined]
    assert judge.reads_negation is False


def test_an_error_at_the_first_level_is_an_error() -> None:
    def boom(output: str, intent: str) -> float:
        raise RuntimeError("model crashed")

    slow = FakeJudge(lambda o, i: 1.0, name="Slow")
    judge = EscalatingJudge(FakeJudge(boom, name="Fast"), slow)
    with pytest.raises(JudgeError, match=r"judge Fast raised RuntimeError while judging level 1"):
        judge.evaluate("o", "X", 0.5)
    assert slow.calls == []


def test_an_error_at_a_later_level_is_an_error_not_the_first_verdict() -> None:
    def boom(output: str, intent: str) -> float:
        raise TimeoutError("no answer")

    judge = EscalatingJudge(FakeJudge(lambda o, i: 0.55, name="Fast"), FakeJudge(boom, name="Slow"))
    with pytest.raises(JudgeError, match=r"judge Slow raised TimeoutError while judging level 2"):
        judge.evaluate("o", "X", 0.5)


def test_garbage_from_a_level_is_an_error() -> None:
    cheat = FakeJudge(
        lambda o, i: Verdict(passed=True, score=0.1, reason="trust me", threshold=0.5),
        name="Cheat",
    )
    judge = EscalatingJudge(cheat, FakeJudge(lambda o, i: 1.0))
    with pytest.raises(JudgeError, match="passed .* with score 0.100, below the threshold"):
        judge.evaluate("o", "X", 0.5)


def test_stats_count_each_level_from_many_threads() -> None:
    judge, _, _ = chain({"sure": 0.95, "unsure": 0.5}, {"unsure": 0.9})

    def work() -> None:
        for _ in range(50):
            judge.evaluate_batch([("sure", "X", 0.5), ("unsure", "X", 0.5)])

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert judge.stats() == (
        LevelStats(1, "Fast(fast-model)", 200, 200),
        LevelStats(2, "Slow(slow-model)", 200, 0),
    )


def test_an_empty_batch_asks_nobody() -> None:
    judge, fast, _slow = chain({}, {})
    assert judge.evaluate_batch([]) == []
    assert fast.batches == [] and [s.decided for s in judge.stats()] == [0, 0]


def test_through_assert_semantic_the_failure_message_says_who_decided() -> None:
    from semantix import Intent, SemanticAssertionError, assert_semantic

    class Apology(Intent):
        """The text apologizes."""

    fast = FakeJudge(lambda o, i: 0.95 if "sorry" in o.lower() else 0.45, name="Fast")
    slow = FakeJudge(lambda o, i: 0.05, name="Slow")
    judge = EscalatingJudge(fast, slow)
    assert_semantic("Sorry for the delay.", Apology, judge=judge, threshold=0.5)
    with pytest.raises(SemanticAssertionError) as failure:
        assert_semantic("The parcel is late.", Apology, judge=judge, threshold=0.5)
    assert "decided by Slow (Fast score 0.45 within 0.15 of 0.50): fake score 0.050" in str(
        failure.value
    )
    assert [level.decided for level in judge.stats()] == [1, 1]


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        ((), {}, TypeError, "at least two judges, cheapest first, got 0"),
        ((FakeJudge(lambda o, i: 1.0),), {}, TypeError, "at least two judges.*got 1"),
        (
            (FakeJudge(lambda o, i: 1.0), "llm"),
            {},
            TypeError,
            "judge 2 must have an evaluate.*got str",
        ),
        ((FakeJudge(lambda o, i: 1.0), FakeJudge), {}, TypeError, "pass an instance: FakeJudge()"),
        ((FakeJudge(lambda o, i: 1.0),) * 2, {"band": "0.1"}, TypeError, "got '0.1' \\(str\\)"),
        ((FakeJudge(lambda o, i: 1.0),) * 2, {"band": True}, TypeError, "band must be a float"),
        (
            (FakeJudge(lambda o, i: 1.0),) * 2,
            {"band": 0.6},
            ValueError,
            "between 0 and 0.5, got 0.6",
        ),
        ((FakeJudge(lambda o, i: 1.0),) * 2, {"band": -0.1}, ValueError, "got -0.1"),
        ((FakeJudge(lambda o, i: 1.0),) * 2, {"band": float("nan")}, ValueError, "got nan"),
    ],
)
def test_bad_arguments(
    args: tuple[object, ...], kwargs: dict[str, object], error: type[Exception], match: str
) -> None:
    with pytest.raises(error, match=match):
        EscalatingJudge(*args, **kwargs)  # type: ignore[arg-type]


def test_exported_lazily_from_semantix_judges() -> None:
    assert LazyEscalatingJudge is EscalatingJudge


def test_repr_names_the_levels() -> None:
    judge = EscalatingJudge(
        FakeJudge(lambda o, i: 1.0, name="A"), FakeJudge(lambda o, i: 1.0, name="B")
    )
    assert repr(judge) == "EscalatingJudge(A(), B(), band=0.15)"


def test_frozen_verdicts_record_and_replay_the_chain(tmp_path: Path) -> None:
    from semantix import VerdictNotRecordedError
    from semantix.verdicts import RecordReplayJudge

    def never(output: str, intent: str) -> float:
        raise AssertionError("replay must not call a judge")

    def build(fast: object, slow: object, band: float = 0.15) -> EscalatingJudge:
        return EscalatingJudge(
            FakeJudge(fast, name="Fast"),  # type: ignore[arg-type]
            FakeJudge(slow, name="Slow"),  # type: ignore[arg-type]
            band=band,
        )

    recorder = RecordReplayJudge(
        build(lambda o, i: 0.45, lambda o, i: 0.9), mode="update", store=tmp_path
    )
    recorded = recorder.evaluate("Sorry!", "The text apologizes.", 0.5)
    replayer = RecordReplayJudge(build(never, never), mode="replay", store=tmp_path)
    replayed = replayer.evaluate("Sorry!", "The text apologizes.", 0.5)
    assert (replayed.passed, replayed.score) == (recorded.passed, recorded.score) == (True, 0.9)
    assert replayed.reason.startswith("decided by Slow (Fast score 0.45 within 0.15 of 0.50)")
    other_band = RecordReplayJudge(build(never, never, band=0.1), mode="replay", store=tmp_path)
    with pytest.raises(VerdictNotRecordedError, match=r"EscalatingJudge\[Fast -> Slow, band=0.1\]"):
        other_band.evaluate("Sorry!", "The text apologizes.", 0.5)
