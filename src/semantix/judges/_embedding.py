"""EmbeddingJudge: cosine similarity of sentence embeddings, through onnxruntime (no torch):
mean pooled and L2-normalised as sentence-transformers does (docs/judges/embedding.md)."""

from __future__ import annotations

from semantix.models._deps import ensure_installed

ensure_installed(("onnxruntime", "tokenizers", "numpy"), extra="embed", feature="EmbeddingJudge")

import itertools
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from semantix._text import encoded_windows, length_batches
from semantix.judges._base import JudgeIdentity
from semantix.judges._lazy import Named
from semantix.judges._model_dir import ModelFiles, embedding_output, read_model_dir
from semantix.judges._onnx import OnnxJudge, OnnxModel, pad
from semantix.judges._similarity import Embedded, ExampleRule, SimilarityJudge, Vectors, unit_rows
from semantix.models._api import lookup_model

__all__ = ["EmbeddingJudge", "required_files"]


@dataclass(frozen=True, slots=True)
class _Model:
    onnx: OnnxModel
    files: ModelFiles
    output_name: str
    pooled: bool
    identity: JudgeIdentity


class EmbeddingJudge(OnnxJudge[_Model], SimilarityJudge):
    """Judge by the cosine similarity of sentence embeddings (ONNX, no torch).

    Fast and cheap, but it measures *topical closeness*, not entailment: "I love this" and "I
    hate this" are close. Prefer it for intents given by examples, or for "is about X" checks;
    see docs/judges/embedding.md for its calibration.

    Args:
        model: a local directory (with ``tokenizer.json`` and an ONNX file), a Hugging Face repo
            id, a short name from ``semantix.models.list_supported_models("embedding")``, or
            None for the default (``SEMANTIX_EMBEDDING_MODEL_DIR`` if set, else
            all-MiniLM-L6-v2 at its pinned revision).
        revision: the hub revision (commit hash, branch or tag); default: the registry's pin.
        file: the ONNX file inside the model directory; default: the registry's file, else
            ``onnx/model.onnx`` or ``model.onnx``.
        cache_dir: the Hugging Face cache to use instead of ``HF_HUB_CACHE``/``HF_HOME``.
        threads: onnxruntime intra-op threads; default: ``semantix._config.default_threads()``.
        batch_size: texts per model call.
        lazy_load: False to load the model in the constructor instead of on first use.
        model_name: semantix-ai's name for ``model`` (pass one of the two).
        rule: how examples and counterexamples decide (`ExampleRule`; default: the mean of the
            3 closest of each).

    Every bad argument is a `ConfigurationError` naming it; ``identity`` never loads the model.
    """

    __module__ = "semantix"
    kind = "embedding"
    support_files = ("*.json", "vocab.txt")
    export_fix = "Export a sentence-transformers model with `semantix export MODEL DIR`"
    judge_label = "embedding"
    #: Measured with scripts/calibrate-embedding (all-MiniLM-L6-v2): docs/judges/embedding.md.
    recommended_threshold: float | None = 0.2

    def __init__(
        self,
        model: str | os.PathLike[str] | None = None,
        *,
        revision: str | None = None,
        file: str | None = None,
        cache_dir: str | os.PathLike[str] | None = None,
        threads: int | None = None,
        batch_size: int = 32,
        lazy_load: bool = True,
        model_name: str | os.PathLike[str] | None = None,
        rule: ExampleRule | None = None,
    ) -> None:
        self._start_similarity(rule)
        super().__init__(
            model,
            revision=revision,
            file=file,
            cache_dir=cache_dir,
            threads=threads,
            batch_size=batch_size,
            lazy_load=lazy_load,
            model_name=model_name,
        )

    @property
    def max_length(self) -> int:
        """The most tokens (special tokens included) the model sees at once."""
        return self._load().files.max_length

    def _load_now(self) -> _Model:
        opened = self._open()
        files = read_model_dir(
            opened.path,
            judge="embedding",
            fix="re-export it, or copy tokenizer.json from the model's Hugging Face repo",
        )
        output_name, pooled = embedding_output(opened.onnx.session, opened.onnx.path)
        return _Model(opened.onnx, files, output_name, pooled, opened.identity)

    def _embed_many(self, texts: list[str]) -> dict[str, Embedded]:
        """Each distinct text's windows, embedded in one model pass (`OnnxModel.run`)."""
        model = self._load()
        texts = list(dict.fromkeys(str(text) for text in texts))
        tokenizer = model.files.tokenizer
        # encode_batch hands work to a thread pool: worth it for a batch, not for one text
        encodings = (
            tokenizer.encode_batch(texts)
            if len(texts) > 1
            else [tokenizer.encode(t) for t in texts]
        )
        per_text = [
            list(encoded_windows(text, encoding, model.files.max_length))
            for text, encoding in zip(texts, encodings, strict=True)
        ]
        flat = self._run(model, [tuple(ids) for windows in per_text for ids, _ in windows])
        bounds = np.cumsum([0, *(len(windows) for windows in per_text)])
        vectors = [flat[bounds[k] : bounds[k + 1]] for k in range(len(per_text))]
        return {
            text: Embedded(rows, tuple(piece for _, piece in windows), len(encoding.ids))
            for text, encoding, windows, rows in zip(
                texts, encodings, per_text, vectors, strict=True
            )
        }

    def _run(self, model: _Model, sequences: list[tuple[int, ...]]) -> Vectors:
        """Embed token sequences in batches of similar length; rows come back in input order."""
        result: Vectors = np.zeros((len(sequences), 0), dtype=np.float32)
        lengths = [len(sequence) for sequence in sequences]
        for chunk in length_batches(lengths, self.batch_size):
            batch = pad([sequences[i] for i in chunk], model.files.pad_id)
            outputs = model.onnx.run(batch, model.output_name)  # one per session call
            rows = itertools.accumulate((len(hidden) for hidden in outputs), initial=0)
            pooled = np.concatenate(
                [
                    self._pool(model, hidden, batch.attention_mask[row : row + len(hidden)])
                    for hidden, row in zip(outputs, rows, strict=False)
                ]
            )
            if result.shape[1] == 0:
                result = np.zeros((len(sequences), pooled.shape[1]), dtype=np.float32)
            result[chunk] = pooled
        return result

    @staticmethod
    def _pool(model: _Model, hidden: Any, mask_rows: list[list[int]]) -> Vectors:
        values = np.asarray(hidden, dtype=np.float32)
        if model.pooled:
            pooled = values
        else:
            width = values.shape[1]
            weights = np.asarray([row[:width] for row in mask_rows], dtype=np.float32)[:, :, None]
            pooled = (values * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return unit_rows(pooled)


def required_files(model: str | None = None, *, file: str | None = None) -> list[str]:
    """The files of a Hub model the embedding judge needs (``semantix download``); ``file``, the
    ONNX file, defaults to the registry's for ``model``, else the usual ONNX file names."""
    return EmbeddingJudge.fetch_files(
        Named(None, lookup_model(model, "embedding"), None, None), file
    )[0]
