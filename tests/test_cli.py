"""The ``semantix`` command line as a whole: parsing, exit statuses, how errors are shown, and
the command as a process (``semantix`` and ``python -m semantix``, with the current directory
importable)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import textwrap
import types
from pathlib import Path

import pytest

import semantix
from cli_helpers import SEMANTIX, fake_modules, run, run_process
from semantix import FakeJudge
from semantix.cli import COMMANDS
from semantix.cli._api import build_parser
from semantix.cli._errors import CLI_MODEL_OPTION, error_lines, location
from semantix.errors import ConfigurationError, JudgeError, ModelNotFoundError

pytestmark = pytest.mark.usefixtures("fake_modules")
__all__ = ["fake_modules"]

JUDGES_PY = textwrap.dedent(
    """
    from semantix import Verdict


    class KeywordJudge:
        recommended_threshold = 0.5

        def evaluate(self, output, intent_description, threshold):
            score = 0.9 if "thank" in output.lower() else 0.1
            return Verdict(passed=score >= threshold, score=score, reason="keyword")


    class BuggyJudge:
        def evaluate(self, output, intent_description, threshold):
            return Verdict(passed=True, score=len(3))
    """
)
#: The line of judges.py where BuggyJudge fails.
BUG_LINE = 1 + next(i for i, line in enumerate(JUDGES_PY.splitlines()) if "len(3)" in line)
INTENTS_PY = textwrap.dedent(
    """
    from semantix import Intent


    class Grateful(Intent):
        \"\"\"The text thanks someone.\"\"\"
    """
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A directory with the user's judges.py and intents.py, as the newcomer had."""
    (tmp_path / "judges.py").write_text(JUDGES_PY, encoding="utf-8")
    (tmp_path / "intents.py").write_text(INTENTS_PY, encoding="utf-8")
    return tmp_path


# --- the command as a process ------------------------------------------------------------------


@pytest.mark.parametrize("module", [False, True], ids=["semantix", "python -m semantix"])
def test_a_reader_that_goes_away_ends_the_command_quietly_with_status_1(
    project: Path, module: bool
) -> None:
    """Issue 34, item 8: ``semantix check ... | head -2`` ended with "[Errno 32] Broken pipe"
    and exit 2; now quiet, and 1: a reader that stopped early never makes a check pass."""
    command = [sys.executable, "-m", "semantix"] if module else [str(SEMANTIX)]
    argv = ["check", "Thank you!", "intents:Grateful", "--judge", "judges:KeywordJudge"]
    process = subprocess.Popen(
        [*command, *argv], cwd=project, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # what `| head` does once it has read what it wanted
    with process.stderr:
        err = process.stderr.read()
    assert (process.wait(timeout=120), err) == (1, b"")


@pytest.mark.parametrize("module", [False, True], ids=["semantix", "python -m semantix"])
def test_judges_and_intents_from_the_current_directory(project: Path, module: bool) -> None:
    argv = ["check", "Thank you!", "intents:Grateful", "--judge", "judges:KeywordJudge"]
    passed = run_process(argv, project, module=module)
    assert passed.returncode == 0, passed.stderr
    assert "KeywordJudge" in passed.stdout
    assert passed.stdout.startswith("Semantic check passed (score=0.90): the output satisfies")
    failed = run_process(["check", "Go away.", *argv[2:]], project, module=module)
    assert failed.returncode == 1, failed.stderr
    assert failed.stdout.startswith("Semantic check failed (score=0.10)")


def test_a_bug_in_the_users_judge_shows_type_and_place(project: Path) -> None:
    completed = run_process(["check", "hi", "polite", "--judge", "judges:BuggyJudge"], project)
    assert completed.returncode == 2
    assert completed.stdout == ""
    lines = completed.stderr.splitlines()
    assert lines[0].startswith("semantix check: error: judge BuggyJudge raised TypeError")
    assert lines[1:] == [
        "  caused by TypeError: object of type 'int' has no len()",
        f"    at judges.py:{BUG_LINE}, in evaluate",
        "  add --traceback for the whole chain",
    ]


@pytest.mark.parametrize("where", ["before", "after"])
def test_traceback_prints_the_whole_chain(project: Path, where: str) -> None:
    argv = ["check", "hi", "polite", "--judge", "judges:BuggyJudge"]
    argv = ["--traceback", *argv] if where == "before" else [*argv, "--traceback"]
    completed = run_process(argv, project)
    assert completed.returncode == 2
    err = completed.stderr
    assert err.startswith("Traceback (most recent call last):")
    assert f'judges.py", line {BUG_LINE}, in evaluate' in err
    assert "TypeError: object of type 'int' has no len()" in err
    assert "The above exception was the direct cause of the following exception" in err
    assert "semantix.JudgeError: judge BuggyJudge raised TypeError" in err
    assert err.splitlines()[-2:] == [
        "  caused by TypeError: object of type 'int' has no len()",
        f"    at judges.py:{BUG_LINE}, in evaluate",
    ]


def test_an_intent_module_that_fails_to_import_shows_where(project: Path) -> None:
    (project / "broken.py").write_text("import json\n\nvalue = json.loads('{')\n", "utf-8")
    completed = run_process(
        ["check", "hi", "broken:Polite", "--judge", "judges:KeywordJudge"], project
    )
    assert completed.returncode == 2
    lines = completed.stderr.splitlines()
    assert lines[0].startswith("semantix check: error: JSONDecodeError: Expecting property name")
    assert lines[1] == "  at broken.py:3, in <module>"
    assert lines[-1] == "  add --traceback for the whole chain"


def test_python_dash_m_semantix_is_the_command(project: Path) -> None:
    by_module = run_process(["--help"], project, module=True)
    by_script = run_process(["--help"], project)
    by_cli_module = run_process(["--help"], project, module="semantix.cli")
    assert by_module.returncode == by_script.returncode == by_cli_module.returncode == 0
    assert by_module.stdout == by_script.stdout == by_cli_module.stdout
    for command in ("check", "download", "export", "calibrate"):
        assert command in by_module.stdout


def test_check_reads_stdin_in_a_process(project: Path) -> None:
    completed = run_process(
        ["check", "-", "intents:Grateful", "--judge", "judges:KeywordJudge", "--json"],
        project,
        stdin="Thanks a lot!\n",
    )
    assert completed.returncode == 0, completed.stderr
    assert '"output": "Thanks a lot!"' in completed.stdout


# --- main(argv) --------------------------------------------------------------------------------


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "check", "only-text")
    assert status == 2
    assert "the following arguments are required: INTENT" in err
    status, _, err = run(capsys, "check", "a", "b", "--threshold", "high")
    assert status == 2
    assert "invalid float value: 'high'" in err
    status, _, err = run(capsys)
    assert status == 2
    assert "usage: semantix" in err
    status, _, err = run(capsys, "frobnicate")
    assert status == 2
    assert "invalid choice: 'frobnicate'" in err


