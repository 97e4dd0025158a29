"""One way to get a judge: specs, objects and the default all go through resolve_judge."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from semantix import (
    ConfigurationError,
    FakeJudge,
    VerdictNotRecordedError,
    clear_cache,
    evaluate_semantic,
    set_default_judge,
)
from semantix import (
    _context as context,
)
from semantix._cache import model_cache
from semantix.pipeline._judging import resolve_judge
from semantix.pipeline._specs import judge_from_spec
from semantix.verdicts import RecordReplayJudge, VerdictStore

JUDGES_MODULE = """
from semantix import FakeJudge

builds = []

def make():
    builds.append(1)
    return FakeJudge(lambda output, description: 0.9, name="SpecJudge")

def refuse(output, description):
    raise RuntimeError("called live")

never = FakeJudge(refuse, name="NeverJudge")
"""


@pytest.fixture
def judges_module(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    (tmp_path / "spec_judges.py").write_text(JUDGES_MODULE)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "verdicts"))
    clear_cache()
    yield "spec_judges"
    sys.modules.pop("spec_judges", None)
    clear_cache()


def test_a_spec_in_the_current_directory_is_built_once(judges_module: str) -> None:
    # the current directory is importable, as with pytest and uvicorn (issue 16 item 9)
    first = resolve_judge(f"{judges_module}:make")
    assert resolve_judge(f"{judges_module}:make") is first
    assert sys.modules[judges_module].builds == [1]
    result = evaluate_semantic("x", "polite", judge=f"{judges_module}:make", threshold=0.5)
    assert result.judge.name == "SpecJudge"


@pytest.mark.parametrize("mode", ["replay", "strict"])
def test_a_judge_object_cannot_skip_the_verdict_store(
    judges_module: str, mode: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    never = judge_from_spec(f"{judges_module}:never")
    monkeypatch.setenv("SEMANTIX_VERDICTS", mode)
    with pytest.raises(VerdictNotRecordedError, match=f"in mode '{mode}'"):
        evaluate_semantic("x", "polite", judge=never, threshold=0.5)


def test_the_runs_verdict_mode_wraps_objects_and_specs(judges_module: str) -> None:
    never = judge_from_spec(f"{judges_module}:never")
    context.set_defaults(verdicts_mode="strict")
    try:
        for judge in (never, f"{judges_module}:never", None):
            if judge is None:
                set_default_judge(never)
            with pytest.raises(VerdictNotRecordedError, match="strict mode never calls"):
                evaluate_semantic("x", "polite", judge=judge, threshold=0.5)
    finally:
        context.set_defaults(verdicts_mode=None, judge=None)


def test_a_judge_object_is_memoised_like_a_spec(judges_module: str) -> None:
    # The bug: a spec or the default was memoised, a judge object was asked again every time.
    judge = FakeJudge(lambda output, description: 0.5)
    resolved = resolve_judge(judge)
    assert isinstance(resolved, RecordReplayJudge) and resolved.judge is judge
    assert resolve_judge(judge) is resolved  # one wrapper per object
    for _ in range(2):
        evaluate_semantic("same output", "The text is polite.", judge=judge)
    assert len(judge.calls) == 1


def test_a_judge_class_says_pass_an_instance() -> None:
    with pytest.raises(TypeError, match=r"the class FakeJudge.*pass an instance: FakeJudge\(...\)"):
        resolve_judge(FakeJudge)


def test_the_users_own_store_is_kept_under_the_runs_mode(tmp_path: Path) -> None:
    # The bug: RecordReplayJudge(judge, store=mine) was re-wrapped onto the run's store path.
    mine = VerdictStore(tmp_path / "mine")
    recording = RecordReplayJudge(FakeJudge(lambda o, d: 0.9), store=mine, mode="update")
    evaluate_semantic("Thanks!", "The text is polite.", judge=recording)
    assert len(list(mine.path.glob("**/*.json"))) == 1
    context.set_defaults(verdicts_mode="replay")
    try:
        replaying = resolve_judge(RecordReplayJudge(FakeJudge(lambda o, d: 0.0), store=mine))
        assert isinstance(replaying, RecordReplayJudge) and replaying.store.path == mine.path
        assert replaying.mode == "replay"
        result = evaluate_semantic("Thanks!", "The text is polite.", judge=replaying)
        assert result.passed  # replayed from mine, not "not recorded" in the run's store
    finally:
        context.set_defaults(verdicts_mode=None)


def test_a_failed_default_build_is_remembered(
    monkeypatch: pytest.MonkeyPatch, judges_module: str
) -> None:
    monkeypatch.setenv("SEMANTIX_JUDGE", "no_such_module_xyz:judge")
    for _ in range(2):
        with pytest.raises(ConfigurationError, match="cannot import 'no_such_module_xyz'"):
            resolve_judge(None)
    failures = [key for key in model_cache._failures if key[0] == "judges"]
    assert len(failures) == 1


@pytest.mark.parametrize("spec", ["gpt", "", "  "])
def test_bad_specs_name_the_choices(spec: str) -> None:
    with pytest.raises(ConfigurationError, match="quantized, nli, embedding, llm"):
        resolve_judge(spec)


def test_a_spec_that_is_not_a_judge_says_so(judges_module: str) -> None:
    with pytest.raises(
        ConfigurationError, match="gave an object that must have an evaluate.*got list"
    ):
        judge_from_spec(f"{judges_module}:builds")


def test_an_ability_set_on_a_recording_judge_is_the_checks() -> None:
    inner = FakeJudge(lambda output, description: 0.6)
    recording = RecordReplayJudge(inner)
    recording.recommended_threshold = 0.5  # on the wrapper, not the judge it wraps
    result = evaluate_semantic("Thanks!", "The text is polite.", judge=recording)
    (leaf,) = result.leaves
    assert (leaf.threshold, leaf.threshold_source, leaf.passed) == (0.5, "judge", True)
    assert inner.recommended_threshold is None
