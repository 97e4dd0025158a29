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
  similarities.
* **Long outputs**: the model sees at most ``max_length`` tokens (256 for all-MiniLM-L6-v2). A
  longer output is split into sentence-aligned windows that fit, every window is embedded, and
  the output's similarity to a reference text is the **best window's** (so "does some part of
  the output say this?", like the NLI judges). The reason says so and the best window is the
  verdict's ``evidence``. Nothing is truncated silently.
"""

from __future__ import annotations

from semantix.deps import ensure_installed

ensure_installed(("onnxruntime", "tokenizers", "numpy"), extra="embed", feature="EmbeddingJudge")

import bisect
import json
import os
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from tokenizers import Tokenizer

from semantix.cache import model_cache
from semantix.config import default_threads
from semantix.errors import ConfigurationError, ModelNotFoundError
from semantix.validation import check_positive_int, check_threshold
from semantix.judges.base import (
    JudgeIdentity,
    JudgeRequest,
    Verdict,
)
from semantix.judges.onnx import shared_session
from semantix.models import ResolvedModel, default_model, list_supported_models, resolve_model

__all__ = ["EmbeddingJudge"]

Vectors = npt.NDArray[np.float32]

#: ONNX files tried, in order, in a model directory when ``file`` is not given.
_DEFAULT_FILES = ("onnx/model.onnx", "model.onnx")
#: Outputs that hold per-token embeddings (mean pooled here), by name, in order of preference.
_TOKEN_OUTPUTS = ("last_hidden_state", "token_embeddings")
#: How many description / example embeddings a judge keeps (they repeat across a test suite).
_REFERENCE_CACHE_SIZE = 2048
#: Where a sentence ends: terminal punctuation (and closing quotes/brackets) then space, or a newline.
_SENTENCE_END = re.compile(r"[.!?\u3002\uff01\uff1f]+[\"'\u201d\u2019)\]]*\s+|\n\s*")


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

    session: Any
    tokenizer: Any
    input_names: tuple[str, ...]
    output_name: str
    pooled: bool
    max_length: int
    identity: JudgeIdentity


class EmbeddingJudge:
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
    """

    #: Measured on tests/data/embedding_calibration.csv with scripts/calibrate-embedding
    #: (description-only intents, all-MiniLM-L6-v2 fp32); see docs/judges/embedding.md.
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
    ) -> None:
        check_positive_int(batch_size, what="batch_size", example=32)
        check_positive_int(threads, what="threads", example=2, optional=True)
        if file is not None and (not isinstance(file, str) or not file.strip()):
            raise ConfigurationError(
                f"file must be the path of an ONNX file inside the model directory, e.g. "
                f"'onnx/model.onnx', got {file!r}"
            )
        self._model_arg = model
        self._revision = revision
        self._file = file
        self._cache_dir = cache_dir
        self._threads = threads
        self.batch_size = batch_size
        self._lock = threading.Lock()
        self._loaded: _Model | None = None
        self._references: OrderedDict[str, _Embedded] = OrderedDict()
        self._identity = self._provisional_identity()
        if not lazy_load:
            self._load()

    # -- identity and loading ------------------------------------------------------------------

    @property
    def identity(self) -> JudgeIdentity:
        """Class, model, revision and ONNX file (exact once the model is loaded)."""
        loaded = self._loaded
        return loaded.identity if loaded is not None else self._identity

    @property
    def loaded(self) -> bool:
        """Whether the model has been loaded (it is loaded on first use unless lazy_load=False)."""
        return self._loaded is not None

    @property
    def max_length(self) -> int:
        """The most tokens (special tokens included) the model sees at once."""
        return self._load().max_length

    def __repr__(self) -> str:
        return f"{self.identity}"

    def _provisional_identity(self) -> JudgeIdentity:
        name = "EmbeddingJudge"
        if self._model_arg is None and not os.environ.get("SEMANTIX_EMBEDDING_MODEL_DIR"):
            info = default_model("embedding")
            return JudgeIdentity(
                name, info.repo_id, self._revision or info.revision, self._file or info.onnx_file
            )
        if self._model_arg is None:
            return JudgeIdentity(name, os.environ["SEMANTIX_EMBEDDING_MODEL_DIR"], None, self._file)
        return JudgeIdentity(name, str(self._model_arg), self._revision, self._file)

    def _registry_file(self) -> str | None:
        """The registry's ONNX file for the model asked for, if it is a registry model."""
        if self._model_arg is None:
            if os.environ.get("SEMANTIX_EMBEDDING_MODEL_DIR"):
                return None
            return default_model("embedding").onnx_file
        name = str(self._model_arg)
        for info in list_supported_models("embedding"):
            if name in (info.name, info.repo_id):
                return info.onnx_file
        return None

    def _load(self) -> _Model:
        loaded = self._loaded
        if loaded is not None:
            return loaded
        with self._lock:
            if self._loaded is None:
                self._loaded = self._build()
            return self._loaded

    def _build(self) -> _Model:
        wanted = self._file or self._registry_file()
        patterns = required_files(file=wanted)
        resolved = resolve_model(
            self._model_arg,
            kind="embedding",
            revision=self._revision,
            cache_dir=self._cache_dir,
            allow_patterns=patterns,
            required_files=[wanted] if wanted else (),
        )
        directory = resolved.path
        onnx_file = _find_onnx_file(directory, wanted, resolved)
        tokenizer_path = directory / "tokenizer.json"
        if not tokenizer_path.is_file():
            raise ModelNotFoundError(
                f"no tokenizer.json in the embedding model directory {str(directory)!r}; a "
                "model directory needs tokenizer.json next to its ONNX file (re-export it, or "
                "copy tokenizer.json from the model's Hugging Face repo)"
            )
        threads = self._threads or default_threads()
        session = shared_session(directory, onnx_file, threads)
        tokenizer = model_cache.get_or_create(
            ("tokenizer", str(tokenizer_path), "no-padding"),
            lambda: _new_tokenizer(tokenizer_path),
        )
        input_names = tuple(item.name for item in session.get_inputs())
        unknown = [
            n for n in input_names if n not in ("input_ids", "attention_mask", "token_type_ids")
        ]
        if "input_ids" not in input_names or unknown:
            raise ConfigurationError(
                f"{onnx_file} in {directory} takes inputs {list(input_names)}; EmbeddingJudge "
                "feeds input_ids, attention_mask and token_type_ids only. Export the model with "
                "optimum (task='feature-extraction')"
            )
        output_name, pooled = _pick_output(session, onnx_file)
        return _Model(
            session=session,
            tokenizer=tokenizer,
            input_names=input_names,
            output_name=output_name,
            pooled=pooled,
            max_length=_max_length(directory),
            identity=JudgeIdentity(
                "EmbeddingJudge",
                resolved.repo_id or str(directory),
                resolved.revision,
                onnx_file,
            ),
        )

    # -- the judge protocol ----------------------------------------------------------------------

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """Decide whether ``output`` is close enough to the description (or its examples)."""
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge many requests with one pass over the model: each distinct text embedded once."""
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
        output_texts = list(dict.fromkeys(output for output, _, _ in requests))
        reference_texts = [
            text for _, description, _ in requests for text in _reference_texts(description)
        ]
        references, missing = self._cached_references(reference_texts)
        # one pass over the model for the outputs and the references not cached yet
        embedded = self._embed_texts(model, [*output_texts, *missing])
        self._remember_references({text: embedded[text] for text in missing})
        references.update((text, embedded[text]) for text in missing)
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
            score = _clip(s_pos)
            if counterexamples:
                s_neg, neg_text, neg_window = _closest(output, counterexamples, references)
            else:
                s_neg, neg_text, neg_window = 0.0, None, pos_window
            passed = score >= threshold and s_pos > s_neg
            reason = f"closest example (similarity {s_pos:.3f}): {_quote(pos_text)}"
            if neg_text is not None:
                reason += (
                    f"; closest counterexample (similarity {s_neg:.3f}): {_quote(neg_text)}; "
                    f"margin {s_pos - s_neg:+.3f}"
                )
            else:
                reason += "; no counterexamples"
            if s_pos <= s_neg:
                reason += " — the output is at least as close to a counterexample"
            window = pos_window if s_pos >= s_neg else neg_window
        else:
            s_desc, _, window = _closest(output, (str(description),), references)
            score = _clip(s_desc)
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

    def _cached_references(self, texts: list[str]) -> tuple[dict[str, _Embedded], list[str]]:
        """Descriptions and examples already embedded by this judge, and the ones that are not."""
        found: dict[str, _Embedded] = {}
        missing: list[str] = []
        with self._lock:
            for text in dict.fromkeys(texts):
                if text in self._references:
                    self._references.move_to_end(text)
                    found[text] = self._references[text]
                else:
                    missing.append(text)
        return found, missing

    def _remember_references(self, fresh: dict[str, _Embedded]) -> None:
        """Keep reference embeddings in a bounded per-judge LRU."""
        with self._lock:
            for text, embedded in fresh.items():
                self._references[text] = embedded
                self._references.move_to_end(text)
            while len(self._references) > _REFERENCE_CACHE_SIZE:
                self._references.popitem(last=False)

    def _embed_texts(self, model: _Model, texts: list[str]) -> dict[str, _Embedded]:
        texts = list(dict.fromkeys(str(text) for text in texts))
        encodings = model.tokenizer.encode_batch(texts) if texts else []
        per_text = [
            _windows(text, encoding, model.max_length)
            for text, encoding in zip(texts, encodings, strict=True)
        ]
        flat = [window.ids for windows in per_text for window in windows]
        vectors = self._run(model, flat)
        result: dict[str, _Embedded] = {}
        start = 0
        for text, encoding, windows in zip(texts, encodings, per_text, strict=True):
            result[text] = _Embedded(
                vectors[start : start + len(windows)], tuple(windows), len(encoding.ids)
            )
            start += len(windows)
        return result

    def _run(self, model: _Model, sequences: list[tuple[int, ...]]) -> Vectors:
        """Embed token sequences in length-sorted batches; rows come back in input order."""
        result: Vectors = np.zeros((len(sequences), 0), dtype=np.float32)
        order = sorted(range(len(sequences)), key=lambda i: len(sequences[i]))
        for begin in range(0, len(order), self.batch_size):
            chunk = order[begin : begin + self.batch_size]
            width = max(len(sequences[i]) for i in chunk)
            ids = np.zeros((len(chunk), width), dtype=np.int64)
            mask = np.zeros((len(chunk), width), dtype=np.int64)
            for row, index in enumerate(chunk):
                sequence = sequences[index]
                ids[row, : len(sequence)] = sequence
                mask[row, : len(sequence)] = 1
            feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
            (hidden,) = model.session.run(
                [model.output_name], {name: feed[name] for name in model.input_names}
            )
            hidden = np.asarray(hidden, dtype=np.float32)
            if model.pooled:
                pooled = hidden
            else:
                weights = mask[:, :, None].astype(np.float32)
                pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
            norms = np.clip(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12, None)
            pooled = (pooled / norms).astype(np.float32)
            if result.shape[1] == 0:
                result = np.zeros((len(sequences), pooled.shape[1]), dtype=np.float32)
            result[chunk] = pooled
        return result


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


def _clip(value: float) -> float:
    return min(1.0, max(0.0, value))


def _quote(text: str, limit: int = 80) -> str:
    text = " ".join(text.split())
    return repr(text if len(text) <= limit else text[: limit - 3] + "...")


def _windows(text: str, encoding: Any, max_length: int) -> list[_Window]:
    """Split an encoded text into sentence-aligned windows of at most ``max_length`` tokens."""
    ids: list[int] = list(encoding.ids)
    if len(ids) <= max_length:
        return [_Window(tuple(ids), text)]
    special: list[int] = list(encoding.special_tokens_mask)
    lead = 0
    while lead < len(ids) and special[lead]:
        lead += 1
    trail = 0
    while trail < len(ids) - lead and special[len(ids) - 1 - trail]:
        trail += 1
    prefix, suffix = ids[:lead], ids[len(ids) - trail :]
    content = ids[lead : len(ids) - trail]
    offsets: list[tuple[int, int]] = list(encoding.offsets)[lead : len(ids) - trail]
    budget = max(1, max_length - lead - trail)
    ends = [match.end() for match in _SENTENCE_END.finditer(text)]
    sentence_of = [bisect.bisect_right(ends, start) for start, _ in offsets]
    # token ranges [start, stop) of consecutive sentences
    ranges: list[tuple[int, int]] = []
    for index, sentence in enumerate(sentence_of):
        if ranges and sentence_of[ranges[-1][0]] == sentence:
            ranges[-1] = (ranges[-1][0], index + 1)
        else:
            ranges.append((index, index + 1))
    spans: list[tuple[int, int]] = []
    current: tuple[int, int] | None = None
    for start, stop in ranges:
        if stop - start > budget:
            if current is not None:
                spans.append(current)
                current = None
            spans.extend((k, min(k + budget, stop)) for k in range(start, stop, budget))
        elif current is not None and stop - current[0] <= budget:
            current = (current[0], stop)
        else:
            if current is not None:
                spans.append(current)
            current = (start, stop)
    if current is not None:
        spans.append(current)
    return [
        _Window(
            tuple(prefix + content[start:stop] + suffix),
            text[offsets[start][0] : offsets[stop - 1][1]],
        )
        for start, stop in spans
    ]


def required_files(model: str | None = None, *, file: str | None = None) -> list[str]:
    """The files of a Hub model the embedding judge needs (for ``semantix download``).

    ``file`` is the ONNX file to load; default: the registry's file for ``model`` (a registered
    name or repo id, or None for the default model), else ``onnx/model.onnx``.
    """
    if file is None:
        name = model or default_model("embedding").repo_id
        registered = [i for i in list_supported_models("embedding") if name in (i.name, i.repo_id)]
        file = registered[0].onnx_file if registered else None
    return [file or "onnx/model.onnx", "*.json", "vocab.txt"]


def _find_onnx_file(directory: Path, wanted: str | None, resolved: ResolvedModel) -> str:
    if wanted is not None and (directory / wanted).is_file():
        return wanted
    if wanted is None:
        for candidate in _DEFAULT_FILES:
            if (directory / candidate).is_file():
                return candidate
    found = sorted(str(p.relative_to(directory)) for p in directory.rglob("*.onnx"))
    where = f"{resolved.name}" + (f"@{resolved.revision}" if resolved.revision else "")
    asked = f"ONNX file {wanted!r}" if wanted else f"any of {list(_DEFAULT_FILES)}"
    if resolved.repo_id is not None:
        fix = (
            "Fetch it on a connected machine with `semantix download`, or pass file=... "
            "naming a file that is there"
        )
    else:
        fix = (
            "Pass file=... naming one of them, or export the model to ONNX "
            "(optimum-cli export onnx --task feature-extraction)"
        )
    raise ModelNotFoundError(
        f"embedding model {where} at {str(directory)!r} has no {asked}; ONNX files there: "
        f"{found or 'none'}. {fix}"
    )


def _new_tokenizer(path: Path) -> Any:
    tokenizer = Tokenizer.from_file(str(path))
    # The shipped tokenizer.json of all-MiniLM-L6-v2 pads every text to 128 tokens (~10x slower)
    # and truncates at 128: we pad per batch ourselves and window long texts instead.
    tokenizer.no_padding()
    tokenizer.no_truncation()
    return tokenizer


def _pick_output(session: Any, onnx_file: str) -> tuple[str, bool]:
    """The output to read: per-token embeddings (mean pooled here), else a pooled embedding."""
    outputs = {item.name: item for item in session.get_outputs()}
    for name in _TOKEN_OUTPUTS:
        if name in outputs:
            return name, False
    for name, item in outputs.items():
        if len(item.shape) == 3:
            return name, False
    for name, item in outputs.items():
        if len(item.shape) == 2:
            return name, True
    raise ConfigurationError(
        f"{onnx_file} has outputs {list(outputs)} but none is a (batch, tokens, dim) or "
        "(batch, dim) embedding; export it with task='feature-extraction'"
    )


def _max_length(directory: Path) -> int:
    """Tokens the model sees: sentence_bert_config's max_seq_length, else the tokenizer's limit."""
    limit: int | None = None
    sbert = _read_json(directory / "sentence_bert_config.json")
    if isinstance(sbert.get("max_seq_length"), int):
        limit = int(sbert["max_seq_length"])
    if limit is None:
        value = _read_json(directory / "tokenizer_config.json").get("model_max_length")
        if isinstance(value, (int, float)) and 0 < value < 100_000:
            limit = int(value)
    positions = _read_json(directory / "config.json").get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        limit = min(limit, positions) if limit is not None else positions
    return max(8, limit or 512)


def _read_json(path: Path) -> dict[str, Any]:
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ConfigurationError(
            f"cannot read {path}: {exc}; re-download or re-export the model"
        ) from exc
    return data if isinstance(data, dict) else {}


EmbeddingJudge.__module__ = "semantix"
