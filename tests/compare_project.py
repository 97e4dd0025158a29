"""A small project run twice — with the baseline's fake judge, then the candidate's — for the
tests of ``semantix compare``, ``--semantic-baseline`` and ``semantix report merge``.

What the candidate changes, by test (threshold 0.5):

- ``test_thanks``, ``test_rude``: the same in both (passed; failed);
- ``test_sorry``: passed -> failed (a regression);
- ``test_please``: failed -> passed (a fix);
- ``test_twice``: two assertions of ``Polite``; the second ("Sorry!") regresses (``Polite #2``);
- ``test_boom``: passed -> error (the candidate's judge raises: a regression);
- ``test_marked``: judged by ``MarkedA`` in the baseline, ``MarkedB`` in the candidate (flagged);
- ``test_removed`` only in the baseline, ``test_new`` only in the candidate;
- ``test_flaky``: 20 runs alternating "Sorry." and "Thank you.": 20/20 -> 10/20, significantly
  worse (Newcombe), its verdict passing in both (floor 0.5).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

JUDGES = """
import os
from semantix import FakeJudge

def base_score(output, description):
    text = output.lower()
    return 0.9 if "thank" in text or "sorry" in text else 0.1

def cand_score(output, description):
    text = output.lower()
    if "boom" in text:
        raise RuntimeError("the candidate judge broke on boom")
    if "sorry" in text:
        return 0.1
    return 0.9 if "thank" in text or "please" in text else 0.1

base = FakeJudge(base_score, name="KeywordJudge")
cand = FakeJudge(cand_score, name="KeywordJudge")
marked = FakeJudge(base_score, name=os.environ.get("MARKED_NAME", "Marked"))
"""

SUITE = '''
import itertools
import os

import pytest
from semantix import Intent

class Polite(Intent):
    """The text is polite."""
    threshold = 0.5

def test_thanks(semantic):
    semantic("Thank you for waiting.", Polite)

def test_sorry(semantic):
    semantic("Sorry for the delay.", Polite)

def test_please(semantic):
    semantic("Please hold.", Polite)

def test_rude(semantic):
    semantic("Go away.", Polite)

def test_twice(semantic):
    semantic("Thank you!", Polite)
    semantic("Sorry!", Polite)

def test_boom(semantic):
    semantic("Thanks, boom.", Polite)

@pytest.mark.semantic(judge="judges_mod:marked")
def test_marked(semantic):
    semantic("Thank you.", Polite)

if os.environ.get("RUN") == "base":
    def test_removed(semantic):
        semantic("Thank you.", Polite)
else:
    def test_new(semantic):
        semantic("Go away.", Polite)

replies = itertools.cycle(["Sorry.", "Thank you."])

@pytest.mark.semantic(runs=20, min_pass_rate=0.5)
def test_flaky(semantic):
    semantic(next(replies), Polite)
'''

#: The run's environment for each side: its judge, and the marked test's judge's name.
SIDES = {
    "base": {"RUN": "base", "MARKED_NAME": "MarkedA", "JUDGE": "judges_mod:base"},
    "cand": {"RUN": "cand", "MARKED_NAME": "MarkedB", "JUDGE": "judges_mod:cand"},
}


def write_project(root: Path) -> None:
    (root / "judges_mod.py").write_text(JUDGES, encoding="utf-8")
    (root / "test_app.py").write_text(SUITE, encoding="utf-8")


def side_env(side: str, root: Path) -> dict[str, str]:
    """The environment of one side's run (the project importable, no CI or semantix variables)."""
    env = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("SEMANTIX_", "PYTEST_")) and name not in ("CI", "COLUMNS")
    }
    env.update(SIDES[side], PYTHONPATH=os.pathsep.join([str(root), *sys.path]), COLUMNS="200")
    return env


def run_side(root: Path, side: str, *args: str) -> subprocess.CompletedProcess[str]:
    """One side's pytest run in a fresh process (what pytester's runpytest_subprocess does)."""
    env = side_env(side, root)
    command = [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q"]
    return subprocess.run(
        [*command, "--semantic-judge", env["JUDGE"], *args],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
