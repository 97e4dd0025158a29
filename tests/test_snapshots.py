"""Semantic snapshots, runner-agnostic: files, naming, the two-way judgement, messages."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

from semantix import (
    FakeJudge,
    IntentDescription,
    JudgeError,
    RecordReplayJudge,
    SemanticAssertionError,
    Verdict,
    VerdictNotRecordedError,
)
from semantix import (
    _context as context,
)
from semantix.snapshots import (
    SnapshotDriftError,
    SnapshotFileError,
    SnapshotMissingError,
    assert_semantic_snapshot,
    check_snapshot,
    judge_equivalence,
    write_snapshot,
)
from semantix.snapshots._compare import (
    PART_CHARS,
    SIMILARITY_NOTE,
    SIMILARITY_THRESHOLD,
    text_parts,
)
from semantix.snapshots._diff import word_diff, word_opcodes
from semantix.snapshots._files import (
    MAGIC,
    module_directory,
    node_basename,
    read_snapshot,
    safe_name,
    snapshot_filename,
)

STORED = "You can return any item within 30 days for a full refund."
PARAPHRASE = "Items may be returned for a full refund for up to 30 days."
SHORTER = "You can return any item for a refund."


@pytest.fixture(autouse=True)
def not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests record snapshots, which never happens where CI is set (tested on purpose)."""
    monkeypatch.delenv("CI", raising=False)


def overlap_judge() -> FakeJudge:
    """Stand-in judge: the share of the hypothesis's words (minus stop words) the output has."""

    def score(output: str, description: str) -> float:
        words = {word.strip(".,").lower() for word in description.split()} - {"a", "the", "for"}
        have = {word.strip(".,").lower() for word in output.split()}
        return len(words & have) / len(words)

    return FakeJudge(score, recommended_threshold=0.4)


# -- diff ---------------------------------------------------------------------------------------


def test_word_diff_marks_removed_and_added_runs() -> None:
    diff = word_diff(
        "Refunds within 30 days, no questions.", "Refunds within 14 days,  no questions."
    )
    assert diff.removed == ("30",)
    assert diff.added == ("14",)
    assert diff.rendered == "Refunds within [-30-] {+14+} days, no questions."
    assert not diff.identical_words


def test_word_diff_of_a_long_text_with_one_change_names_it_and_rebuilds_both() -> None:
    text = "Refunds take 30 days to reach your card, no questions asked. " * 3000
    new = text.replace("30", "14", 1)
    diff = word_diff(text, new)
    assert (diff.removed, diff.added) == (("30",), ("14",))
    old_words, new_words = text.split(), new.split()
    for stored, changed in ((old_words, new_words), (old_words[:5], old_words[3:9]), ([], ["a"])):
        rebuilt = [w for tag, _, _, j1, j2 in word_opcodes(stored, changed) for w in changed[j1:j2]]
        assert rebuilt == changed
        kept = [w for tag, i1, i2, _, _ in word_opcodes(stored, changed) if tag != "insert"
                for w in stored[i1:i2]]  # fmt: skip
        assert kept == stored


def test_word_diff_ignores_whitespace() -> None:
    assert word_diff("a  b\nc", "a b c").identical_words


# -- names and files ----------------------------------------------------------------------------


def test_node_basename_from_node_id() -> None:
    assert node_basename("tests/test_bot.py::TestBot::test_refund[en-1]") == (
        "TestBot.test_refund[en-1]"
    )
    assert node_basename("test_bot.py::test_refund") == "test_refund"


@pytest.mark.parametrize(
    "name", ["test_x[a/b]", "test_x[a:b]", "test_x[ünï]", "test x", ".hidden", "x" * 200]
)
def test_safe_name_is_filesystem_safe_and_keeps_names_apart(name: str) -> None:
    safe = safe_name(name)
    assert all(ch.isalnum() or ch in "_.,=+-[]" for ch in safe)
    assert safe.isascii()
    assert not safe.startswith(".")
    assert len(safe) <= 80
    assert safe != safe_name(name + "2")


