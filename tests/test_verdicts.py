"""The recording/replaying judge: modes, replays, memo, batches, forwarding, usage."""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import semantix
from llm_server import FakeOpenAIServer, verdict
from semantix import (
    ConfigurationError,
    FakeJudge,
    IntentDescription,
    JudgeError,
    JudgeIdentity,
    SemanticAssertionError,
    Verdict,
    VerdictNotRecordedError,
    assert_semantic,
    evaluate_semantic,
)
from semantix import (
    _config as config,
)
from semantix.judges._base import capabilities
from semantix.judges._llm import LLMJudge
from semantix.verdicts import (
    CachingJudge,
    RecordReplayJudge,
    StoredVerdict,
    VerdictStore,
    VerdictUsage,
    wrap_judge,
)
from semantix.verdicts._modes import MODES, policy, resolve_mode
from verdicts_helpers import (
    Apologetic,
    NamedJudge,
    Plain,
    Polite,
    exploding,
    record,
    scorer,
    stored_files,
)

# --- modes ---------------------------------------------------------------------------------------


def test_off_calls_the_judge_and_writes_nothing(store: VerdictStore) -> None:
    inner = scorer()
    judge = RecordReplayJudge(inner, store=store, mode="off")
    assert_semantic("Thanks", Polite, judge=judge)
    assert inner.calls == [("Thanks", Polite.description)]
    assert not store.path.exists()


def test_update_records_misses_and_replays_hits(store: VerdictStore) -> None:
    inner = scorer(0.9)
    assert_semantic("Thanks", Polite, judge=RecordReplayJudge(inner, store=store, mode="update"))
    assert len(inner.calls) == 1
    assert len(stored_files(store)) == 1

    again = exploding()
    judge = RecordReplayJudge(again, store=store, mode="update")
    result = assert_semantic("Thanks", Polite, judge=judge)
    assert result.leaves[0].verdict.score == 0.9
    assert judge.stats.replayed == 1 and judge.stats.judged == 0
    assert len(stored_files(store)) == 1


def test_replay_passes_with_the_judge_unavailable(store: VerdictStore) -> None:
    record(store, "Thank you for your patience.")
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
    result = assert_semantic("Thank you for your patience.", Polite, judge=judge, threshold=0.8)
    assert result.passed
    assert result.leaves[0].verdict.reason == "fake score 0.900"
    assert str(result.judge) == "FakeJudge"


def test_replayed_failure_still_fails(store: VerdictStore) -> None:
    record(store, "Go away.", score=0.1)
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
    with pytest.raises(SemanticAssertionError, match="reason: fake score 0.100"):
        assert_semantic("Go away.", Polite, judge=judge, threshold=0.8)


@pytest.mark.parametrize("mode", ["replay", "strict"])
def test_miss_is_an_error_that_says_how_to_record(store: VerdictStore, mode: str) -> None:
    inner = exploding()
    judge = RecordReplayJudge(inner, store=store, mode=mode)
    with pytest.raises(VerdictNotRecordedError) as raised:
        assert_semantic("Never seen before", Polite, judge=judge)
    message = str(raised.value)
    assert "SEMANTIX_VERDICTS=update" in message
    assert "--semantic-verdicts update" in message
    assert "'Never seen before'" in message
    assert str(store.path) in message
    assert inner.calls == []
    assert ("never calls the judge" in message) is (mode == "strict")


def test_fresh_verdicts_keep_latency_and_usage_replays_do_not(
    store: VerdictStore, openai_sdk: None
) -> None:
    server = FakeOpenAIServer(default=verdict(0.9, "kind"))
    with server, LLMJudge(base_url=server.base_url) as llm:
        judge = RecordReplayJudge(llm, store=store, mode="update")
        fresh = judge.evaluate("Thanks!", "polite", 0.5)
        again = judge.evaluate("Thanks!", "polite", 0.5)
    assert fresh.usage is not None and fresh.latency_ms is not None
    assert again.usage is None and again.latency_ms is None  # no tokens spent on a replay
    assert (again.passed, again.score, again.reason) == (fresh.passed, fresh.score, fresh.reason)
    assert len(server.requests) == 1


