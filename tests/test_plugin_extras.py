"""The plugin's download notice and the frozen-verdict summary (issue 16 items 7 and 17)."""

from __future__ import annotations

import os

import pytest

JUDGES = """
from semantix import _context as context
from semantix import FakeJudge

judge = FakeJudge(lambda output, description: 0.9, name="KeywordJudge")
"""

TWO_TESTS = {
    "test_a": "def test_a(semantic):\n    semantic('thank you', 'kind')\n",
    "test_b": "def test_b(semantic):\n    semantic('thanks a lot', 'kind')\n",
}


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(judges_mod=JUDGES)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)  # our src too
    monkeypatch.setenv("COLUMNS", "200")
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args)


def _stored(project: pytest.Pytester) -> list[object]:
    return sorted((project.path / ".semantix" / "verdicts").rglob("*.json"))


@pytest.mark.parametrize("plugin_args", [[], ["-n", "2"]], ids=["plain", "xdist-2"])
def test_summary_counts_and_prune_deletes_unused(
    project: pytest.Pytester, plugin_args: list[str]
) -> None:
    project.makepyfile(**TWO_TESTS)
    judge = "--semantic-judge=judges_mod:judge"
    result = run(project, *plugin_args, judge, "--semantic-verdicts=update")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["frozen verdicts: 2 recorded, 0 replayed, 2 judged live"])
    assert len(_stored(project)) == 2

    (project.path / "test_b.py").unlink()
    result = run(project, *plugin_args, judge, "--semantic-verdicts=replay")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            (
                "frozen verdicts: 0 recorded, 1 replayed, 0 judged live, 1 not used by this run "
                "(delete them with --semantic-verdicts-prune): *.json"
            )
        ]
    )
    assert len(_stored(project)) == 2  # reporting never deletes

    result = run(
        project, *plugin_args, judge, "--semantic-verdicts=replay", "--semantic-verdicts-prune"
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*1 replayed, 0 judged live, 1 unused deleted"])
    assert len(_stored(project)) == 1


def test_a_failing_run_prunes_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(**TWO_TESTS)
    judge = "--semantic-judge=judges_mod:judge"
    run(project, judge, "--semantic-verdicts=update").assert_outcomes(passed=2)
    project.makepyfile(test_b="def test_b():\n    assert False\n")
    result = run(project, judge, "--semantic-verdicts=replay", "--semantic-verdicts-prune")
    result.assert_outcomes(passed=1, failed=1)
    assert len(_stored(project)) == 2


def test_no_summary_without_a_store(project: pytest.Pytester) -> None:
    project.makepyfile(**TWO_TESTS)
    result = run(project, "--semantic-judge=judges_mod:judge")
    result.assert_outcomes(passed=2)
    assert "frozen verdicts:" not in result.stdout.str()


def test_a_download_is_announced_and_not_counted_in_the_duration(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_dl="""
        import time
        from semantix import _context as context

        def test_first_use():
            for listener in context.download_listeners():
                with listener("tiny/model@abc1234 (2 files)"):
                    time.sleep(0.6)
        """
    )
    result = run(project, "--durations=0", "-vv")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(
        [
            "*semantix: downloading tiny/model@abc1234 (2 files) (once; later runs use the cache)",
            "*semantix: downloaded tiny/model@abc1234 (2 files) in 0.* s",
        ]
    )
    durations = [
        line for line in result.stdout.lines if "call" in line and "test_first_use" in line
    ]
    assert durations, result.stdout.str()
    seconds = float(durations[0].split("s")[0])
    assert seconds < 0.5  # the 0.6 s download is not the test's


OWN_JUDGE_TESTS = {
    "test_a": "def test_a(semantic):\n    semantic('thank you', 'kind')\n",
    "test_b": (
        "from semantix import FakeJudge, RecordReplayJudge, assert_semantic\n"
        "# The user's own recording judge, on the run's store, in the run's mode: never cached.\n"
        "OWN = RecordReplayJudge(FakeJudge(lambda o, d: 0.8, name='OwnJudge'))\n"
        "def test_b():\n    assert_semantic('thanks a lot', 'kind', judge=OWN)\n"
    ),
}


def test_a_users_own_recording_judge_reports_what_it_used_so_prune_keeps_it(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(**OWN_JUDGE_TESTS)
    judge = "--semantic-judge=judges_mod:judge"
    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    result = run(project, judge)
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["frozen verdicts: 2 recorded, 0 replayed, 2 judged live"])
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    result = run(project, judge, "--semantic-verdicts-prune")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["frozen verdicts: 0 recorded, 2 replayed, 0 judged live"])
    assert len(_stored(project)) == 2  # the user's verdict was used, so it is kept
    run(project, judge).assert_outcomes(passed=2)  # and replays again
