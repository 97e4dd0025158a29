"""The pytest plugin, run end to end on small projects with pytester (in subprocesses)."""

from __future__ import annotations

import json
import os
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from models.fixtures import (
    copy_model,
    entailing_model,  # noqa: F401  (a session fixture: a tiny NLI model)
)

# The three ways the plugin must work: no xdist flags, two xdist workers, xdist disabled.
PLUGIN_ARGS = [
    pytest.param([], id="plain"),
    pytest.param(["-n", "2"], id="xdist-2"),
    pytest.param(["-p", "no:xdist"], id="no-xdist"),
]

JUDGES = '''
import os
from semantix import FakeJudge, Verdict

def score(output, description):
    text = output.lower()
    if "rude" in description.lower():
        return 0.9 if "go away" in text else 0.1
    return 0.9 if "thank" in text else 0.2

judge = FakeJudge(score, name="KeywordJudge")
other = FakeJudge(lambda output, description: 0.6, name="OtherJudge")
strict = FakeJudge(score, name="StrictJudge", recommended_threshold=0.95)

def make_judge():
    """A factory that leaves a trace of every build, to prove the judge is built lazily."""
    with open(os.environ["BUILD_LOG"], "a") as log:
        log.write("built\\n")
    return FakeJudge(score, name="CountedJudge")
'''

SUITE = '''
import pytest
from semantix import Intent, assert_semantic

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

class Rude(Intent):
    """The text is rude."""

def test_polite(semantic):
    semantic("Thank you for waiting.", Polite)

def test_plain_call():
    assert_semantic("Thank you!", Polite & ~Rude, threshold=0.5)

def test_rude_fails(semantic):
    semantic("Go away.", Polite)

def test_not_semantic():
    assert 1 + 1 == 2
'''


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> pytest.Pytester:
    pytester.makepyfile(judges_mod=JUDGES)
    monkeypatch.setenv("PYTHONPATH", str(pytester.path), prepend=os.pathsep)  # our src too
    monkeypatch.setenv("BUILD_LOG", str(pytester.path / "builds.log"))
    monkeypatch.setenv("COLUMNS", "200")  # a wide terminal: node ids are not elided
    monkeypatch.delenv("SEMANTIX_JUDGE", raising=False)
    for name in ("SEMANTIX_RUN_ID", "GITHUB_RUN_ID", "CI_PIPELINE_ID"):  # a run id of its own
        monkeypatch.delenv(name, raising=False)
    return pytester


