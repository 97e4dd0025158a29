"""Frozen verdicts: fingerprint, store, modes, memo, concurrency."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, verdict
from semantix import (
    ConfigurationError,
    CorruptVerdictError,
    FakeJudge,
    Intent,
    IntentDescription,
    JudgeError,
    JudgeIdentity,
    SemanticAssertionError,
    Verdict,
    VerdictNotRecordedError,
    VerdictStoreError,
    assert_semantic,
    evaluate_semantic,
)
from semantix.judges.llm import LLMJudge
from semantix.verdicts import (
    DEFAULT_PATH,
    CachingJudge,
    StoredVerdict,
    VerdictStore,
    fingerprint,
    normalise_text,
    resolve_mode,
    wrap_judge,
)


class Polite(Intent):
    """The text must be polite and professional."""


class Apologetic(Intent):
    """The text apologises."""


def scorer(score: float = 0.9) -> FakeJudge:
    return FakeJudge(lambda output, intent: score)


def exploding() -> FakeJudge:
    def handler(output: str, intent: str) -> float:
        raise AssertionError("the judge must not be called")

    return FakeJudge(handler)


class NamedJudge:
    """A judge with its own identity and prompt version."""

    recommended_threshold: float | None = 0.5

    def __init__(self, model: str = "m", prompt_version: str = "p1") -> None:
        self.identity = JudgeIdentity("NamedJudge", model=model, revision="r1")
        self.prompt_version = prompt_version

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed=True, score=1.0, reason="named", threshold=threshold)


class Plain:
    recommended_threshold = None

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed=True, score=1.0)


@pytest.fixture
def store(tmp_path: Path) -> VerdictStore:
    return VerdictStore(tmp_path / "verdicts")


def record(store: VerdictStore, output: str = "Thank you!", score: float = 0.9) -> None:
    """Store a FakeJudge verdict of ``score`` for (output, Polite), at threshold 0.8."""
    judge = CachingJudge(scorer(score), store=store, mode="update")
    result = evaluate_semantic(output, Polite, judge=judge, threshold=0.8)
    assert result.passed is (score >= 0.8)


def stored_files(store: VerdictStore) -> list[Path]:
    return sorted(store.path.glob("*/*.json"))


# --- fingerprint ---------------------------------------------------------------------------------


def test_fingerprint_ignores_newline_style_and_trailing_space() -> None:
    judge = scorer()
    base = fingerprint(judge, "Hello\nworld", "polite")
    assert fingerprint(judge, "  Hello  \r\nworld\n\n", "polite") == base
    assert fingerprint(judge, "Hello\rworld", "polite ") == base
    assert fingerprint(judge, "Cafe\u0301", "x") == fingerprint(judge, "Caf\u00e9", "x")  # NFC
    assert len(base) == 64


@pytest.mark.parametrize(
    ("judge", "output", "intent"),
    [
        (scorer(), "Hello world!", "polite"),
        (scorer(), "Hello\nworld", "rude"),
        (scorer(), "Hello\nworld", IntentDescription("polite", hypothesis="The text is polite.")),
        (scorer(), "Hello\nworld", IntentDescription("polite", examples=("Thanks!",))),
        (scorer(), "Hello\nworld", IntentDescription("polite", counterexamples=("No.",))),
        (NamedJudge(), "Hello\nworld", "polite"),
        (NamedJudge(model="other"), "Hello\nworld", "polite"),
        (NamedJudge(prompt_version="p2"), "Hello\nworld", "polite"),
        (Plain(), "Hello\nworld", "polite"),
    ],
)
def test_fingerprint_changes_with_each_part(judge: Any, output: str, intent: str) -> None:
    assert fingerprint(judge, output, intent) != fingerprint(scorer(), "Hello\nworld", "polite")


def test_fingerprint_uses_the_full_identity_not_its_short_form() -> None:
    class Revised(NamedJudge):
        def __init__(self, revision: str) -> None:
            super().__init__()
            self.identity = JudgeIdentity("NamedJudge", model="m", revision=revision)

    first, second = Revised("a" * 12 + "1"), Revised("a" * 12 + "2")
    assert str(first.identity) == str(second.identity)  # str() truncates the revision
    assert fingerprint(first, "x", "y") != fingerprint(second, "x", "y")


def test_normalise_text() -> None:
    assert normalise_text("  a  \r\n b \r\n\n") == "a\n b"


# --- the store -----------------------------------------------------------------------------------


def test_one_reviewable_file_per_verdict(store: VerdictStore) -> None:
    class Greeting(Intent):
        """The text greets the reader."""

        examples = ("Hello!",)

    judge = CachingJudge(scorer(0.875), store=store, mode="update")
    assert_semantic("Hi there, how can I help?", Greeting, judge=judge, threshold=0.5)
    [file] = stored_files(store)
    key = fingerprint(judge, "Hi there, how can I help?", Greeting.judge_description())
    assert file == store.path / key[:2] / f"{key}.json"
    text = file.read_text(encoding="utf-8")
    document = json.loads(text)
    assert text == json.dumps(document, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert document["fingerprint"] == key
    assert document["verdict"] == {
        "passed": True,
        "reason": "fake score 0.875",
        "score": 0.875,
        "threshold": 0.5,
    }
    assert document["judge"]["display"] == "FakeJudge"
    assert document["intent"]["description"] == "The text greets the reader."
    assert document["intent"]["examples"] == ["Hello!"]
    assert document["output"] == {"chars": 25, "preview": "Hi there, how can I help?"}
    assert document["semantix_version"]
    assert document["recorded_at"].endswith("+00:00")
    assert not list(store.path.glob("*/*.tmp"))


def test_llm_verdict_file_carries_usage_latency_and_prompt_version(
    store: VerdictStore,
) -> None:
    with FakeOpenAIServer([verdict(0.9, "kind")]) as server:
        llm = LLMJudge(base_url=server.base_url, backoff=0)
        try:
            assert_semantic("Thanks!", Polite, judge=CachingJudge(llm, store=store, mode="update"))
        finally:
            llm.close()
    [file] = stored_files(store)
    document = json.loads(file.read_text())
    assert document["judge"]["prompt_version"] == "v1"
    assert document["judge"]["model"] == "gpt-4o-mini"
    assert document["verdict"]["usage"] == {"completion_tokens": 7, "prompt_tokens": 42}
    assert document["verdict"]["latency_ms"] > 0
    assert document["verdict"]["reason"] == "kind"


def test_missing_verdict_is_none(store: VerdictStore) -> None:
    assert store.get("0" * 64) is None
    assert list(store.fingerprints()) == []


def test_roundtrip(store: VerdictStore) -> None:
    record(store)
    [key] = store.fingerprints()
    stored = store.get(key)
    assert isinstance(stored, StoredVerdict)
    assert (stored.passed, stored.score, stored.threshold) == (True, 0.9, 0.8)
    assert repr(stored) == f"<StoredVerdict {key[:12]} PASS score=0.900 judge=FakeJudge>"


@pytest.mark.parametrize(
    ("content", "detail"),
    [
        ("{not json", "JSONDecodeError"),
        ("[]", "expected a JSON object"),
        ("", "JSONDecodeError"),
        ("<<<<<<< HEAD\n{}\n=======\n{}\n>>>>>>> branch\n", "JSONDecodeError"),
    ],
)
def test_corrupt_file_is_a_clear_error(store: VerdictStore, content: str, detail: str) -> None:
    record(store)
    [file] = stored_files(store)
    file.write_text(content, encoding="utf-8")
    judge = CachingJudge(exploding(), store=store, mode="replay")
    with pytest.raises(CorruptVerdictError) as raised:
        assert_semantic("Thank you!", Polite, judge=judge, threshold=0.8)
    message = str(raised.value)
    assert str(file) in message
    assert detail in message
    assert "delete it and record it" in message
    assert "SEMANTIX_VERDICTS=update" in message


@pytest.mark.parametrize(
    ("change", "detail"),
    [
        (lambda d: d.pop("verdict"), "'verdict' is missing"),
        (lambda d: d["verdict"].pop("passed"), "'passed' is missing"),
        (lambda d: d["verdict"].update(passed="yes"), "'passed' is 'yes', expected a bool"),
        (lambda d: d["verdict"].update(score="high"), "'score' is 'high'"),
        (lambda d: d["verdict"].update(score=3.0), "Verdict.score must be between 0 and 1"),
        (lambda d: d.update(fingerprint="f" * 64), "does not match its file name"),
    ],
)
def test_damaged_fields_are_corrupt(store: VerdictStore, change: Any, detail: str) -> None:
    record(store)
    [file] = stored_files(store)
    document = json.loads(file.read_text())
    change(document)
    file.write_text(json.dumps(document))
    judge = CachingJudge(exploding(), store=store, mode="replay")
    with pytest.raises(CorruptVerdictError, match=detail.replace("(", r"\(")):
        assert_semantic("Thank you!", Polite, judge=judge, threshold=0.5)


def test_invalid_utf8_is_corrupt(store: VerdictStore) -> None:
    record(store)
    [file] = stored_files(store)
    file.write_bytes(b"\xff\xfe{")
    with pytest.raises(CorruptVerdictError, match="UnicodeDecodeError"):
        store.get(file.stem)


def test_store_path_that_is_a_file_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the store directory should be")
    judge = CachingJudge(scorer(), store=blocker, mode="update")
    with pytest.raises(VerdictStoreError, match="cannot read the frozen verdict .*blocker"):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.5)


def test_failed_write_is_a_store_error_and_leaves_no_temporary_file(
    store: VerdictStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(source: str, target: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("semantix.verdicts.os.replace", read_only)
    judge = CachingJudge(scorer(), store=store, mode="update")
    with pytest.raises(
        VerdictStoreError, match="cannot write the frozen verdict .*SEMANTIX_VERDICTS_PATH"
    ):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.5)
    assert [p for p in store.path.rglob("*") if p.is_file()] == []


def test_bad_fingerprint_is_rejected(store: VerdictStore) -> None:
    with pytest.raises(ValueError, match="not a verdict fingerprint"):
        store.file_for("../../etc/passwd")


def test_store_path_defaults(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert VerdictStore().path == tmp_path / DEFAULT_PATH
    assert DEFAULT_PATH == Path(".semantix/verdicts")
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", "elsewhere")
    assert VerdictStore().path == tmp_path / "elsewhere"
    assert VerdictStore("given").path == tmp_path / "given"
    assert repr(VerdictStore("given")) == f"VerdictStore({str(tmp_path / 'given')!r})"


# --- modes ---------------------------------------------------------------------------------------


def test_off_calls_the_judge_and_writes_nothing(store: VerdictStore) -> None:
    inner = scorer()
    judge = CachingJudge(inner, store=store, mode="off")
    assert_semantic("Thanks", Polite, judge=judge)
    assert inner.calls == [("Thanks", Polite.description)]
    assert not store.path.exists()


def test_update_records_misses_and_replays_hits(store: VerdictStore) -> None:
    inner = scorer(0.9)
    assert_semantic("Thanks", Polite, judge=CachingJudge(inner, store=store, mode="update"))
    assert len(inner.calls) == 1
    assert len(stored_files(store)) == 1

    again = exploding()
    judge = CachingJudge(again, store=store, mode="update")
    result = assert_semantic("Thanks", Polite, judge=judge)
    assert result.leaves[0].verdict.score == 0.9
    assert judge.stats.replayed == 1 and judge.stats.judged == 0
    assert len(stored_files(store)) == 1


def test_replay_passes_with_the_judge_unavailable(store: VerdictStore) -> None:
    record(store, "Thank you for your patience.")
    judge = CachingJudge(exploding(), store=store, mode="replay")
    result = assert_semantic("Thank you for your patience.", Polite, judge=judge, threshold=0.8)
    assert result.passed
    assert result.leaves[0].verdict.reason == "fake score 0.900"
    assert result.judge == "FakeJudge"


def test_replayed_failure_still_fails(store: VerdictStore) -> None:
    record(store, "Go away.", score=0.1)
    judge = CachingJudge(exploding(), store=store, mode="replay")
    with pytest.raises(SemanticAssertionError, match="reason: fake score 0.100"):
        assert_semantic("Go away.", Polite, judge=judge, threshold=0.8)


@pytest.mark.parametrize("mode", ["replay", "strict"])
def test_miss_is_an_error_that_says_how_to_record(store: VerdictStore, mode: str) -> None:
    inner = exploding()
    judge = CachingJudge(inner, store=store, mode=mode)
    with pytest.raises(VerdictNotRecordedError) as raised:
        assert_semantic("Never seen before", Polite, judge=judge)
    message = str(raised.value)
    assert "SEMANTIX_VERDICTS=update" in message
    assert "--semantic-verdicts update" in message
    assert "'Never seen before'" in message
    assert str(store.path) in message
    assert inner.calls == []
    assert ("never calls the judge" in message) is (mode == "strict")


def test_fresh_verdicts_keep_latency_and_usage_replays_do_not(store: VerdictStore) -> None:
    server = FakeOpenAIServer(default=verdict(0.9, "kind"))
    with server, LLMJudge(base_url=server.base_url, backoff=0) as llm:
        judge = CachingJudge(llm, store=store, mode="update")
        fresh = judge.evaluate("Thanks!", "polite", 0.5)
        again = judge.evaluate("Thanks!", "polite", 0.5)
    assert fresh.usage is not None and fresh.latency_ms is not None
    assert again.usage is None and again.latency_ms is None  # no tokens spent on a replay
    assert (again.passed, again.score, again.reason) == (fresh.passed, fresh.score, fresh.reason)
    assert len(server.requests) == 1


def test_replay_with_the_llm_server_down(store: VerdictStore) -> None:
    """Record through the real SDK and test server, stop it, replay: passes without a server."""
    with FakeOpenAIServer([verdict(0.95, "A warm, courteous reply.")]) as server:
        base_url = server.base_url
        with LLMJudge(base_url=base_url, backoff=0) as llm:
            assert_semantic(
                "Thank you!", "polite", judge=CachingJudge(llm, store=store, mode="update")
            )
    with LLMJudge(base_url=base_url, backoff=0, max_retries=0, timeout=1) as llm:
        with pytest.raises(JudgeError):  # the server is really down
            llm.evaluate("Thank you!", "polite", 0.5)
        result = assert_semantic(
            "Thank you!", "polite", judge=CachingJudge(llm, store=store, mode="replay")
        )
    assert result.leaves[0].verdict.reason == "A warm, courteous reply."
    assert result.leaves[0].threshold == 0.5  # LLMJudge's recommended threshold, forwarded


def test_threshold_change_reuses_the_stored_score(store: VerdictStore) -> None:
    record(store, "Thanks", score=0.9)  # recorded at 0.8
    judge = CachingJudge(exploding(), store=store, mode="replay")
    assert assert_semantic("Thanks", Polite, judge=judge, threshold=0.5).passed
    with pytest.raises(SemanticAssertionError, match="0.90 .* 0.95"):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.95)
    assert len(stored_files(store)) == 1


def test_strict_replays_only_at_the_recorded_threshold(store: VerdictStore) -> None:
    record(store, "Thanks", score=0.9)
    judge = CachingJudge(exploding(), store=store, mode="strict")
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

    assert_semantic("x", Polite, judge=CachingJudge(Scoreless(), store=store, mode="update"))
    replay = CachingJudge(Scoreless(), store=store, mode="replay")
    with pytest.raises(VerdictNotRecordedError, match="has no score to decide again"):
        assert_semantic("x", Polite, judge=replay, threshold=0.3)
    off = CachingJudge(Scoreless(), mode="off")
    assert_semantic("x", Polite, judge=off, threshold=0.3)
    assert_semantic("x", Polite, judge=off, threshold=0.4)  # judged again: cannot re-decide
    assert calls == [0.8, 0.3, 0.4]


def test_judge_errors_are_not_stored(store: VerdictStore) -> None:
    def broken(output: str, intent: str) -> float:
        raise RuntimeError("model crashed")

    judge = CachingJudge(FakeJudge(broken), store=store, mode="update")
    with pytest.raises(JudgeError, match="model crashed"):
        assert_semantic("Thanks", Polite, judge=judge)
    assert stored_files(store) == []


def test_garbage_from_the_judge_is_a_judge_error(store: VerdictStore) -> None:
    class Garbage:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Any:
            return 0.9

    judge = CachingJudge(Garbage(), store=store, mode="update")
    with pytest.raises(JudgeError, match="returned float"):
        assert_semantic("Thanks", Polite, judge=judge)
    assert stored_files(store) == []


def test_a_verdict_without_threshold_keeps_the_judges_own_decision(
    store: VerdictStore,
) -> None:
    class OwnRule:
        """Passes on its own rule, not score >= threshold, and does not fill Verdict.threshold."""

        recommended_threshold = None
        calls = 0

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            OwnRule.calls += 1
            return Verdict(passed=True, score=0.3, reason="close to the examples")

    assert_semantic("x", Polite, judge=CachingJudge(OwnRule(), store=store, mode="update"))
    [file] = stored_files(store)
    assert json.loads(file.read_text())["verdict"]["threshold"] == 0.8  # the one it was asked at
    replay = CachingJudge(OwnRule(), store=store, mode="replay")
    assert assert_semantic("x", Polite, judge=replay).passed  # same threshold: as recorded
    assert OwnRule.calls == 1


def test_output_with_a_lone_surrogate_roundtrips(store: VerdictStore) -> None:
    output = "broken \udcff bytes"
    assert_semantic(output, Polite, judge=CachingJudge(scorer(), store=store, mode="update"))
    [file] = stored_files(store)
    file.read_text(encoding="utf-8")  # valid UTF-8
    replay = CachingJudge(exploding(), store=store, mode="replay")
    assert assert_semantic(output, Polite, judge=replay).passed


# --- environment and wrap_judge ----------------------------------------------------------------


def test_mode_from_the_environment(store: VerdictStore, monkeypatch: pytest.MonkeyPatch) -> None:
    assert resolve_mode() == "off"
    monkeypatch.setenv("SEMANTIX_VERDICTS", " Replay ")
    assert resolve_mode() == "replay"
    assert resolve_mode("update") == "update"  # the argument wins
    assert CachingJudge(scorer(), store=store).mode == "replay"


@pytest.mark.parametrize("bad", ["record", "", "on"])
def test_bad_mode_names_the_choices(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    with pytest.raises(ConfigurationError, match="use one of off, replay, update, strict"):
        resolve_mode(bad)
    monkeypatch.setenv("SEMANTIX_VERDICTS", bad or "x")
    with pytest.raises(ConfigurationError, match="SEMANTIX_VERDICTS"):
        wrap_judge(scorer())


def test_wrap_judge(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    inner = scorer()
    assert wrap_judge(inner, memo=False) is inner
    memo_only = wrap_judge(inner)
    assert isinstance(memo_only, CachingJudge) and memo_only.mode == "off"
    assert wrap_judge(memo_only) is memo_only
    assert wrap_judge(memo_only, mode="off", path=memo_only.store.path) is memo_only
    rewrapped = wrap_judge(memo_only, mode="replay")  # an explicit, different mode wins
    assert isinstance(rewrapped, CachingJudge) and rewrapped.judge is inner
    assert rewrapped.mode == "replay"
    assert wrap_judge(memo_only, mode="off", memo=False) is inner

    replay = wrap_judge(inner, mode="replay", path=tmp_path / "v")
    assert isinstance(replay, CachingJudge)
    assert (replay.mode, replay.store.path) == ("replay", tmp_path / "v")

    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "env"))
    from_env = wrap_judge(inner)
    assert isinstance(from_env, CachingJudge)
    assert (from_env.mode, from_env.store.path) == ("update", tmp_path / "env")
    assert isinstance(wrap_judge(inner, mode="off", memo=False), FakeJudge)


def test_forwards_threshold_identity_and_prompt_version(store: VerdictStore) -> None:
    judge = CachingJudge(NamedJudge(), store=store, mode="update")
    assert judge.recommended_threshold == 0.5
    assert judge.identity == NamedJudge().identity
    assert judge.prompt_version == "p1"
    result = assert_semantic("Thanks", Polite, judge=judge)
    assert result.judge == "NamedJudge(m@r1)"
    assert result.leaves[0].threshold == 0.5
    judge.recommended_threshold = 0.7
    assert judge.recommended_threshold == 0.7
    assert CachingJudge(Plain(), mode="off").identity.name.endswith("test_verdicts.Plain")
    assert repr(judge) == f"CachingJudge({judge.judge!r}, mode='update', store={store!r})"


def test_not_a_judge() -> None:
    with pytest.raises(TypeError, match="needs a judge with evaluate"):
        CachingJudge(object())  # type: ignore[arg-type]


# --- memo and batches ----------------------------------------------------------------------------


def test_memo_judges_each_check_once(store: VerdictStore) -> None:
    inner = scorer()
    judge = CachingJudge(inner, store=store, mode="off")
    for _ in range(3):
        assert_semantic("Thanks", Polite, judge=judge)
    assert_semantic("Thanks\r\n", Polite, judge=judge, threshold=0.5)  # same check
    assert len(inner.calls) == 1
    assert judge.stats.judged == 1 and judge.stats.memo_hits == 3


def test_without_memo_every_call_judges(store: VerdictStore) -> None:
    inner = scorer()
    judge = CachingJudge(inner, mode="off", memo=False)
    assert_semantic("Thanks", Polite, judge=judge)
    assert_semantic("Thanks", Polite, judge=judge)
    assert len(inner.calls) == 2


def test_memo_is_per_instance() -> None:
    inner = scorer()
    assert_semantic("Thanks", Polite, judge=CachingJudge(inner, mode="off"))
    assert_semantic("Thanks", Polite, judge=CachingJudge(inner, mode="off"))
    assert len(inner.calls) == 2


def test_memo_under_threads_judges_once() -> None:
    calls: list[str] = []
    lock = threading.Lock()

    def slow(output: str, intent: str) -> float:
        with lock:
            calls.append(output)
        time.sleep(0.05)
        return 0.9

    judge = CachingJudge(FakeJudge(slow), mode="off")
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
    judge = CachingJudge(inner, store=store, mode="update")
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
            "Thanks", Polite & Apologetic, judge=CachingJudge(inner, store=store, mode="update")
        )
    replay = CachingJudge(exploding(), store=store, mode="replay")
    assert_semantic("Thanks", Polite & ~Apologetic, judge=replay)
    assert len(inner.calls) == 2


# --- concurrent writers --------------------------------------------------------------------------


def assert_store_is_sound(store: VerdictStore, expected: int) -> None:
    files = stored_files(store)
    assert len(files) == expected
    for file in files:
        stored = store.get(file.stem)  # raises CorruptVerdictError on a torn file
        assert stored is not None and stored.score is not None
    assert not [p for p in store.path.rglob("*") if p.is_file() and p.suffix != ".json"]


def test_concurrent_threads_never_corrupt(store: VerdictStore) -> None:
    outputs = [f"output number {i}" for i in range(10)]
    intent = Polite.judge_description()
    barrier = threading.Barrier(8)

    def writer(index: int) -> None:
        inner = scorer(0.5 + index / 100)
        barrier.wait()
        for _ in range(5):
            judge = CachingJudge(inner, store=store, mode="update", memo=False)
            for output in outputs:
                key = fingerprint(inner, output, intent)
                verdict = inner.evaluate(output, intent, 0.5)
                store.put(StoredVerdict.from_verdict(key, verdict, inner, output, intent))
                assert_semantic(output, Polite, judge=judge, threshold=0.5)

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(writer, range(8)))  # re-raises any thread's error
    assert_store_is_sound(store, expected=len(outputs))


WORKER = textwrap.dedent(
    """
    import sys
    from semantix import FakeJudge, Intent, assert_semantic
    from semantix.verdicts import CachingJudge, StoredVerdict, VerdictStore, fingerprint

    class Polite(Intent):
        \"\"\"The text must be polite and professional.\"\"\"

    store = VerdictStore(sys.argv[1])
    worker = int(sys.argv[2])
    inner = FakeJudge(lambda output, intent: 0.5 + worker / 100)
    intent = Polite.judge_description()
    for _ in range(15):
        judge = CachingJudge(inner, store=store, mode="update", memo=False)
        for i in range(8):
            shared = f"shared output {i}"
            key = fingerprint(inner, shared, intent)
            verdict = inner.evaluate(shared, intent, 0.5)
            store.put(StoredVerdict.from_verdict(key, verdict, inner, shared, intent))  # rewrite
            assert_semantic(shared, Polite, judge=judge, threshold=0.5)  # read while others write
            assert_semantic(f"own output {worker} {i}", Polite, judge=judge, threshold=0.5)
    print("ok")
    """
)


def test_concurrent_processes_never_corrupt(store: VerdictStore, tmp_path: Path) -> None:
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    workers = [
        subprocess.Popen(
            [sys.executable, str(script), str(store.path), str(worker)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for worker in range(4)
    ]
    results = [worker.communicate(timeout=120) for worker in workers]
    for worker, (out, err) in zip(workers, results, strict=True):
        assert worker.returncode == 0, err
        assert out.strip() == "ok"
    assert_store_is_sound(store, expected=8 + 4 * 8)


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
    recorder = CachingJudge(MarginJudge(0.9), store=store, mode="update")
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=recorder, threshold=0.5).passed
    replayed = MarginJudge(0.9)
    replay = CachingJudge(replayed, store=store, mode="replay")
    # 0.9 >= 0.3, yet the recorded failure was not about the score: it must not turn into a pass
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=replay, threshold=0.3).passed
    assert replayed.calls == []


def test_a_verdict_that_failed_below_its_threshold_is_asked_again_at_a_lower_one(
    store: VerdictStore,
) -> None:
    judge = MarginJudge(0.4)
    memo = CachingJudge(judge, mode="off")
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.5).passed
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.9).passed
    assert judge.calls == [0.5]  # a higher threshold: still a failure, no need to ask
    assert not evaluate_semantic("Thanks, but no.", Polite, judge=memo, threshold=0.3).passed
    assert judge.calls == [0.5, 0.3]  # lower: the score alone cannot tell, so the judge decides

    recorder = CachingJudge(MarginJudge(0.4), store=store, mode="update")
    evaluate_semantic("Thanks, but no.", Polite, judge=recorder, threshold=0.5)
    replay = CachingJudge(MarginJudge(0.4), store=store, mode="replay")
    with pytest.raises(VerdictNotRecordedError, match="its score alone cannot tell"):
        evaluate_semantic("Thanks, but no.", Polite, judge=replay, threshold=0.3)
