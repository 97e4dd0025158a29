"""The verdicts of exported tiny models, recorded from the torch.onnx exporter semantix carried
before it exported through optimum (issue 45, item 14); `test_export.py` checks the optimum
export gives the same.

Record again (only if the tiny models change): ``PYTHONPATH=src:tests python tests/export_verdicts.py``
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from models.tiny import build_tiny_hf_model, build_tiny_sentence_transformer

RECORDED = Path(__file__).parent / "data" / "export_verdicts.json"

REQUESTS = [
    ("The agent is polite.", "polite", 0.5),
    ("The customer is angry!", "The reply mentions the refund.", 0.5),
    ("Our team apologizes for the delay.", "The text is friendly.", 0.5),
    ("The answer explains the price.", "It is rude.", 0.5),
]

#: The tiny models' tokenizers as recorded: training one again can order ties differently
#: (the seeded weights are the same every build).
TOKENIZERS = Path(__file__).parent / "data" / "export_tokenizers"

#: name -> how the tiny source model is built (directory -> path)
_BUILDERS: dict[str, Any] = {
    "bert-nli": lambda d: build_tiny_hf_model(
        d, id2label={0: "ENTAILMENT", 1: "neutral", 2: "contradiction"}, head="wide", seed=4
    ),
    "deberta-nli": lambda d: build_tiny_hf_model(d, arch="deberta", head="wide", seed=5),
    "st-mean": lambda d: build_tiny_sentence_transformer(d, pooling="mean", seed=6),
    "st-cls": lambda d: build_tiny_sentence_transformer(d, pooling="cls", seed=7),
}


NAMES = tuple(_BUILDERS)


def build_source(name: str, directory: Path) -> Path:
    """The tiny source model ``name`` in ``directory``, with its recorded tokenizer."""
    path: Path = _BUILDERS[name](directory)
    arch = "deberta" if name.startswith("deberta") else "bert"
    (path / "tokenizer.json").write_bytes((TOKENIZERS / f"{arch}.json").read_bytes())
    return path


def scores(out: Path, name: str) -> dict[str, list[float]]:
    """The scores of the judges that load ``out`` on `REQUESTS`, by judge."""
    from semantix.judges._embedding import EmbeddingJudge
    from semantix.judges._quantized import QuantizedNLIJudge

    if name.startswith("st-"):
        judge = EmbeddingJudge(out)
        return {"embedding": [float(judge.evaluate(*r).score or 0.0) for r in REQUESTS]}
    found: dict[str, list[float]] = {}
    for file in ("model.onnx", "model_quantized.onnx"):
        nli = QuantizedNLIJudge(out, file=file)
        found[file] = [float(v.score or 0.0) for v in nli.evaluate_batch(REQUESTS)]
    return found


def record() -> None:
    from semantix.judges._export import export_model

    found = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in NAMES:
            source = build_source(name, Path(tmp) / name)
            out = export_model(str(source), Path(tmp) / f"{name}-out")
            found[name] = scores(out, name)
    RECORDED.write_text(json.dumps(found, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    record()
