"""`TEIJudge`: the local NLI judges' hypotheses, windows and verdicts (`NLICore.decide`), each
pair scored by a text-embeddings-inference server's ``POST /predict`` (docs/judges/nli.md,
"A served model")."""

from __future__ import annotations

import json
import math
import urllib.error
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from semantix import _config as config
from semantix._config import check_positive_int
from semantix.errors import ConfigurationError, JudgeError, JudgeTimeoutError
from semantix.judges._base import Judge, JudgeIdentity, JudgeRequest, Verdict
from semantix.judges._labels import LabelMap, canonical_label, probabilities
from semantix.judges._nli_core import NLICore, Window, shared_core

__all__ = ["TEIJudge"]

_MAX_BYTES = 50_000_000  # largest reply read (a batch of predictions is a few KB)


class TEIJudge(Judge):
    """NLI judge on a text-embeddings-inference server: P(entailment) of the intent's
    hypothesis, as the local NLI judges compute it.

    Args:
        model: the server's URL (``http://host:8080``); the spec ``tei:http://host:8080``.
        model_dir: a local directory with the served model's ``tokenizer.json`` and
            ``config.json`` (default: ``SEMANTIX_MODEL_DIR``).
        timeout: seconds a request may take, connect to last byte of each read.
        batch_size: pairs per request (TEI's ``--max-client-batch-size`` defaults to 32).
    """

    kind = "nli"
    recommended_threshold: float | None = 0.5
    reads_negation = False
    scale = "entailment"

    def __init__(
        self,
        model: str,
        *,
        model_dir: str | Path | None = None,
        timeout: float = 30.0,
        batch_size: int = 32,
    ) -> None:
        if not isinstance(model, str) or not model.startswith(("http://", "https://")):
            raise ConfigurationError(
                f"TEIJudge(model={model!r}) needs the server's URL, e.g. 'http://localhost:8080' "
                "(the spec tei:http://localhost:8080)"
            )
        self.url = model.rstrip("/")
        directory = Path(model_dir) if model_dir is not None else config.model_dir("nli")
        if directory is None:
            raise ConfigurationError(
                "TEIJudge needs the served model's tokenizer.json and config.json to phrase and "
                "window its requests: pass model_dir=DIR or set SEMANTIX_MODEL_DIR (a directory "
                "from `semantix download` or `semantix export` of the same model)"
            )
        self.model_dir = directory
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, (int, float))
            or not (timeout > 0 and math.isfinite(timeout))
        ):
            raise ConfigurationError(f"TEIJudge(timeout={timeout!r}) must be positive seconds")
        self.timeout = float(timeout)
        check_positive_int(batch_size, what="TEIJudge(batch_size=...)", example=32)
        self.batch_size = batch_size

    def own_identity(self) -> JudgeIdentity:
        return JudgeIdentity(type(self).__name__, model=self.url)

    @property
    def core(self) -> NLICore:
        """The tokenizer, labels and windows of the served model (read once per process)."""
        return shared_core(self.model_dir)

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        if not requests:
            return []
        core = self.core
        return core.decide(
            requests, lambda pairs: self._score(pairs, core.label_map), identity=self.identity
        )

    def _score(self, pairs: list[tuple[Window, str]], labels: LabelMap) -> list[dict[str, float]]:
        rows: list[dict[str, float]] = []
        for start in range(0, len(pairs), self.batch_size):
            chunk = pairs[start : start + self.batch_size]
            inputs = [[window.text, hypothesis] for window, hypothesis in chunk]
            reply = self._post({"inputs": inputs, "raw_scores": True, "truncate": False})
            if not isinstance(reply, list) or len(reply) != len(chunk):
                raise JudgeError(
                    f"{self.url}/predict answered {_kind(reply)} for a batch of {len(chunk)} "
                    "pairs; expected one list of predictions per pair (TEI's /predict schema)"
                )
            rows.extend(probabilities(self._logits(item, labels), labels) for item in reply)
        return rows

    def _logits(self, predictions: object, labels: LabelMap) -> list[float]:
        """One pair's predictions (``[{"label", "score"}, ...]``, any order) as logits in the
        model's label order, matched by name."""
        if not isinstance(predictions, list) or not all(
            isinstance(p, dict) and isinstance(p.get("label"), str) and _number(p.get("score"))
            for p in predictions
        ):
            raise JudgeError(
                f"{self.url}/predict answered {_kind(predictions)} for a pair; expected a list of "
                '{"label": ..., "score": ...} (TEI\'s /predict schema)'
            )
        if labels.sigmoid and len(predictions) == 1:
            return [float(predictions[0]["score"])]
        scores = {canonical_label(p["label"]): float(p["score"]) for p in predictions}
        if sorted(scores) != sorted(labels.labels):
            raise JudgeError(
                f"{self.url} serves a model with the labels {sorted(scores)}, but "
                f"{self.model_dir}/config.json names {sorted(labels.labels)}; point model_dir at "
                "the served model"
            )
        return [scores[label] for label in labels.labels]

    def _post(self, body: dict[str, Any]) -> Any:
        request = urllib.request.Request(
            f"{self.url}/predict",
            data=json.dumps(body).encode("utf-8"),
            headers={"Content-Type": "application/json"},
            method="POST",
        )
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                data = response.read(_MAX_BYTES + 1)
        except urllib.error.HTTPError as exc:
            detail = exc.read(2000).decode("utf-8", "replace")
            raise JudgeError(
                f"{self.url}/predict answered HTTP {exc.code}: {detail or exc.reason}"
            ) from None
        except TimeoutError:
            raise JudgeTimeoutError(
                f"{self.url}/predict did not answer within {self.timeout:g}s (TEIJudge(timeout=))"
            ) from None
        except (urllib.error.URLError, OSError) as exc:
            reason = getattr(exc, "reason", exc)
            raise JudgeError(f"cannot reach {self.url}/predict: {reason}") from None
        if len(data) > _MAX_BYTES:
            raise JudgeError(f"{self.url}/predict answered more than {_MAX_BYTES:,} bytes")
        try:
            return json.loads(data)
        except ValueError:
            raise JudgeError(
                f"{self.url}/predict answered something that is not JSON: {data[:80]!r}"
            ) from None

    def __repr__(self) -> str:
        return f"TEIJudge({self.url!r})"


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _kind(value: object) -> str:
    return f"{type(value).__name__} {json.dumps(value)[:80]}"
