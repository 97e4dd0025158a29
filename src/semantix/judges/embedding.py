"""EmbeddingJudge: cosine similarity of sentence embeddings, through onnxruntime (no torch).

```python
from semantix import EmbeddingJudge, assert_semantic

judge = EmbeddingJudge()  # all-MiniLM-L6-v2, pinned, fp32 ONNX from the Hugging Face hub
assert_semantic("Sorry, I can't help with that.", "a refusal to help", judge=judge)
```

How a verdict is made:

* Text is tokenised with the model's ``tokenizer.json`` (its fixed padding to 128 tokens is
  turned off: padding is to the longest text of each batch), run through the ONNX model, mean
  pooled over the attention mask and L2-normalised (what sentence-transformers does).
* **Description only**: score = cosine similarity of the output to the intent description,
  clipped to [0, 1]; the verdict passes when ``score >= threshold``.
* **Example-based** (the description carries ``examples``, and maybe ``counterexamples``):
  ``s_pos`` = similarity to the closest example, ``s_neg`` = similarity to the closest
  counterexample (0 when there are none). Score = ``s_pos``; the verdict passes when
  ``s_pos >= threshold`` **and** ``s_pos > s_neg`` (the output is closer to an example than to
  every counterexample). The reason names the closest example and counterexample and both
  similarities; when the counterexample wins, it begins with why (``closer to counterexample
  'Whatever.' (0.41) than to any example (0.36)``), which the failure message's verdict column
  shows for a verdict that fails above its threshold.
* **Long outputs**: the model sees at most ``max_length`` tokens (256 for all-MiniLM-L6-v2). A
  longer output is split into near-equal sentence-aligned windows that fit (the same rule as the
  NLI judges, `semantix.text`), every window is embedded, and the output's
  similarity to a reference text is the **best window's** (so "does some part of the output say
  this?", like the NLI judges). The reason says so and the best window is the verdict's
  ``evidence``. Nothing is truncated silently.
* **Determinism**: a score never depends on what was judged before or beside it. Descriptions
  and examples are embedded on their own (and remembered); with a model that quantizes its
  activations per call (dynamic int8, whose scale spans the whole batch) every text is run on
  its own as well.
"""

from __future__ import annotations

from semantix.models.deps import ensure_installed

ensure_installed(("onnxruntime", "tokenizers", "numpy"), extra="embed", feature="EmbeddingJudge")

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from semantix.config import check_threshold
from semantix.judges.base import JudgeIdentity, JudgeRequest, Verdict
from semantix.judges.lazy import Named
from semantix.judges.model_dir import ModelFiles, embedding_output, read_model_dir
from semantix.judges.onnx import OnnxJudge, OnnxModel, pad
from semantix.models import lookup_model
from semantix.text import encoded_windows, length_batches, preview

__all__ = ["EmbeddingJudge", "required_files"]

Vectors = npt.NDArray[np.float32]

#: How many description / example embeddings a judge keeps (they repeat across a test suite).
_REFERENCE_CACHE_SIZE = 2048


@dataclass(frozen=True, slots=True)
class _Window:
    """One piece of a text the model can see whole: its token ids and its text."""

    ids: tuple[int, ...]
    text: str


@dataclass(frozen=True, slots=True)
class _Embedded:
    """A text as the judge compares it: one unit vector per window."""

    vectors: Vectors
    windows: tuple[_Window, ...]
    tokens: int


@dataclass(frozen=True, slots=True)
class _Model:
    """Everything loaded for one judge: shared session and tokenizer, plus what they need."""

    onnx: OnnxModel
    files: ModelFiles
    output_name: str
    pooled: bool
    identity: JudgeIdentity

    @property
    def max_length(self) -> int:
        return self.files.max_length