def run(project: pytest.Pytester, *args: str) -> pytest.RunResult:
    return project.runpytest_subprocess("-p", "no:cacheprovider", *args)


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_report_covers_every_assertion(project: pytest.Pytester, plugin_args: list[str]) -> None:
    project.makepyfile(test_suite=SUITE)
    result = run(
        project,
        *plugin_args,
        "--semantic-judge=judges_mod:judge",
        "--semantic-report",
        "--semantic-report-json=out/report.json",
        "--junitxml=junit.xml",
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.re_match_lines(
        [
            r"-+ semantic report -+",
            r"judge: KeywordJudge · verdicts: off",
            r"test +intent +score +threshold +verdict +time$",  # one judge: the header names it
            r"test_suite\.py::test_plain_call +Polite & ~Rude +PASS +\d+ ms",
            r" +Polite +0\.90 +0\.50 +ok",
            r" +~Rude +0\.10 +0\.50 +ok",
            r"test_suite\.py::test_polite +Polite +0\.90 +0\.50 +PASS +\d+ ms",
            r"test_suite\.py::test_rude_fails +Polite +0\.20 +0\.50 +FAIL +\d+ ms",
            r"3 semantic assertions: 2 passed, 1 failed, 0 errors$",
        ]
    )
    # Workers never print the report; the controller prints it once.
    assert result.stdout.str().count("semantic report -") == 1

    report = json.loads((project.path / "out" / "report.json").read_text())
    assert report["version"] == 4
    meta = dict(report["meta"])
    assert isinstance(meta.pop("duration_s"), float)
    assert meta.pop("started").endswith("+00:00")  # the run's start, ISO 8601 in UTC
    assert len(meta.pop("run_id")) == 32  # a new run id (no CI, no SEMANTIX_RUN_ID)
    assert meta == {"judges": ["KeywordJudge"], "verdicts_mode": "off", "shard": None}
    assert report["summary"] == {
        "total": 3,
        "passed": 2,
        "failed": 1,
        "errors": 0,
        "xfailed": 0,
        "xpassed": 0,
        "skipped": 0,
        "caught": 0,
        "borderline": 0,
        "topical": 0,
        "decided_by": {"KeywordJudge": 4},
    }
    # pytest's outcome of every test that ran (asserting or not), and on every record
    assert report["tests"] == [
        {"nodeid": "test_suite.py::test_not_semantic", "outcome": "passed", "reason": None},
        {"nodeid": "test_suite.py::test_plain_call", "outcome": "passed", "reason": None},
        {"nodeid": "test_suite.py::test_polite", "outcome": "passed", "reason": None},
        {"nodeid": "test_suite.py::test_rude_fails", "outcome": "failed", "reason": None},
    ]
    assert [entry["test_outcome"] for entry in report["assertions"]] == [
        "passed",
        "passed",
        "failed",
    ]
    nodeids = [entry["nodeid"] for entry in report["assertions"]]
    assert nodeids == [
        "test_suite.py::test_plain_call",
        "test_suite.py::test_polite",
        "test_suite.py::test_rude_fails",
    ]
    failing = report["assertions"][2]
    assert (failing["passed"], failing["outcome"]) == (False, "failed")
    assert failing["judge"] == "KeywordJudge"
    assert failing["output"] == "Go away."
    # The fields the plugin must carry (the report may add more of its own).
    expected_leaf = {
        "intent": "Polite",
        "description": "The text is polite.",
        "judged_as": None,
        "expected": True,
        "satisfied": False,
        "passed": False,
        "judged": True,
        "score": 0.2,
        "threshold": 0.5,
        "threshold_source": "intent",
        "borderline": False,
        "reason": "fake score 0.200",
        "evidence": None,
        "judge": "KeywordJudge",
        "latency_ms": None,
        "topical": False,
    }
    [leaf] = failing["leaves"]
    assert {key: leaf[key] for key in expected_leaf if key in leaf} == expected_leaf

    tree = ET.parse(project.path / "junit.xml")
    properties = {
        case.get("name"): [
            json.loads(prop.get("value", ""))
            for prop in case.iter("property")
            if prop.get("name") == "semantic"
        ]
        for case in tree.iter("testcase")
    }
    assert properties["test_not_semantic"] == []
    [polite] = properties["test_polite"]
    assert (polite["intent"], polite["passed"]) == ("Polite", True)
    assert polite["leaves"][0]["score"] == 0.9
    [rude] = properties["test_rude_fails"]
    assert (rude["passed"], rude["leaves"][0]["score"]) == (False, 0.2)
    assert (rude["outcome"], rude["test_outcome"]) == ("failed", "failed")
    [composite] = properties["test_plain_call"]
    assert [leaf["intent"] for leaf in composite["leaves"]] == ["Polite", "~Rude"]


@pytest.mark.parametrize("plugin_args", PLUGIN_ARGS)
def test_no_report_when_nothing_happened(project: pytest.Pytester, plugin_args: list[str]) -> None:
    project.makepyfile(test_other="def test_math():\n    assert 1 + 1 == 2\n")
    result = run(project, *plugin_args, "--semantic-report", "--semantic-report-json=r.json")
    result.assert_outcomes(passed=1)
    assert "semantic report" not in result.stdout.str()
    report = json.loads((project.path / "r.json").read_text())
    assert report["summary"] == {
        "total": 0,
        "passed": 0,
        "failed": 0,
        "errors": 0,
        "xfailed": 0,
        "xpassed": 0,
        "skipped": 0,
        "caught": 0,
        "borderline": 0,
        "topical": 0,
        "decided_by": {},
    }
    assert report["tests"] == [
        {"nodeid": "test_other.py::test_math", "outcome": "passed", "reason": None}
    ]


def test_report_is_off_by_default(project: pytest.Pytester) -> None:
    project.makepyfile(test_suite=SUITE)
    result = run(project, "--semantic-judge=judges_mod:judge")
    result.assert_outcomes(passed=3, failed=1)
    assert "semantic report" not in result.stdout.str()


REPLY_TEST = '''
from semantix import Intent, assert_semantic

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def test_reply():
    assert_semantic("Thank you for waiting.", Polite)
'''


def test_a_model_directory_in_the_judge_spec_is_relative_to_the_ini_file_or_the_cwd(
    project: pytest.Pytester,
    monkeypatch: pytest.MonkeyPatch,
    entailing_model: Path,  # noqa: F811  (the fixture)
) -> None:
    """``semantic_judge = quantized:models/nli`` in pytest.ini names the ini file's models/nli,
    from whichever directory pytest runs (issue 34, item 3); on the command line the spec's
    directory is the current directory's."""
    copy_model(entailing_model, project.path / "models" / "nli")
    project.makeini("[pytest]\nsemantic_judge = quantized:models/nli\n")
    tests = project.mkpydir("tests")
    (tests / "test_reply.py").write_text(REPLY_TEST, encoding="utf-8")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # a repo id would fail at once, not download
    monkeypatch.chdir(tests)
    model = (project.path / "models" / "nli").resolve()
    result = run(project)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"semantix: judge=quantized:{model}"])
    # the command line: relative to the current directory
    result = run(project, "--semantic-judge", "quantized:../models/nli")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines([f"semantix: judge=quantized:{model}"])
    # what is no directory stays what it says (a registered name or a Hugging Face repo id)
    result = run(
        project, "--semantic-judge", "embedding:sentence-transformers/all-MiniLM-L6-v2", "--co"
    )
    result.stdout.fnmatch_lines(
        ["semantix: judge=embedding:sentence-transformers/all-MiniLM-L6-v2"]
    )


