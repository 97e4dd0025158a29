"""The NLI logic both NLI judges share, so they cannot drift apart: `NLICore`.

A judge supplies only a ``forward(batch) -> logits`` function (onnxruntime or torch); everything
else lives here:

- **labels** and **probabilities** — from `semantix.judges.labels` (entailment found by
  name in ``id2label``; softmax, sigmoid for a single-logit head);
- **hypothesis** — an intent's explicit ``hypothesis`` wins, else
  `semantix.judges.phrasing.to_hypothesis` rewrites the description;
- **windows** — an output that does not fit the model together with the hypothesis is cut into
  the fewest near-equal, sentence-aligned windows that do (`semantix.text`, counted
  with the model's real tokenizer; a sentence longer than a window is cut before a word).
  Nothing is ever truncated silently;
- **aggregation** — every window is scored; the verdict's score is the *best* window's
  entailment probability and that window is reported as ``evidence`` (the output satisfies
  the intent if some part of it does; ``~Intent`` therefore fails if any part satisfies it);
- **batching** — pairs are tokenised together (``encode_batch``), sorted by length, cut into
  batches of similar length (at most ``batch_size``), padded per batch, and the verdicts come
  back in request order.

The judges' base (`semantix.judges.nli.NLIJudgeBase`) adds loading and the support check
(`semantix.judges.support`), which runs on this core too.

Nothing heavy is imported at module import: the tokenizer module is imported when a model is
loaded.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from semantix.cache import model_cache
from semantix.config import check_threshold
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges.base import JudgeIdentity, JudgeRequest, Verdict
from semantix.judges.hypothesis import to_hypothesis
from semantix.judges.labels import LabelMap, label_map_from_config, probabilities
from semantix.judges.model_dir import read_model_dir
from semantix.judges.onnx import EncodedBatch, pad
from semantix.text import length_batches, token_windows

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = ["Forward", "NLICore", "Window", "hypothesis_for", "shared_core"]

#: Tokens kept free in each window for tokenizers whose counts shift at a window's edge
#: (byte-level BPE merges a leading space); every window is re-checked after encoding anyway.
_WINDOW_MARGIN = 2


def hypothesis_for(intent_description: str) -> str:
    """The hypothesis to test: the intent's explicit ``hypothesis``, else the rewrite."""
    explicit = getattr(intent_description, "hypothesis", None)
    if isinstance(explicit, str) and explicit.strip():
        return explicit.strip()
    return to_hypothesis(str(intent_description))


@dataclass(frozen=True, slots=True)
class Window:
    """One piece of an output the model sees whole: ``output[start:end]``."""

    text: str
    start: int
    end: int
    encoding: Encoding


Forward = Callable[[EncodedBatch], Sequence[Sequence[float]]]


