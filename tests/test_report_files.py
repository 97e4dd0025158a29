"""Report files never break: unencodable text is replaced, a failed write leaves no partial file,
a damaged JSON report is one line naming the file and the field, and API keys are masked in
every sink (issue 21, items 4-6)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, JudgeError, Verdict, evaluate_semantic
from semantix._files import encodable, write_atomic
from semantix.cli import main
from semantix.report import error_record, json_document, result_record
from semantix.report._html import render, write_html_report
from semantix.report._model import to_json
from semantix.report._records import write_json_report
from semantix.report._schema import ReportDocumentError, check_document, load_report

KEY = "sk-test-secret-0123456789abcdef"


class Polite(Intent):
    """The text is polite."""


def _surrogate_judge() -> FakeJudge:
    return FakeJudge(lambda o, d: Verdict(passed=False, score=0.1, reason="bad \ud800 byte"))


def _document(**record_changes: Any) -> dict[str, Any]:
    result = evaluate_semantic("Thanks \udfff!", Polite, judge=_surrogate_judge())
    document = json_document([result_record(result, "t.py::test_a")])
    document["assertions"][0].update(record_changes)
    return document


# --- writing -----------------------------------------------------------------------------------


def test_encodable_replaces_lone_surrogates_and_joins_pairs() -> None:
    assert encodable("a\ud800b") == "a\ufffdb"
    assert encodable("\ud83d\ude00") == "\U0001f600"  # a split pair is its character
    text = "plain"
    assert encodable(text) is text


def test_records_hold_no_lone_surrogate() -> None:
    record = _document()["assertions"][0]
    assert record["output"] == "Thanks \ufffd!"
    assert record["leaves"][0]["reason"] == "bad \ufffd byte"
    json.dumps(record, ensure_ascii=False).encode("utf-8")  # what an xdist payload needs


def test_json_and_html_reports_with_a_lone_surrogate_are_written_whole(tmp_path: Path) -> None:
    document = _document()
    document["meta"] = {"note": "from a section \ud800"}  # a feature's section, not a record
    write_json_report(tmp_path / "r.json", document)
    write_html_report(tmp_path / "r.html", document, json_path=tmp_path / "r.json")
    loaded = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert loaded["meta"]["note"] == "from a section \ufffd"
    page = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "bad \ufffd byte" in page and page.rstrip().endswith("</html>")


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "report.json"
    target.write_text("old", encoding="utf-8")

    def broken_replace(source: str, destination: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="No space left"):
        write_atomic(target, "new")
    assert target.read_text(encoding="utf-8") == "old"
    assert sorted(path.name for path in tmp_path.iterdir()) == ["report.json"]


def test_a_new_file_gets_the_permissions_open_would_give(tmp_path: Path) -> None:
    write_atomic(tmp_path / "a.txt", "x")
    (tmp_path / "b.txt").write_text("x", encoding="utf-8")
    assert (tmp_path / "a.txt").stat().st_mode == (tmp_path / "b.txt").stat().st_mode


# --- reading: semantix report on damaged files -------------------------------------------------


def _cli(tmp_path: Path, content: bytes, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    source = tmp_path / "report.json"
    source.write_bytes(content)
    status = main(["report", str(source), "-o", str(tmp_path / "p.html")])
    return status, capsys.readouterr().err


def test_cli_renders_escaped_lone_surrogates(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    document = json_document([])
    document["assertions"] = [
        {"nodeid": "t::a", "outcome": "failed", "intent": "Polite", "output": "x", "leaves": []}
    ]
    text = json.dumps(document).replace('"x"', '"\\ud800 and \\udfff"')
    status, err = _cli(tmp_path, text.encode("ascii"), capsys)
    assert (status, err) == (0, "")
    assert "\ufffd and \ufffd" in (tmp_path / "p.html").read_text(encoding="utf-8")


def test_cli_on_a_binary_file_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _cli(tmp_path, b"\x89PNG\r\n\x1a\n\xff\x00", capsys)
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert "report.json" in err and "is not UTF-8 text (byte 0x89 at offset 0)" in err
    assert "--semantic-report-json" in err and not (tmp_path / "p.html").exists()


def test_cli_on_json_nested_100000_levels_deep(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, err = _cli(tmp_path, b"[" * 100_000 + b"]" * 100_000, capsys)
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert "report.json" in err and "nests arrays or objects deeper than can be read" in err


@pytest.mark.parametrize(
    ("change", "field", "expected"),
    [
        ({"snapshots": {"deleted": 5}}, "snapshots.deleted is 5 (an integer)", "a list of strings"),
        ({"leaves": "Polite"}, "assertions[0].leaves is 'Polite' (a string)", "a list of objects"),
        (
            {"score": "high"},
            "assertions[0].leaves[0].score is 'high' (a string)",
            "a number or null",
        ),
        (
            {"outcome": "maybe"},
            "assertions[0].outcome is 'maybe'",
            "'passed' or 'failed' or 'error'",
        ),
        ({"summary": {"total": "3"}}, "summary.total is '3' (a string)", "an integer"),
    ],
)
def test_cli_on_a_field_of_the_wrong_type_names_the_field(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    change: dict[str, Any],
    field: str,
    expected: str,
) -> None:
    document = json.loads(json.dumps(_document()))
    if "score" in change:
        document["assertions"][0]["leaves"][0].update(change)
    elif set(change) <= {"leaves", "outcome"}:
        document["assertions"][0].update(change)
    else:
        document.update(change)
    status, err = _cli(tmp_path, json.dumps(document).encode(), capsys)
    assert status == 2
    assert len(err.strip().splitlines()) == 1
    assert "report.json" in err and field in err and f"expected {expected}" in err


def test_check_document_reads_back_what_json_document_writes() -> None:
    document = json.loads(json.dumps(_document()))
    # the typed model round-trips (and a report it writes lists its tests, none here)
    assert check_document(document).to_json() == document | {"tests": []}
    with pytest.raises(ReportDocumentError, match=r"assertions\[0\]\.nodeid is 7"):
        render({"version": 2, "assertions": [{"nodeid": 7}]})


def test_load_report_on_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ReportDocumentError, match="cannot read the JSON report .*nope.json"):
        load_report(tmp_path / "nope.json")


# --- masking in every sink ---------------------------------------------------------------------


def test_records_mask_the_openai_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    judge = FakeJudge(lambda o, d: Verdict(passed=False, score=0.1, reason=f"echo {KEY}"))
    record = result_record(evaluate_semantic(f"my key is {KEY}", Polite, judge=judge), "t::a")
    error = error_record("t::b", JudgeError(f"rejected {KEY}"), output=f"out {KEY}")
    text = json.dumps(to_json([record, error]))
    assert KEY not in text
    assert record.output == "my key is ********"
    assert record.leaves[0].reason == "echo ********"
    assert error.error == "JudgeError: rejected ********" and error.output == "out ********"


SUITE = '''
from semantix import FakeJudge, Intent, Verdict

KEY = "sk-test-secret-0123456789abcdef"

class Polite(Intent):
    """The text is polite."""

def judge_fn(output, description):
    return Verdict(passed=False, score=0.1, reason="odd \\ud800 reason")

def test_leaks(semantic):
    from semantix import assert_semantic
    assert_semantic("here is " + KEY + " \\udfff", Polite, judge=FakeJudge(judge_fn))
'''


def test_pytest_run_with_a_surrogate_and_a_key_writes_every_report_masked(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest_subprocess(
        "-p",
        "no:cacheprovider",
        "--semantic-report-json=out/r.json",
        "--semantic-report-html=out/r.html",
        "--junitxml=out/junit.xml",
    )
    result.assert_outcomes(failed=1)
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    out = pytester.path / "out"
    document = json.loads((out / "r.json").read_text(encoding="utf-8"))
    record = document["assertions"][0]
    assert record["output"] == "here is ******** \ufffd"
    assert record["leaves"][0]["reason"] == "odd \ufffd reason"
    for name in ("r.json", "r.html", "junit.xml"):
        text = (out / name).read_text(encoding="utf-8")
        assert KEY not in text, name
    assert "here is ********" in (out / "junit.xml").read_text(encoding="utf-8")
