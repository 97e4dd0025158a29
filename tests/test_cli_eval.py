"""``semantix eval``: the command over `semantix.datasets` (exit status, options, messages)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cli_helpers import fake_modules, run
from semantix.report._schema import load_report


def report_json(path: Path) -> Any:
    """The report file as JSON, after the report's own reader accepted it."""
    load_report(path)
    return json.loads(Path(path).read_text(encoding="utf-8"))


__all__ = ["fake_modules"]

CONTAINS = "semantix.checks:Contains('refund')"


def rows(path: Path, *outputs: str) -> Path:
    path.write_text(
        "".join(json.dumps({"id": str(n), "output": o}) + "\n" for n, o in enumerate(outputs)),
        encoding="utf-8",
    )
    return path


def test_exit_0_when_every_record_passed_and_1_when_one_did_not(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    good = rows(tmp_path / "good.jsonl", "refund", "a refund")
    status, out, err = run(
        capsys, "eval", str(good), "--intent", CONTAINS, "-o", str(tmp_path / "g.json")
    )
    assert (status, err) == (0, "")
    assert (
        out == f"2 rows, 2 records: 2 passed, 0 failed, 0 errors; report: {tmp_path / 'g.json'}\n"
    )
    mixed = rows(tmp_path / "mixed.jsonl", "refund", "nothing")
    status, out, _ = run(
        capsys, "eval", str(mixed), "--intent", CONTAINS, "-o", str(tmp_path / "m.json"), "--quiet"
    )
    assert (status, out) == (1, "")
    assert report_json(tmp_path / "m.json")["summary"]["failed"] == 1


def test_a_row_error_fails_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text('{"output": "refund"}\n{"output": null}\n', encoding="utf-8")
    status, out, _ = run(
        capsys, "eval", str(data), "--intent", CONTAINS, "-o", str(tmp_path / "r.json")
    )
    assert status == 1 and "1 passed, 0 failed, 1 errors" in out


@pytest.mark.usefixtures("fake_modules")
def test_judge_and_composite_intents_and_the_output_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = tmp_path / "rows.jsonl"
    data.write_text('{"id": "t", "reply": "thank you, refund sent"}\n', encoding="utf-8")
    status, _, err = run(
        capsys, "eval", str(data), "--intent", f"{CONTAINS} & ~cli_fakes:Polite",
        "--intent", "cli_fakes:Polite", "--judge", "cli_fakes:judge", "--output-field", "reply",
        "-o", str(tmp_path / "r.json"),
    )  # fmt: skip
    assert (status, err) == (1, "")
    found = report_json(tmp_path / "r.json")["assertions"]
    assert [(r["intent"], r["outcome"]) for r in found] == [
        ("Contains('refund') & ~Polite", "failed"),
        ("Polite", "passed"),
    ]
    assert found[1]["judge"] == "KeywordJudge"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--shard", "4/3"], "shard 4 of 3 does not exist"),
        (["--intent", "nope_module:X"], "cannot import 'nope_module'"),
        (["--judge", "embeding"], "did you mean 'embedding'"),
    ],
)
def test_what_cannot_run_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    data = rows(tmp_path / "rows.jsonl", "refund")
    status, _, err = run(
        capsys, "eval", str(data), "--intent", CONTAINS, *argv, "-o", str(tmp_path / "r.json")
    )
    assert status == 2 and err.startswith("semantix eval: error: ") and message in err
    assert not (tmp_path / "r.json").exists()


def test_ctrl_c_keeps_the_finished_rows_and_says_how_to_resume(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from semantix.datasets import _judging as judging

    data = rows(tmp_path / "rows.jsonl", *[f"refund {n}" for n in range(6)])
    calls = []
    real = judging.Judging.judge

    def interrupted(self: judging.Judging, batch: list[object]) -> object:
        calls.append(len(batch))
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(self, batch)  # type: ignore[arg-type]

    monkeypatch.setattr(judging.Judging, "judge", interrupted)
    report = tmp_path / "r.json"
    argv = ["eval", str(data), "--intent", CONTAINS, "-o", str(report), "--batch-size", "2"]
    status, _, err = run(capsys, *argv)
    assert status == 130
    assert f"the finished rows' records are in {report}.records.jsonl" in err
    monkeypatch.setattr(judging.Judging, "judge", real)
    status, out, _ = run(capsys, *argv, "--resume")
    assert status == 0 and out.startswith("6 rows (2 resumed), 6 records: 6 passed")
