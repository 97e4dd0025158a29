"""The base of both NLI judges, so the quantized and the transformers judge cannot drift apart:
loading (`semantix.judges._lazy`), the entailment core (`semantix.judges._nli_core`) for plain
requests and the support check (`semantix.judges._support`) for ``Grounded``/``Contradicts``."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from semantix._intent import SupportDescription
from semantix.judges._base import JudgeIdentity, JudgeRequest, Verdict
from semantix.judges._lazy import ModelJudge
from semantix.judges._nli_core import NLICore
from semantix.judges._onnx import EncodedBatch
from semantix.judges._support import support_verdicts

__all__ = ["LoadedNLI", "NLIJudgeBase"]


@dataclass(frozen=True, slots=True)
class LoadedNLI:
    """An NLI judge's loaded model: the shared core, its identity, the session or torch module."""

    core: NLICore
    identity: JudgeIdentity
    backend: Any


class NLIJudgeBase(ModelJudge[LoadedNLI]):
    """What the NLI judges share; a subclass implements ``_load_now()`` (a `LoadedNLI`) and
    ``_forward(batch, backend)`` (one row of logits per pair)."""

    kind = "nli"
    #: Above 0.5 the model prefers entailment to all other labels together (docs/judges/nli.md
    #: says why this, not 0.8); an instance may set its own.
    recommended_threshold: float | None = 0.5
    #: An NLI model cannot confirm an absence: a prohibition is judged as its positive, inverted.
    reads_negation = False
    scale = "entailment"  # P(entailment) of the intent's hypothesis

    def _forward(self, batch: EncodedBatch, backend: Any) -> Sequence[Sequence[float]]:
        raise NotImplementedError

    @property
    def core(self) -> NLICore:
        """The shared NLI logic for this judge's model (loads the model)."""
        return self._load().core

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        """P(entailment) of the intent's hypothesis given ``output``, against ``threshold`` (a
        support request, called directly, is scored by `evaluate_support`)."""
        support = isinstance(intent_description, SupportDescription)
        check = support_verdicts if support else NLICore.run
        return self._score_with([(output, intent_description, threshold)], check)[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Judge many (output, description, threshold) requests in padded, length-sorted batches
        of the entailment core (`NLICore.run`)."""
        return self._score_with(requests, NLICore.run)

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        """Support of each output by its sources (``Grounded``/``Contradicts`` requests only,
        `semantix.judges._support`)."""
        return self._score_with(requests, support_verdicts)

    def _score_with(
        self, requests: Sequence[JudgeRequest], check: Callable[..., list[Verdict]]
    ) -> list[Verdict]:
        if not requests:
            return []
        loaded = self._load()
        backend, forward = loaded.backend, self._forward
        return check(
            loaded.core,
            requests,
            lambda batch: forward(batch, backend),
            batch_size=self.batch_size,
            identity=loaded.identity,
        )