def test_ini_keys_configure_the_run(project: pytest.Pytester) -> None:
    project.makeini(
        """
        [pytest]
        semantic_judge = judges_mod:other
        semantic_report = true
        semantic_report_json = from-ini.json
        """
    )
    project.makepyfile(
        test_one="def test_one(semantic):\n    semantic('hi', 'The text is kind.')\n"
    )
    result = run(project)
    result.assert_outcomes(passed=0, failed=1)  # OtherJudge scores 0.6 < the default 0.8
    result.stdout.re_match_lines(
        [
            r"judge: OtherJudge · verdicts: off",
            r"test_one\.py::test_one +'The text is kind\.' +(\w+Judge +)?0\.60",
        ]
    )
    assert json.loads((project.path / "from-ini.json").read_text())["summary"]["total"] == 1


def test_command_line_beats_ini(project: pytest.Pytester) -> None:
    project.makeini(
        """
        [pytest]
        semantic_judge = judges_mod:other
        semantic_report_json = from-ini.json
        """
    )
    project.makepyfile(test_one="def test_one(semantic):\n    semantic('thank you', 'kind')\n")
    result = run(
        project,
        "--semantic-judge=judges_mod:judge",
        "--semantic-report",
        "--semantic-report-json=from-cli.json",
    )
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines(
        [
            r"judge: KeywordJudge · verdicts: off",
            r"test_one\.py::test_one +'kind' +(\w+Judge +)?0\.90",
        ]
    )
    assert (project.path / "from-cli.json").exists()
    assert not (project.path / "from-ini.json").exists()


def test_bad_ini_boolean_is_a_usage_error(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsemantic_report = sometimes\n")
    result = run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            (
                "*ini option semantic_report = 'sometimes' is not a boolean; write e.g. "
                "semantic_report = true (or false)"
            )
        ]
    )


def test_bad_verdicts_mode_is_a_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "--semantic-verdicts=record")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            (
                "*--semantic-verdicts='record' is not a frozen-verdict mode; use one of off, replay, "
                "update, strict*"
            )
        ]
    )


def test_bad_judge_name_is_a_usage_error(project: pytest.Pytester) -> None:
    result = run(project, "--semantic-judge=gpt")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            (
                "*unknown judge 'gpt' (--semantic-judge); use one of quantized, "
                "nli, embedding, llm, tei or an import path 'package.module:judge'*"
            )
        ]
    )


def test_unimportable_judge_errors_every_test_that_uses_it(project: pytest.Pytester) -> None:
    project.makepyfile(test_suite=SUITE)
    result = run(project, "--semantic-judge=no_such_module:judge", "--semantic-report")
    # pytest reports an exception inside a test as a failure (F); the semantic report counts
    # the assertions that could not be judged as errors.
    result.assert_outcomes(passed=1, failed=3)
    result.stdout.fnmatch_lines(
        [
            "*ConfigurationError: cannot import 'no_such_module' for judge*",
            "3 semantic assertions: 0 passed, 0 failed, 3 errors",
        ]
    )
    output = result.stdout.str()
    # one line of ours, not semantix's source or the chained import machinery
    assert "def import_object" not in output
    assert "The above exception was the direct cause" not in output
    # no runner internals either (pytest hands the hook an unpruned traceback)
    assert "pluggy/_callers.py" not in output and "_pytest/runner.py" not in output