def test_safe_name_keeps_plain_names() -> None:
    assert safe_name("test_refund[en-1]") == "test_refund[en-1]"


@pytest.mark.parametrize(
    ("value", "error"), [("", ValueError), ("   ", ValueError), (3, TypeError)]
)
def test_safe_name_rejects_bad_names(value: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="snapshot name"):
        safe_name(value)  # type: ignore[arg-type]


def test_snapshot_filenames() -> None:
    assert snapshot_filename("test_a") == "test_a.txt"
    assert snapshot_filename("test_a", index=1) == "test_a.txt"
    assert snapshot_filename("test_a", index=3) == "test_a.3.txt"
    assert snapshot_filename("test_a", name="refund") == "test_a.refund.txt"


def test_module_directory() -> None:
    assert module_directory(Path("tests/test_bot.py")) == Path(
        "tests/__semantic_snapshots__/test_bot"
    )


def test_write_then_read_keeps_the_text_verbatim(tmp_path: Path) -> None:
    text = "  first line\n---\n# not a header\n\nlast line  \n"
    path = tmp_path / "deep" / "snap.txt"
    write_snapshot(
        path,
        name="snap",
        text=text,
        judge="FakeJudge",
        test="t.py::test_a",
        recorded=datetime.date(2026, 1, 2),
    )
    content = path.read_text(encoding="utf-8")
    assert content.startswith(MAGIC + "\n# name: snap\n# test: t.py::test_a\n# judge: FakeJudge")
    assert "# recorded: 2026-01-02\n" in content
    stored = read_snapshot(path)
    assert stored is not None
    assert stored.text == text
    assert (stored.name, stored.judge, stored.test) == ("snap", "FakeJudge", "t.py::test_a")
    assert stored.recorded == datetime.date(2026, 1, 2)
    assert [p.name for p in path.parent.iterdir()] == ["snap.txt"]  # no temporary file left


def test_read_accepts_crlf_and_extra_header_lines(tmp_path: Path) -> None:
    path = tmp_path / "s.txt"
    path.write_bytes(
        (
            f"{MAGIC}\r\n# name: s\r\n# reviewed-by: alice\r\n# judge: J\r\n"
            "# recorded: 2026-03-04\r\n# a comment\r\n---\r\nHello.\r\n"
        ).encode()
    )
    stored = read_snapshot(path)
    assert stored is not None
    assert stored.text == "Hello."
    assert stored.test is None


def test_read_missing_file_is_none(tmp_path: Path) -> None:
    assert read_snapshot(tmp_path / "nope.txt") is None


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("hello\n---\nx\n", "first line"),
        (f"{MAGIC}\n# name: s\n# judge: J\n# recorded: 2026-01-01\nx\n", "neither"),
        (f"{MAGIC}\n# name: s\n# judge: J\n# recorded: 2026-01-01\n", "no '---' line"),
        (f"{MAGIC}\n# name: s\n# recorded: 2026-01-01\n---\nx\n", "lacks 'judge'"),
        (f"{MAGIC}\n# name: s\n# judge: J\n# recorded: yesterday\n---\nx\n", "YYYY-MM-DD"),
    ],
)
def test_garbage_file_is_an_error_naming_the_file(
    tmp_path: Path, content: str, problem: str
) -> None:
    path = tmp_path / "broken.txt"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(SnapshotFileError, match=problem) as info:
        read_snapshot(path)
    assert str(path) in str(info.value)
    assert "--semantic-snapshot-update" in str(info.value)
    assert info.value.path == path


def test_non_utf8_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.txt"
    path.write_bytes(b"\xff\xfe\x00garbage")
    with pytest.raises(SnapshotFileError, match="not UTF-8"):
        read_snapshot(path)


