"""`NLICore`, the NLI logic both NLI judges (and the support check) share, so they cannot drift
apart: a judge supplies only ``forward(batch) -> logits``; the labels, hypothesis, windows,
aggregation and batching are here, as docs/judges/nli.md describes them."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from semantix._cache import model_cache
from semantix._config import check_threshold
from semantix._text import length_batches, token_windows
from semantix.errors import ConfigurationError, JudgeError
from semantix.judges._base import JudgeIdentity, JudgeRequest, Verdict
from semantix.judges._hypothesis import to_hypothesis
from semantix.judges._labels import LabelMap, label_map_from_config, probabilities
from semantix.judges._model_dir import read_model_dir
from semantix.judges._onnx import EncodedBatch, pad

if TYPE_CHECKING:
    from tokenizers import Encoding, Tokenizer

__all__ = ["Forward", "NLICore", "ScorePairs", "Window", "hypothesis_for", "shared_core"]

#: Tokens kept free in each window for tokenizers whose counts shift at a window's edge
#: (byte-level BPE merges a leading space); every window is re-checked after encoding anyway.
_WINDOW_MARGIN = 2


def hypothesis_for(intent_description: str) -> str:
    """The hypothesis to test: the intent's explicit ``hypothesis``, else the rewrite."""
    explicit = getattr(intent_description, "hypothesis", None)
    if isinstance(explicit, str) and explicit.strip():
        return explicit.strip()
    return to_hypothesis(str(intent_description))


class Window(NamedTuple):
    """One piece of an output the model sees whole: ``output[start:end]``."""

    text: str
    start: int
    end: int
    encoding: Encoding


Forward = Callable[[EncodedBatch], Sequence[Sequence[float]]]
#: Label probabilities of each (window, hypothesis) pair, in order.
ScorePairs = Callable[[list[tuple["Window", str]]], Sequence[dict[str, float]]]


class NLICore:
    """Tokenizer, labels, windows, batching and verdicts for one NLI model directory, shared per
    model (`shared_core`). Nothing is padded but per batch, nothing is ever truncated."""

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

    def windows(self, output: str, hypothesis: str, whole: Encoding | None = None) -> list[Window]:
        """The output as pieces that each fit the model with ``hypothesis`` (``whole``: its pair
        encoding, if known): the whole output, else `semantix._text.token_windows`'s windows."""
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

    def score(
        self, encodings: Sequence[Encoding], forward: Forward, batch_size: int
    ) -> list[dict[str, float]]:
        """Each encoded pair's label probabilities, in order: ``forward`` on length-sorted
        batches of at most ``batch_size``, each padded to its longest pair."""
        rows: list[dict[str, float]] = [{}] * len(encodings)
        for chunk in length_batches([len(encoding) for encoding in encodings], batch_size):
            batch = [encodings[i] for i in chunk]
            logits = forward(pad([e.ids for e in batch], self.pad_id, [e.type_ids for e in batch]))
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
        """Judge every request, in order (each ``latency_ms``: the call's share of the time)."""
        return self.decide(
            requests,
            lambda pairs: self.score([window.encoding for window, _ in pairs], forward, batch_size),
            identity=identity,
        )

    def decide(
        self, requests: Sequence[JudgeRequest], score_pairs: ScorePairs, *, identity: JudgeIdentity
    ) -> list[Verdict]:
        """`run`, with the label probabilities of each (window, hypothesis) pair from
        ``score_pairs`` (a served model's: `semantix.judges._tei`), so the hypotheses, windows
        and verdicts are the local judge's."""
        started = time.perf_counter()
        checked = []
        for output, description, threshold in requests:
            if not isinstance(output, str):
                raise TypeError(
                    f"an NLI judge scores text, got output of type {type(output).__name__}"
                )
            checked.append((output, hypothesis_for(description), check_threshold(threshold)))
        pairs = [(output, hypothesis) for output, hypothesis, _ in checked]
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
        rows = score_pairs(
            [
                (window, hypothesis)
                for windows, (_, hypothesis) in zip(per_request, pairs, strict=True)
                for window in windows
            ]
        )
        if len(rows) != sum(map(len, per_request)):
            raise JudgeError(f"got {len(rows)} scored pairs for {sum(map(len, per_request))}")
        latency_ms = (time.perf_counter() - started) * 1000.0 / max(1, len(requests))
        verdicts: list[Verdict] = []
        position = 0
        for windows, (_, hypothesis, threshold) in zip(per_request, checked, strict=True):
            scored = rows[position : position + len(windows)]
            position += len(windows)
            best = max(range(len(windows)), key=lambda k: scored[k]["entailment"])
            probs = scored[best]
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
            verdicts.append(
                Verdict(
                    passed=score >= threshold,
                    score=score,
                    reason=reason,
                    threshold=threshold,
                    probabilities=probs,
                    evidence=evidence,
                    judge=identity,
                    latency_ms=latency_ms,
                )
            )
        return verdicts


def shared_core(path: Path, tokenizer: Callable[[], Tokenizer | None] | None = None) -> NLICore:
    """The process-wide `NLICore` of the model directory ``path``, keyed by the directory and
    where its tokenizer comes from: ``tokenizer.json``, or for a directory without one the fast
    tokenizer ``tokenizer()`` builds (so a judge never gets a tokenizer built otherwise)."""
    build = None if (path / "tokenizer.json").is_file() else tokenizer
    return model_cache.get_or_create(
        ("nli-core", str(path.resolve()), "tokenizer.json" if build is None else "converted"),
        lambda: NLICore.from_dir(path, None if build is None else build()),
    )
