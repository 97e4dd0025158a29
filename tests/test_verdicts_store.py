"""Frozen verdicts on disk: fingerprint, record schema, atomic store, unused/prune."""

from __future__ import annotations

import errno
import json
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from llm_server import FakeOpenAIServer, verdict
from semantix import (
    CorruptVerdictError,
    Intent,
    IntentDescription,
    JudgeError,
    JudgeIdentity,
    TokenUsage,
    Verdict,
    VerdictStoreError,
    assert_semantic,
)
from semantix.judges._llm import LLMJudge
from semantix.verdicts import RecordReplayJudge, StoredVerdict, VerdictStore, fingerprint
from semantix.verdicts._fingerprint import normalise_text
from semantix.verdicts._modes import DEFAULT_PATH
from verdicts_helpers import (
    NamedJudge,
    Plain,
    Polite,
    exploding,
    record,
    scorer,
    stored_files,
)

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

    judge = RecordReplayJudge(scorer(0.875), store=store, mode="update")
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
    store: VerdictStore, openai_sdk: None
) -> None:
    with FakeOpenAIServer([verdict(0.9, "kind")]) as server:
        llm = LLMJudge(base_url=server.base_url)
        try:
            assert_semantic(
                "Thanks!", Polite, judge=RecordReplayJudge(llm, store=store, mode="update")
            )
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
        ("[" * 100_000 + "]" * 100_000, "RecursionError"),
        ("null", "the file is null, expected a JSON object"),
    ],
)
def test_corrupt_file_is_a_clear_error(store: VerdictStore, content: str, detail: str) -> None:
    record(store)
    [file] = stored_files(store)
    file.write_text(content, encoding="utf-8")
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
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
        (lambda d: d["verdict"].pop("passed"), "'verdict.passed' is missing"),
        (lambda d: d["verdict"].update(passed="yes"), "'verdict.passed' is 'yes', expected a bool"),
        (lambda d: d["verdict"].update(score="high"), "'verdict.score' is 'high'"),
        (lambda d: d["verdict"].update(score=3.0), "'verdict.score' is 3.0, expected a number"),
        (lambda d: d["verdict"].update(score=True), "'verdict.score' is True"),
        (lambda d: d["verdict"].update(threshold=-1), "'verdict.threshold' is -1"),
        (lambda d: d["verdict"].update(reason=7), "'verdict.reason' is 7, expected a str or null"),
        (lambda d: d["verdict"].update(evidence=[]), "'verdict.evidence' is []"),
        (lambda d: d["verdict"].update(probabilities=[0.1]), "'verdict.probabilities' is a list"),
        (lambda d: d["verdict"].update(probabilities={"e": 2}), "'verdict.probabilities.e' is 2"),
        (lambda d: d["verdict"].update(probabilities={"e": None}), "'verdict.probabilities.e' is null"),
        (lambda d: d["verdict"].update(usage={"prompt_tokens": 1}), "'verdict.usage.completion_tokens' is missing"),
        (lambda d: d["verdict"].update(usage={"prompt_tokens": -1, "completion_tokens": 1}), "expected a count"),
        (lambda d: d["verdict"].update(latency_ms="fast"), "'verdict.latency_ms' is 'fast'"),
        (lambda d: d.update(output="oops"), "'output' is a str ('oops'), expected a JSON object"),
        (lambda d: d["output"].update(chars="25"), "'output.chars' is '25', expected a int"),
        (lambda d: d["output"].update(preview=None), "'output.preview' is None, expected a str"),
        (lambda d: d.update(judge=None), "'judge' is null, expected a JSON object"),
        (lambda d: d["judge"].update(name=1), "'judge.name' is 1, expected a str"),
        (lambda d: d["judge"].update(model=["m"]), "'judge.model' is ['m']"),
        (lambda d: d["judge"].update(prompt_version=2), "'judge.prompt_version' is 2"),
        (lambda d: d["intent"].update(examples="Hi"), "'intent.examples' is 'Hi', expected a list"),
        (lambda d: d["intent"].update(examples=[1]), "'intent.examples' must be a list of strings"),
        (lambda d: d["intent"].pop("description"), "'intent.description' is missing"),
        (lambda d: d.update(recorded_at=20261201), "'recorded_at' is 20261201"),
        (lambda d: d.update(format=2), "this semantix reads format 1"),
        (lambda d: d.update(format="1"), "'format' is '1', expected a int"),
        (lambda d: d.update(fingerprint="f" * 64), "does not match its file name"),
    ],
)  # fmt: skip
def test_every_field_of_a_damaged_file_is_checked(
    store: VerdictStore, change: Any, detail: str
) -> None:
    record(store)
    [file] = stored_files(store)
    document = json.loads(file.read_text())
    change(document)
    file.write_text(json.dumps(document))
    judge = RecordReplayJudge(exploding(), store=store, mode="replay")
    with pytest.raises(CorruptVerdictError) as raised:
        assert_semantic("Thank you!", Polite, judge=judge, threshold=0.5)
    message = str(raised.value)
    assert detail in message
    assert str(file) in message
    assert "delete it and record it" in message


