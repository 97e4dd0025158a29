"""semantix works from a plain `python script.py`, outside any test runner."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

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
