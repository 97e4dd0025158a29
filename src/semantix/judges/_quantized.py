"""The default judge: an NLI cross-encoder, int8 ONNX, run by onnxruntime + tokenizers + numpy
(no torch, no transformers); docs/judges/nli.md shows it in use."""

from __future__ import annotations

from collections.abc import Sequence

from semantix.judges._lazy import Named
from semantix.judges._nli import LoadedNLI, NLIJudgeBase
from semantix.judges._nli_core import shared_core
from semantix.judges._onnx import EncodedBatch, OnnxJudge, OnnxModel
from semantix.models._api import NLI_SUPPORT_FILES, lookup_model
from semantix.models._deps import ensure_installed

ensure_installed(("onnxruntime", "tokenizers", "numpy"), extra="onnx", feature="QuantizedNLIJudge")

__all__ = ["QuantizedNLIJudge", "required_files"]


class QuantizedNLIJudge(OnnxJudge[LoadedNLI], NLIJudgeBase):
    """NLI judge on onnxruntime: scores P(entailment) of the intent's hypothesis.

    Args:
        model: a model directory, a short name from ``semantix.models.list_supported_models()``,
            a Hugging Face repo id, or None for the default (``SEMANTIX_MODEL_DIR`` if set).
        revision: the Hub revision (default: the registry's pinned commit, else "main").
        file: the ONNX file inside the model (default: the registry's int8 file, else the first
            of ``model_quantized.onnx``, ``onnx/model_quantized.onnx``, ``model.onnx``, ...).
        cache_dir: a Hugging Face cache directory instead of ``HF_HUB_CACHE``/``HF_HOME``.
        threads: onnxruntime intra-op threads (default: ``semantix._config.default_threads()``).
        batch_size: pairs per onnxruntime call in `evaluate_batch`.
        lazy_load: load on first use (True) or now (False).
        model_name: semantix-ai's name for ``model`` (pass one of the two).

    Every bad argument is a `ConfigurationError` naming it. The session is shared by every
    judge on the same (model file, threads) in the process; ``identity`` never loads it.
    """

    support_files = NLI_SUPPORT_FILES
    required_support = ("config.json", "tokenizer.json")
    export_fix = "Create the layout with `semantix export MODEL DIR`"
    judge_label = "quantized NLI judge"

    def _load_now(self) -> LoadedNLI:
        opened = self._open()
        return LoadedNLI(shared_core(opened.path), opened.identity, opened.onnx)

    def _forward(self, batch: EncodedBatch, backend: OnnxModel) -> Sequence[Sequence[float]]:
        return [row for logits in backend.run(batch) for row in logits.tolist()]


def required_files(model: str | None = None) -> list[str]:
    """The files of a Hub model the quantized judge needs (``semantix download``): the support
    files and the registry's ONNX files for this CPU, else the usual ONNX file names."""
    return QuantizedNLIJudge.fetch_files(Named(None, lookup_model(model, "nli"), None, None))[0]