def test_a_file_saved_with_a_byte_order_mark_reads_and_is_rewritten_without_one(
    tmp_path: Path,
) -> None:
    # Regression: Notepad's "UTF-8" adds a BOM, and the first line no longer matched the magic.
    path = tmp_path / "notepad.txt"
    content = f"{MAGIC}\r\n# name: s\r\n# judge: J\r\n# recorded: 2026-03-04\r\n---\r\nCafé.\r\n"
    path.write_bytes(content.encode("utf-8-sig"))
    stored = read_snapshot(path)
    assert stored is not None
    assert (stored.name, stored.text) == ("s", "Café.")
    write_snapshot(path, name=stored.name, text=stored.text, judge=stored.judge)
    raw = path.read_bytes()
    assert raw.startswith(MAGIC.encode("utf-8"))
    assert not raw.startswith(b"\xef\xbb\xbf")


# -- the two-way judgement ----------------------------------------------------------------------


def test_equivalence_asks_both_directions_with_the_other_text_as_hypothesis() -> None:
    seen: list[tuple[str, object]] = []

    def score(output: str, description: str) -> float:
        seen.append((output, description))
        return 0.9

    judge = FakeJudge(score)
    result = judge_equivalence(STORED, PARAPHRASE, judge=judge, threshold=0.5)
    assert result.passed
    assert [output for output, _ in seen] == [PARAPHRASE, STORED]
    descriptions = [description for _, description in seen]
    assert descriptions == [STORED, PARAPHRASE]
    assert all(isinstance(d, IntentDescription) for d in descriptions)
    assert [d.hypothesis for d in descriptions] == [STORED, PARAPHRASE]  # type: ignore[attr-defined]
    assert result.forward.score == result.backward.score == 0.9
    assert "SAME" in repr(result)


def test_equivalence_fails_when_content_is_lost_or_added() -> None:
    judge = overlap_judge()
    lost = judge_equivalence(STORED, SHORTER, judge=judge, threshold=0.9, facts="judge")
    assert not lost.forward.passed  # the shorter text does not state "within 30 days"
    assert lost.backward.passed  # but everything it says, the snapshot says
    assert not lost.passed
    added = judge_equivalence(SHORTER, STORED, judge=judge, threshold=0.9, facts="judge")
    assert added.forward.passed
    assert not added.backward.passed


def test_same_words_pass_without_asking_the_judge() -> None:
    judge = FakeJudge(lambda output, description: 0.0)
    result = judge_equivalence("Hello  there.", "Hello there.", judge=judge, threshold=0.8)
    assert result.passed
    assert result.symmetric
    assert judge.calls == []


def test_empty_output_never_means_the_same() -> None:
    judge = FakeJudge(lambda output, description: 1.0)
    result = judge_equivalence(STORED, "   ", judge=judge, threshold=0.8)
    assert not result.passed
    assert result.forward.reason.startswith("nothing to judge: the output is empty")
    assert judge.calls == []


def test_judge_with_evaluate_equivalence_is_asked_once() -> None:
    class Equivalent:
        recommended_threshold = 0.6

        def __init__(self) -> None:
            self.calls: list[tuple[str, str, float]] = []

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            raise AssertionError("evaluate must not be called when evaluate_equivalence exists")

        def evaluate_equivalence(self, stored: str, new: str, threshold: float) -> Verdict:
            self.calls.append((stored, new, threshold))
            return Verdict(passed=False, score=0.3, reason="drops the 30 days", threshold=threshold)

    judge = Equivalent()
    result = judge_equivalence(STORED, SHORTER, judge=judge, threshold=0.6, facts="judge")
    assert judge.calls == [(STORED, SHORTER, 0.6)]
    assert result.symmetric
    assert not result.passed
    assert result.forward is result.backward


def test_judge_errors_are_errors_never_passes() -> None:
    def broken(output: str, description: str) -> float:
        raise RuntimeError("model exploded")

    with pytest.raises(JudgeError, match="model exploded"):
        judge_equivalence(STORED, PARAPHRASE, judge=FakeJudge(broken), threshold=0.5)


