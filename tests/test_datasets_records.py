"""`semantix eval` makes each row's record as its JSON at once (issue 46: the typed record made
then turned into JSON was most of a structural row's cost): it equals the pytest plugin's record
(`result_record`) as the report writes it, whatever the result holds."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.checks import Contains
from semantix.datasets import _runner as runner
from semantix.datasets import evaluate_dataset
from semantix.datasets._records import Tally, encoder, row_error, row_record
from semantix.judges._verdict import TokenUsage
from semantix.report._model import summarize, to_json
from semantix.report._records import error_record, result_record
from semantix.report._schema import record_from_json

SECRET = "sk-test-0123456789abcdef"


class Polite(Intent):
    """The text is polite."""

    threshold = 0.88  # a score of 0.9 is borderline


class Medical(Intent):
    """The text gives medical advice."""


def _verdict(output: str, description: str) -> Verdict:
    usage = TokenUsage(prompt_tokens=12, completion_tokens=3)
    reason = f"said {output[:12]} with key {SECRET}"
    polite = "thank" in output.lower()
    return Verdict(passed=polite, score=0.9 if polite else 0.1, reason=reason, usage=usage)


RESULTS = [
    ("Thank you ✓ — déjà vu", Polite),
    (f"leaked {SECRET} thank you", Polite & ~Medical),
    ("refund issued", Contains("refund") & Polite),
    ("nothing here", Contains("refund") & Polite),  # decided before the judge: not judged
    ("", Polite),
]


@pytest.mark.parametrize(("output", "intent"), RESULTS)
@pytest.mark.parametrize("secrets", [(), (SECRET,)])
@pytest.mark.parametrize("expected", [None, True, False])
def test_a_rows_record_is_the_plugins_record_as_json(
    output: str, intent: object, secrets: tuple[str, ...], expected: bool | None
) -> None:
    result = evaluate_semantic(output, intent, judge=FakeJudge(_verdict))  # type: ignore[arg-type]
    typed = result_record(result, "row-1", source="d.jsonl:3", expected=expected, secrets=secrets)
    made = row_record(result, "row-1", "d.jsonl:3", expected, secrets)
    assert made == to_json(typed)
    assert list(made) == list(to_json(typed))  # the same order: the same report text
    assert record_from_json(made) == typed
    if secrets:
        assert SECRET not in str(made)


def test_the_tally_counts_as_summarize_counts() -> None:
    judge = FakeJudge(_verdict)
    results = [evaluate_semantic(output, intent, judge=judge) for output, intent in RESULTS]  # type: ignore[arg-type]
    typed = [result_record(result, f"r{n}", secrets=()) for n, result in enumerate(results)]
    typed.append(error_record("r9", RuntimeError("boom"), intent="Polite", source="d.jsonl:9"))
    made = [row_record(result, f"r{n}", "d.jsonl:1", None, ()) for n, result in enumerate(results)]
    made.append(row_error("r9", "d.jsonl:9", RuntimeError("boom"), intent="Polite", output=None))
    tally = Tally()
    tally.add(made)
    assert tally.summary.summary() == summarize(typed)
    assert tally.summary.summary().decided_by == {"FakeJudge": 5, "structural": 2}
    assert tally.summary.summary().borderline == 2  # polite at 0.9 against 0.88
    assert tally.judges == {"FakeJudge"}


RECORD = {"nodeid": "r1", "output": "déjà vu ✓", "score": 0.1, "leaves": [{"n": None}], "big": 1}


def test_without_orjson_records_are_written_by_the_json_module(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.import_module

    def no_orjson(name: str, *args: Any) -> Any:
        if name == "orjson":
            raise ImportError("No module named 'orjson'")
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", no_orjson)
    text = json.JSONEncoder(ensure_ascii=False).encode(RECORD)
    assert encoder()(RECORD) == encoder(fast=False)(RECORD) == text
    with pytest.raises(TypeError, match="Object of type set is not JSON serializable"):
        encoder()({"a": {1}})


def test_with_orjson_records_read_back_the_same(tmp_path: Path) -> None:
    pytest.importorskip("orjson")  # the 'fast' extra
    fast, plain = encoder(), encoder(fast=False)
    for record in (RECORD, {**RECORD, "big": 2**70}):  # over 64 bits: the json module writes it
        assert json.loads(fast(record)) == json.loads(plain(record)) == record
    assert fast(RECORD) != plain(RECORD)  # orjson's own text, no spaces
    with pytest.raises(TypeError):
        fast({"a": {1}})


def test_a_run_writes_the_same_report_with_orjson_and_without(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("orjson")  # the 'fast' extra
    data = tmp_path / "rows.jsonl"
    rows = [{"id": f"r{n}", "output": f"thank you ✓ {n}", "expected": n % 2 == 0} for n in range(9)]
    data.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    spec = "semantix.checks:Contains('thank')"
    evaluate_dataset(data, [spec], report=tmp_path / "fast.json")
    monkeypatch.setattr(runner, "encode", encoder(fast=False))
    evaluate_dataset(data, [spec], report=tmp_path / "plain.json")
    fast, plain = (_timeless(tmp_path / name) for name in ("fast.json", "plain.json"))
    assert fast == plain and len(fast["assertions"]) == 9
    assert '{"nodeid":"r0",' in (tmp_path / "fast.json").read_text(encoding="utf-8")  # orjson's


def _timeless(path: Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    for key in ("started", "duration_s", "run_id"):
        del document["meta"][key]
    for record in document["assertions"]:
        del record["duration_ms"]
    return document