def test_replay_with_the_llm_server_down(store: VerdictStore, openai_sdk: None) -> None:
    """Record through the real SDK and test server, stop it, replay: passes without a server."""
    with FakeOpenAIServer([verdict(0.95, "A warm, courteous reply.")]) as server:
        base_url = server.base_url
        with LLMJudge(base_url=base_url) as llm:
            assert_semantic(
                "Thank you!", "polite", judge=RecordReplayJudge(llm, store=store, mode="update")
            )
    with LLMJudge(base_url=base_url, max_retries=0, request_timeout=1) as llm:
        with pytest.raises(JudgeError):  # the server is really down
            llm.evaluate("Thank you!", "polite", 0.5)
        result = assert_semantic(
            "Thank you!", "polite", judge=RecordReplayJudge(llm, store=store, mode="replay")
        )
    assert result.leaves[0].verdict.reason == "A warm, courteous reply."
    assert result.leaves[0].threshold == 0.5  # LLMJudge's recommended threshold, forwarded


def test_threshold_change_reuses_the_stored_score(store: VerdictStore) -> None:
    record(store, "Thanks", score=0.9)  # recorded at 0.8
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
    assert assert_semantic("Thanks", Polite, judge=judge, threshold=0.5).passed
    with pytest.raises(SemanticAssertionError, match="0.90 .* 0.95"):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.95)
    assert len(stored_files(store)) == 1


def test_strict_replays_only_at_the_recorded_threshold(store: VerdictStore) -> None:
    record(store, "Thanks", score=0.9)
    judge = RecordReplayJudge(exploding(), store=store, mode="strict")
    assert assert_semantic("Thanks", Polite, judge=judge, threshold=0.8).passed
    with pytest.raises(VerdictNotRecordedError, match="recorded at threshold 0.80 .* at 0.50"):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.5)


def test_scoreless_verdict_at_another_threshold(store: VerdictStore) -> None:
    calls: list[float] = []

    class Scoreless:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            calls.append(threshold)
            return Verdict(passed=True, reason="looks right", threshold=threshold)

    assert_semantic("x", Polite, judge=RecordReplayJudge(Scoreless(), store=store, mode="update"))
    replay = RecordReplayJudge(Scoreless(), store=store, mode="replay")
    with pytest.raises(VerdictNotRecordedError, match="has no score to decide again"):
        assert_semantic("x", Polite, judge=replay, threshold=0.3)
    off = RecordReplayJudge(Scoreless(), mode="off")
    assert_semantic("x", Polite, judge=off, threshold=0.3)
    assert_semantic("x", Polite, judge=off, threshold=0.4)  # judged again: cannot re-decide
    assert calls == [0.8, 0.3, 0.4]


def test_judge_errors_are_not_stored(store: VerdictStore) -> None:
    def broken(output: str, intent: str) -> float:
        raise RuntimeError("model crashed")

    judge = RecordReplayJudge(FakeJudge(broken), store=store, mode="update")
    with pytest.raises(JudgeError, match="model crashed"):
        assert_semantic("Thanks", Polite, judge=judge)
    assert stored_files(store) == []


def test_garbage_from_the_judge_is_a_judge_error(store: VerdictStore) -> None:
    class Garbage:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Any:
            return 0.9

    judge = RecordReplayJudge(Garbage(), store=store, mode="update")
    with pytest.raises(JudgeError, match="returned float"):
        assert_semantic("Thanks", Polite, judge=judge)
    assert stored_files(store) == []


def test_a_verdict_without_threshold_keeps_the_judges_own_decision(
    store: VerdictStore,
) -> None:
    class OwnRule:
        """Fails on its own rule although the score is high; does not fill Verdict.threshold."""

        recommended_threshold = None
        calls = 0

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            OwnRule.calls += 1
            return Verdict(passed=False, score=0.9, reason="closer to a counterexample")

    recorder = RecordReplayJudge(OwnRule(), store=store, mode="update")
    assert not evaluate_semantic("x", Polite, judge=recorder).passed
    [file] = stored_files(store)
    assert json.loads(file.read_text())["verdict"]["threshold"] == 0.8  # the one it was asked at
    replay = RecordReplayJudge(OwnRule(), store=store, mode="replay")
    assert not evaluate_semantic("x", Polite, judge=replay).passed  # as recorded
    assert not evaluate_semantic("x", Polite, judge=replay, threshold=0.2).passed
    assert OwnRule.calls == 1