def test_threshold_order() -> None:
    judge = FakeJudge(lambda o, d: 1.0, recommended_threshold=0.4)
    similar = FakeJudge(lambda o, d: 1.0, recommended_threshold=0.4)
    similar.scale = "similarity"

    def threshold(judge: object, **options: object) -> float:
        return judge_equivalence(STORED, PARAPHRASE, judge=judge, **options).threshold  # type: ignore[arg-type]

    assert threshold(judge, threshold=0.7) == 0.7
    with context.scope(threshold=0.6):
        assert threshold(judge) == threshold(similar) == 0.6
    assert threshold(judge) == 0.4
    assert threshold(similar) == SIMILARITY_THRESHOLD
    assert threshold(FakeJudge(lambda o, d: 1.0)) == 0.8
    with pytest.raises(ValueError, match="between 0 and 1"):
        threshold(judge, threshold=1.5)


# -- assert_semantic_snapshot -------------------------------------------------------------------


def test_missing_snapshot_fails_with_the_output_and_how_to_record_it(tmp_path: Path) -> None:
    with pytest.raises(SnapshotMissingError) as info:
        assert_semantic_snapshot(STORED, "refund", judge=overlap_judge(), directory=tmp_path)
    message = str(info.value)
    assert "no semantic snapshot 'refund' yet" in message
    assert str(tmp_path / "refund.txt") in message
    assert "within 30 days" in message
    assert "update=True" in message
    assert isinstance(info.value, AssertionError)
    assert not (tmp_path / "refund.txt").exists()


def test_record_then_pass_on_a_paraphrase(tmp_path: Path) -> None:
    judge = overlap_judge()
    written = assert_semantic_snapshot(
        STORED, "refund", judge=judge, directory=tmp_path, update=True
    )
    assert written.status == "written"
    stored = read_snapshot(tmp_path / "refund.txt")
    assert stored is not None
    assert stored.text == STORED
    assert stored.judge == "FakeJudge"
    passed = assert_semantic_snapshot(PARAPHRASE, "refund", judge=judge, directory=tmp_path)
    assert passed.status == "passed"
    assert passed.equivalence is not None
    assert passed.equivalence.passed


def test_drift_fails_with_both_scores_threshold_diff_and_direction(tmp_path: Path) -> None:
    judge = overlap_judge()
    assert_semantic_snapshot(STORED, "refund", judge=judge, directory=tmp_path, update=True)
    with pytest.raises(SnapshotDriftError) as info:
        assert_semantic_snapshot(
            SHORTER, "refund", judge=judge, threshold=0.9, directory=tmp_path, facts="judge"
        )
    error = info.value
    assert isinstance(error, SemanticAssertionError)
    assert (error.stored, error.output) == (STORED, SHORTER)
    message = str(error)
    assert "semantic snapshot 'refund' drifted" in message
    assert "threshold 0.9" in message
    assert "new output => snapshot: 0.600 < 0.9 FAIL" in message
    assert "snapshot => new output: 1.000 >= 0.9 pass" in message
    assert "the new output does not state: 'within 30 days'; 'full'" in message
    assert "the new output adds" not in message
    assert "[-within 30 days-]" in message
    assert "update=True" in message
    assert [v.score for v in error.verdicts] == pytest.approx([0.6])  # the weaker direction
    assert (error.equivalence.forward.score, error.equivalence.backward.score) == (0.6, 1.0)
    assert read_snapshot(tmp_path / "refund.txt").text == STORED  # type: ignore[union-attr]


def test_added_claim_is_reported_as_added(tmp_path: Path) -> None:
    judge = overlap_judge()
    assert_semantic_snapshot(
        SHORTER, "s", judge=judge, directory=tmp_path, update=True, facts="judge"
    )
    with pytest.raises(SnapshotDriftError, match=r"the new output adds: 'within 30 days'; 'full'"):
        assert_semantic_snapshot(STORED, "s", judge=judge, threshold=0.9, directory=tmp_path)