class EmbeddingJudge(OnnxJudge[_Model]):
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
        threads: onnxruntime intra-op threads; default: ``semantix.config.default_threads()``.
        batch_size: texts per model call.
        lazy_load: False to load the model in the constructor instead of on first use.
        model_name: semantix-ai's name for ``model`` (pass one of the two).

    Every bad argument is a `ConfigurationError` naming it; ``identity`` never loads the model.
    """

    kind = "embedding"
    support_files = ("*.json", "vocab.txt")
    export_fix = "Export the model to ONNX (optimum-cli export onnx --task feature-extraction)"
    judge_label = "embedding"
    #: Measured on tests/data/embedding_calibration.csv with scripts/calibrate-embedding
    #: (description-only intents, all-MiniLM-L6-v2 fp32); see docs/judges/embedding.md.
    recommended_threshold: float | None = 0.2
    #: Embeddings cannot see "not": negative requirements are judged as NOT their positive statement.
    reads_negation = False
    #: The score already uses the intent's examples (closest example, counterexample margin), so
    #: the core does not calibrate a threshold from them (an example would score 1.0 against itself).
    uses_examples = True
    #: The score is a cosine similarity (topical closeness), not an entailment.
    scale = "similarity"

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
    ) -> None:
        self._references_lock = threading.Lock()
        self._references: OrderedDict[str, _Embedded] = OrderedDict()
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
        return self._load().max_length

    def _load_now(self) -> _Model:
        opened = self._open()
        files = read_model_dir(
            opened.resolved.path,
            judge="embedding",
            fix="re-export it, or copy tokenizer.json from the model's Hugging Face repo",
        )
        output_name, pooled = embedding_output(opened.onnx.session, opened.onnx.path)
        return _Model(
            onnx=opened.onnx,
            files=files,
            output_name=output_name,
            pooled=pooled,
            identity=self.make_identity(opened.named, opened.resolved.path),
        )

    # -- the judge protocol ----------------------------------------------------------------------

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Decide whether ``output`` is close enough to the description (or its examples)."""
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge many requests: each distinct output embedded once, references from the cache."""
        started = time.perf_counter()
        requests = list(requests)
        for output, _, threshold in requests:
            if not isinstance(output, str):
                raise TypeError(
                    f"EmbeddingJudge needs the output as str, got {type(output).__name__}; "
                    "semantix.assert_semantic converts SDK responses for you"
                )
            check_threshold(threshold)
        model = self._load()
        references = self._references_for(
            model,
            [text for _, description, _ in requests for text in _reference_texts(description)],
        )
        embedded = self._embed_texts(model, [output for output, _, _ in requests])
        latency = (time.perf_counter() - started) * 1000 / max(1, len(requests))
        return [
            self._verdict(model, embedded[output], description, threshold, references, latency)
            for output, description, threshold in requests
        ]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit-length embeddings of ``texts``, one row each (a long text: mean of its windows)."""
        model = self._load()
        embedded = self._embed_texts(model, list(texts))
        rows = []
        for text in texts:
            mean = embedded[text].vectors.mean(axis=0)
            rows.append(mean / max(float(np.linalg.norm(mean)), 1e-12))
        return np.asarray(rows, dtype=np.float32).reshape(len(rows), -1)

    # -- verdicts --------------------------------------------------------------------------------

    def _verdict(
        self,
        model: _Model,
        output: _Embedded,
        description: str,
        threshold: float,
        references: dict[str, _Embedded],
        latency_ms: float,
    ) -> Verdict:
        examples = tuple(getattr(description, "examples", ()) or ())
        counterexamples = tuple(getattr(description, "counterexamples", ()) or ())
        long_note = ""
        evidence: str | None = None
        if examples:
            s_pos, pos_text, pos_window = _closest(output, examples, references)
            score = _unit(s_pos)
            if counterexamples:
                s_neg, neg_text, neg_window = _closest(output, counterexamples, references)
            else:
                s_neg, neg_text, neg_window = 0.0, None, pos_window
            passed = score >= threshold and s_pos > s_neg
            reason = f"closest example (similarity {s_pos:.3f}): {preview(pos_text, 80)}"
            if neg_text is not None:
                reason += (
                    f"; closest counterexample (similarity {s_neg:.3f}): {preview(neg_text, 80)}; "
                    f"margin {s_pos - s_neg:+.3f}"
                )
                if s_pos <= s_neg:
                    # First, so the failure message's verdict column can show why (its first clause).
                    reason = _closer_to_counterexample(neg_text, s_neg, s_pos) + "; " + reason
            else:
                reason += "; no counterexamples"
            window = pos_window if s_pos >= s_neg else neg_window
        else:
            s_desc, _, window = _closest(output, (str(description),), references)
            score = _unit(s_desc)
            passed = score >= threshold
            reason = f"cosine similarity to the intent description: {s_desc:.3f}"
        if len(output.windows) > 1:
            long_note = (
                f"; the output has {output.tokens} tokens, more than the {model.max_length} "
                f"the model sees: scored in {len(output.windows)} sentence-aligned windows, "
                f"best window {window + 1} (the evidence)"
            )
            evidence = output.windows[window].text
        return Verdict(
            passed=bool(passed),
            score=score,
            reason=reason + long_note,
            threshold=threshold,
            evidence=evidence,
            judge=model.identity,
            latency_ms=latency_ms,
        )

    # -- embedding -------------------------------------------------------------------------------

    def _references_for(self, model: _Model, texts: list[str]) -> dict[str, _Embedded]:
        """Descriptions and examples, each embedded on its own once and kept in a bounded LRU.

        On its own: a reference's vector must not depend on the outputs judged beside it.
        """
        found: dict[str, _Embedded] = {}
        missing: list[str] = []
        with self._references_lock:
            for text in dict.fromkeys(texts):
                if text in self._references:
                    self._references.move_to_end(text)
                    found[text] = self._references[text]
                else:
                    missing.append(text)
        fresh = {text: self._embed_texts(model, [text])[text] for text in missing}
        with self._references_lock:
            for text, embedded in fresh.items():
                self._references[text] = embedded
                self._references.move_to_end(text)
            while len(self._references) > _REFERENCE_CACHE_SIZE:
                self._references.popitem(last=False)
        return {**found, **fresh}

    def _embed_texts(self, model: _Model, texts: list[str]) -> dict[str, _Embedded]:
        """Each distinct text's windows, embedded in one model pass (a dynamic int8 model runs
        each window on its own, `OnnxModel.run`, so no text's scale depends on another)."""
        texts = list(dict.fromkeys(str(text) for text in texts))
        tokenizer = model.files.tokenizer
        # encode_batch hands work to a thread pool: worth it for a batch, not for one text
        encodings = (
            tokenizer.encode_batch(texts)
            if len(texts) > 1
            else [tokenizer.encode(t) for t in texts]
        )
        per_text = [
            [
                _Window(tuple(ids), piece)
                for ids, piece in encoded_windows(text, encoding, model.max_length)
            ]
            for text, encoding in zip(texts, encodings, strict=True)
        ]
        flat = self._run(model, [w.ids for windows in per_text for w in windows])
        bounds = np.cumsum([0, *(len(windows) for windows in per_text)])
        vectors = [flat[bounds[k] : bounds[k + 1]] for k in range(len(per_text))]
        return {
            text: _Embedded(rows, tuple(windows), len(encoding.ids))
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
            pooled = np.concatenate(
                [
                    self._pool(model, hidden, batch.attention_mask[row : row + len(hidden)])
                    for hidden, row in _rows(model.onnx.run(batch, model.output_name))
                ]
            )
            if result.shape[1] == 0:
                result = np.zeros((len(sequences), pooled.shape[1]), dtype=np.float32)
            result[chunk] = pooled
        return result

    @staticmethod
    def _pool(model: _Model, hidden: Any, mask_rows: list[list[int]]) -> Vectors:
        """Mean pooling over the attention mask (unless the output is pooled), L2-normalised."""
        values = np.asarray(hidden, dtype=np.float32)
        if model.pooled:
            pooled = values
        else:
            width = values.shape[1]
            weights = np.asarray([row[:width] for row in mask_rows], dtype=np.float32)[:, :, None]
            pooled = (values * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
        unit: Vectors = (pooled / norms).astype(np.float32)
        return unit


def _rows(outputs: list[Any]) -> list[tuple[Any, int]]:
    """Each session call's output with the index of its first row in the batch."""
    found, row = [], 0
    for output in outputs:
        found.append((output, row))
        row += len(output)
    return found


# -- helpers -------------------------------------------------------------------------------------


def _reference_texts(description: str) -> list[str]:
    examples = tuple(getattr(description, "examples", ()) or ())
    if examples:
        return [*examples, *tuple(getattr(description, "counterexamples", ()) or ())]
    return [str(description)]


def _closest(
    output: _Embedded, texts: Sequence[str], references: dict[str, _Embedded]
) -> tuple[float, str, int]:
    """(best similarity, the reference text it is to, the output window it comes from)."""
    best, best_text, best_window = -2.0, texts[0], 0
    for text in texts:
        sims = output.vectors @ references[str(text)].vectors.T  # (output windows, ref windows)
        window, _ = np.unravel_index(int(np.argmax(sims)), sims.shape)
        value = float(sims.max())
        if value > best:
            best, best_text, best_window = value, str(text), int(window)
    return best, best_text, best_window


def _closer_to_counterexample(counterexample: str, s_neg: float, s_pos: float) -> str:
    """Why a verdict fails whatever its threshold: ``closer to counterexample '…' (0.41) than to
    any example (0.36)`` (``as close to … as to …`` on a tie). The reason's first clause."""
    shown = f"counterexample {preview(counterexample, 60)} ({s_neg:.2f})"
    if s_neg > s_pos:
        return f"closer to {shown} than to any example ({s_pos:.2f})"
    return f"as close to {shown} as to any example ({s_pos:.2f})"


def _unit(similarity: float) -> float:
    """A cosine similarity as a score in [0, 1] (negative similarity scores 0)."""
    return min(1.0, max(0.0, similarity))


def required_files(model: str | None = None, *, file: str | None = None) -> list[str]:
    """The files of a Hub model the embedding judge needs (for ``semantix download``).

    ``file`` is the ONNX file to load; default: the registry's file for ``model`` (a registered
    name or repo id, or None for the default model), else the usual ONNX file names.
    """
    named = Named(None, lookup_model(model, "embedding"), None, None)
    return EmbeddingJudge.fetch_files(named, file)[0]


EmbeddingJudge.__module__ = "semantix"
