"""semantix works from a plain `python script.py`, outside any test runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from models.fixtures import *  # session fixtures: the tiny models

ROOT = Path(__file__).resolve().parent.parent

SCRIPT = '''
from semantix import FakeJudge, Intent
from semantix.testing import assert_semantic

class Polite(Intent):
    """The text must be polite and professional."""

judge = FakeJudge(lambda output, intent: 0.95 if "please" in output.lower() else 0.2)
assert_semantic("Please wait a moment.", Polite, judge=judge)
print("first check passed")
assert_semantic("Wait.", Polite, judge=judge)
print("unreachable")
'''


def test_plain_script_passes_then_fails_with_the_message(tmp_path: Path) -> None:
    script = tmp_path / "check_reply.py"
    script.write_text(SCRIPT)
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 1
    assert completed.stdout == "first check passed\n"
    assert "semantix.SemanticAssertionError: Semantic check failed (score=0.20)" in completed.stderr
    assert "does not satisfy Polite" in completed.stderr
    assert "0.20       0.80  FAIL: not satisfied" in completed.stderr
    # the user's line, the public function that raised, and the message: no inner frame
    frames = completed.stderr.split("semantix.SemanticAssertionError")[0]
    assert frames.count('File "') == 2
    assert f'File "{script}", line 11, in <module>' in frames
    assert "in assert_semantic" in frames.split(f'File "{script}"')[1]


def test_a_judge_error_in_a_plain_script_shows_the_users_line_and_its_cause(
    tmp_path: Path,
) -> None:
    script = tmp_path / "broken_judge.py"
    script.write_text(
        "from semantix import FakeJudge\n"
        "from semantix.testing import assert_semantic\n"
        "def boom(output, intent):\n"
        "    raise RuntimeError('model offline')\n"
        "assert_semantic('Hi.', 'a greeting', judge=FakeJudge(boom))\n"
    )
    completed = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 1
    *_, last = completed.stderr.split("Traceback (most recent call last):")
    frames, message = last.split("semantix.JudgeError:")
    assert frames.count('File "') == 2  # the user's line and assert_semantic's
    assert 'broken_judge.py", line 5, in <module>' in frames
    assert "model offline" in message
    assert "RuntimeError: model offline" in completed.stderr  # the cause keeps its frames


BENCH_LABELS = (
    "model",
    "warm",
    "floor",
    "overhead",
    "structural",
    "pipeline",
    "agents",
    "batched",
    "threads",
    "long",
    "cold",
    "memory",
    "import",
    "pytest",
    "facts",
    "embedding",
    "semantix-ai",
)


def test_bench_runs_end_to_end_and_prints_every_figure(entailing_model: Path) -> None:
    """A smoke run of scripts/bench on a tiny model: every figure is printed (no timing asserts)."""
    completed = subprocess.run(
        [
            sys.executable,
            str(ROOT / "scripts" / "bench"),
            str(entailing_model),
            "--quick",
            "--burners",
            "1",
            "--semantix-ai-python",
            str(ROOT / "no-such-python"),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    lines = completed.stdout.splitlines()
    printed = {line.split()[0] for line in lines if line.strip()}
    assert printed == set(BENCH_LABELS)
    text = completed.stdout
    assert "ratio min/median" in text and "goal <= 50 us" in text
    assert "20-step trajectory check" in text and "200 steps" in text
    assert text.count("threads ") == 6  # 1 / N spinning / N not spinning, idle and busy
    for factor in ("1.1x", "2.0x", "10.0x", "100.0x"):
        assert f"{factor} window" in text
    assert "empty cache" in text and "warm cache" in text and "bare onnxruntime" in text
    assert "x bare (goal <= 1.1x)" in text
    assert "semantix-ai  not measured" in text
    assert text.count("compare_facts on a ") == 3 and "ms per KB" in text
