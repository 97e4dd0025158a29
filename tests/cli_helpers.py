"""Shared pieces of the CLI tests: an importable module of fake judges and intents, and
``run`` for ``main(argv)`` with the captured output."""

from __future__ import annotations

import subprocess
import sys
import types
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from semantix import FakeJudge, Intent, Verdict, clear_cache
from semantix.cli import main

#: The console script installed beside the interpreter.
SEMANTIX = Path(sys.executable).parent / "semantix"


class Polite(Intent):
    """The text is polite."""


class LenientPolite(Intent):
    """The text is polite."""

    threshold = 0.5


def keyword_score(output: str, description: str) -> float:
    return 0.9 if "thank" in output.lower() else 0.1


@pytest.fixture
def fake_modules(monkeypatch: pytest.MonkeyPatch) -> Iterator[types.ModuleType]:
    """An importable module 'cli_fakes' holding judges and intents, named by import path.

    Judges named by spec are built once per process (``resolve_judge``): the cache is cleared
    around each test so every test gets its own fakes.
    """
    clear_cache()
    module = types.ModuleType("cli_fakes")
    module.judge = FakeJudge(keyword_score, name="KeywordJudge")  # type: ignore[attr-defined]
    module.unscored = FakeJudge(  # type: ignore[attr-defined]
        lambda output, description: Verdict(passed=True), name="NoScore"
    )
    module.Polite = Polite  # type: ignore[attr-defined]
    module.LenientPolite = LenientPolite  # type: ignore[attr-defined]
    module.not_an_intent = 42  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cli_fakes", module)
    yield module
    clear_cache()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    """``main(argv)``: the exit status, stdout and stderr."""
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def run_process(
    argv: Sequence[str], cwd: Path, *, module: bool | str = False, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """The command in a fresh process: the console script, or ``python -m semantix`` when
    ``module`` is True (``python -m <module>`` when it names one)."""
    if module:
        command = [sys.executable, "-m", module if isinstance(module, str) else "semantix"]
    else:
        command = [str(SEMANTIX)]
    return subprocess.run(
        [*command, *argv],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
