"""Judge specs: the short names and import paths that name a judge in options and commands.

``--semantic-judge``, the ini key, ``SEMANTIX_JUDGE``, the marker's ``judge=`` string and the
CLI's ``--judge`` all name a judge the same way: a short name (``quantized``, ``nli``,
``embedding``, ``llm``) or an import path ``package.module:judge``.
"""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from semantix.errors import ConfigurationError
from semantix.judges.base import Judge

__all__ = ["JUDGE_NAMES", "check_spec", "import_object", "judge_from_spec"]


#: Short names accepted by ``--semantic-judge``, ``SEMANTIX_JUDGE`` and the CLI's ``--judge``.
JUDGE_NAMES: dict[str, tuple[str, str]] = {
    "quantized": ("semantix.judges.quantized", "QuantizedNLIJudge"),
    "nli": ("semantix.judges.transformers", "NLIJudge"),
    "embedding": ("semantix.judges.embedding", "EmbeddingJudge"),
    "llm": ("semantix.judges.llm", "LLMJudge"),
}


def check_spec(spec: object, *, source: str = "judge") -> str:
    """Return ``spec`` stripped if it can name a judge, else raise a ConfigurationError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigurationError(
            f"{source} {spec!r} is not a judge spec; use one of {', '.join(JUDGE_NAMES)} "
            "or an import path 'package.module:judge'"
        )
    spec = spec.strip()
    if spec not in JUDGE_NAMES and ":" not in spec:
        raise ConfigurationError(
            f"unknown judge {spec!r} ({source}); use one of {', '.join(JUDGE_NAMES)} "
            "or an import path 'package.module:judge'"
        )
    return spec


def import_object(path: str, *, what: str) -> object:
    """Import ``module:attr`` (``attr`` may be dotted), with the current directory importable.

    Like pytest and uvicorn, the current directory is on the import path, so a ``judges.py``
    beside the command works as ``judges:MyJudge``.
    """
    module_name, _, attr = path.partition(":")
    cwd = os.getcwd()
    if cwd not in sys.path and "" not in sys.path:
        sys.path.insert(0, cwd)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"cannot import {module_name!r} for {what} {path!r}: {exc}; check the import path "
            f"(the current directory {cwd} is searched too)"
        ) from exc
    target: object = module
    for part in attr.split("."):
        try:
            target = getattr(target, part)
        except AttributeError:
            raise ConfigurationError(
                f"module {module_name!r} has no attribute {attr!r} ({what} {path!r})"
            ) from None
    return target


def judge_from_spec(spec: str, **kwargs: Any) -> Judge:
    """Build a judge from a short name or an import path (not wrapped, not cached).

    ``spec`` is one of ``quantized``, ``nli``, ``embedding``, ``llm``, or ``module:attr`` naming
    a judge instance, a judge class or a zero-argument factory.
    """
    spec = check_spec(spec)
    if spec in JUDGE_NAMES:
        module_name, attr = JUDGE_NAMES[spec]
        judge_class = getattr(importlib.import_module(module_name), attr)
        built: Judge = judge_class(**kwargs)
        return built
    target = import_object(spec, what="judge")
    judge = (
        target(**kwargs)
        if isinstance(target, type) or (callable(target) and not hasattr(target, "evaluate"))
        else target
    )
    if not callable(getattr(judge, "evaluate", None)):
        raise ConfigurationError(
            f"{spec!r} gave {type(judge).__name__}, which has no evaluate(output, "
            "intent_description, threshold) method; point it at a judge"
        )
    return judge  # type: ignore[return-value]
