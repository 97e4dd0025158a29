"""Frozen verdicts recorded by an earlier semantix still replay (issue 42, item 1): the store in
``tests/data/verdicts-v1`` was written by the recording judge before requests became typed
values; each of its files must replay, under the same file name, in strict mode (which never
calls the judge). Regenerate it only if the fingerprint recipe changes on purpose (it must
not): ``python tests/test_verdicts_fixture.py``."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

import pytest

from semantix import Intent, JudgeIdentity, Verdict, evaluate_semantic
from semantix.intents import Grounded
from semantix.judges._base import JudgeRequest
from semantix.snapshots import judge_equivalence
from semantix.verdicts import RecordReplayJudge, VerdictStore

FIXTURE = Path(__file__).resolve().parent / "data" / "verdicts-v1"


class Polite(Intent):
    """The text must be polite and professional."""

    examples = ("Thank you for waiting.",)
    counterexamples = ("Go away.",)


class Phrased(Intent):
    """The reply must never mention prices."""

    hypothesis = "The text does not mention prices."


class FixtureJudge:
    """A judge with an identity, a prompt version and both optional abilities; ``live=False``
    raises on every call (what strict mode must never make)."""

    recommended_threshold = 0.5
    prompt_version = "p1"
    reads_negation = False  # "must not X" is asked as X, its verdict inverted
    identity = JudgeIdentity("FixtureJudge", model="fixture-model", revision="r1")

    def __init__(self, live: bool) -> None:
        self.live = live

    def _score(self) -> float:
        if not self.live:
            raise AssertionError("a recorded verdict must replay without the judge")
        return 0.75

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        score = self._score()
        return Verdict(score >= threshold, score, "plain", threshold=threshold)

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return [Verdict(self._score() >= t, self._score(), "supported", threshold=t)
                for _, _, t in requests]  # fmt: skip

    def evaluate_equivalence(self, stored: str, new: str, threshold: float) -> Verdict:
        score = self._score()
        return Verdict(score >= threshold, score, "same meaning", threshold=threshold)


SOURCES = ["Refunds are paid within 30 days of the request."]
OUTPUT = "Thank you for your patience; your refund is on its way."


def _checks(judge: RecordReplayJudge) -> list[bool]:
    """Every kind of request: a plain intent with examples, an explicit hypothesis, a plain
    string, a rewritten negative requirement, support against sources, a snapshot."""
    return [
        evaluate_semantic(OUTPUT, Polite, judge=judge, threshold=0.6).passed,
        evaluate_semantic(OUTPUT, Phrased, judge=judge, threshold=0.6).passed,
        evaluate_semantic(OUTPUT, "polite and helpful", judge=judge, threshold=0.6).passed,
        evaluate_semantic(OUTPUT, "must not insult the customer", judge=judge).passed,
        evaluate_semantic("Refunds take 30 days.", Grounded(SOURCES), judge=judge).passed,
        judge_equivalence("Your refund is coming.", OUTPUT, judge=judge, threshold=0.6).passed,
    ]


def test_every_verdict_recorded_before_typed_requests_replays(tmp_path: Path) -> None:
    store = VerdictStore(shutil.copytree(FIXTURE, tmp_path / "verdicts"))
    files = sorted(path.name for path in store.path.glob("*/*.json"))
    assert len(files) == 6
    judge = RecordReplayJudge(FixtureJudge(live=False), store=store, mode="strict")
    assert _checks(judge) == [True, True, True, False, True, True]
    assert judge.stats.replayed == 6 and judge.stats.judged == 0
    assert sorted(f"{key}.json" for key in judge.usage().used) == files
    assert sorted(path.name for path in store.path.glob("*/*.json")) == files  # none moved


def test_recording_again_writes_the_same_file_names(tmp_path: Path) -> None:
    store = VerdictStore(tmp_path / "verdicts")
    judge = RecordReplayJudge(FixtureJudge(live=True), store=store, mode="update")
    assert _checks(judge) == [True, True, True, False, True, True]
    written = sorted(path.name for path in store.path.glob("*/*.json"))
    assert written == sorted(path.name for path in FIXTURE.glob("*/*.json"))


if __name__ == "__main__":  # regenerate the fixture (see the module docstring)
    if FIXTURE.exists() and "--force" not in sys.argv:
        pytest.exit(f"{FIXTURE} exists; pass --force to write it again", returncode=2)
    shutil.rmtree(FIXTURE, ignore_errors=True)
    _checks(RecordReplayJudge(FixtureJudge(live=True), store=FIXTURE, mode="update"))
