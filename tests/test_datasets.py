"""`semantix.datasets`: rows in (JSON Lines, CSV, Parquet, directories, stdin), one record per
row and intent out, through the one pipeline; bad rows are their own errors; resume; shards."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, JudgeError
from semantix.datasets import DatasetResult, Fields, evaluate_dataset
from semantix.datasets._judging import Judging
from semantix.datasets._rows import read_rows
from semantix.datasets._sidefile import side_path
from semantix.errors import ConfigurationError
from semantix.pipeline._options import read_options
from semantix.report._schema import load_report


def report_json(path: Path) -> Any:
    """The report file as JSON, after the report's own reader accepted it."""
    load_report(path)
    return json.loads(Path(path).read_text(encoding="utf-8"))


CONTAINS = "semantix.checks:Contains('refund')"


def write_jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text(
        "\n".join(row if isinstance(row, str) else json.dumps(row) for row in rows) + "\n",
        encoding="utf-8",
    )
    return path


def records(report: Path) -> list[dict[str, Any]]:
    return list(report_json(report)["assertions"])


def outcomes(report: Path) -> list[tuple[str, str, str]]:
    return [(r["nodeid"], r["intent"], r["outcome"]) for r in records(report)]


def timeless(found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records without what the clock decides (durations, latencies)."""
    return [
        {**r, "duration_ms": None, "leaves": [{**leaf, "latency_ms": None} for leaf in r["leaves"]]}
        for r in found
    ]


def polite_judge() -> FakeJudge:
    return FakeJudge(lambda output, intent: 0.9 if "thank" in output.lower() else 0.1)


def test_every_row_gets_a_record_per_intent_and_the_report_loads(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl",
        [
            {"id": "a", "output": "Thank you, your refund is on its way."},
            {"id": "b", "output": "No refund."},
            {"id": "c", "output": "Thanks!"},
        ],
    )
    judge = polite_judge()
    result = evaluate_dataset(
        data, [CONTAINS, "The text is polite."], report=tmp_path / "r.json", judge=judge
    )
    assert outcomes(tmp_path / "r.json") == [
        ("a", "Contains('refund')", "passed"),
        ("a", "'The text is polite.'", "passed"),
        ("b", "Contains('refund')", "passed"),
        ("b", "'The text is polite.'", "failed"),
        ("c", "Contains('refund')", "failed"),
        ("c", "'The text is polite.'", "passed"),
    ]
    assert (result.rows, result.records, result.passed, result.failed) == (3, 6, 4, 2)
    assert not result.passed_all
    document = report_json(tmp_path / "r.json")
    assert document["summary"]["total"] == 6 and document["summary"]["failed"] == 2
    assert document["meta"]["judges"] == ["FakeJudge", "structural"]
    assert [r["source"] for r in records(tmp_path / "r.json")][::2] == [
        f"{data}:1", f"{data}:2", f"{data}:3",
    ]  # fmt: skip
    assert not side_path(tmp_path / "r.json").exists()  # assembled, then removed


def test_semantic_leaves_of_a_batch_go_to_the_judge_in_one_batch(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [{"output": f"thanks {n}"} for n in range(10)])
    batches: list[int] = []

    class Counting(FakeJudge):
        def evaluate_batch(self, requests: Any) -> Any:
            batches.append(len(requests))
            return super().evaluate_batch(requests)

    judge = Counting(lambda output, intent: 0.9)
    evaluate_dataset(data, ["The text is polite."], report=tmp_path / "r.json", judge=judge,
                     batch_size=4)  # fmt: skip
    assert batches == [4, 4, 2]


def test_bad_rows_are_their_own_errors_with_the_line_never_a_pass(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl",
        [
            {"id": "ok", "output": "refund"},
            "not json",
            {"id": "nofield", "reply": "refund"},
            {"id": "number", "output": 42},
            [1, 2],
            {"id": True, "output": "refund"},
            {"id": "label", "output": "refund", "expected": "maybe"},
        ],
    )
    result = evaluate_dataset(data, [CONTAINS], report=tmp_path / "r.json")
    found = records(tmp_path / "r.json")
    assert [r["outcome"] for r in found] == ["passed"] + ["error"] * 6
    errors = [r["error"] for r in found[1:]]
    assert errors[0].startswith(f"RowError: {data}:2: not JSON")
    assert f"{data}:3: no field 'output' holds the output (fields: id, reply)" in errors[1]
    assert f"{data}:4: output must be text, got 42" in errors[2]
    assert f"{data}:5: a row is an object of named fields, got list" in errors[3]
    assert f"{data}:6: id True is not a usable id" in errors[4]
    assert f"{data}:7: expected = 'maybe' is not a label" in errors[5]
    assert all(r["intent"] == "Contains('refund')" for r in found)  # pairs with a good run's
    assert (result.errors, result.passed) == (6, 1)


def test_a_judge_error_is_every_judged_rows_error(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [{"output": "a"}, {"output": "b"}])

    def broken(output: str, intent: str) -> float:
        raise RuntimeError("model exploded")

    result = evaluate_dataset(
        data, ["The text is polite."], report=tmp_path / "r.json", judge=FakeJudge(broken)
    )
    found = records(tmp_path / "r.json")
    assert [r["outcome"] for r in found] == ["error", "error"]
    assert all("model exploded" in r["error"] for r in found)
    assert result.errors == 2 and result.passed == 0


def test_rows_carry_their_own_intents_and_labels_like_semantix_cases(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "golden.jsonl",
        [
            {"id": "1", "output": "thank you", "intent": "The text is polite.", "expected": True},
            {"id": "2", "output": "go away", "intent": "The text is polite.", "expected": False},
            {"id": "3", "output": "go away", "intents": ["The text is polite."], "expected": "yes"},
        ],
    )
    evaluate_dataset(data, report=tmp_path / "r.json", judge=polite_judge())
    assert outcomes(tmp_path / "r.json") == [
        ("1", "'The text is polite.'", "passed"),
        ("2", "~'The text is polite.'", "passed"),  # labelled false: judged as its negation
        ("3", "'The text is polite.'", "failed"),
    ]
    assert [r["expected"] for r in records(tmp_path / "r.json")] == [True, False, True]


def test_a_row_with_no_intent_at_all_is_its_error(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [{"id": "x", "output": "hi"}])
    evaluate_dataset(data, report=tmp_path / "r.json")
    (record,) = records(tmp_path / "r.json")
    assert record["outcome"] == "error" and "no intent; pass --intent" in record["error"]


def test_csv_and_a_directory_of_files_and_the_output_field(tmp_path: Path) -> None:
    folder = tmp_path / "export"
    (folder / "b").mkdir(parents=True)
    (folder / "a.csv").write_text('id,reply\nx,"refund, today"\ny,none\n', encoding="utf-8")
    write_jsonl(folder / "b" / "c.jsonl", [{"id": "z", "reply": "refund"}])
    (folder / "notes.txt").write_text("ignored", encoding="utf-8")
    evaluate_dataset(folder, [CONTAINS], report=tmp_path / "r.json", fields=Fields(output="reply"))
    assert [(r["nodeid"], r["outcome"], r["source"]) for r in records(tmp_path / "r.json")] == [
        ("x", "passed", f"{folder / 'a.csv'}:2"),
        ("y", "failed", f"{folder / 'a.csv'}:3"),
        ("z", "passed", f"{folder / 'b' / 'c.jsonl'}:1"),
    ]


def test_parquet_rows(tmp_path: Path) -> None:
    pyarrow = pytest.importorskip("pyarrow")
    from pyarrow import parquet

    table = pyarrow.table({"id": ["p", "q"], "output": ["refund", "nothing"]})
    parquet.write_table(table, tmp_path / "rows.parquet")
    evaluate_dataset(tmp_path / "rows.parquet", [CONTAINS], report=tmp_path / "r.json")
    assert [(r["nodeid"], r["outcome"], r["source"]) for r in records(tmp_path / "r.json")] == [
        ("p", "passed", f"{tmp_path / 'rows.parquet'}:row 1"),
        ("q", "failed", f"{tmp_path / 'rows.parquet'}:row 2"),
    ]


def test_parquet_without_pyarrow_names_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "rows.parquet").write_bytes(b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(
        ConfigurationError, match=r"needs pyarrow: pip install 'semantix-judge\[eval\]'"
    ):
        evaluate_dataset(tmp_path / "rows.parquet", [CONTAINS], report=tmp_path / "r.json")


def test_stdin_is_json_lines(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = b'{"id": "s", "output": "refund"}\n\n{"id": "t", "output": "no"}\n'
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(lines)))
    evaluate_dataset("-", [CONTAINS], report=tmp_path / "r.json")
    assert [(r["nodeid"], r["source"]) for r in records(tmp_path / "r.json")] == [
        ("s", "<stdin>:1"), ("t", "<stdin>:3"),
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("missing.jsonl", None, "does not exist"),
        ("rows.txt", "x", "expected JSON Lines"),
        ("empty.jsonl", "\n", "holds no rows"),
    ],
)
def test_data_that_cannot_be_read_stops_the_run(
    tmp_path: Path, name: str, text: str | None, message: str
) -> None:
    if text is not None:
        (tmp_path / name).write_text(text, encoding="utf-8")
    with pytest.raises(ConfigurationError, match=message):
        evaluate_dataset(tmp_path / name, [CONTAINS], report=tmp_path / "r.json")
    assert not (tmp_path / "r.json").exists()


def test_a_bad_threshold_or_judge_stops_the_run_before_any_row(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [{"output": "x"}])
    with pytest.raises(TypeError, match="has only structural leaves"):
        evaluate_dataset(data, [CONTAINS], report=tmp_path / "r.json", threshold=0.5)
    with pytest.raises(ConfigurationError, match="cannot import 'nope'"):
        evaluate_dataset(data, ["polite"], report=tmp_path / "r.json", judge="nope:judge")
    with pytest.raises(ConfigurationError, match="is one string; pass a list"):
        evaluate_dataset(data, "polite", report=tmp_path / "r.json")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rows.jsonl"]


def test_a_bad_intent_spec_stops_the_run_before_any_row(tmp_path: Path) -> None:
    data = write_jsonl(tmp_path / "rows.jsonl", [{"output": "x"}])
    with pytest.raises(ConfigurationError, match="cannot import 'no_such_module'"):
        evaluate_dataset(data, ["no_such_module:Polite"], report=tmp_path / "r.json")


class Interrupting(FakeJudge):
    """Raises KeyboardInterrupt on its ``stop_at``-th batch."""

    def __init__(self, stop_at: int) -> None:
        super().__init__(lambda output, intent: 0.9)
        self.stop_at, self.batches = stop_at, 0

    def evaluate_batch(self, requests: Any) -> Any:
        self.batches += 1
        if self.batches == self.stop_at:
            raise KeyboardInterrupt
        return super().evaluate_batch(requests)


def test_interrupted_runs_keep_finished_rows_and_resume_after_them(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl", [{"id": str(n), "output": f"thanks {n}"} for n in range(10)]
    )
    report = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        evaluate_dataset(data, ["polite"], report=report, judge=Interrupting(3), batch_size=3)
    assert not report.exists()
    kept = side_path(report).read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["id"] for line in kept[1:]] == ["0", "1", "2", "3", "4", "5"]
    with pytest.raises(ConfigurationError, match="pass --resume"):
        evaluate_dataset(data, ["polite"], report=report, judge=polite_judge())
    with pytest.raises(ConfigurationError, match="other intents"):
        evaluate_dataset(data, ["rude"], report=report, resume=True, judge=polite_judge())
    judge = polite_judge()
    result = evaluate_dataset(data, ["polite"], report=report, judge=judge, resume=True)
    assert [output for output, _ in judge.calls] == [f"thanks {n}" for n in range(6, 10)]
    assert [r["nodeid"] for r in records(report)] == [str(n) for n in range(10)]
    assert (result.rows, result.resumed, result.passed) == (10, 6, 10)


def test_resume_drops_a_line_cut_short_and_refuses_changed_data(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl", [{"id": str(n), "output": f"thanks {n}"} for n in range(4)]
    )
    report = tmp_path / "r.json"
    with pytest.raises(KeyboardInterrupt):
        evaluate_dataset(data, ["polite"], report=report, judge=Interrupting(2), batch_size=2)
    with side_path(report).open("a", encoding="utf-8") as file:
        file.write('{"row": 2, "id": "2", "reco')  # a kill in the middle of a write
    result = evaluate_dataset(data, ["polite"], report=report, judge=polite_judge(), resume=True)
    assert [r["nodeid"] for r in records(report)] == ["0", "1", "2", "3"] and result.resumed == 2
    with pytest.raises(KeyboardInterrupt):
        evaluate_dataset(data, ["polite"], report=report, judge=Interrupting(2), batch_size=2)
    write_jsonl(data, [{"id": "other", "output": "x"}] * 4)
    with pytest.raises(ConfigurationError, match="the data changed since"):
        evaluate_dataset(data, ["polite"], report=report, judge=polite_judge(), resume=True)


def test_shards_split_the_rows_by_id_exactly_once(tmp_path: Path) -> None:
    data = write_jsonl(
        tmp_path / "rows.jsonl", [{"id": f"r{n}", "output": "refund"} for n in range(40)]
    )
    whole = evaluate_dataset(data, [CONTAINS], report=tmp_path / "all.json")
    ids: list[str] = []
    for index in (1, 2, 3):
        report = tmp_path / f"shard-{index}.json"
        evaluate_dataset(data, [CONTAINS], report=report, shard=f"{index}/3")
        assert report_json(report)["meta"]["shard"] == f"{index}/3"
        ids += [r["nodeid"] for r in records(report)]
    assert sorted(ids) == sorted(r["nodeid"] for r in records(tmp_path / "all.json"))
    assert len(ids) == whole.records == 40
    again = tmp_path / "again.json"
    evaluate_dataset(data, [CONTAINS], report=again, shard="2/3")
    assert timeless(records(again)) == timeless(records(tmp_path / "shard-2.json"))


def test_judging_keeps_row_order_across_intent_groups() -> None:
    rows = list(
        read_rows_from(
            [
                {"id": "1", "output": "refund", "intent": "semantix.checks:Contains('x')"},
                {"id": "2", "output": "refund"},
            ]
        )
    )
    judging = Judging((CONTAINS,), read_options({}, what="test"))
    decided = judging.judge(rows)
    assert [[r["intent"] for r in got] for got in decided] == [
        ["Contains('refund')", "Contains('x')"],
        ["Contains('refund')"],
    ]


def read_rows_from(items: list[dict[str, Any]]) -> Any:
    import tempfile

    folder = Path(tempfile.mkdtemp())
    return read_rows(write_jsonl(folder / "rows.jsonl", items))


def test_dataset_result_repr_shows_the_counts(tmp_path: Path) -> None:
    result = DatasetResult(tmp_path / "r.json", rows=2, records=2, passed=1, failed=1, errors=0)
    assert (
        repr(result)
        == f"<DatasetResult 2 rows: 1 passed, 1 failed, 0 errors -> {tmp_path / 'r.json'}>"
    )
    assert JudgeError  # the judge's errors are records: see test_a_judge_error_...


def test_the_progress_bar_shows_rows_and_failures_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("tqdm")
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    data = write_jsonl(tmp_path / "rows.jsonl", [{"output": "refund"}, {"output": "no"}])
    evaluate_dataset(data, [CONTAINS], report=tmp_path / "r.json", progress=True)
    shown = capsys.readouterr().err
    assert "2/2" in shown and "rows" in shown and "failures=1" in shown
    evaluate_dataset(data, [CONTAINS], report=tmp_path / "q.json", progress=False)
    assert capsys.readouterr().err == ""
