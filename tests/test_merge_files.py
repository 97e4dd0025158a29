"""``semantix report merge`` on files (`merge_files`, issue 46: 800,000 records in seconds): the
file it writes equals the typed merge's (`merge_reports` then `write_json_report`) record for
record, and a shard it cannot take is refused as the one reader refuses it, naming the file and
the field."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, Verdict, evaluate_semantic
from semantix.checks import Contains
from semantix.judges._verdict import TokenUsage
from semantix.report import _merge_files as merge_module
from semantix.report._merge import merge_reports
from semantix.report._merge_files import merge_files
from semantix.report._records import error_record, json_document, result_record, write_json_report
from semantix.report._schema import REPORT_VERSION, ReportDocumentError, load_report


@pytest.fixture(autouse=True, params=["json", "orjson"])
def reader(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Every test both ways: records read by the json module's scanner, and by orjson where the
    'fast' extra installed it (skipped where it did not)."""
    if request.param == "orjson":
        monkeypatch.setattr(merge_module, "_LOADS", pytest.importorskip("orjson").loads)
    else:
        monkeypatch.setattr(merge_module, "_LOADS", None)
    return str(request.param)


class Polite(Intent):
    """The text is polite."""

    threshold = 0.5


def _judge(output: str, description: str) -> Verdict:
    usage = TokenUsage(prompt_tokens=12, completion_tokens=3)
    return Verdict(passed="thank" in output.lower(), score=0.9, reason="r", usage=usage)


def records(prefix: str) -> list[dict[str, Any]]:
    """Records as semantix writes them: judged (tokens spent), structural, failed, an error,
    non-ASCII text, a dataset row's place and label."""
    judge = FakeJudge(_judge)
    made = [
        result_record(evaluate_semantic("Thank you ✓", Polite, judge=judge), f"{prefix}::b"),
        result_record(evaluate_semantic("go away", Polite, judge=judge), f"{prefix}::a"),
        result_record(
            evaluate_semantic("refund", Contains("refund") & Polite, judge=judge),
            f"{prefix}::c",
            source="rows.jsonl:3",
            expected=True,
        ),
        error_record(f"{prefix}::a", RuntimeError("the judge broke"), intent="Polite"),
    ]
    return [json.loads(json.dumps(json_document([record])["assertions"][0])) for record in made]


def shard(number: str, prefix: str, **changes: Any) -> dict[str, Any]:
    meta = {"judges": ["FakeJudge"], "verdicts_mode": "off", "run_id": "r", "shard": number}
    return {"version": REPORT_VERSION, "meta": meta, "assertions": records(prefix), **changes}


def typed(paths: list[Path], folder: Path) -> Any:
    """The merged file as the typed path writes it."""
    merged = merge_reports([(str(path), load_report(path)) for path in paths])
    write_json_report(folder / "typed.json", merged)
    return json.loads((folder / "typed.json").read_text(encoding="utf-8"))


def streamed(paths: list[Path], folder: Path, workers: int = 0) -> Any:
    count = merge_files(paths, folder / "streamed.json", workers=workers)
    merged = json.loads((folder / "streamed.json").read_text(encoding="utf-8"))
    assert count == len(merged["assertions"])
    return merged


def write(path: Path, document: dict[str, Any], *, indent: int | None = None) -> Path:
    if indent is None:  # one record a line, as semantix writes a report
        write_json_report(path, document)
    else:
        path.write_text(json.dumps(document, indent=indent, ensure_ascii=True), encoding="utf-8")
    return path


@pytest.mark.parametrize("workers", [0, 2])
def test_shards_merge_as_the_typed_merge_writes_them(tmp_path: Path, workers: int) -> None:
    older = shard("3/3", "t3.py")
    older["version"] = 2  # an older version's records: no outcome, leaves' ``ok``
    for record in older["assertions"]:
        del record["outcome"]
        for leaf in record["leaves"]:
            leaf["ok"] = leaf.pop("passed")
    newer = shard("2/3", "t2.py")
    newer["assertions"][0]["added_later"] = 1  # a field a newer semantix writes: left out
    paths = [
        write(tmp_path / "a.json", shard("1/3", "t1.py")),
        write(tmp_path / "b.json", newer, indent=2),  # records over many lines, ASCII escapes
        write(tmp_path / "c.json", older),
    ]
    for path in paths[1:]:  # versions differ: each merged on its own
        shard_one = json.loads(path.read_text(encoding="utf-8"))
        shard_one["meta"]["shard"] = None
        write(path, shard_one)
        assert streamed([path], tmp_path, workers) == typed([path], tmp_path)
    paths = [
        write(tmp_path / f"s{n}.json", shard(f"{n}/3", f"t{n % 2}.py::{n}")) for n in (1, 2, 3)
    ]
    merged = streamed(paths, tmp_path, workers)
    assert merged == typed(paths, tmp_path)
    assert [r["nodeid"] for r in merged["assertions"]][:3] == ["t0.py::2::a"] * 2 + ["t0.py::2::b"]
    assert merged["summary"]["decided_by"] == {"FakeJudge": 9, "structural": 3}