def test_a_self_contradicting_verdict_is_a_judge_error_and_not_stored(
    store: VerdictStore,
) -> None:
    class Liar:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=0.3, reason="trust me")

    judge = RecordReplayJudge(Liar(), store=store, mode="update")
    with pytest.raises(JudgeError, match="below the threshold"):
        assert_semantic("x", Polite, judge=judge)
    assert stored_files(store) == []


def test_output_with_a_lone_surrogate_roundtrips(store: VerdictStore) -> None:
    output = "broken \udcff bytes"
    assert_semantic(output, Polite, judge=RecordReplayJudge(scorer(), store=store, mode="update"))
    [file] = stored_files(store)
    file.read_text(encoding="utf-8")  # valid UTF-8
    replay = RecordReplayJudge(exploding(), store=store, mode="replay")
    assert assert_semantic(output, Polite, judge=replay).passed


# --- environment and wrap_judge ----------------------------------------------------------------


def test_mode_from_the_environment(store: VerdictStore, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_mode() == "off"
    monkeypatch.setenv("SEMANTIX_VERDICTS", " Replay ")
    assert resolve_mode() == "replay"
    assert resolve_mode("update") == "update"  # the argument wins
    assert RecordReplayJudge(scorer(), store=store).mode == "replay"


@pytest.mark.parametrize("bad", ["record", "", "on"])
def test_bad_mode_names_the_choices(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    with pytest.raises(ConfigurationError, match="use one of off, replay, update, strict"):
        resolve_mode(bad)
    monkeypatch.setenv("SEMANTIX_VERDICTS", bad or "x")
    with pytest.raises(ConfigurationError, match="SEMANTIX_VERDICTS"):
        wrap_judge(scorer())


def test_each_mode_has_a_policy() -> None:
    assert {policy(mode).mode for mode in MODES} == set(MODES)
    assert [mode for mode in MODES if policy(mode).calls_judge] == ["off", "update"]
    assert [mode for mode in MODES if policy(mode).writes_store] == ["update"]
    assert [mode for mode in MODES if policy(mode).exact_threshold] == ["strict"]
    with pytest.raises(ConfigurationError, match="1 is not a frozen-verdict mode"):
        resolve_mode(1)  # type: ignore[arg-type]


def test_wrap_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inner = scorer()
    assert wrap_judge(inner, memo=False) is inner
    memo_only = wrap_judge(inner)
    assert isinstance(memo_only, RecordReplayJudge) and memo_only.mode == "off"
    assert wrap_judge(memo_only) is memo_only
    assert wrap_judge(memo_only, mode="off", path=memo_only.store.path) is memo_only
    rewrapped = wrap_judge(memo_only, mode="replay")  # an explicit, different mode wins
    assert isinstance(rewrapped, RecordReplayJudge) and rewrapped.judge is inner
    assert rewrapped.mode == "replay"
    assert wrap_judge(memo_only, mode="off", memo=False) is inner

    replay = wrap_judge(inner, mode="replay", path=tmp_path / "v")
    assert isinstance(replay, RecordReplayJudge)
    assert (replay.mode, replay.store.path) == ("replay", tmp_path / "v")

    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "env"))
    from_env = wrap_judge(inner)
    assert isinstance(from_env, RecordReplayJudge)
    assert (from_env.mode, from_env.store.path) == ("update", tmp_path / "env")
    assert isinstance(wrap_judge(inner, mode="off", memo=False), FakeJudge)


def test_forwards_threshold_identity_and_prompt_version(store: VerdictStore) -> None:
    judge = RecordReplayJudge(NamedJudge(), store=store, mode="update")
    assert judge.recommended_threshold == 0.5
    assert judge.identity == NamedJudge().identity
    assert judge.prompt_version == "p1"
    result = assert_semantic("Thanks", Polite, judge=judge)
    assert str(result.judge) == "NamedJudge(m@r1)"
    assert result.leaves[0].threshold == 0.5
    judge.recommended_threshold = 0.7
    assert judge.recommended_threshold == 0.7
    assert RecordReplayJudge(Plain(), mode="off").identity == JudgeIdentity("Plain")
    assert repr(judge) == f"RecordReplayJudge({judge.judge!r}, mode='update', store={store!r})"


