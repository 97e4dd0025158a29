from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import semantix
from semantix import errors

SRC = Path(__file__).resolve().parent.parent / "src"


def test_hierarchy_matches_the_documented_tree() -> None:
    assert issubclass(errors.SemanticAssertionError, AssertionError)
    assert issubclass(errors.SemanticAssertionError, errors.SemantixError)
    for configuration in (
        errors.JudgeUnavailableError,
        errors.UnknownModelError,
        errors.ModelNotFoundError,
    ):
        assert issubclass(configuration, errors.ConfigurationError)
        assert not issubclass(configuration, AssertionError)
    assert issubclass(errors.ConfigurationError, ValueError)
    assert issubclass(errors.JudgeUnavailableError, ImportError)
    assert issubclass(errors.JudgeTimeoutError, errors.JudgeError)
    assert not issubclass(errors.JudgeError, AssertionError)
    for store_error in (errors.VerdictNotRecordedError, errors.CorruptVerdictError):
        assert issubclass(store_error, errors.VerdictStoreError)


def test_every_error_is_documented_in_the_module_docstring() -> None:
    assert errors.__doc__ is not None
    for name in errors.__all__:
        assert name in errors.__doc__, name


def test_errors_are_exported_and_read_as_semantix() -> None:
    for name in errors.__all__:
        cls = getattr(semantix, name)
        assert cls is getattr(errors, name)
        assert cls.__module__ in {"semantix", "semantix.errors"}
    assert repr(semantix.JudgeError("x")) == "JudgeError('x')"


def test_judge_unavailable_can_be_caught_as_import_error() -> None:
    with pytest.raises(ImportError):
        raise errors.JudgeUnavailableError("pip install 'semantix-judge[onnx]'")


# --- tracebacks outside pytest (issue 34, item 10): our frames hidden, the cause said once ------

SCRIPT = """\
from semantix import assert_semantic

assert_semantic("Thanks a lot!", "The text is polite.")
"""
UNITTEST = """\
import unittest

from semantix.unittest import SemanticAssertionsMixin


class ReplyTests(SemanticAssertionsMixin, unittest.TestCase):
    def test_polite(self):
        self.assertSemantic("Thanks a lot!", "The text is polite.")

    def test_kind(self):
        self.assertSemantic("Thanks a lot!", "The text is kind.")
"""
BUGGY_JUDGE = """\
from semantix import assert_semantic


class MyJudge:
    def evaluate(self, output, intent_description, threshold):
        return 1 / 0


assert_semantic("Thanks a lot!", "The text is polite.", judge=MyJudge())
"""


def _python(tmp_path: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "SEMANTIX_MODEL_DIR": str(tmp_path / "no-such-model"),
        "PYTHONPATH": os.pathsep.join([str(SRC), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        [sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )


def test_a_configuration_error_in_a_script_is_a_short_traceback_naming_the_fix_once(
    tmp_path: Path,
) -> None:
    (tmp_path / "check_reply.py").write_text(SCRIPT)
    completed = _python(tmp_path, "check_reply.py")
    lines = completed.stderr.splitlines()
    assert completed.returncode == 1
    assert lines[-1].startswith("semantix.ModelNotFoundError: SEMANTIX_MODEL_DIR=")
    assert completed.stderr.count("unset it to use the default model") == 1
    frames = [line for line in lines if line.startswith("  File ")]
    assert 'check_reply.py", line 3' in frames[0]
    assert len(frames) <= 3 and len(lines) <= 10, completed.stderr  # was 20 frames, 57 lines
    assert "During handling" not in completed.stderr


def test_a_configuration_error_under_unittest_is_a_few_lines_per_test(tmp_path: Path) -> None:
    (tmp_path / "test_replies.py").write_text(UNITTEST)
    completed = _python(tmp_path, "-m", "unittest", "test_replies")
    assert completed.returncode == 1 and "FAILED (errors=2)" in completed.stderr
    blocks = completed.stderr.split("=" * 70)[1:]
    assert len(blocks) == 2
    for block in blocks:
        lines = block.strip().split("-" * 70)[1].strip().splitlines()
        assert len(lines) <= 6, block  # was about 65 lines a test
        assert lines[0] == "Traceback (most recent call last):"
        assert lines[1].startswith(f'  File "{tmp_path / "test_replies.py"}", line ')
        assert lines[-1].startswith("semantix.ModelNotFoundError: SEMANTIX_MODEL_DIR=")
        assert block.count("unset it to use the default model") == 1


def test_an_error_inside_the_users_judge_still_shows_the_users_line(tmp_path: Path) -> None:
    (tmp_path / "buggy.py").write_text(BUGGY_JUDGE)
    completed = _python(tmp_path, "buggy.py")
    assert completed.returncode == 1
    assert 'buggy.py", line 6, in evaluate' in completed.stderr
    assert "ZeroDivisionError: division by zero" in completed.stderr
    assert completed.stderr.splitlines()[-1].startswith("semantix.JudgeError: judge MyJudge raised")
