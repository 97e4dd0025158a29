"""Judges: they turn (output, intent description, threshold) into a :class:`Verdict`.

Heavy judges are imported lazily: ``from semantix.judges import QuantizedNLIJudge`` imports
onnxruntime only when the class is first used, not when semantix is imported.
"""

from __future__ import annotations

import importlib
import os
from typing import TYPE_CHECKING, Any

from semantix.errors import ConfigurationError, JudgeUnavailableError
from semantix.judges.base import FakeJudge, Judge, JudgeIdentity, TokenUsage, Verdict

if TYPE_CHECKING:
    from semantix.judges.embedding import EmbeddingJudge
    from semantix.judges.llm import LLMJudge
    from semantix.judges.quantized import QuantizedNLIJudge
    from semantix.judges.transformers import NLIJudge

__all__ = [
    "JUDGE_NAMES",
    "EmbeddingJudge",
    "FakeJudge",
    "Judge",
    "JudgeIdentity",
    "LLMJudge",
    "NLIJudge",
    "QuantizedNLIJudge",
    "TokenUsage",
    "Verdict",
    "default_judge",
    "judge_from_spec",
]

#: Short names accepted by ``--semantic-judge``, ``SEMANTIX_JUDGE`` and the CLI's ``--judge``.
JUDGE_NAMES: dict[str, tuple[str, str]] = {
    "quantized": ("semantix.judges.quantized", "QuantizedNLIJudge"),
    "nli": ("semantix.judges.transformers", "NLIJudge"),
    "embedding": ("semantix.judges.embedding", "EmbeddingJudge"),
    "llm": ("semantix.judges.llm", "LLMJudge"),
}

_LAZY = {cls: module for module, cls in JUDGE_NAMES.values()}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'semantix.judges' has no attribute {name!r}")


def judge_from_spec(spec: str, **kwargs: Any) -> Judge:
    """Build a judge from a short name or an import path.

    ``spec`` is one of ``quantized``, ``nli``, ``embedding``, ``llm``, or ``module:attr`` naming
    a judge instance, a judge class or a zero-argument factory.
    """
    spec = spec.strip()
    if spec in JUDGE_NAMES:
        module_name, attr = JUDGE_NAMES[spec]
        judge_class = getattr(importlib.import_module(module_name), attr)
        built: Judge = judge_class(**kwargs)
        return built
    if ":" not in spec:
        raise ConfigurationError(
            f"unknown judge {spec!r}; use one of {', '.join(JUDGE_NAMES)} "
            "or an import path 'package.module:judge'"
        )
    module_name, _, attr = spec.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"cannot import {module_name!r} for judge {spec!r}: {exc}; check the import path"
        ) from exc
    try:
        target = getattr(module, attr)
    except AttributeError:
        raise ConfigurationError(
            f"module {module_name!r} has no attribute {attr!r} (judge {spec!r})"
        ) from None
    judge = (
        target(**kwargs)
        if isinstance(target, type) or (callable(target) and not hasattr(target, "evaluate"))
        else target
    )
    if not hasattr(judge, "evaluate"):
        raise ConfigurationError(
            f"{spec!r} gave {type(judge).__name__}, which has no evaluate(output, "
            "intent_description, threshold) method; point it at a judge"
        )
    return judge  # type: ignore[no-any-return]


def build_default_judge() -> Judge:
    """Build the default judge: ``SEMANTIX_JUDGE`` if set, else the quantized NLI judge.

    Falls back to the full NLI judge only when the ONNX extras are not installed (never on a
    runtime error), and says which extra to install when neither is.
    """
    configured = os.environ.get("SEMANTIX_JUDGE")
    if configured:
        return judge_from_spec(configured)
    try:
        from semantix.judges.quantized import QuantizedNLIJudge
    except JudgeUnavailableError as onnx_missing:
        try:
            from semantix.judges.transformers import NLIJudge
        except JudgeUnavailableError:
            raise JudgeUnavailableError(
                "no judge backend is installed: the default judge needs "
                "pip install 'semantix-judge[onnx]' (or pass judge=... to assert_semantic)"
            ) from onnx_missing
        return NLIJudge()
    return QuantizedNLIJudge()


def default_judge() -> Judge:
    """The process's default judge, built on first use and then reused (thread-safe).

    It sits behind the frozen-verdict store configured by ``SEMANTIX_VERDICTS`` (default
    ``off``: only the in-process memo, so the same check is judged once per run).
    """
    from semantix.cache import model_cache
    from semantix.verdicts import wrap_judge

    return model_cache.default_judge(lambda: wrap_judge(build_default_judge()))