def test_not_a_judge() -> None:
    with pytest.raises(TypeError, match="the judge RecordReplayJudge wraps must have an evaluate"):
        RecordReplayJudge(object())  # type: ignore[arg-type]


# --- memo and batches ----------------------------------------------------------------------------


def test_memo_judges_each_check_once(store: VerdictStore) -> None:
    inner = scorer()
    judge = RecordReplayJudge(inner, store=store, mode="off")
    for _ in range(3):
        assert_semantic("Thanks", Polite, judge=judge)
    assert_semantic("Thanks", Polite, judge=judge, threshold=0.5)  # same check, re-decided
    assert len(inner.calls) == 1
    assert judge.stats.judged == 1 and judge.stats.memo_hits == 3


def test_without_memo_every_call_judges(store: VerdictStore) -> None:
    inner = scorer()
    judge = RecordReplayJudge(inner, mode="off", memo=False)
    assert_semantic("Thanks", Polite, judge=judge)
    assert_semantic("Thanks", Polite, judge=judge)
    assert len(inner.calls) == 2


def test_memo_is_per_instance() -> None:
    inner = scorer()
    assert_semantic("Thanks", Polite, judge=RecordReplayJudge(inner, mode="off"))
    assert_semantic("Thanks", Polite, judge=RecordReplayJudge(inner, mode="off"))
    assert len(inner.calls) == 2


def test_memo_under_threads_judges_once() -> None:
    calls: list[str] = []
    lock = threading.Lock()

    def slow(output: str, intent: str) -> float:
        with lock:
            calls.append(output)
        time.sleep(0.05)
        return 0.9

    judge = RecordReplayJudge(FakeJudge(slow), mode="off")
    barrier = threading.Barrier(16)

    def work(index: int) -> None:
        barrier.wait()
        assert_semantic(f"output {index % 2}", Polite, judge=judge)

    with ThreadPoolExecutor(16) as pool:
        list(pool.map(work, range(16)))  # re-raises any thread's error
    assert sorted(calls) == ["output 0", "output 1"]


def test_batch_judges_misses_together_and_duplicates_once(store: VerdictStore) -> None:
    batches: list[int] = []

    class Batching(FakeJudge):
        def evaluate_batch(self, requests: Any) -> list[Verdict]:
            batches.append(len(requests))
            return super().evaluate_batch(requests)

    record(store, "Thanks", score=0.9)  # Polite is stored already
    inner = Batching({Polite.description: 0.1, Apologetic.description: 0.8})
    judge = RecordReplayJudge(inner, store=store, mode="update")
    verdicts = judge.evaluate_batch(
        [
            ("Thanks", Polite.judge_description(), 0.8),
            ("Thanks", Apologetic.judge_description(), 0.5),
            ("Thanks", Apologetic.judge_description(), 0.9),
        ]
    )
    assert [v.score for v in verdicts] == [0.9, 0.8, 0.8]
    assert [v.passed for v in verdicts] == [True, True, False]
    assert batches == []  # a single miss goes through evaluate()
    assert inner.calls == [("Thanks", Apologetic.description)]
    assert len(stored_files(store)) == 2


def test_composite_intent_through_the_store(store: VerdictStore) -> None:
    inner = FakeJudge({Polite.description: 0.9, Apologetic.description: 0.2})
    with pytest.raises(SemanticAssertionError):
        assert_semantic(
            "Thanks",
            Polite & Apologetic,
            judge=RecordReplayJudge(inner, store=store, mode="update"),
        )
    replay = RecordReplayJudge(exploding(), store=store, mode="replay")
    assert_semantic("Thanks", Polite & ~Apologetic, judge=replay)
    assert len(inner.calls) == 2


class MarginJudge:
    """Passes on score >= threshold AND a second, threshold-independent condition (like the
    embedding judge's counterexample margin): the word 'but' in the output fails it."""

    recommended_threshold = None

    def __init__(self, score: float) -> None:
        self.score = score
        self.calls: list[float] = []

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        self.calls.append(threshold)
        passed = self.score >= threshold and "but" not in output
        return Verdict(passed=passed, score=self.score, reason="margin rule", threshold=threshold)


