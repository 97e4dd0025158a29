"""``semantix check``, through ``main(argv)``."""

from __future__ import annotations

import io
import json
import re
import sys
import types
from pathlib import Path

import pytest

import semantix
from cli_helpers import fake_modules, keyword_score, run
from semantix import FakeJudge
from semantix.pipeline import evaluate_semantic

pytestmark = pytest.mark.usefixtures("fake_modules")
__all__ = ["fake_modules"]


def test_check_passes_with_exit_0_in_the_format_of_a_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, err = run(
        capsys,
        "check",
        "Thank you for waiting.",
        "The text is polite.",
        "--judge",
        "cli_fakes:judge",
    )
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0] == (
        "Semantic check passed (score=0.90): the output satisfies 'The text is polite.'"
    )
    assert lines[1] == "  judge: KeywordJudge"
    assert lines[3].split() == ["intent", "score", "threshold", "verdict"]
    assert re.match(r"^  'The text is polite\.'\s+0\.90\s+0\.80\s+ok$", lines[4]), lines[4]
    assert lines[-1] == "  output (22 chars): 'Thank you for waiting.'"
    assert "test" not in lines[3].split() and not any(line.startswith("check") for line in lines)
    _, failed, _ = run(
        capsys, "check", "Go away.", "The text is polite.", "--judge", "cli_fakes:judge"
    )
    # the same lines, the verdicts and the headline aside
    assert [line.split()[0] for line in failed.splitlines()[1:4] if line] == ["judge:", "intent"]


def test_every_help_example_names_its_judge(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "check", "--help")
    examples = [line for line in out.split("examples:")[1].splitlines() if line.strip()]
    assert status == 0 and len(examples) == 4
    for line in examples:
        assert "--judge" in line or "# the default judge" in line, line


def test_check_fails_with_exit_1_and_the_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "check", "Go away.", "cli_fakes:Polite", "--judge", "cli_fakes:judge"
    )
    assert status == 1
    assert out.startswith(
        "Semantic check failed (score=0.10): the output does not satisfy Polite\n"
    )
    assert "Polite   0.10       0.80  FAIL: not satisfied" in out
    assert "output (8 chars): 'Go away.'" in out


def test_check_uses_intent_class_threshold_and_explicit_threshold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, _ = run(
        capsys, "check", "meh", "cli_fakes:LenientPolite", "--judge", "cli_fakes:judge"
    )
    assert status == 1  # 0.1 < 0.5
    status, out, _ = run(
        capsys,
        "check",
        "meh",
        "cli_fakes:LenientPolite",
        "--judge",
        "cli_fakes:judge",
        "--threshold",
        "0.05",
    )
    assert status == 0
    assert re.search(r"0\.10\s+0\.05\s+ok", out), out


def test_check_reads_stdin(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    fake_modules: types.ModuleType,
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("Thanks a lot!\n"))
    status, out, _ = run(capsys, "check", "-", "polite", "--judge", "cli_fakes:judge", "--json")
    assert status == 0
    assert json.loads(out)["output"] == "Thanks a lot!"
    assert fake_modules.judge.calls == [("Thanks a lot!", "polite")]


def test_check_json_is_the_results_dict_plus_the_output(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys, "check", "Go away.", "cli_fakes:Polite", "--judge", "cli_fakes:judge", "--json"
    )
    assert status == 1
    document = json.loads(out)
    expected = evaluate_semantic(
        "Go away.",
        sys.modules["cli_fakes"].Polite,
        judge=FakeJudge(keyword_score, name="KeywordJudge"),
    ).to_dict()
    assert document.pop("output") == "Go away."
    assert document.pop("duration_ms") >= 0
    expected.pop("duration_ms")
    assert document == expected
    assert document["leaves"][0]["score"] == 0.1
    assert document["leaves"][0]["passed"] is False


def test_check_honours_frozen_verdicts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "verdicts"))
    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    argv = ["check", "Thank you!", "cli_fakes:Polite", "--judge", "cli_fakes:judge"]
    assert run(capsys, *argv)[0] == 0
    assert list((tmp_path / "verdicts").rglob("*.json"))
    monkeypatch.setenv("SEMANTIX_VERDICTS", "strict")
    status, _, err = run(
        capsys, "check", "Never seen.", "cli_fakes:Polite", "--judge", "cli_fakes:judge"
    )
    assert status == 2
    assert err.startswith("semantix check: error: ")
    assert err.count("\n") == 1
    assert sys.modules["cli_fakes"].judge.calls == [("Thank you!", "The text is polite.")]


def test_check_uses_the_default_judge(capsys: pytest.CaptureFixture[str]) -> None:
    semantix.set_default_judge(FakeJudge(keyword_score, name="DefaultJudge"))
    status, out, _ = run(capsys, "check", "thank you", "polite")
    assert status == 0
    assert "DefaultJudge" in out


