"""NLI labels, read *by name* (any casing, never by index) from a model's ``config.json``
(`label_map_from_config`), and one row of logits as per-label probabilities (`probabilities`)."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from semantix.errors import ConfigurationError, JudgeError

__all__ = ["LabelMap", "canonical_label", "label_map_from_config", "probabilities"]

#: Spellings of the labels, by their canonical name (any other name is kept as it is).
_CANONICAL = {
    **dict.fromkeys(("entail", "entails", "entailed", "entailment"), "entailment"),
    **dict.fromkeys(("contradict", "contradicts", "contradictory"), "contradiction"),
    **dict.fromkeys(
        ("non_entailment", "not_entail", "no_entailment", "not_entailed"), "not_entailment"
    ),
}
_GENERIC_LABEL = re.compile(r"label_?0")


@dataclass(frozen=True, slots=True)
class LabelMap:
    """The model's labels in output order, with the entailment index found by name."""

    labels: tuple[str, ...]
    entailment: int
    sigmoid: bool = False

    @property
    def num_labels(self) -> int:
        return len(self.labels)


def canonical_label(name: str) -> str:
    """A label's canonical name (``ENTAILMENT``, ``entails`` -> ``entailment``)."""
    norm = re.sub(r"[\s-]+", "_", name.strip().lower())
    return _CANONICAL.get(norm, norm)


def label_map_from_config(config: Mapping[str, Any], *, source: str = "config.json") -> LabelMap:
    """Read ``id2label`` and find the entailment label by name (three labels in any order, two
    labels, or a single-logit sigmoid head); a `ConfigurationError` names the labels found."""
    raw = config.get("id2label")
    if not isinstance(raw, Mapping) or not raw:
        num = config.get("num_labels")
        raise ConfigurationError(
            f"{source} has no id2label mapping (num_labels={num!r}); an NLI model needs labels "
            "such as {0: 'contradiction', 1: 'entailment', 2: 'neutral'} in its config.json"
        )
    try:
        items = sorted((int(key), str(value)) for key, value in raw.items())
    except (TypeError, ValueError):
        raise ConfigurationError(
            f"{source} id2label keys must be integers, got {list(raw)!r}"
        ) from None
    if [index for index, _ in items] != list(range(len(items))):
        raise ConfigurationError(
            f"{source} id2label must number its labels 0..{len(items) - 1}, got "
            f"{[index for index, _ in items]!r}"
        )
    names = [name for _, name in items]
    canonical = tuple(canonical_label(name) for name in names)
    if len(canonical) == 1 and (
        canonical[0] == "entailment" or _GENERIC_LABEL.fullmatch(canonical[0])
    ):
        return LabelMap(("entailment",), 0, sigmoid=True)
    if len(set(canonical)) != len(canonical):
        raise ConfigurationError(
            f"{source} id2label names the same label twice: {names!r}; fix the model's config"
        )
    if "entailment" not in canonical:
        raise ConfigurationError(
            f"the model's {source} has no entailment label: id2label is {dict(items)!r}. An NLI "
            "judge needs a label named 'entailment' (any casing; 'entail' works too) next to "
            "'neutral'/'contradiction' or 'not_entailment'. Fix id2label in config.json if "
            "the names are generic (LABEL_0, ...), or use a model trained for NLI"
        )
    return LabelMap(canonical, canonical.index("entailment"))


def probabilities(logits: Sequence[float], label_map: LabelMap) -> dict[str, float]:
    """Per-label probabilities from one row of logits (softmax; sigmoid for one logit)."""
    values = [float(value) for value in logits]
    if len(values) != label_map.num_labels:
        raise JudgeError(
            f"the model returned {len(values)} logits per pair but config.json names "
            f"{label_map.num_labels} labels {list(label_map.labels)!r}; the ONNX file and the "
            "config do not belong together"
        )
    if any(map(math.isnan, values)):
        raise JudgeError(f"the model returned NaN logits {values!r}; the model file is broken")
    if label_map.sigmoid:
        (value,) = values  # the logistic function, without overflow on either side
        return {"entailment": math.exp(min(value, 0.0)) / (1.0 + math.exp(-abs(value)))}
    top = max(values)
    exps = [math.exp(value - top) for value in values]
    total = sum(exps)
    return {label: exp / total for label, exp in zip(label_map.labels, exps, strict=True)}