def test_a_verdict_that_failed_above_its_threshold_fails_at_every_threshold(
    store: VerdictStore,
) -> None:
    recorder = RecordReplayJudge(MarginJudge(0.9), store=store, mode="update")
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=recorder, threshold=0.5).passed
    replayed = MarginJudge(0.9)
    replay = RecordReplayJudge(replayed, store=store, mode="replay")
    # 0.9 >= 0.3, yet the recorded failure was not about the score: it must not turn into a pass
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=replay, threshold=0.3).passed
    assert replayed.calls == []


def test_a_verdict_that_failed_below_its_threshold_is_asked_again_at_a_lower_one(
    store: VerdictStore,
) -> None:
    judge = MarginJudge(0.4)
    memo = RecordReplayJudge(judge, mode="off")
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.5).passed
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.9).passed
    assert judge.calls == [0.5]  # a higher threshold: still a failure, no need to ask
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.3).passed
    assert judge.calls == [0.5, 0.3]  # lower: the score alone cannot tell, so the judge decides

    recorder = RecordReplayJudge(MarginJudge(0.4), store=store, mode="update")
    evaluate_semantic("Thanks, but no.", Polite, judge=recorder, threshold=0.5)
    replay = RecordReplayJudge(MarginJudge(0.4), store=store, mode="replay")
    with pytest.raises(VerdictNotRecordedError, match="its score alone cannot tell"):
        evaluate_semantic("Thanks, but no.", Polite, judge=replay, threshold=0.3)


def test_duplicates_of_a_batch_at_thresholds_the_verdict_cannot_tell_are_judged_again() -> None:
    inner = MarginJudge(0.4)
    judge = RecordReplayJudge(inner, mode="off")
    first, second = judge.evaluate_batch(
        [("Thanks, but no.", "polite", 0.5), ("Thanks, but no.", "polite", 0.3)]
    )
    assert (first.passed, second.passed) == (False, False)
    assert inner.calls == [0.5, 0.3]


def test_strict_mode_refuses_a_duplicate_at_another_threshold(store: VerdictStore) -> None:
    record(store, "Thanks", score=0.9)
    judge = RecordReplayJudge(exploding(), store=store, mode="strict")
    intent = Polite.judge_description()
    with pytest.raises(VerdictNotRecordedError, match="strict mode replays a verdict only"):
        judge.evaluate_batch([("Thanks", intent, 0.8), ("Thanks", intent, 0.5)])


# --- the name, forwarding, thresholds -----------------------------------------------------------


def test_caching_judge_is_the_former_name_of_the_same_class() -> None:
    assert CachingJudge is RecordReplayJudge
    assert semantix.CachingJudge is RecordReplayJudge
    assert MODES == config.VERDICT_MODES


def test_every_declared_ability_is_forwarded_and_nothing_else() -> None:
    class Declaring:
        recommended_threshold = 0.42
        reads_negation = False
        uses_examples = True
        costly = True
        scale = "similarity"
        prompt_version = "p7"
        secrets = ("sk-secret-0123456789",)
        identity = JudgeIdentity("Declaring", model="tiny")
        model_name = "tiny"

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0)

    judge = RecordReplayJudge(Declaring(), mode="off")
    assert capabilities(judge) == dataclasses.replace(
        capabilities(Declaring()), batch=judge.evaluate_batch, equivalence=None
    )
    with pytest.raises(AttributeError, match="model_name"):
        judge.model_name  # type: ignore[attr-defined]  # noqa: B018  # not declared: not forwarded
    judge.recommended_threshold = 0.9  # a wrapper may set its own
    assert capabilities(judge).recommended_threshold == 0.9


@pytest.mark.parametrize("bad", ["0.7", 1.5, float("nan"), True])
def test_an_invalid_recommended_threshold_is_the_same_error_inside_the_wrapper(
    bad: object,
) -> None:
    class Odd:
        recommended_threshold: Any = bad

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=1.0, threshold=threshold)

    with pytest.raises(ValueError, match="threshold") as direct:
        assert_semantic("Thanks", "polite", judge=Odd())
    assert RecordReplayJudge(Odd(), mode="off").recommended_threshold is bad  # raw, unchanged
    for wrapped in (RecordReplayJudge(Odd(), mode="off"), wrap_judge(Odd())):
        with pytest.raises(ValueError, match="threshold") as inside:
            assert_semantic("Thanks", "polite", judge=wrapped)
        assert str(inside.value) == str(direct.value)


