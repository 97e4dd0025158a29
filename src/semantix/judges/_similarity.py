"""The similarity judges' verdicts, written once: `SimilarityJudge` decides by cosine similarity
to the description or, by its `ExampleRule`, to the examples (docs/judges/embedding.md)."""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from semantix._config import check_threshold, is_number
from semantix._text import preview
from semantix.errors import ConfigurationError
from semantix.judges._base import Judge, JudgeIdentity, JudgeRequest, Verdict

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    Vectors = npt.NDArray[np.float32]
else:
    Vectors = Any

__all__ = ["Embedded", "ExampleRule", "SimilarityJudge", "unit_rows"]

REFERENCE_CACHE_SIZE = 2048  # description / example embeddings a judge keeps (they repeat)


@dataclass(frozen=True, slots=True)
class Embedded:
    """A text as a similarity judge compares it: one unit vector per window, and its windows."""

    vectors: Vectors
    windows: tuple[str, ...]
    #: The text's length in the model's tokens (None: the embedder does not say).
    tokens: int | None = None


@dataclass(frozen=True, slots=True)
class ExampleRule:
    """How an intent's examples and counterexamples decide a similarity verdict.

    Args:
        closest: how many of the closest examples (and, separately, counterexamples) are
            averaged: 3 by default (measured: docs/judges/embedding.md), 1 the closest one
            alone, None all of them (pytest-semantic's rule). A side with fewer is averaged
            whole.
        margin: how far the examples' side must lead the counterexamples' (``s_pos - s_neg >
            margin``); 0: closer to the examples is enough.
    """

    closest: int | None = 3
    margin: float = 0.0

    def __post_init__(self) -> None:
        if self.closest is not None and (
            isinstance(self.closest, bool) or not isinstance(self.closest, int) or self.closest < 1
        ):
            raise ConfigurationError(
                f"ExampleRule(closest={self.closest!r}) must be a whole number >= 1 (how many "
                "closest examples are averaged), or None for all of them"
            )
        if not is_number(self.margin, low=0.0, high=1.0):
            raise ConfigurationError(
                f"ExampleRule(margin={self.margin!r}) must be a number in [0, 1]: how much more "
                "similar to the examples than to the counterexamples an output must be"
            )

    @property
    def version(self) -> str | None:
        """Part of a frozen verdict's fingerprint (None for the earlier default, closest=1)."""
        if self == ExampleRule(closest=1):
            return None
        return f"example-rule:closest={self.closest},margin={self.margin:g}"

    def side(self, count: int) -> str:
        """Which of ``count`` references are averaged: ``closest``, ``the 3 closest``, ``all 2``."""
        if self.closest == 1 or count == 1:
            return "closest"
        if self.closest is None or self.closest >= count:
            return f"all {count}"
        return f"the {self.closest} closest"