def test_update_rewrites_a_drifted_snapshot(tmp_path: Path) -> None:
    judge = overlap_judge()
    assert_semantic_snapshot(STORED, "s", judge=judge, directory=tmp_path, update=True)
    result = assert_semantic_snapshot(
        SHORTER, "s", judge=judge, threshold=0.9, directory=tmp_path, update=True, facts="judge"
    )
    assert result.status == "updated"
    assert read_snapshot(tmp_path / "s.txt").text == SHORTER  # type: ignore[union-attr]


def test_in_ci_nothing_is_written_even_with_update(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CI", "true")
    judge = overlap_judge()
    with pytest.raises(SnapshotMissingError, match="CI is set.*even with the update flag"):
        assert_semantic_snapshot(STORED, "s", judge=judge, directory=tmp_path, update=True)
    assert not (tmp_path / "s.txt").exists()
    monkeypatch.delenv("CI")
    assert_semantic_snapshot(STORED, "s", judge=judge, directory=tmp_path, update=True)
    monkeypatch.setenv("CI", "1")
    with pytest.raises(SnapshotDriftError, match="nothing is written in CI"):
        assert_semantic_snapshot(
            SHORTER, "s", judge=judge, threshold=0.9, directory=tmp_path, update=True, facts="judge"
        )
    assert read_snapshot(tmp_path / "s.txt").text == STORED  # type: ignore[union-attr]


@pytest.mark.parametrize("output", [b"bytes", None, 3])
def test_non_text_output_is_a_type_error(tmp_path: Path, output: object) -> None:
    with pytest.raises(TypeError, match="Accepted"):
        assert_semantic_snapshot(
            output, "s", judge=overlap_judge(), directory=tmp_path, update=True
        )
    assert not (tmp_path / "s.txt").exists()


def test_sdk_response_dicts_are_read_as_text(tmp_path: Path) -> None:
    completion = {"choices": [{"message": {"role": "assistant", "content": STORED}}]}
    assert_semantic_snapshot(
        completion, "s", judge=overlap_judge(), directory=tmp_path, update=True
    )
    assert read_snapshot(tmp_path / "s.txt").text == STORED  # type: ignore[union-attr]


def test_default_directory_is_next_to_the_calling_module(tmp_path: Path) -> None:
    module = tmp_path / "test_caller.py"
    code = compile(
        "result = assert_semantic_snapshot(TEXT, 'greeting', judge=JUDGE, update=True)",
        str(module),
        "exec",
    )
    namespace = {
        "assert_semantic_snapshot": assert_semantic_snapshot,
        "TEXT": "Hello.",
        "JUDGE": overlap_judge(),
    }
    exec(code, namespace)  # noqa: S102 - a module file that lives in tmp_path
    assert (tmp_path / "__semantic_snapshots__" / "test_caller" / "greeting.txt").is_file()


def test_bad_threshold_fails_before_writing(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="between 0 and 1"):
        assert_semantic_snapshot(
            STORED, "s", judge=overlap_judge(), threshold=2.0, directory=tmp_path, update=True
        )
    assert not (tmp_path / "s.txt").exists()


def test_snapshot_of_another_test_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "t.txt"
    write_snapshot(path, name="t", text=STORED, judge="J", test="a.py::test_A")
    with pytest.raises(SnapshotFileError, match="belongs to test 'a.py::test_A'"):
        check_snapshot(STORED, path, name="t", judge=overlap_judge(), test="a.py::test_a")


def long_text(*facts: str) -> str:
    filler = "This sentence is here only to make the answer long enough to be judged in parts. "
    return " ".join(f"{fact} {filler * 3}" for fact in facts).strip()


def test_text_parts_are_whole_sentences_within_the_limit() -> None:
    assert text_parts("Short answer.") == ["Short answer."]
    text = long_text("Refunds take 30 days.", "Shipping is free.", "Support answers in 2 hours.")
    parts = text_parts(text)
    assert len(parts) > 1
    assert all(len(part) <= PART_CHARS for part in parts)
    assert all(part.endswith(".") for part in parts)
    assert " ".join(parts).split() == text.split()
    huge = "word " * 400  # one sentence longer than a part stays whole
    assert text_parts(huge) == [huge.strip()]


def test_a_long_snapshot_is_judged_in_parts_and_the_missing_part_is_named(
    tmp_path: Path,
) -> None:
    stored = long_text("Refunds take 30 days.", "Shipping is free.", "Support answers in 2 hours.")
    new = long_text("Refunds take 30 days.", "Support answers in 2 hours.")

    def states(output: str, part: str) -> float:
        key_facts = [fact for fact in ("30 days", "free", "2 hours") if fact in part]
        return 1.0 if all(fact in output for fact in key_facts) else 0.0

    judge = FakeJudge(states)
    result = judge_equivalence(stored, new, judge=judge, threshold=0.5)
    assert len(judge.calls) == len(text_parts(stored)) + len(text_parts(new))
    assert all(len(description) <= PART_CHARS for _, description in judge.calls)
    assert not result.forward.passed
    assert result.backward.passed
    assert len(result.unstated_parts) == 1
    assert "Shipping is free." in result.unstated_parts[0]
    assert result.added_parts == ()
    assert_semantic_snapshot(stored, "long", judge=judge, directory=tmp_path, update=True)
    with pytest.raises(SnapshotDriftError, match=r"does not state: '[^']*Shipping is free\."):
        assert_semantic_snapshot(new, "long", judge=judge, directory=tmp_path)


def test_judged_checks_reach_the_observers_as_semantic_results(tmp_path: Path) -> None:
    seen: list[object] = []
    context.add_observer(seen.append)
    try:
        judge = overlap_judge()
        assert_semantic_snapshot(STORED, "s", judge=judge, directory=tmp_path, update=True)
        assert seen == []  # recording asks no judge: nothing to report
        assert_semantic_snapshot(PARAPHRASE, "s", judge=judge, directory=tmp_path)
        with pytest.raises(SnapshotDriftError):
            assert_semantic_snapshot(
                SHORTER, "s", judge=judge, threshold=0.9, directory=tmp_path, facts="judge"
            )
    finally:
        context.remove_observer(seen.append)
    passed, drifted = seen
    assert passed.passed and not drifted.passed  # type: ignore[attr-defined]
    assert passed.intent.__name__ == "Snapshot[s]"  # type: ignore[attr-defined]
    (leaf,) = drifted.leaves  # type: ignore[attr-defined]
    assert leaf.intent.__name__ == "Snapshot[s]" and leaf.threshold == 0.9
    assert (
        leaf.verdict.reason
        == "new output => snapshot: 0.60 FAIL; snapshot => new output: 1.00 pass"
    )
    assert passed.duration_ms is not None and passed.duration_ms >= 0  # type: ignore[attr-defined]
    assert drifted.output == SHORTER  # type: ignore[attr-defined]


class LiveEquivalenceJudge:
    """A judge with evaluate_equivalence that must never be called live in this test."""

    recommended_threshold = 0.5

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        raise AssertionError("strict mode called the live judge")

    def evaluate_equivalence(self, stored: str, new: str, threshold: float) -> Verdict:
        raise AssertionError("strict mode called the live judge's evaluate_equivalence")


def test_strict_frozen_verdicts_never_reach_the_live_equivalence_question(tmp_path: Path) -> None:
    frozen = RecordReplayJudge(LiveEquivalenceJudge(), store=tmp_path / "verdicts", mode="strict")
    with pytest.raises(VerdictNotRecordedError):
        judge_equivalence(STORED, PARAPHRASE, judge=frozen, threshold=0.5)


def test_recorded_directions_replay_without_the_judge(tmp_path: Path) -> None:
    store = tmp_path / "verdicts"
    recorder = RecordReplayJudge(
        FakeJudge(lambda output, description: 0.9), store=store, mode="update"
    )
    assert judge_equivalence(STORED, PARAPHRASE, judge=recorder, threshold=0.5).passed

    def unavailable(output: str, description: str) -> float:
        raise AssertionError("replay mode called the judge")

    replayer = RecordReplayJudge(FakeJudge(unavailable), store=store, mode="replay")
    replayed = judge_equivalence(STORED, PARAPHRASE, judge=replayer, threshold=0.5)
    assert replayed.passed
    assert not replayed.symmetric  # the two ordinary requests, as recorded


def test_a_judge_can_decline_the_equivalence_question() -> None:
    class Declines(LiveEquivalenceJudge):
        answers_equivalence = False

        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(passed=True, score=0.9, threshold=threshold)

    result = judge_equivalence(STORED, PARAPHRASE, judge=Declines(), threshold=0.5)
    assert result.passed
    assert not result.symmetric


# -- facts before meaning, and each judge on its own scale (issue 25) ---------------------------


class SimilarityJudge(FakeJudge):
    scale = "similarity"


def test_a_changed_number_fails_before_the_judge_is_asked(tmp_path: Path) -> None:
    judge = FakeJudge(lambda output, stored: 1.0)  # would call every pair the same
    write_snapshot(tmp_path / "s.txt", name="s", text=STORED, judge="J")
    changed = STORED.replace("30", "14")
    with pytest.raises(SnapshotDriftError) as caught:
        assert_semantic_snapshot(changed, "s", judge=judge, directory=tmp_path)
    assert judge.calls == []
    assert 'number changed: 30 → 14 ("within 30 days")' in str(caught.value)
    assert caught.value.equivalence.fact_changes[0].describe().startswith("number changed")


def test_facts_judge_lets_the_judge_decide_and_quotes_the_change() -> None:
    judge = FakeJudge(lambda output, stored: 1.0)
    result = judge_equivalence(
        STORED, STORED.replace("30", "14"), judge=judge, threshold=0.5, facts="judge"
    )
    assert result.passed
    assert len(judge.calls) == 2
    assert [change.describe() for change in result.fact_changes] == [
        'number changed: 30 → 14 ("within 30 days")'
    ]


def test_a_paraphrase_keeping_its_facts_still_goes_to_the_judge_and_passes() -> None:
    judge = FakeJudge(lambda output, stored: 0.9)
    result = judge_equivalence(STORED, PARAPHRASE, judge=judge, threshold=0.5)
    assert (result.passed, result.fact_changes, len(judge.calls)) == (True, (), 2)


def test_a_bad_facts_mode_is_an_error_naming_it() -> None:
    with pytest.raises(ValueError, match=r"facts must be one of 'fail', 'judge', got 'off'"):
        judge_equivalence(STORED, PARAPHRASE, judge=overlap_judge(), threshold=0.5, facts="off")  # type: ignore[arg-type]


def test_a_similarity_judge_judges_snapshots_at_the_measured_threshold_with_a_note() -> None:
    judge = SimilarityJudge(lambda output, stored: 0.5, recommended_threshold=0.2)
    result = judge_equivalence(STORED, PARAPHRASE, judge=judge)
    assert result.threshold == SIMILARITY_THRESHOLD == 0.75
    assert not result.passed  # 0.5 passes the intent threshold 0.2, not the snapshot one
    assert result.forward.reason == "similarity to the snapshot: 0.500"
    assert result.note == SIMILARITY_NOTE
    assert judge_equivalence(STORED, PARAPHRASE, judge=overlap_judge(), threshold=0.4).note is None


def test_a_new_output_that_only_drops_content_is_not_said_to_add_anything(tmp_path: Path) -> None:
    judge = FakeJudge(lambda output, description: 0.1)  # neither direction holds for it
    stored = "You can return any item for a full refund. Shipping is free."
    assert_semantic_snapshot(stored, "drop", judge=judge, directory=tmp_path, update=True)
    with pytest.raises(SnapshotDriftError) as info:
        assert_semantic_snapshot(
            "You can return any item for a full refund.", "drop", judge=judge, directory=tmp_path
        )
    message = str(info.value)
    assert "the new output does not state: 'Shipping is free.'" in message
    assert "something the snapshot does not state" not in message
    assert "adds no words the snapshot lacks (it only drops or rewords content)" in message