# --- the memo is bounded and cheap ----------------------------------------------------------------


def test_memo_keeps_the_most_recently_used_checks_only() -> None:
    inner = scorer()
    judge = RecordReplayJudge(inner, mode="off", memo_size=2)
    for output in ("a", "b", "a", "c"):  # "b" is the least recently used when "c" arrives
        judge.evaluate(output, "polite", 0.5)
    judge.evaluate("a", "polite", 0.5)  # still remembered
    assert [call[0] for call in inner.calls] == ["a", "b", "c"]
    judge.evaluate("b", "polite", 0.5)  # dropped: judged again
    assert [call[0] for call in inner.calls] == ["a", "b", "c", "b"]
    judge.clear_memo()
    judge.evaluate("b", "polite", 0.5)
    assert len(inner.calls) == 5


@pytest.mark.parametrize("bad", [0, -1, 2.5, None])
def test_memo_size_must_be_a_positive_int(bad: object) -> None:
    with pytest.raises(ConfigurationError, match="memo_size must be a positive int"):
        RecordReplayJudge(scorer(), mode="off", memo_size=bad)  # type: ignore[arg-type]


def test_the_memo_tells_intents_with_the_same_text_but_other_examples_apart() -> None:
    inner = FakeJudge(lambda output, intent: 0.9)
    judge = RecordReplayJudge(inner, mode="off")
    plain = IntentDescription("polite")
    judge.evaluate("Thanks", plain, 0.5)
    judge.evaluate("Thanks", IntentDescription("polite", examples=("Thank you!",)), 0.5)
    judge.evaluate("Thanks", IntentDescription("polite", hypothesis="The text is polite."), 0.5)
    judge.evaluate("Thanks", IntentDescription("polite"), 0.5)  # equal to ``plain``: remembered
    assert len(inner.calls) == 3


def test_mode_off_neither_fingerprints_nor_builds_records(monkeypatch: pytest.MonkeyPatch) -> None:
    def forbidden(*args: object, **kwargs: object) -> None:
        raise AssertionError("mode off must not fingerprint or build a record")

    monkeypatch.setattr("semantix.verdicts._judge.fingerprint_of", forbidden)
    monkeypatch.setattr(StoredVerdict, "from_verdict", forbidden)
    judge = RecordReplayJudge(scorer(), mode="off")
    for _ in range(3):
        assert assert_semantic("Thanks", Polite, judge=judge).passed
    assert judge.stats.judged == 1 and judge.usage() == VerdictUsage(judged=1)


def test_memo_hits_at_the_same_threshold_return_the_remembered_verdict() -> None:
    judge = RecordReplayJudge(scorer(), mode="off")
    judge.evaluate("Thanks", "polite", 0.5)
    assert judge.evaluate("Thanks", "polite", 0.5) is judge.evaluate("Thanks", "polite", 0.5)


def test_threads_leave_no_claims_behind() -> None:
    judge = RecordReplayJudge(scorer(), mode="off", memo_size=8)

    def work(index: int) -> None:
        judge.evaluate(f"output {index % 20}", "polite", 0.5)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(work, range(200)))
    assert judge.verdicts.memo.claims == 0
    assert len(judge.verdicts.memo) == 8


def test_a_failing_judge_wakes_the_threads_waiting_for_it() -> None:
    started = threading.Event()
    release = threading.Event()
    calls: list[str] = []

    def handler(output: str, intent: str) -> float:
        calls.append(output)
        started.set()
        release.wait(5)
        raise RuntimeError("model crashed")

    judge = RecordReplayJudge(FakeJudge(handler), mode="off")
    waiting = threading.Event()
    acquire = judge.verdicts.memo.acquire

    def watched(key: Any, threshold: float, exact: bool) -> Any:
        verdict, event = acquire(key, threshold, exact)
        if event is not None:
            waiting.set()  # this caller found the check being answered and will wait
        return verdict, event

    judge.verdicts.memo.acquire = watched  # type: ignore[method-assign]
    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(judge.evaluate, "Thanks", "polite", 0.5)
        assert started.wait(10)
        second = pool.submit(judge.evaluate, "Thanks", "polite", 0.5)
        assert waiting.wait(10)
        release.set()
        for future in (first, second):
            with pytest.raises(JudgeError, match="model crashed"):
                future.result(timeout=10)
    assert calls == ["Thanks", "Thanks"]  # each caller gets its own error, never a replay of one