def test_judge_is_built_lazily_once_per_process(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_a="def test_a(semantic):\n    semantic('thank you', 'kind')\n",
        test_b="from semantix import assert_semantic\n"
        "def test_b():\n    assert_semantic('thank you', 'kind')\n",
        test_c="def test_c(semantic_judge):\n    assert 'CountedJudge()' in repr(semantic_judge)\n",
    )
    log = project.path / "builds.log"
    result = run(
        project, "--semantic-judge=judges_mod:make_judge", "test_a.py", "test_b.py", "test_c.py"
    )
    result.assert_outcomes(passed=3)
    assert log.read_text().splitlines() == ["built"]

    log.unlink()
    project.makepyfile(test_d="def test_d():\n    pass\n")
    result = run(project, "--semantic-judge=judges_mod:make_judge", "test_d.py")
    result.assert_outcomes(passed=1)
    assert not log.exists()


def test_judge_loads_once_per_xdist_worker(project: pytest.Pytester) -> None:
    project.makepyfile(
        **{
            f"test_{n}": f"def test_{n}(semantic):\n    semantic('thank you', 'kind')\n"
            for n in range(6)
        }
    )
    result = run(project, "-n", "2", "--semantic-judge=judges_mod:make_judge")
    result.assert_outcomes(passed=6)
    assert 1 <= len((project.path / "builds.log").read_text().splitlines()) <= 2


def test_marker_chooses_judge_and_default_threshold(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_marked='''
        import pytest
        import judges_mod
        from semantix import Intent

        class Lenient(Intent):
            """The text is kind."""
            threshold = 0.5

        @pytest.mark.semantic(judge="judges_mod:other")
        def test_judge_by_spec(semantic):
            semantic("anything", "kind", threshold=0.5)

        @pytest.mark.semantic(judge=judges_mod.other)
        def test_judge_object(semantic):
            semantic("anything", "kind", threshold=0.5)

        @pytest.mark.semantic(threshold=0.95)
        def test_threshold_is_the_default(semantic):
            semantic("thank you", "kind")  # 0.9 < 0.95: fails

        @pytest.mark.semantic(threshold=0.95)
        def test_intent_threshold_wins(semantic):
            semantic("thank you", Lenient)  # Lenient says 0.5: passes

        @pytest.mark.semantic(threshold=0.95)
        def test_explicit_threshold_wins(semantic):
            semantic("thank you", "kind", threshold=0.5)

        @pytest.mark.semantic("judges_mod:other")
        def test_positional_is_an_error(semantic):
            pass

        @pytest.mark.semantic(threshold=1.5)
        def test_bad_threshold(semantic):
            pass
        '''
    )
    result = run(project, "--semantic-judge=judges_mod:judge", "--semantic-report", "-v")
    result.assert_outcomes(passed=4, failed=1, errors=2)
    result.stdout.re_match_lines(
        [
            r"test_marked\.py::test_explicit_threshold_wins +'kind' +KeywordJudge +0\.90 +0\.50 +PASS",
            r"test_marked\.py::test_intent_threshold_wins +Lenient +KeywordJudge +0\.90 +0\.50 +PASS",
            r"test_marked\.py::test_judge_by_spec +'kind' +OtherJudge +0\.60 +0\.50 +PASS",
            r"test_marked\.py::test_judge_object +'kind' +OtherJudge +0\.60 +0\.50 +PASS",
            r"test_marked\.py::test_threshold_is_the_default +'kind' +KeywordJudge +0\.90 +0\.95 +FAIL",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            "*@pytest.mark.semantic takes keywords only*",
            (
                "*test_bad_threshold: @pytest.mark.semantic(threshold=1.5): threshold must be "
                "between 0 and 1 inclusive, got 1.5; pass e.g. @pytest.mark.semantic(threshold=0.8)"
            ),
        ]
    )


def test_run_option_never_overrides_intent_thresholds(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_t='''
        from semantix import Intent

        class Kind(Intent):
            """The text is kind."""
            threshold = 0.5

        def test_intent(semantic):
            semantic("thank you", Kind)

        def test_recommended(semantic):
            semantic("thank you", "kind")
        '''
    )
    result = run(project, "--semantic-judge=judges_mod:strict", "--semantic-report")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.re_match_lines(
        [
            r"judge: StrictJudge · verdicts: off",
            r"test_t\.py::test_intent +Kind +(\w+Judge +)?0\.90 +0\.50 +PASS",
            r"test_t\.py::test_recommended +'kind' +(\w+Judge +)?0\.90 +0\.95 +FAIL",
        ]
    )


