"""``semantix calibrate LABELS.csv``, with a keyword judge from the fake module."""

from __future__ import annotations

import csv
import fnmatch
import io
import json
import sys
import types
from pathlib import Path

import pytest

from cli_helpers import Polite, fake_modules, run
from semantix import Intent

pytestmark = pytest.mark.usefixtures("fake_modules")
__all__ = ["fake_modules"]

LABELS = """output,intent,expected
Thank you for waiting.,cli_fakes:Polite,yes
"Thanks, I appreciate it.",cli_fakes:Polite,true
Go away.,cli_fakes:Polite,no
Whatever.,cli_fakes:Polite,false
Thank you? Not.,cli_fakes:Polite,false
Thank you!,The text is grateful.,1
Never.,The text is grateful.,0
"""


@pytest.fixture
def labels_csv(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text(LABELS, encoding="utf-8")
    return path


def test_calibrate_reports_metrics_and_thresholds(
    capsys: pytest.CaptureFixture[str], labels_csv: Path
) -> None:
    status, out, err = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")
    assert status == 0
    assert out.splitlines() == [
        f"calibration of KeywordJudge on {labels_csv} (7 rows)",
        "",
        "cli_fakes:Polite: 5 rows, 2 expected to pass",
        "  threshold               accuracy  balanced   kappa",
        "  current 0.800              0.800     0.833   0.615",
        "  best 0.500                 0.800     0.833   0.615",
        "  best accuracy: 95% interval 0.38-0.96 (5 rows)",
        (
            "  at best: sensitivity 1.000 (95% 0.34-1.00, 2 of 2 expected to pass), specificity "
            "0.667 (95% 0.21-0.94, 2 of 3 expected to fail)"
        ),
        SMALL % 5,
        "",
        "'The text is grateful.': 2 rows, 1 expected to pass",
        "  threshold               accuracy  balanced   kappa",
        "  current 0.800              1.000     1.000   1.000",
        "  best 0.500                 1.000     1.000   1.000",
        "  best accuracy: 95% interval 0.34-1.00 (2 rows)",
        (
            "  at best: sensitivity 1.000 (95% 0.21-1.00, 1 of 1 expected to pass), specificity "
            "1.000 (95% 0.21-1.00, 1 of 1 expected to fail)"
        ),
        SMALL % 2,
        "",
        "# thresholds from semantix calibrate (KeywordJudge, labels.csv); paste into each",
        "# intent class, or pass threshold=... for description strings",
        "# cli_fakes:Polite: accuracy 0.800 (95% 0.38-0.96, n=5), kappa 0.615",
        "threshold = 0.500",
        "# judge accuracy at it, for repeated runs: judge_accuracy=(1.000, 0.667, 2, 3)",
        "# 'The text is grateful.': accuracy 1.000 (95% 0.34-1.00, n=2), kappa 1.000",
        "threshold = 0.500",
        "# judge accuracy at it, for repeated runs: judge_accuracy=(1.000, 1.000, 1, 1)",
    ]
    assert err == ""  # not a terminal: no progress bar


SMALL = (
    "  small sample: %d rows; label at least 30 per intent (both passing and failing outputs) "
    "before trusting this threshold"
)


def test_a_one_row_file_shows_the_wilson_interval_and_warns(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text("output,intent,expected\nThank you!,cli_fakes:Polite,yes\n", encoding="utf-8")
    status, out, _ = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert status == 0
    assert "  best accuracy: 95% interval 0.21-1.00 (1 row)" in out.splitlines()
    assert "  small sample: 1 row; label at least 30 per intent" in out
    assert "# cli_fakes:Polite: accuracy 1.000 (95% 0.21-1.00, n=1), kappa 1.000" in out
    # No output labelled to fail: no specificity, so no judge_accuracy to paste.
    assert "specificity n/a (no output expected to fail)" in out
    assert "judge_accuracy=" not in out


def test_json_lines_are_read_like_the_csv(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, labels_csv: Path
) -> None:
    with labels_csv.open(encoding="utf-8", newline="") as handle:
        records = list(csv.DictReader(handle))
    jsonl = tmp_path / "labels.jsonl"
    jsonl.write_text(
        "\n".join(
            json.dumps({**record, "expected": record["expected"] in {"yes", "true", "1"}})
            for record in records
        )
        + "\n",
        encoding="utf-8",
    )
    status, from_csv, _ = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")
    status_jsonl, from_jsonl, _ = run(capsys, "calibrate", str(jsonl), "--judge", "cli_fakes:judge")
    assert status == status_jsonl == 0
    assert from_jsonl.replace("labels.jsonl", "labels.csv") == from_csv


def test_a_bad_json_line_names_the_line_and_the_formats(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.jsonl"
    path.write_text('{"output": "hi", "intent": "polite", "expected": true}\n{"output": "x"}\n')
    status, _, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert status == 2
    assert f"{path}:2 lacks intent, expected; each line needs JSON Lines (.jsonl)" in err


def test_an_excel_csv_with_a_byte_order_mark_reads_its_first_column(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_bytes(LABELS.encode("utf-8-sig"))
    status, out, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert (status, err) == (0, "")
    assert "(7 rows)" in out and "\\ufeff" not in out


def test_a_negated_intent_is_the_imported_intent_with_the_label_flipped(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(
        "output,intent,expected\n"
        "Thank you!,cli_fakes:Polite,yes\n"
        "Go away.,~cli_fakes:Polite,yes\n"
        "Thanks a lot.,~cli_fakes:Polite,no\n",
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert status == 0
    lines = out.splitlines()
    assert "cli_fakes:Polite: 3 rows, 2 expected to pass" in lines
    assert "  2 of them from ~cli_fakes:Polite, with the label flipped" in lines
    assert "  best 0.500                 1.000     1.000   1.000" in lines
    assert "'~cli_fakes:Polite'" not in out  # not calibrated as a literal description


def test_a_terminal_gets_a_progress_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, labels_csv: Path
) -> None:
    pytest.importorskip("tqdm")

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    assert run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")[0] == 0
    assert "scoring" in terminal.getvalue() and "7/7" in terminal.getvalue()


def test_without_tqdm_calibrate_runs_without_a_bar(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, labels_csv: Path
) -> None:
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm: ImportError
    status, out, err = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")
    assert (status, err) == (0, "") and "(7 rows)" in out


def test_calibrate_asks_the_judge_in_batches(
    capsys: pytest.CaptureFixture[str], labels_csv: Path, fake_modules: types.ModuleType
) -> None:
    batches: list[int] = []
    judge = fake_modules.judge

    def evaluate_batch(requests: list[tuple[str, str, float]]) -> list[object]:
        batches.append(len(requests))
        return [judge.evaluate(*request) for request in requests]

    judge.evaluate_batch = evaluate_batch
    assert run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")[0] == 0
    assert batches == [5, 2]  # one call per intent (rows per call: up to 16)


def test_calibrate_filters_intents(capsys: pytest.CaptureFixture[str], labels_csv: Path) -> None:
    status, out, _ = run(
        capsys,
        "calibrate",
        str(labels_csv),
        "--judge",
        "cli_fakes:judge",
        "--intent",
        "The text is grateful.",
    )
    assert status == 0
    assert "(2 rows)" in out
    assert "cli_fakes:Polite" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "text,label\nhi,yes\n",
            "has columns ['text', 'label'] but needs output, intent and expected",
        ),
        ("output,intent,expected\n", "has a header but no rows"),
        ("output,intent,expected\nhi,polite,maybe\n", ":2: expected = 'maybe' is not a label"),
        (
            "output,intent,expected\nhi,cli_fakes:Polite,yes\n",
            "--intent 'Rude' matches no row",
        ),
    ],
)
def test_calibrate_bad_labels(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(content, encoding="utf-8")
    extra = ["--intent", "Rude"] if "--intent" in message else []
    status, out, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge", *extra)
    assert (status, out) == (2, "")
    assert err.startswith("semantix calibrate: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_calibrate_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "calibrate", str(tmp_path / "nope.csv"))
    assert status == 2
    assert (
        "does not exist; pass a CSV file with the header output,intent,expected, or JSON Lines"
        in err
    )


def test_calibrate_needs_scores(capsys: pytest.CaptureFixture[str], labels_csv: Path) -> None:
    status, _, err = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:unscored")
    assert status == 2
    assert "judge NoScore gives no scores, so there is no threshold to calibrate" in err


def test_calibrate_rejects_composite_intents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_modules: types.ModuleType
) -> None:
    fake_modules.NotPolite = ~Polite
    path = tmp_path / "labels.csv"
    path.write_text("output,intent,expected\nhi,cli_fakes:NotPolite,yes\n", encoding="utf-8")
    status, _, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert status == 2
    assert "is composite or negated" in err
    assert "calibrate one plain, positive intent at a time" in err


class PoliteWithExamples(Intent):
    """The text is polite."""

    examples = ("Thank you so much!", "Thanks for asking.")
    counterexamples = ("Go away.", "Whatever.")


class PoliteWithBadExamples(Intent):
    """The text is polite."""

    examples = ("Thank you so much!", "Happy to help.")  # no "thank": the keyword judge fails it
    counterexamples = ("Go away.", "Whatever.")


@pytest.mark.parametrize(
    ("intent", "note"),
    [
        (
            "PoliteWithExamples",
            (
                "  examples separate: weakest example 0.900 > strongest counterexample 0.100; "
                "calibrated threshold 0.500"
            ),
        ),
        (
            "PoliteWithBadExamples",
            (
                "  examples do not separate: this judge cannot tell your examples from your "
                "counterexamples for PoliteWithBadExamples*"
            ),
        ),
    ],
)
def test_calibrate_says_whether_an_intents_examples_separate(
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
    fake_modules: types.ModuleType,
    intent: str,
    note: str,
) -> None:
    fake_modules.PoliteWithExamples = PoliteWithExamples  # type: ignore[attr-defined]
    fake_modules.PoliteWithBadExamples = PoliteWithBadExamples  # type: ignore[attr-defined]
    labels = tmp_path / "labels.csv"
    labels.write_text(
        f"output,intent,expected\nThank you!,cli_fakes:{intent},yes\nNo.,cli_fakes:{intent},no\n",
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "calibrate", str(labels), "--judge", "cli_fakes:judge")
    assert status == 0
    lines = out.splitlines()
    assert fnmatch.fnmatch(lines[3], note), lines[3]
    assert any(line.startswith("  best ") for line in lines)


def test_json_lines_may_hold_line_separators_inside_strings(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "labels.jsonl"
    rows = [
        {"output": "Thank you\u2028for waiting.", "intent": "polite", "expected": True},
        {"output": "Go away\u0085now.", "intent": "polite", "expected": False},
    ]
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows), encoding="utf-8")
    status, out, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert (status, err) == (0, "") and "2 rows" in out