def test_check_follows_semantix_judge(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMANTIX_JUDGE", "cli_fakes:judge")
    status, out, _ = run(capsys, "check", "thank you", "polite")
    assert status == 0
    assert "KeywordJudge" in out


class ModelJudge(FakeJudge):
    """A judge class that takes ``model=`` like the onnxruntime judges."""

    def __init__(self, model: str | None = None) -> None:
        super().__init__(keyword_score, name=f"ModelJudge({model})")


def test_check_model_option_builds_the_judge_with_it(
    capsys: pytest.CaptureFixture[str], fake_modules: types.ModuleType, tmp_path: Path
) -> None:
    fake_modules.ModelJudge = ModelJudge
    status, out, _ = run(
        capsys,
        "check",
        "thank you",
        "polite",
        "--judge",
        "cli_fakes:ModelJudge",
        "--model",
        str(tmp_path),
        "--json",
    )
    assert status == 0
    assert json.loads(out)["judge"] == f"ModelJudge({tmp_path})"


@pytest.mark.parametrize(
    ("judge", "message"),
    [
        ("llm", "--model '/m' needs a judge that loads a model (quantized, nli, embedding"),
        (
            "cli_fakes:judge",
            "--model '/m' cannot be given to 'cli_fakes:judge', a FakeJudge and not a judge class",
        ),
    ],
)
def test_check_model_option_needs_a_judge_class(
    capsys: pytest.CaptureFixture[str], judge: str, message: str
) -> None:
    status, out, err = run(capsys, "check", "hi", "polite", "--judge", judge, "--model", "/m")
    assert (status, out) == (2, "")
    assert err.startswith(f"semantix check: error: {message}")
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["check", "hi", "polite", "--judge", "cli_fakes:judge", "--threshold", "1.5"],
            (
                "semantix check: error: threshold must be between 0 and 1 inclusive, got 1.5; "
                "pass e.g. --threshold 0.8"
            ),
        ),
        (
            ["check", "hi", "polite", "--judge", "gpt4"],
            (
                "semantix check: error: unknown judge 'gpt4' (--judge); use one of quantized, nli, "
                "embedding, llm, tei or an import path 'package.module:judge'"
            ),
        ),
        (
            ["check", "hi", "cli_fakes:Missing", "--judge", "cli_fakes:judge"],
            (
                "semantix check: error: module 'cli_fakes' has no attribute 'Missing' (INTENT "
                "'cli_fakes:Missing'); or, if INTENT is meant as a description, write it as a "
                "sentence such as 'The text is polite.'"
            ),
        ),
        (
            ["check", "hi", "cli_fakes:not_an_intent", "--judge", "cli_fakes:judge"],
            (
                "semantix check: error: INTENT 'cli_fakes:not_an_intent' is int, not an Intent "
                "class; point it at a subclass of semantix.Intent"
            ),
        ),
    ],
)
def test_check_configuration_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err == message + "\n"


def test_empty_intent_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "check", "hi", "   ", "--judge", "cli_fakes:judge")
    assert (status, out) == (2, "")
    assert err.startswith("semantix check: error: ")
    assert "empty" in err
    assert err.count("\n") == 1


def test_check_takes_a_structural_intent_and_loads_no_model(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "structural_intents.py").write_text(
        "from semantix.checks import Contains\nRefund = Contains('refund')\n"
    )
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SEMANTIX_JUDGE", "no_such_module:judge")  # never built
    status, out, _ = run(capsys, "check", "Your refund is on its way.", "structural_intents:Refund")
    assert status == 0
    assert "judge: structural" in out and "found 'refund'" in out
    status, out, _ = run(capsys, "check", "Your order ships.", "structural_intents:Refund")
    assert status == 1 and "'refund' not found" in out


def test_a_factory_call_with_literal_arguments_is_the_intent_it_builds(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 34, item 8: the call was judged as the literal text of a description."""
    status, out, _ = run(
        capsys,
        "check",
        "Thank you: simmer the onions for ten minutes.",
        "semantix.intents:OnTopic('cooking')",
        "--judge",
        "cli_fakes:judge",
        "--json",
    )
    document = json.loads(out)
    assert status == 0
    assert document["intent"] == "OnTopic('cooking')"
    assert document["leaves"][0]["description"] == "The text is about cooking."
    status, out, _ = run(
        capsys,
        "check",
        "hi",
        "semantix.intents:Mentions(thing='a refund')",
        "--judge",
        "cli_fakes:judge",
        "--json",
    )
    assert json.loads(out)["intent"] == "Mentions('a refund')"


@pytest.mark.parametrize(
    ("intent", "message"),
    [
        (
            "semantix.intents:OnTopic(__import__('os').getcwd())",
            (
                "semantix check: error: INTENT \"semantix.intents:OnTopic(__import__('os')"
                '.getcwd())" calls OnTopic with an argument that is not a literal; semantix '
                "evaluates no code from the command line: pass strings, numbers, lists or "
                "dicts, e.g. OnTopic('cooking')"
            ),
        ),
        (
            "semantix.intents:OnTopic",
            (
                "semantix check: error: INTENT 'semantix.intents:OnTopic' is function, not an "
                "Intent class; point it at a subclass of semantix.Intent; "
                "semantix.intents:OnTopic is a factory: call it, e.g. "
                "'semantix.intents:OnTopic(\"cooking\")'"
            ),
        ),
    ],
)
def test_a_factory_call_that_is_not_literal_or_not_made_is_refused(
    capsys: pytest.CaptureFixture[str], intent: str, message: str
) -> None:
    status, out, err = run(capsys, "check", "hi", intent, "--judge", "cli_fakes:judge")
    assert (status, out, err) == (2, "", message + "\n")


def test_a_description_with_a_colon_and_parentheses_stays_a_description(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = run(
        capsys,
        "check",
        "Thanks!",
        "Tone: the text is polite (and kind).",
        "--judge",
        "cli_fakes:judge",
    )
    assert status == 0 and "'Tone: the text is polite (and kind).'" in out