def test_assertions_in_fixtures_and_unittest_are_recorded(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_mixed="""
        import unittest
        import pytest
        from semantix import assert_semantic
        from semantix.unittest import SemanticAssertionsMixin

        @pytest.fixture
        def checked_reply():
            reply = "thank you"
            assert_semantic(reply, "kind")
            return reply

        def test_uses_fixture(checked_reply):
            pass

        class Replies(SemanticAssertionsMixin, unittest.TestCase):
            def test_kind(self):
                self.assertSemantic("rude words", "kind")
        """
    )
    result = run(project, "--semantic-judge=judges_mod:judge", "--semantic-report")
    result.assert_outcomes(passed=1, failed=1)
    result.stdout.re_match_lines(
        [
            r"judge: KeywordJudge · verdicts: off",
            r"test_mixed\.py::Replies::test_kind +'kind' +(\w+Judge +)?0\.20 +0\.80 +FAIL",
            r"test_mixed\.py::test_uses_fixture +'kind' +(\w+Judge +)?0\.90 +0\.80 +PASS",
        ]
    )


# A judge that must never be called: replay and strict answer from the store, or error.
NEVER_CALLED = """
from semantix import FakeJudge

def refuse(output, description):
    raise RuntimeError("the judge was called live")

judge = FakeJudge(refuse, name="KeywordJudge")
"""

ONE_TEST = "def test_one(semantic):\n    semantic('thank you', 'kind')\n"


def _store_files(project: pytest.Pytester) -> list[object]:
    return list((project.path / ".semantix" / "verdicts").rglob("*.json"))


@pytest.mark.parametrize("mode", ["replay", "strict"])
def test_verdicts_mode_wraps_the_run_judge(project: pytest.Pytester, mode: str) -> None:
    project.makepyfile(judges_never=NEVER_CALLED, test_one=ONE_TEST)
    result = run(project, "--semantic-judge=judges_never:judge", f"--semantic-verdicts={mode}")
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*VerdictNotRecordedError: no frozen verdict of KeywordJudge*"])
    assert "the judge was called live" not in result.stdout.str()


@pytest.mark.parametrize("how", ["option", "environment"])
def test_marker_judge_cannot_skip_strict_mode(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    # The bug: a judge named by the marker was called live under strict/replay.
    project.makepyfile(
        judges_never=NEVER_CALLED,
        test_marked="""
        import pytest
        from semantix import assert_semantic

        @pytest.mark.semantic(judge="judges_never:judge")
        def test_fixture(semantic):
            semantic("thank you", "kind")

        @pytest.mark.semantic(judge="judges_never:judge")
        def test_plain_call():
            assert_semantic("thank you", "kind")
        """,
    )
    args = ["--semantic-verdicts=strict"] if how == "option" else []
    if how == "environment":
        monkeypatch.setenv("SEMANTIX_VERDICTS", "strict")
    result = run(project, *args)
    result.assert_outcomes(failed=2)
    assert result.stdout.str().count("strict mode never calls the judge") >= 2
    assert "the judge was called live" not in result.stdout.str()


def test_marker_judge_and_threshold_apply_to_plain_calls(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_marked="""
        import pytest
        from semantix import assert_semantic

        @pytest.mark.semantic(judge="judges_mod:other", threshold=0.55)
        def test_plain_call():
            result = assert_semantic("anything", "kind")
            assert result.judge.name == "OtherJudge"
            assert result.leaves[0].threshold == 0.55
            assert result.leaves[0].threshold_source == "marker"
        """
    )
    result = run(project, "--semantic-judge=judges_mod:judge")
    result.assert_outcomes(passed=1)


def test_verdicts_mode_from_ini(project: pytest.Pytester) -> None:
    project.makepyfile(judges_never=NEVER_CALLED, test_one=ONE_TEST)
    project.makeini("[pytest]\nsemantic_judge = judges_never:judge\nsemantic_verdicts = strict\n")
    result = run(project)
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["semantix: judge=judges_never:judge, verdicts=strict"])
    assert "strict mode never calls the judge" in result.stdout.str()


def test_verdicts_off_writes_nothing(project: pytest.Pytester) -> None:
    project.makepyfile(test_one=ONE_TEST)
    result = run(project, "--semantic-judge=judges_mod:judge", "--semantic-verdicts=off")
    result.assert_outcomes(passed=1)
    assert _store_files(project) == []