def test_a_bad_record_in_a_shard_is_refused_naming_the_file_and_the_field(tmp_path: Path) -> None:
    bad = shard("2/2", "t2.py")
    bad["assertions"][2]["leaves"][1]["usage"]["prompt_tokens"] = "twelve"
    paths = [write(tmp_path / "a.json", shard("1/2", "t1.py")), write(tmp_path / "b.json", bad)]
    expected = f"{str(paths[1])!r}: assertions[2].leaves[1].usage.prompt_tokens is 'twelve'"
    for workers in (0, 2):
        with pytest.raises(ReportDocumentError, match=f"^{re.escape(expected)}"):
            merge_files(paths, tmp_path / "m.json", workers=workers)
    assert not (tmp_path / "m.json").exists()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"version": 4, "assertions": [{"nodeid": "a", "intent": NaN}]}', "intent is nan"),
        ('{"version": 4, "assertions": [}', "is not JSON"),
        ('{"version": 4, "assertions": [], "assertions": [1]}', r"assertions\[0\] is 1"),
        ("\ufeff[]", "is a JSON object, got a list"),
        (b"\xff{}", "is not UTF-8 text"),
    ],
)
def test_a_shard_it_cannot_take_apart_is_read_whole(
    tmp_path: Path, text: str | bytes, message: str
) -> None:
    path = tmp_path / "a.json"
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    with pytest.raises(ReportDocumentError, match=message) as raised:
        merge_files([path], tmp_path / "m.json")
    with pytest.raises(ReportDocumentError) as read:
        load_report(path)
    assert str(raised.value) == str(read.value)


def _paths(value: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path] if path else []
    if isinstance(value, dict):
        found += [p for key, item in value.items() for p in _paths(item, (*path, key))]
    elif isinstance(value, list):
        found += [p for index, item in enumerate(value) for p in _paths(item, (*path, index))]
    return found


def test_every_damaged_field_of_a_record_merges_or_is_refused_as_the_reader_does(
    tmp_path: Path,
) -> None:
    """Each field of each record replaced by a value of another type, or removed: the streamed
    merge refuses it with the reader's error, or writes what the typed merge writes."""
    document = shard("1/1", "t.py")
    refused = merged = 0
    for path in _paths(document["assertions"], ("assertions",)):
        for value in ("x", "passed", 2, 1.5, None, [], {}, True, float("inf"), "<removed>"):
            copy = json.loads(json.dumps(document))
            *parents, last = path
            holder = copy
            for key in parents:
                holder = holder[key]
            if value == "<removed>":
                if not isinstance(holder, dict):
                    continue
                del holder[last]
            else:
                holder[last] = value
            file = write(tmp_path / "a.json", copy)
            try:
                expected = typed([file], tmp_path)
            except ReportDocumentError as exc:
                with pytest.raises(ReportDocumentError) as raised:
                    merge_files([file], tmp_path / "m.json")
                assert str(raised.value) == str(exc)
                refused += 1
                continue
            assert streamed([file], tmp_path) == expected, (path, value)
            merged += 1
    assert refused > 200 and merged > 200  # both ways taken, many times


def test_where_no_process_can_start_the_shards_are_read_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def refused(workers: int) -> None:  # what ProcessPoolExecutor raises there
        raise PermissionError("no semaphores in this sandbox")

    monkeypatch.setattr(merge_module, "ProcessPoolExecutor", refused)
    paths = [write(tmp_path / f"s{n}.json", shard(f"{n}/2", f"t{n}.py")) for n in (1, 2)]
    assert streamed(paths, tmp_path, workers=2) == typed(paths, tmp_path)
