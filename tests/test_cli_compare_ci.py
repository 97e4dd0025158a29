"""``semantix compare`` on CI: the job summary (``GITHUB_STEP_SUMMARY``) and a pull-request
comment body with a hidden marker, both opening with the result the exit status gives."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cli_helpers import run
from semantix.cli._compare import COMMENT_MARKER


def report(path: Path, *outcomes: str) -> Path:
    records = [
        {"nodeid": f"t.py::test_{i}", "outcome": o, "intent": "Polite", "judge": "J", "leaves": []}
        for i, o in enumerate(outcomes)
    ]
    path.write_text(json.dumps({"version": 3, "assertions": records}), encoding="utf-8")
    return path


def test_a_regression_fails_and_the_summary_and_comment_say_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n", encoding="utf-8")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    base = report(tmp_path / "main.json", "passed", "passed")
    cand = report(tmp_path / "branch.json", "failed", "passed")
    comment = tmp_path / "comment.md"
    status, out, err = run(capsys, "compare", str(base), str(cand), "--comment", str(comment))
    assert (status, err) == (1, "")
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("earlier step\n**Result: failed** (`--fail-on regressions`)\n")
    assert "#### Regressions (1)" in written and "`t.py::test_0`" in written
    body = comment.read_text(encoding="utf-8")
    assert body.splitlines()[0] == COMMENT_MARKER == "<!-- semantix-compare -->"
    assert body.splitlines()[1] == "**Result: failed** (`--fail-on regressions`)"
    assert written.endswith(body.split("\n", 1)[1] + "\n")  # the same view in both
    assert "regression" in out  # the terminal view is unchanged


def test_no_regression_passes_and_says_passed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = report(tmp_path / "main.json", "passed", "failed")
    cand = report(tmp_path / "branch.json", "passed", "passed")
    comment = tmp_path / "comment.md"
    status, _, _ = run(capsys, "compare", str(base), str(cand), "--comment", str(comment))
    assert status == 0
    assert comment.read_text(encoding="utf-8").splitlines()[1].startswith("**Result: passed**")


def test_without_github_nothing_is_written_beside(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = report(tmp_path / "main.json", "passed")
    status, _, _ = run(capsys, "compare", str(base), str(base))
    assert status == 0 and sorted(p.name for p in tmp_path.iterdir()) == ["main.json"]