@pytest.mark.parametrize("command", [[], ["check"], ["download"], ["export"], ["calibrate"]])
def test_help_everywhere(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    assert out.startswith(f"usage: semantix {' '.join(command)}".rstrip())
    assert "--traceback" in out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--version")
    assert (status, out) == (0, f"semantix {semantix.__version__}\n")


@pytest.mark.parametrize(
    "argv",
    [["check", "t", "i"], ["download"], ["export", "m", "o"], ["calibrate", "labels.csv"]],
)
def test_every_command_module_is_registered(argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    module = next(command for command in COMMANDS if command.NAME == argv[0])
    assert (args.command, args.run, args.traceback) == (argv[0], module.run, False)


def test_a_judge_error_in_process_names_type_and_place(
    capsys: pytest.CaptureFixture[str], fake_modules: types.ModuleType
) -> None:
    def broken(output: str, description: str) -> float:
        raise RuntimeError("model exploded")

    fake_modules.broken = FakeJudge(broken)
    status, out, err = run(capsys, "check", "hi", "polite", "--judge", "cli_fakes:broken")
    assert (status, out) == (2, "")
    lines = err.splitlines()
    assert lines[0].startswith("semantix check: error: judge FakeJudge raised RuntimeError")
    assert lines[1] == "  caused by RuntimeError: model exploded"
    assert lines[2].startswith("    at ") and "test_cli.py:" in lines[2]
    assert lines[2].endswith(", in broken")
    assert lines[3] == "  add --traceback for the whole chain"


def test_interrupt_exits_130(
    capsys: pytest.CaptureFixture[str], fake_modules: types.ModuleType
) -> None:
    def interrupted(output: str, description: str) -> float:
        raise KeyboardInterrupt

    fake_modules.interrupted = FakeJudge(interrupted)
    status, _, err = run(capsys, "check", "hi", "polite", "--judge", "cli_fakes:interrupted")
    assert (status, err) == (130, "semantix check: interrupted\n")


# --- error lines -------------------------------------------------------------------------------


def _raise_from_here() -> None:
    raise ValueError("bad value from user code")


def test_error_lines_for_our_errors_are_one_line() -> None:
    error = ConfigurationError("the option is wrong;\n  fix it")
    assert error_lines("check", error) == ["semantix check: error: the option is wrong; fix it"]


def test_error_lines_for_foreign_exceptions_name_type_and_place() -> None:
    with pytest.raises(ValueError) as info:
        _raise_from_here()
    lines = error_lines("check", info.value)
    assert lines[0] == "semantix check: error: ValueError: bad value from user code"
    assert lines[1].startswith("  at ") and lines[1].endswith(", in _raise_from_here")
    assert lines[2] == "  add --traceback for the whole chain"
    assert location(info.value) == lines[1][len("  at ") :]
    assert error_lines("check", info.value, show_traceback=True) == lines[:2]


def test_error_lines_skip_a_cause_already_in_the_message_with_no_place() -> None:
    cause = ImportError("No module named 'nowhere'")
    error = ConfigurationError("cannot import 'nowhere': No module named 'nowhere'")
    error.__cause__ = cause
    assert error_lines("check", error) == [
        "semantix check: error: cannot import 'nowhere': No module named 'nowhere'"
    ]


def test_error_lines_show_a_judges_cause() -> None:
    with pytest.raises(ValueError) as info:
        _raise_from_here()
    error = JudgeError("judge X raised ValueError: bad value from user code")
    error.__cause__ = info.value
    lines = error_lines("calibrate", error)
    assert lines[1] == "  caused by ValueError: bad value from user code"
    assert lines[2].startswith("    at ")


def _library_error(root: Path, message: str) -> OSError:
    """An OSError raised inside an installed package (as huggingface_hub's would be)."""
    source = root / "site-packages" / "hub.py"
    source.parent.mkdir()
    source.write_text(f"def fetch():\n    raise OSError({message!r})\n", encoding="utf-8")
    spec = importlib.util.spec_from_file_location("hub_for_test", source)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    with pytest.raises(OSError) as info:
        module.fetch()
    # As caught inside semantix: the traceback starts below this test's own frame.
    traceback = info.value.__traceback__
    assert traceback is not None
    return info.value.with_traceback(traceback.tb_next)


def test_error_lines_do_not_repeat_a_librarys_error_the_message_states(tmp_path: Path) -> None:
    error = ModelNotFoundError("model 'x/y' is not cached and the download failed (network down)")
    error.__cause__ = _library_error(tmp_path, "network down")
    assert error_lines("download", error) == [f"semantix download: error: {error}"]


def test_error_lines_show_a_librarys_error_the_message_does_not_state(tmp_path: Path) -> None:
    error = ModelNotFoundError("model 'x/y' is not cached")
    error.__cause__ = _library_error(tmp_path, "network down")
    assert error_lines("download", error) == [
        "semantix download: error: model 'x/y' is not cached",
        "  caused by OSError: network down",
        f"    at {tmp_path / 'site-packages' / 'hub.py'}:2, in fetch",
        "  add --traceback for the whole chain",
    ]


def test_the_offline_error_names_the_command_line_option(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The real models error, offline with an empty cache: the CLI says --model DIR, not the
    Python argument model=..."""
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.delenv("HF_HOME", raising=False)
    pytest.importorskip("onnxruntime")
    status, out, err = run(capsys, "check", "hi", "polite", "--judge", "quantized")
    assert (status, out) == (2, "")
    assert err.startswith("semantix check: error: model ")
    assert "semantix download" in err
    assert CLI_MODEL_OPTION in err
    assert "model=..." not in err
    assert err.count("\n") == 1


def test_the_missing_backend_error_names_the_judge_option(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The real default-judge error with no backend installed: --judge SPEC, not judge=..."""
    monkeypatch.setattr("semantix.models._deps._missing", lambda modules: list(modules))
    for name in ("semantix.judges._quantized", "semantix.judges._transformers"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    status, out, err = run(capsys, "check", "hi", "polite")
    assert (status, out) == (2, "")
    assert err.startswith("semantix check: error: no judge backend is installed")
    assert "(or choose one with --judge SPEC)" in err
    assert "judge=..." not in err
    assert err.count("\n") == 1


def test_a_quoted_library_error_is_not_repeated(tmp_path: Path) -> None:
    # The models error quotes the download error's repr, quotes escaped: still "stated".
    cause = _library_error(tmp_path, "Failed to resolve 'huggingface.co' (\"no network\")")
    assert "\\'" in repr(cause)  # the repr escapes the quotes
    error = ModelNotFoundError(f"could not be reached ({cause!r}). Ways out: ...")
    error.__cause__ = cause
    assert error_lines("check", error) == [f"semantix check: error: {error}"]


def test_export_checks_its_extra_before_saying_it_exports(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    real_find_spec = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util,
        "find_spec",
        lambda name, *args: None if name == "onnx" else real_find_spec(name, *args),
    )
    status, out, err = run(capsys, "export", "acme/nli", "out")
    assert (status, out) == (2, "")
    assert "exporting" not in err
    assert err.startswith("semantix export: error: semantix export needs onnx, which is not")
    assert "pip install -e '.[export]' in a clone" in err