# --- usage: what a run did with the store ---------------------------------------------------------


def test_usage_counts_recorded_replayed_judged_and_the_fingerprints_used(
    store: VerdictStore,
) -> None:
    record(store, "Known", score=0.9)
    [known] = store.fingerprints()
    judge = RecordReplayJudge(scorer(0.7), store=store, mode="update")
    judge.evaluate("Known", Polite.judge_description(), 0.8)
    judge.evaluate("Known", Polite.judge_description(), 0.8)  # memo: not another replay
    judge.evaluate("New", Polite.judge_description(), 0.5)
    usage = judge.usage()
    assert (usage.recorded, usage.replayed, usage.judged) == (1, 1, 1)
    assert usage.used == frozenset(store.fingerprints())
    assert known in usage.used and len(usage.used) == 2
    assert judge.stats.memo_hits == 1

    judge.reset_usage()
    assert judge.usage() == VerdictUsage()


def test_usage_adds_up_across_workers_and_travels_as_plain_data() -> None:
    one = VerdictUsage(recorded=1, replayed=2, judged=1, used=frozenset({"a" * 64}))
    two = VerdictUsage(recorded=0, replayed=3, judged=0, used=frozenset({"a" * 64, "b" * 64}))
    total = one + two
    assert (total.recorded, total.replayed, total.judged) == (1, 5, 1)
    assert total.used == frozenset({"a" * 64, "b" * 64})
    data = json.loads(json.dumps(total.to_dict()))
    assert data["used"] == ["a" * 64, "b" * 64]
    assert VerdictUsage.from_dict(data) == total


def test_replay_mode_usage_lists_what_was_replayed(store: VerdictStore) -> None:
    record(store, "Thanks")
    record(store, "Unused here")
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
    assert_semantic("Thanks", Polite, judge=judge, threshold=0.8)
    usage = judge.usage()
    assert (usage.recorded, usage.replayed, usage.judged) == (0, 1, 0)
    [unused] = store.unused(usage.used)
    assert unused.stem not in usage.used


def test_update_asks_again_where_the_record_cannot_tell_and_stores_the_new_verdict(
    store: VerdictStore,
) -> None:
    recorder = RecordReplayJudge(MarginJudge(0.4), store=store, mode="update")
    evaluate_semantic("Thanks, but no.", Polite, judge=recorder, threshold=0.5)
    inner = MarginJudge(0.4)
    updater = RecordReplayJudge(inner, store=store, mode="update")
    evaluate_semantic("Thanks, but no.", Polite, judge=updater, threshold=0.9)  # tells: fails
    assert inner.calls == []
    evaluate_semantic("Thanks, but no.", Polite, judge=updater, threshold=0.3)  # cannot tell
    assert inner.calls == [0.3]
    [file] = stored_files(store)
    assert json.loads(file.read_text())["verdict"]["threshold"] == 0.3
    assert updater.usage().recorded == 1


class _SlowAsync:
    """A judge that declares aevaluate_batch and takes ``delay`` seconds to answer."""

    delay = 5.0

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        raise AssertionError("an async check awaits aevaluate_batch")

    async def aevaluate_batch(self, requests: list[tuple[str, str, float]]) -> list[Verdict]:
        import asyncio

        await asyncio.sleep(self.delay)
        return [Verdict(True, 0.9, "ok", threshold=threshold) for _, _, threshold in requests]


def test_a_cancelled_async_check_leaves_no_claim_behind() -> None:
    """A check cancelled while its judge answers must not leave the next one waiting."""
    import asyncio

    slow = _SlowAsync()
    judge = RecordReplayJudge(slow, mode="off")
    ask = judge.aevaluate_batch
    assert ask is not None

    async def main() -> list[Verdict]:
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(ask([("Thanks", "polite", 0.5)]), 0.1)
        slow.delay = 0.0
        return await asyncio.wait_for(ask([("Thanks", "polite", 0.5)]), 10)

    (verdict,) = asyncio.run(main())
    assert verdict.passed and judge.stats.judged == 1
    assert judge.verdicts.memo.claims == 0