class SimilarityJudge(Judge):
    """The base of the judges that decide by cosine similarity: a subclass calls
    `_start_similarity` in its constructor and implements `_embed_many` (texts -> `Embedded`)."""

    reads_negation = False  # embeddings cannot see "not"
    #: The example rule uses the examples: none is calibrated from (it would score 1.0 itself).
    uses_examples = True
    scale = "similarity"

    rule: ExampleRule

    def _start_similarity(self, rule: ExampleRule | None) -> None:
        if rule is not None and not isinstance(rule, ExampleRule):
            raise ConfigurationError(
                f"{type(self).__name__}(rule=...) must be a semantix.judges.ExampleRule, got "
                f"{type(rule).__name__} {rule!r}; e.g. rule=ExampleRule(closest=3)"
            )
        self.rule = rule or ExampleRule()
        self.prompt_version = self.rule.version
        self._references_lock = threading.Lock()
        self._references: OrderedDict[str, Embedded] = OrderedDict()

    def _embed_many(self, texts: list[str]) -> dict[str, Embedded]:
        raise NotImplementedError

    @property
    def max_length(self) -> int | None:
        """The most tokens (special tokens included) the model sees at once (None: any text)."""
        return None

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
                    f"{type(self).__name__} needs the output as str, got "
                    f"{type(output).__name__}; semantix.assert_semantic converts SDK responses "
                    "for you"
                )
            check_threshold(threshold)
        references = self._references_for(
            [text for _, description, _ in requests for text in _reference_texts(description)]
        )
        embedded = self._embed_many(list(dict.fromkeys(output for output, _, _ in requests)))
        identity = self.identity
        latency = (time.perf_counter() - started) * 1000 / max(1, len(requests))
        return [
            self._verdict(embedded[output], description, threshold, references, identity, latency)
            for output, description, threshold in requests
        ]

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Unit-length embeddings of ``texts``, one row each (a long text: mean of its windows)."""
        texts = [str(text) for text in texts]
        embedded = self._embed_many(list(dict.fromkeys(texts)))
        return unit_rows([embedded[text].vectors.mean(axis=0) for text in texts])

    def _verdict(
        self,
        output: Embedded,
        description: str,
        threshold: float,
        references: dict[str, Embedded],
        identity: JudgeIdentity,
        latency_ms: float,
    ) -> Verdict:
        examples = tuple(getattr(description, "examples", ()) or ())
        counterexamples = tuple(getattr(description, "counterexamples", ()) or ())
        if examples:
            passed, score, reason, window = self._example_verdict(
                output, examples, counterexamples, threshold, references
            )
        else:
            s_desc, _, window = _similarities(output, (str(description),), references)[0]
            score = min(1.0, max(0.0, s_desc))  # a negative similarity scores 0
            passed = score >= threshold
            reason = f"cosine similarity to the intent description: {s_desc:.3f}"
        evidence: str | None = None
        if len(output.windows) > 1:
            reason += (
                f"; the output has {output.tokens} tokens, more than the {self.max_length} "
                f"the model sees: scored in {len(output.windows)} sentence-aligned windows, "
                f"best window {window + 1} (the evidence)"
            )
            evidence = output.windows[window]
        return Verdict(
            passed=bool(passed),
            score=score,
            reason=reason,
            threshold=threshold,
            evidence=evidence,
            judge=identity,
            latency_ms=latency_ms,
        )

    def _example_verdict(
        self,
        output: Embedded,
        examples: tuple[str, ...],
        counterexamples: tuple[str, ...],
        threshold: float,
        references: dict[str, Embedded],
    ) -> tuple[bool, float, str, int]:
        """(passed, score, reason, the output window the decision rests on)."""
        rule = self.rule
        s_pos, pos_text, pos_window = _side(output, examples, references, rule.closest)
        score = min(1.0, max(0.0, s_pos))
        pos = _Side("example", rule.side(len(examples)), s_pos, pos_text)
        reason = pos.described()
        if not counterexamples:
            reason += "; no counterexamples"
            if not s_pos > rule.margin:  # first, as below: why it fails whatever its threshold
                reason = (
                    f"{pos.short(named=False)} not above the margin {rule.margin:g} "
                    "(no counterexamples); " + reason
                )
            return score >= threshold and s_pos > rule.margin, score, reason, pos_window
        s_neg, neg_text, neg_window = _side(output, counterexamples, references, rule.closest)
        neg = _Side("counterexample", rule.side(len(counterexamples)), s_neg, neg_text)
        reason += f"; {neg.described()}; margin {s_pos - s_neg:+.3f}"
        leads = s_pos - s_neg > rule.margin
        if not leads:
            # First, so the failure message's verdict column can show why (its first clause).
            reason = _why_counterexamples_win(pos, neg, rule.margin) + "; " + reason
        window = pos_window if s_pos >= s_neg else neg_window
        return score >= threshold and leads, score, reason, window

    def _references_for(self, texts: list[str]) -> dict[str, Embedded]:
        """Descriptions and examples, each embedded once on its own (never beside an output)."""
        found: dict[str, Embedded] = {}
        missing: list[str] = []
        with self._references_lock:
            for text in dict.fromkeys(texts):
                if text in self._references:
                    self._references.move_to_end(text)
                    found[text] = self._references[text]
                else:
                    missing.append(text)
        fresh = {text: self._embed_many([text])[text] for text in missing}
        with self._references_lock:
            for text, embedded in fresh.items():
                self._references[text] = embedded
                self._references.move_to_end(text)
            while len(self._references) > REFERENCE_CACHE_SIZE:
                self._references.popitem(last=False)
        return {**found, **fresh}


def unit_rows(rows: Any) -> Vectors:
    """``rows`` as a float32 matrix of unit-length rows (a zero row stays zero); each row is
    divided by its largest magnitude first, in float64, so no norm overflows or underflows."""
    import numpy as np

    matrix = np.asarray(rows, dtype=np.float64).reshape(len(rows), -1)
    scale = np.abs(matrix).max(axis=1, keepdims=True)
    matrix = matrix / np.where(scale > 0, scale, 1.0)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    norms[norms == 0] = 1.0
    unit: Vectors = (matrix / norms).astype(np.float32)
    return unit


def _reference_texts(description: str) -> list[str]:
    examples = tuple(getattr(description, "examples", ()) or ())
    if examples:
        return [str(e) for e in (*examples, *(getattr(description, "counterexamples", ()) or ()))]
    return [str(description)]


def _similarities(
    output: Embedded, texts: Sequence[str], references: dict[str, Embedded]
) -> list[tuple[float, str, int]]:
    """(similarity, reference text, best output window) for every reference, closest first."""
    import numpy as np

    found = []
    for text in texts:
        reference = references[str(text)].vectors
        if reference.shape[1] != output.vectors.shape[1]:
            raise ValueError(
                f"the embedding of the output has length {output.vectors.shape[1]} and that of "
                f"{preview(str(text), 60)} length {reference.shape[1]}: vectors of different "
                "lengths cannot be compared; the embedding function must return one length"
            )
        sims = output.vectors @ reference.T  # (output windows, ref windows)
        window, _ = np.unravel_index(int(np.argmax(sims)), sims.shape)
        found.append((float(sims.max()), str(text), int(window)))
    found.sort(key=lambda item: -item[0])  # stable: ties keep the written order
    return found


def _side(
    output: Embedded, texts: Sequence[str], references: dict[str, Embedded], closest: int | None
) -> tuple[float, str, int]:
    """(mean similarity of the ``closest`` nearest references, the nearest, its window)."""
    ranked = _similarities(output, texts, references)
    taken = ranked if closest is None else ranked[:closest]
    _, text, window = ranked[0]
    return sum(value for value, _, _ in taken) / len(taken), text, window


@dataclass(frozen=True, slots=True)
class _Side:
    kind: str  # "example" or "counterexample"
    averaged: str  # ExampleRule.side(): "closest", "the 3 closest", "all 2"
    similarity: float
    closest: str

    def described(self) -> str:
        if self.averaged == "closest":
            return f"closest {self.kind} (similarity {self.similarity:.3f}): {preview(self.closest, 80)}"
        return (
            f"mean similarity to {self.averaged} {self.kind}s {self.similarity:.3f} "
            f"(closest: {preview(self.closest, 80)})"
        )

    def short(self, *, named: bool) -> str:
        """``counterexample '…' (0.41)`` or ``any example (0.36)``; for a mean ``counterexamples
        (0.41, closest '…')`` or ``examples (0.36)``."""
        if self.averaged == "closest":
            if named:
                return f"{self.kind} {preview(self.closest, 60)} ({self.similarity:.2f})"
            return f"any {self.kind} ({self.similarity:.2f})"
        shown = f"{self.kind}s ({self.similarity:.2f}"
        return shown + (f", closest {preview(self.closest, 60)})" if named else ")")


def _why_counterexamples_win(pos: _Side, neg: _Side, margin: float) -> str:
    """Why a verdict fails whatever its threshold (the reason's first clause)."""
    if neg.similarity > pos.similarity:
        return f"closer to {neg.short(named=True)} than to {pos.short(named=False)}"
    if neg.similarity == pos.similarity:
        return f"as close to {neg.short(named=True)} as to {pos.short(named=False)}"
    return (
        f"{pos.short(named=False)} lead {neg.short(named=True)} by "
        f"{pos.similarity - neg.similarity:.2f}, not more than the margin {margin:g}"
    )


def check_vectors(rows: object, texts: Sequence[str], source: str) -> Vectors:
    """What an embedding function returned, checked: one finite, non-zero vector per text."""
    import numpy as np

    try:
        matrix = np.asarray(rows, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{source} must return one vector (a sequence of floats) per text, got "
            f"{type(rows).__name__}: {exc}"
        ) from None
    if matrix.ndim != 2 or matrix.shape[0] != len(texts) or matrix.shape[1] == 0:
        raise TypeError(
            f"{source} was given {len(texts)} text(s) and must return as many vectors of one "
            f"length (shape ({len(texts)}, dims)), got an array of shape {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise ValueError(f"{source} returned a vector with NaN or infinite values")
    zero = np.flatnonzero(~matrix.any(axis=1))
    if len(zero):
        raise ValueError(
            f"{source} returned an all-zero vector for {preview(texts[int(zero[0])], 60)}: "
            "a similarity to it means nothing"
        )
    return unit_rows(matrix)