def test_invalid_utf8_is_corrupt(store: VerdictStore) -> None:
    record(store)
    [file] = stored_files(store)
    file.write_bytes(b"\xff\xfe{")
    with pytest.raises(CorruptVerdictError, match="is not UTF-8 text .*delete it and record it"):
        store.get(file.stem)


def test_a_verdict_a_reviewer_saved_with_a_bom_replays(store: VerdictStore) -> None:
    record(store)
    [file] = stored_files(store)
    file.write_bytes(b"\xef\xbb\xbf" + file.read_bytes())
    stored = store.get(file.stem)
    assert stored is not None and stored.fingerprint == file.stem


def test_store_path_that_is_a_file_is_a_store_error(tmp_path: Path) -> None:
    blocker = tmp_path / "blocker"
    blocker.write_text("a file where the store directory should be")
    judge = RecordReplayJudge(scorer(), store=blocker, mode="update")
    with pytest.raises(VerdictStoreError, match="cannot read the frozen verdict .*blocker"):
        assert_semantic("Thanks", Polite, judge=judge, threshold=0.5)


def test_failed_write_is_a_store_error_and_leaves_no_temporary_file(
    store: VerdictStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    def read_only(source: str, target: object) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr("semantix.verdicts._store.os.replace", read_only)
    judge = RecordReplayJudge(scorer(), store=store, mode="update")
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
            judge = RecordReplayJudge(inner, store=store, mode="update", memo=False)
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
    from semantix.verdicts import RecordReplayJudge, StoredVerdict, VerdictStore, fingerprint

    class Polite(Intent):
        \"\"\"The text must be polite and professional.\"\"\"

    store = VerdictStore(sys.argv[1])
    worker = int(sys.argv[2])
    inner = FakeJudge(lambda output, intent: 0.5 + worker / 100)
    intent = Polite.judge_description()
    for _ in range(15):
        judge = RecordReplayJudge(inner, store=store, mode="update", memo=False)
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


# --- the store never writes what it would refuse to read ----------------------------------------


def stored(key: str = "a" * 64, **fields: Any) -> StoredVerdict:
    values: dict[str, Any] = {
        "fingerprint": key,
        "passed": True,
        "score": 0.9,
        "threshold": 0.5,
        "reason": "fine",
        "judge": JudgeIdentity("FakeJudge"),
    }
    values.update(fields)
    return StoredVerdict(**values)


@pytest.mark.parametrize(
    ("fields", "detail"),
    [
        ({"score": float("nan")}, "Out of range float values are not JSON compliant"),
        ({"score": float("inf")}, "Out of range float values are not JSON compliant"),
        ({"score": 1.5}, "'verdict.score' is 1.5"),
        ({"threshold": -0.1}, "'verdict.threshold' is -0.1"),
        ({"latency_ms": float("nan")}, "Out of range float values"),
        ({"probabilities": {"entailment": 2.0}}, "'verdict.probabilities.entailment' is 2.0"),
        ({"output_chars": -1}, "'output.chars' is -1"),
        ({"intent": {"description": 3}}, "'intent.description' is 3"),
    ],
)
def test_a_record_that_could_not_be_read_back_is_never_written(
    store: VerdictStore, fields: dict[str, Any], detail: str
) -> None:
    record = stored(**fields)
    with pytest.raises(ValueError, match="refusing to write the frozen verdict") as raised:
        store.put(record)
    assert detail in str(raised.value)
    assert not store.path.exists()


def test_a_nan_score_set_after_construction_is_a_judge_error_and_not_stored(
    store: VerdictStore,
) -> None:
    class Sneaky:
        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            verdict = Verdict(passed=True, score=0.9, threshold=threshold)
            object.__setattr__(verdict, "score", float("nan"))
            return verdict

    judge = RecordReplayJudge(Sneaky(), store=store, mode="update")
    with pytest.raises(JudgeError, match="nan"):
        assert_semantic("Thanks", Polite, judge=judge)
    assert stored_files(store) == []


def test_every_field_written_reads_back(store: VerdictStore) -> None:
    record = stored(
        passed=False,
        score=None,
        threshold=None,
        reason=None,
        judge=JudgeIdentity("J", model="m", revision="r", file="f.onnx", note="portable file"),
        prompt_version="v2",
        intent={"description": "d", "hypothesis": "h", "examples": ["e"], "counterexamples": []},
        output_preview="out",
        output_chars=3,
        probabilities={"entailment": 0.25, "neutral": 0.75},
        evidence="the part",
        usage=TokenUsage(3, 4),
        latency_ms=12.5,
        recorded_at="2026-12-01T00:00:00+00:00",
        semantix_version="0.1.0",
    )
    store.put(record)
    assert store.get(record.fingerprint) == record


def test_secrets_never_reach_a_stored_file(
    store: VerdictStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-env-0123456789")

    class Echo:
        """A judge whose server echoes keys into what it says."""

        recommended_threshold = None
        secrets = ("own-key-abcdef",)

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(
                passed=True,
                score=0.9,
                reason="Authorization: Bearer sk-env-0123456789 and own-key-abcdef",
                evidence="own-key-abcdef",
                threshold=threshold,
            )

    judge = RecordReplayJudge(Echo(), store=store, mode="update")
    assert_semantic("my key is own-key-abcdef", Polite, judge=judge)
    [file] = stored_files(store)
    text = file.read_text()
    assert "sk-env-0123456789" not in text and "own-key-abcdef" not in text
    document = json.loads(text)
    assert document["verdict"]["reason"] == "Authorization: Bearer ******** and ********"
    assert document["verdict"]["evidence"] == "********"
    assert document["output"]["preview"] == "my key is ********"
    replay = RecordReplayJudge(Echo(), store=store, mode="replay")  # never calls it
    result = assert_semantic("my key is own-key-abcdef", Polite, judge=replay)
    assert result.leaves[0].verdict.reason == "Authorization: Bearer ******** and ********"


# --- unused verdicts and pruning ----------------------------------------------------------------


def test_unused_and_prune(store: VerdictStore) -> None:
    for output in ("one", "two", "three"):
        record(store, output)
    used = RecordReplayJudge(exploding(), store=store, mode="replay")
    for output in ("one", "three"):
        assert_semantic(output, Polite, judge=used, threshold=0.8)
    stray = store.path / "notes.txt"
    stray.write_text("not a verdict")
    everything = stored_files(store)
    [unused] = store.unused(used.usage().used)
    assert unused in everything
    assert store.unused(store.fingerprints()) == []
    assert store.prune(used.usage().used) == [unused]
    assert not unused.exists() and not unused.parent.exists()  # its directory was left empty
    assert sorted(stored_files(store)) == sorted(set(everything) - {unused})
    assert stray.exists()
    assert store.prune(used.usage().used) == []
    assert VerdictStore(store.path / "missing").unused([]) == []


def test_prune_keeps_a_directory_that_still_holds_verdicts(store: VerdictStore) -> None:
    first, second = "0" * 63 + "1", "0" * 63 + "2"  # same two-digit directory
    store.put(stored(first))
    store.put(stored(second))
    assert store.prune([second]) == [store.file_for(first)]
    assert store.file_for(second).exists()


def test_a_verdict_without_reason_is_stored_and_replayed_without_one(store: VerdictStore) -> None:
    class Terse:
        """Written for semantix-ai: reason=None."""

        recommended_threshold = None

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=0.9, reason=None)

    assert_semantic("Thanks", Polite, judge=RecordReplayJudge(Terse(), store=store, mode="update"))
    [file] = stored_files(store)
    assert json.loads(file.read_text())["verdict"]["reason"] is None
    replay = RecordReplayJudge(Terse(), store=store, mode="replay")
    assert assert_semantic("Thanks", Polite, judge=replay).leaves[0].verdict.reason is None
