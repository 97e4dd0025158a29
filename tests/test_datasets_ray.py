"""``semantix eval --engine ray`` on a real local Ray (2 CPUs): every record equals the embedded
engine's for the same judge and data (bad rows, shards and a tiny NLI model included)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from semantix import FakeJudge
from semantix.datasets import evaluate_dataset
from semantix.report._schema import load_report


def report_json(path: Path) -> Any:
    """The report file as JSON, after the report's own reader accepted it."""
    load_report(path)
    return json.loads(Path(path).read_text(encoding="utf-8"))


ray = pytest.importorskip("ray")
pytest.importorskip("ray.data")

# Ray's own deprecation notices and advice are not ours to fail on.
pytestmark = pytest.mark.filterwarnings("ignore::Warning:ray")

INTENTS = ["semantix.checks:Contains('thank')", "The text is polite."]


def keyword(output: str, intent: str) -> float:
    return 0.9 if "thank" in output.lower() else 0.1


@pytest.fixture(scope="module")
def local_ray() -> Iterator[None]:
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    # Ray's workers cannot import this test module: its functions travel by value.
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])
    yield
    ray.cloudpickle.unregister_pickle_by_value(sys.modules[__name__])
    ray.shutdown()


@pytest.fixture
def dataset(tmp_path: Path) -> Path:
    folder = tmp_path / "export"
    folder.mkdir()
    lines = [
        json.dumps({"id": f"j{n}", "output": f"Thank you {n}" if n % 3 else "No."})
        for n in range(30)
    ]
    lines.insert(7, "not json")
    lines.insert(12, json.dumps({"id": "nofield", "reply": "x"}))
    (folder / "a.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    rows = "".join(f"c{n},{'thanks a lot' if n % 2 else 'whatever'}\n" for n in range(20))
    (folder / "b.csv").write_text("id,output\n" + rows, encoding="utf-8")
    return folder


def timeless(report: Path) -> list[dict[str, Any]]:
    return [
        {**r, "duration_ms": None, "leaves": [{**leaf, "latency_ms": None} for leaf in r["leaves"]]}
        for r in report_json(report)["assertions"]
    ]


@pytest.mark.usefixtures("local_ray")
@pytest.mark.parametrize("shard", [None, "2/3"])
def test_ray_records_equal_the_embedded_engines(
    dataset: Path, tmp_path: Path, shard: str | None
) -> None:
    judge = FakeJudge(keyword, name="KeywordJudge")
    options: dict[str, Any] = {"judge": judge, "shard": shard, "batch_size": 8}
    embedded = evaluate_dataset(dataset, INTENTS, report=tmp_path / "e.json", **options)
    on_ray = evaluate_dataset(dataset, INTENTS, report=tmp_path / "r.json", engine="ray", **options)
    assert timeless(tmp_path / "r.json") == timeless(tmp_path / "e.json")
    assert (on_ray.rows, on_ray.passed, on_ray.failed, on_ray.errors) == (
        embedded.rows, embedded.passed, embedded.failed, embedded.errors,
    )  # fmt: skip
    assert on_ray.errors >= (4 if shard is None else 0)  # the bad rows, as their own errors
    assert report_json(tmp_path / "r.json")["meta"]["engine"] == "ray"


@pytest.mark.usefixtures("local_ray")
def test_ray_with_a_tiny_nli_model_gives_the_embedded_verdicts(
    wide_bert_model: Path, tmp_path: Path
) -> None:
    data = tmp_path / "rows.jsonl"
    outputs = ["Thank you for waiting.", "No.", "I am sorry for the delay. " * 20, "Fine."]
    data.write_text("".join(json.dumps({"output": o}) + "\n" for o in outputs), encoding="utf-8")
    spec = f"quantized:{wide_bert_model}"
    options: dict[str, Any] = {"judge": spec, "threshold": 0.4}
    evaluate_dataset(data, ["The text is polite."], report=tmp_path / "e.json", **options)
    evaluate_dataset(
        data, ["The text is polite."], report=tmp_path / "r.json", engine="ray", **options
    )
    embedded, on_ray = timeless(tmp_path / "e.json"), timeless(tmp_path / "r.json")
    assert on_ray == embedded
    assert {r["outcome"] for r in on_ray} <= {"passed", "failed"}


def test_ray_reads_files_not_stdin(tmp_path: Path) -> None:
    from semantix.errors import ConfigurationError

    with pytest.raises(ConfigurationError, match="--engine ray reads files, not stdin"):
        evaluate_dataset("-", INTENTS, report=tmp_path / "r.json", engine="ray")


class Unsendable(FakeJudge):
    """A judge holding a lock: it cannot be pickled to Ray's workers."""

    def __init__(self) -> None:
        super().__init__(keyword)
        import threading

        self.lock = threading.Lock()


def test_a_judge_ray_cannot_send_says_to_name_it_by_a_spec(dataset: Path, tmp_path: Path) -> None:
    from semantix.errors import ConfigurationError

    with pytest.raises(
        ConfigurationError, match=r"cannot be sent to Ray's workers .*quantized:DIR"
    ):
        evaluate_dataset(
            dataset, INTENTS, report=tmp_path / "r.json", judge=Unsendable(), engine="ray"
        )