def test_plugin_imports_nothing_heavy(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_light="""
        import sys

        HEAVY = {"onnxruntime", "torch", "transformers", "openai", "numpy", "tokenizers",
                 "huggingface_hub", "opentelemetry"}

        def test_nothing_heavy_loaded(request):
            assert request.config.pluginmanager.hasplugin("semantix")
            assert sorted(HEAVY & set(sys.modules)) == []
        """
    )
    result = run(project, "-p", "semantix", "--semantic-report")
    result.assert_outcomes(passed=1)


def test_a_run_without_semantic_assertions_loads_only_the_plugin(project: pytest.Pytester) -> None:
    """Every pytest run of a project with semantix installed pays for what the plugin imports:
    the checks, judges, reports, snapshots and runs are imported when a run uses them."""
    project.makepyfile(
        test_plain="""
        import sys

        def test_plain(request):
            assert request.config.pluginmanager.hasplugin("semantix")
            ours = sorted(m for m in sys.modules if m.startswith("semantix"))
            used = [m for m in ours if m.split(".")[1:2] in (["pipeline"], ["report"],
                    ["snapshots"], ["runs"], ["relations"], ["judges"], ["checks"],
                    ["outputs"], ["verdicts"], ["intent"])]
            assert used == []
            assert len(ours) <= 18, ours
        """
    )
    result = run(project, "-p", "semantix")
    result.assert_outcomes(passed=1)


def test_options_are_documented_in_help(project: pytest.Pytester) -> None:
    result = run(project, "--help")
    result.stdout.fnmatch_lines(
        [
            "semantic assertions (semantix):",
            "*--semantic-judge=SPEC*",
            "*--semantic-verdicts=MODE*",
            "*--semantic-report *",
            "*--semantic-report-json=PATH*",
        ]
    )
    result.stdout.fnmatch_lines(["*semantic_judge (string):*"])


def test_verdicts_update_then_replay_with_the_real_store(project: pytest.Pytester) -> None:
    project.makepyfile(
        judges_replay="""
from semantix import FakeJudge

def refuse(output, description):
    raise RuntimeError("replay must not call the judge")

never_called = FakeJudge(refuse, name="KeywordJudge")
"""
    )
    project.makepyfile(test_one="def test_one(semantic):\n    semantic('thank you', 'kind')\n")
    result = run(project, "--semantic-judge=judges_mod:judge", "--semantic-verdicts=update")
    result.assert_outcomes(passed=1)
    assert list((project.path / ".semantix" / "verdicts").rglob("*.json"))
    result = run(
        project,
        "--semantic-judge=judges_replay:never_called",
        "--semantic-verdicts=replay",
        "--semantic-report",
    )
    result.assert_outcomes(passed=1)
    result.stdout.re_match_lines(
        [
            r"judge: KeywordJudge · verdicts: \w+",
            r"test_one\.py::test_one +'kind' +(\w+Judge +)?0\.90 +0\.80 +PASS",
        ]
    )


