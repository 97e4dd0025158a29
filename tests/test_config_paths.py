"""Where the paths a pytest run reads from configuration point (issue 45, item 5), by one
rule: an ini value against the ini file's directory, a command-line or environment value
against the directory pytest was started in, and the default ``.semantix/verdicts`` in the
rootdir, so ``cd tests && pytest --semantic-verdicts replay`` replays what a run from the
project's root recorded; a model directory the ini file names that is not there says so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

JUDGE = """
import os
from semantix import FakeJudge

def score(output, description):
    if os.environ.get("NO_LIVE_JUDGE"):
        raise RuntimeError("the judge was called live")
    return 0.9

judge = FakeJudge(score, name="KeywordJudge")
"""

TEST = "def test_one(semantic):\n    semantic('thank you', 'kind')\n"


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(judge_mod=JUDGE)
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_one.py").write_text(TEST, encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)
    for name in ("SEMANTIX_JUDGE", "SEMANTIX_VERDICTS", "SEMANTIX_VERDICTS_PATH", "NO_LIVE_JUDGE"):
        monkeypatch.delenv(name, raising=False)
    return pytester


def _run(project: pytest.Pytester, where: Path, *args: str) -> pytest.RunResult:
    """pytest started in ``where`` (the subprocess inherits the current directory)."""
    here = Path.cwd()
    os.chdir(where)
    try:
        return project.runpytest_subprocess("-p", "no:cacheprovider", *args)
    finally:
        os.chdir(here)


def _record_then_replay_from_tests(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, *args: str
) -> pytest.RunResult:
    root = project.path
    _run(project, root, "--semantic-verdicts=update", *args).assert_outcomes(passed=1)
    monkeypatch.setenv("NO_LIVE_JUDGE", "1")
    return _run(project, root / "tests", "--semantic-verdicts=replay", *args)


def test_the_default_store_is_in_the_rootdir_wherever_pytest_starts(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makeini("[pytest]\nsemantic_judge = judge_mod:judge\n")
    replayed = _record_then_replay_from_tests(project, monkeypatch)
    replayed.assert_outcomes(passed=1)
    assert list((project.path / ".semantix" / "verdicts").rglob("*.json"))
    assert not (project.path / "tests" / ".semantix").exists()


def test_the_ini_key_is_relative_to_the_ini_file(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makeini(
        "[pytest]\nsemantic_judge = judge_mod:judge\nsemantic_verdicts_path = frozen/verdicts\n"
    )
    replayed = _record_then_replay_from_tests(project, monkeypatch)
    replayed.assert_outcomes(passed=1)
    assert list((project.path / "frozen" / "verdicts").rglob("*.json"))


def test_the_option_and_the_variable_are_relative_to_where_pytest_starts(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makeini("[pytest]\nsemantic_judge = judge_mod:judge\n")
    root = project.path
    _run(project, root, "--semantic-verdicts=update", "--semantic-verdicts-path=tests/store")
    assert list((root / "tests" / "store").rglob("*.json"))
    monkeypatch.setenv("NO_LIVE_JUDGE", "1")
    # From tests/, the same store is ./store, by the option and by the variable alike.
    by_option = _run(
        project, root / "tests", "--semantic-verdicts=replay", "--semantic-verdicts-path=store"
    )
    by_option.assert_outcomes(passed=1)
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", "store")
    _run(project, root / "tests", "--semantic-verdicts=replay").assert_outcomes(passed=1)
    # ... and the root's default store, which holds nothing, is not it.
    monkeypatch.delenv("SEMANTIX_VERDICTS_PATH")
    missed = _run(project, root / "tests", "--semantic-verdicts=replay")
    missed.assert_outcomes(failed=1)
    missed.stdout.fnmatch_lines([f"*VerdictNotRecordedError*{root / '.semantix' / 'verdicts'}*"])


def test_a_missing_model_directory_in_the_ini_is_named_where_the_ini_file_puts_it(
    project: pytest.Pytester,
) -> None:
    """``semantic_judge = embedding:models/minilm`` beside a ``models/`` folder without
    ``minilm``: the directory the ini file names is said to be missing, also from ``tests/``
    and in replay mode — never looked up as a Hugging Face repo, never an unrecorded verdict."""
    (project.path / "models").mkdir()
    project.makeini("[pytest]\nsemantic_judge = embedding:models/minilm\n")
    result = _run(project, project.path / "tests", "--semantic-verdicts=replay")
    result.assert_outcomes(failed=1)
    missing = project.path / "models" / "minilm"
    result.stdout.fnmatch_lines(
        [f"*ModelNotFoundError: model directory '{missing}' does not exist*"]
    )
    assert "VerdictNotRecordedError" not in result.stdout.str()