class NLICore:
    """Tokenizer, labels, windows, batching and verdicts for one NLI model directory.

    Build it with `from_dir`; judges share one per model through the model cache.
    The tokenizer is configured explicitly: no padding (batches are padded here, to the
    longest pair of each batch) and no truncation (windows guarantee every pair fits; a pair
    that would not fit is an error, never cut).
    """

    def __init__(
        self,
        tokenizer: Tokenizer,
        label_map: LabelMap,
        max_length: int,
        pad_id: int,
    ) -> None:
        tokenizer.no_padding()
        tokenizer.no_truncation()
        self.tokenizer = tokenizer
        self.label_map = label_map
        self.max_length = max_length
        self.pad_id = pad_id
        self.pair_specials = tokenizer.num_special_tokens_to_add(True)

    @classmethod
    def from_dir(cls, path: Path, tokenizer: Tokenizer | None = None) -> NLICore:
        """Read ``path`` (`read_model_dir`) and its labels."""
        files = read_model_dir(
            path,
            judge="NLI judge",
            fix="create the layout with `semantix export MODEL DIR`",
            require_config=True,
            tokenizer=tokenizer,
        )
        return cls(
            files.tokenizer,
            label_map_from_config(files.config, source=str(path / "config.json")),
            files.max_length,
            files.pad_id,
        )

    # -- windows -----------------------------------------------------------------------------

    def windows(self, output: str, hypothesis: str, whole: Encoding | None = None) -> list[Window]:
        """The output as pieces that each fit the model together with ``hypothesis``.

        One window (the whole output) when it fits (``whole`` is its pair encoding, when the
        caller has it). Otherwise the fewest near-equal sentence-aligned windows of at most
        ``max_length - specials - len(hypothesis)`` tokens (minus a small margin); see
        `semantix.text.token_windows`. Windows do not overlap and cover every
        token of the output.
        """
        if whole is None:
            whole = self.tokenizer.encode(output, hypothesis)
        if len(whole) <= self.max_length:
            return [Window(output, 0, len(output), whole)]
        hypothesis_tokens = len(self.tokenizer.encode(hypothesis, add_special_tokens=False).ids)
        budget = self.max_length - self.pair_specials - hypothesis_tokens - _WINDOW_MARGIN
        if budget < 8:
            raise ConfigurationError(
                f"the hypothesis {hypothesis!r} is {hypothesis_tokens} tokens long, which leaves "
                f"no room for the output in the model's {self.max_length}-token input; shorten "
                "the intent's description or hypothesis"
            )
        offsets = self.tokenizer.encode(output, add_special_tokens=False).offsets
        ranges = token_windows(output, offsets, budget)
        result: list[Window] = []
        pending = ranges
        while pending:
            texts = [output[offsets[a][0] : offsets[b - 1][1]] for a, b in pending]
            encodings = self.tokenizer.encode_batch(
                list(zip(texts, [hypothesis] * len(texts), strict=True))
            )
            retry: list[tuple[int, int]] = []
            for (a, b), text, encoding in zip(pending, texts, encodings, strict=True):
                if len(encoding) <= self.max_length:
                    result.append(Window(text, offsets[a][0], offsets[b - 1][1], encoding))
                elif b - a > 1:
                    middle = (a + b) // 2
                    retry.extend([(a, middle), (middle, b)])
                else:  # pragma: no cover - one token cannot exceed a budget of >= 8
                    raise JudgeError(f"cannot fit the token {text!r} into the model input")
            pending = retry
        result.sort(key=lambda window: window.start)
        return result

    # -- batches -----------------------------------------------------------------------------

    def pad(self, encodings: Sequence[Encoding]) -> EncodedBatch:
        """Right-pad ``encodings`` to the longest of them (`semantix.judges.onnx.pad`)."""
        return pad([e.ids for e in encodings], self.pad_id, [e.type_ids for e in encodings])

    def score(
        self, encodings: Sequence[Encoding], forward: Forward, batch_size: int
    ) -> list[dict[str, float]]:
        """Each encoded pair's label probabilities, in order: ``forward`` on length-sorted
        batches of at most ``batch_size``, each padded to its longest pair."""
        rows: list[dict[str, float]] = [{}] * len(encodings)
        for chunk in length_batches([len(encoding) for encoding in encodings], batch_size):
            logits = forward(self.pad([encodings[i] for i in chunk]))
            if len(logits) != len(chunk):
                raise JudgeError(
                    f"the model returned {len(logits)} rows of logits for a batch of {len(chunk)}"
                )
            for i, row in zip(chunk, logits, strict=True):
                rows[i] = probabilities(row, self.label_map)
        return rows

    def run(
        self,
        requests: Sequence[JudgeRequest],
        forward: Forward,
        *,
        batch_size: int,
        identity: JudgeIdentity,
    ) -> list[Verdict]:
        """Judge every request; verdicts come back in request order.

        ``latency_ms`` of each verdict is the wall time of the whole call divided by the number
        of requests (one request: its own wall time).
        """
        started = time.perf_counter()
        thresholds = [check_threshold(threshold) for _, _, threshold in requests]
        for output, _, _ in requests:
            if not isinstance(output, str):
                raise TypeError(
                    f"an NLI judge scores text, got output of type {type(output).__name__}"
                )
        hypotheses = [hypothesis_for(description) for _, description, _ in requests]
        pairs = [
            (output, hypothesis)
            for (output, _, _), hypothesis in zip(requests, hypotheses, strict=True)
        ]
        # encode_batch hands work to a thread pool: worth it for a batch, ~1 ms lost on one pair
        wholes = (
            self.tokenizer.encode_batch(pairs)
            if len(pairs) != 1
            else [self.tokenizer.encode(*pairs[0])]
        )
        per_request = [
            self.windows(output, hypothesis, whole)
            for (output, hypothesis), whole in zip(pairs, wholes, strict=True)
        ]
        flat = [window.encoding for windows in per_request for window in windows]
        rows = self.score(flat, forward, batch_size)
        elapsed_ms = (time.perf_counter() - started) * 1000.0 / max(1, len(requests))
        verdicts: list[Verdict] = []
        position = 0
        for windows, hypothesis, threshold in zip(per_request, hypotheses, thresholds, strict=True):
            scored = rows[position : position + len(windows)]
            position += len(windows)
            best = max(range(len(windows)), key=lambda k: scored[k]["entailment"])
            verdicts.append(
                self._verdict(
                    scored[best], windows, best, hypothesis, threshold, identity, elapsed_ms
                )
            )
        return verdicts

    def _verdict(
        self,
        probs: dict[str, float],
        windows: Sequence[Window],
        best: int,
        hypothesis: str,
        threshold: float,
        identity: JudgeIdentity,
        latency_ms: float,
    ) -> Verdict:
        score = min(1.0, max(0.0, probs["entailment"]))
        others = ", ".join(
            f"{label} {value:.2f}" for label, value in probs.items() if label != "entailment"
        )
        reason = f"entailment {score:.2f}" + (f" ({others})" if others else "")
        reason += f" for {hypothesis!r}"
        evidence = None
        if len(windows) > 1:
            window = windows[best]
            reason += (
                f"; best of {len(windows)} windows: #{best + 1}, "
                f"characters {window.start}-{window.end}"
            )
            evidence = window.text
        return Verdict(
            passed=score >= threshold,
            score=score,
            reason=reason,
            threshold=threshold,
            probabilities=probs,
            evidence=evidence,
            judge=identity,
            latency_ms=latency_ms,
        )


def shared_core(path: Path, tokenizer: Callable[[], Tokenizer | None] | None = None) -> NLICore:
    """The process-wide `NLICore` of the model directory ``path``.

    The core is keyed by the directory *and* where its tokenizer comes from: ``tokenizer.json``
    (every judge reads it alike, so they share one core) or, for a directory without one, the
    fast tokenizer ``tokenizer()`` builds (transformers' conversion of the slow-tokenizer files).
    A judge that needs tokenizer.json never gets a tokenizer another judge built otherwise.
    """
    directory = str(path.resolve())
    if tokenizer is None or (path / "tokenizer.json").is_file():
        return model_cache.get_or_create(
            ("nli-core", directory, "tokenizer.json"), lambda: NLICore.from_dir(path)
        )
    build = tokenizer
    return model_cache.get_or_create(
        ("nli-core", directory, "converted"), lambda: NLICore.from_dir(path, tokenizer=build())
    )