def test_verdicts_mode_from_the_environment_and_the_command_line_wins(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(judges_never=NEVER_CALLED, test_one=ONE_TEST)
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    result = run(project, "--semantic-judge=judges_never:judge")
    result.assert_outcomes(failed=1)
    assert "VerdictNotRecordedError" in result.stdout.str()
    # The command line wins over the environment: off calls the judge (which refuses here).
    result = run(project, "--semantic-judge=judges_never:judge", "--semantic-verdicts=off")
    result.assert_outcomes(failed=1)
    assert "the judge was called live" in result.stdout.str()


def test_explicit_off_beats_the_environment_for_the_default_judge(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.makepyfile(test_one=ONE_TEST)
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    monkeypatch.setenv("SEMANTIX_JUDGE", "judges_mod:judge")
    result = run(project, "--semantic-verdicts=off")
    result.assert_outcomes(passed=1)
    assert _store_files(project) == []


def test_bad_verdicts_mode_in_the_environment(
    project: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMANTIX_VERDICTS", "always")
    result = run(project)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [
            "*SEMANTIX_VERDICTS='always' is not a frozen-verdict mode; use one of off, replay, update, strict*"
        ]
    )


def test_no_semantic_report_beats_ini(project: pytest.Pytester) -> None:
    project.makeini("[pytest]\nsemantic_judge = judges_mod:judge\nsemantic_report = true\n")
    project.makepyfile(test_one="def test_one(semantic):\n    semantic('thank you', 'kind')\n")
    result = run(project, "--no-semantic-report")
    result.assert_outcomes(passed=1)
    assert "semantic report" not in result.stdout.str()
    result = run(project)
    result.stdout.fnmatch_lines(["*- semantic report -*"])


def test_ini_json_path_is_relative_to_the_ini_file(project: pytest.Pytester) -> None:
    config_dir = project.mkdir("config")
    (config_dir / "pytest.ini").write_text(
        "[pytest]\nsemantic_judge = judges_mod:judge\nsemantic_report_json = out/r.json\n"
    )
    project.makepyfile(test_one="def test_one(semantic):\n    semantic('thank you', 'kind')\n")
    result = run(project, "-c", "config/pytest.ini", "--rootdir", str(project.path), "test_one.py")
    result.assert_outcomes(passed=1)
    assert (config_dir / "out" / "r.json").exists()
    assert not (project.path / "out").exists()


def test_a_missing_model_is_reported_once_in_one_line(project: pytest.Pytester) -> None:
    project.makepyfile(
        judges_missing="""
        import os
        from semantix import ModelNotFoundError

        def make():
            with open(os.environ["BUILD_LOG"], "a") as log:
                log.write("looked\\n")
            raise ModelNotFoundError("model 'org/nli' is not in the Hugging Face cache; run semantix download")
        """,
        test_three="""
        from semantix import assert_semantic

        def test_a():
            assert_semantic("thank you", "kind")

        def test_b(semantic):
            semantic("thank you", "kind")

        def test_c():
            assert_semantic("thanks", "kind")
        """,
    )
    result = run(project, "--semantic-judge=judges_missing:make", "--semantic-report")
    result.assert_outcomes(failed=3)
    assert (project.path / "builds.log").read_text() == "looked\n"  # looked for once
    output = result.stdout.str()
    assert output.count("ModelNotFoundError: model 'org/nli' is not in the Hugging Face cache") >= 3
    assert "def resolve_judge" not in output and "def get_or_create" not in output
    result.stdout.fnmatch_lines(["3 semantic assertions: 0 passed, 0 failed, 3 errors"])


@pytest.mark.parametrize("color", ["yes", "no"])
def test_report_colours_follow_pytest(project: pytest.Pytester, color: str) -> None:
    project.makepyfile(test_suite=SUITE)
    result = run(
        project, "--semantic-judge=judges_mod:judge", "--semantic-report", f"--color={color}"
    )
    rows = [line for line in result.stdout.lines if "test_suite.py::test_polite" in line]
    assert rows
    assert ("\x1b[" in rows[-1]) is (color == "yes")


def test_a_marker_judge_stays_in_its_test_and_never_becomes_semantic_judge(
    project: pytest.Pytester,
) -> None:
    # The session-scoped fixture is first requested by a marked test: it is still the run's
    # judge, there and in every later test (OtherJudge scores 0.6, KeywordJudge 0.2 here).
    project.makepyfile(
        test_order="""
        import pytest

        @pytest.mark.semantic(judge="judges_mod:other")
        def test_marked_first(semantic, semantic_judge):
            assert semantic.judge.evaluate("x", "kind", 0.5).score == 0.6
            assert semantic_judge.evaluate("x", "kind", 0.5).score == 0.2

        def test_unmarked_later(semantic, semantic_judge):
            assert semantic_judge.evaluate("x", "kind", 0.5).score == 0.2
            assert semantic.judge.evaluate("x", "kind", 0.5).score == 0.2
        """
    )
    result = run(project, "--semantic-judge=judges_mod:judge", "-p", "no:randomly")
    result.assert_outcomes(passed=2)


CONFTEST_DEFAULT = """
import semantix
import judges_mod

semantix.set_default_judge(judges_mod.other)
"""

DEFAULT_USERS = """
from semantix import assert_semantic

def test_fixture(semantic):
    semantic("anything", "kind", threshold=0.5)

def test_plain_call():
    assert_semantic("thank you", "kind", threshold=0.5)
"""


def test_a_conftest_default_judge_survives_and_the_option_wins(project: pytest.Pytester) -> None:
    project.makeconftest(CONFTEST_DEFAULT)
    project.makepyfile(test_defaults=DEFAULT_USERS)
    result = run(project, "--semantic-report")
    result.assert_outcomes(passed=2)
    result.stdout.re_match_lines(
        [
            r"judge: OtherJudge · verdicts: off",
            r"test_defaults\.py::test_fixture +'kind' +(\w+Judge +)?0\.60 +0\.50 +PASS",
            r"test_defaults\.py::test_plain_call +'kind' +(\w+Judge +)?0\.60 +0\.50 +PASS",
        ]
    )
    # --semantic-judge, when given, wins over the conftest's default for the whole run.
    result = run(project, "--semantic-report", "--semantic-judge=judges_mod:judge")
    result.assert_outcomes(passed=1, failed=1)  # KeywordJudge: 0.2 for "anything"
    result.stdout.re_match_lines(
        [
            r"judge: KeywordJudge · verdicts: off",
            r"test_defaults\.py::test_fixture +'kind' +(\w+Judge +)?0\.20 +0\.50 +FAIL",
            r"test_defaults\.py::test_plain_call +'kind' +(\w+Judge +)?0\.90 +0\.50 +PASS",
        ]
    )


def test_every_bad_marker_argument_names_the_marker_and_shows_its_form(
    project: pytest.Pytester,
) -> None:
    project.makepyfile(
        test_bad_markers="""
        import pytest

        @pytest.mark.semantic(timeout="abc")
        def test_timeout_text(semantic):
            pass

        @pytest.mark.semantic(timeout=0)
        def test_timeout_zero(semantic):
            pass

        @pytest.mark.semantic(threshold="high")
        def test_threshold_text(semantic):
            pass

        @pytest.mark.semantic(judge=42)
        def test_judge_number(semantic):
            pass

        @pytest.mark.semantic(judge="gpt")
        def test_judge_unknown(semantic):
            pass

        @pytest.mark.semantic(treshold=0.5)
        def test_misspelt(semantic):
            pass
        """
    )
    result = run(project)
    result.assert_outcomes(errors=6)
    output = result.stdout.str()
    assert "--semantic-timeout" not in output  # the marker's form, never the option's
    result.stdout.fnmatch_lines_random(
        [
            (
                "*test_timeout_text: @pytest.mark.semantic(timeout='abc'): timeout must be a "
                "positive number of seconds, got 'abc' (str); write e.g. "
                "@pytest.mark.semantic(timeout=30)"
            ),
            "*test_timeout_zero: @pytest.mark.semantic(timeout=0): timeout must be a positive*",
            (
                "*test_threshold_text: @pytest.mark.semantic(threshold='high'): threshold must be "
                "a number between 0 and 1, got 'high' (str); pass e.g. "
                "@pytest.mark.semantic(threshold=0.8)"
            ),
            (
                "*test_judge_number: @pytest.mark.semantic(judge=42): the judge must have an "
                "evaluate(*got int*or give a spec, e.g. @pytest.mark.semantic(judge='embedding')"
            ),
            "*test_judge_unknown: @pytest.mark.semantic(judge='gpt'): unknown judge 'gpt'*",
            (
                "*test_misspelt: @pytest.mark.semantic got unknown treshold=; it accepts judge=, "
                "threshold=, timeout=, runs=, min_pass_rate="
            ),
        ]
    )


def test_markers_of_module_class_and_function_merge_key_by_key(project: pytest.Pytester) -> None:
    project.makepyfile(
        test_merged="""
        import pytest

        pytestmark = pytest.mark.semantic(judge="judges_mod:judge", threshold=0.3)

        @pytest.mark.semantic(threshold=0.95)
        class TestStrict:
            @pytest.mark.semantic(judge="judges_mod:other")
            def test_class_threshold_and_method_judge(self, semantic):
                semantic("anything", "kind")  # OtherJudge 0.6 < the class's 0.95

            @pytest.mark.semantic(threshold=0.5)
            def test_the_closest_wins(self, semantic):
                semantic("anything", "kind")  # the module's KeywordJudge 0.2 < 0.5

        def test_module_only(semantic):
            semantic("anything", "kind")  # KeywordJudge 0.2 < 0.3

        @pytest.mark.semantic(threshold=2)
        class TestBad:
            def test_inherits_a_bad_class_marker(self, semantic):
                pass
        """
    )
    result = run(project, "--semantic-report", "-p", "no:randomly")
    result.assert_outcomes(failed=3, errors=1)
    result.stdout.re_match_lines_random(
        [
            r".*test_class_threshold_and_method_judge +'kind' +OtherJudge +0\.60 +0\.95 +FAIL",
            r".*test_the_closest_wins +'kind' +KeywordJudge +0\.20 +0\.50 +FAIL",
            r".*test_module_only +'kind' +KeywordJudge +0\.20 +0\.30 +FAIL",
        ]
    )
    result.stdout.fnmatch_lines(
        [
            (
                "*test_inherits_a_bad_class_marker: @pytest.mark.semantic(threshold=2) on "
                "test_merged.py::TestBad: threshold must be between 0 and 1 inclusive*"
            )
        ]
    )
