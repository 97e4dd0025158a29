"""Judge specs: the short names and import paths that name a judge in options and commands
(``--semantic-judge``, the ini key, ``SEMANTIX_JUDGE``, the marker's ``judge=``, the CLI's
``--judge``), in the forms docs/cli.md lists ("Judge specs"): a short name before the colon
wins, the text after it is the judge's ``model=``.
"""

from __future__ import annotations

import importlib
import os
import sys
from dataclasses import dataclass
from typing import Any, cast

from semantix.errors import ConfigurationError
from semantix.judges._base import Judge, check_judge

__all__ = [
    "JUDGE_NAMES",
    "JudgeSpec",
    "check_spec",
    "import_object",
    "judge_from_spec",
    "parse_spec",
]


#: Short names accepted by ``--semantic-judge``, ``SEMANTIX_JUDGE`` and the CLI's ``--judge``.
JUDGE_NAMES: dict[str, tuple[str, str]] = {
    "quantized": ("semantix.judges._quantized", "QuantizedNLIJudge"),
    "nli": ("semantix.judges._transformers", "NLIJudge"),
    "embedding": ("semantix.judges._embedding", "EmbeddingJudge"),
    "llm": ("semantix.judges._llm", "LLMJudge"),
    "tei": ("semantix.judges._tei", "TEIJudge"),
}

_FORMS = "or an import path 'package.module:judge'"


@dataclass(frozen=True, slots=True)
class JudgeSpec:
    """A parsed judge spec: a short ``name`` (with the ``model`` it carries, if any), or an
    import ``path``."""

    name: str | None = None
    model: str | None = None
    path: str | None = None


def parse_spec(spec: object, *, source: str = "judge") -> JudgeSpec:
    """What ``spec`` names, or a ConfigurationError that says what is accepted (and, for a
    misspelt short name, which one was meant)."""
    text = check_spec(spec, source=source)
    head, colon, tail = text.partition(":")
    if head in JUDGE_NAMES:
        return JudgeSpec(name=head, model=tail.strip() if colon else None)
    return JudgeSpec(path=text)


def check_spec(spec: object, *, source: str = "judge") -> str:
    """Return ``spec`` stripped if it can name a judge, else raise a ConfigurationError."""
    if not isinstance(spec, str) or not spec.strip():
        raise ConfigurationError(
            f"{source} {spec!r} is not a judge spec; use one of {', '.join(JUDGE_NAMES)} "
            f"(optionally with a model, e.g. 'llm:gpt-4o-mini') {_FORMS}"
        )
    spec = spec.strip()
    head, colon, tail = spec.partition(":")
    if head in JUDGE_NAMES and colon and not tail.strip():
        raise ConfigurationError(
            f"judge {spec!r} ({source}) names no model after the colon; write e.g. "
            f"'{head}:{_EXAMPLE_MODELS.get(head, 'MODEL')}', or '{head}' for its default model"
        )
    if head not in JUDGE_NAMES and not colon:
        import difflib  # only for the error

        close = difflib.get_close_matches(spec.lower(), JUDGE_NAMES, n=1, cutoff=0.6)
        hint = f"did you mean {close[0]!r}? " if close else ""
        raise ConfigurationError(
            f"unknown judge {spec!r} ({source}); {hint}use one of {', '.join(JUDGE_NAMES)} {_FORMS}"
        )
    return spec


_EXAMPLE_MODELS = {"llm": "gpt-4o-mini", "embedding": "all-MiniLM-L6-v2"}


def import_object(path: str, *, what: str) -> object:
    """Import ``module:attr`` (``attr`` may be dotted), with the current directory importable
    (as pytest and uvicorn do: a ``judges.py`` beside the command is ``judges:MyJudge``)."""
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
    """Build a judge from a spec (not wrapped, not cached): a short name (with its model, e.g.
    ``llm:gpt-4o``) or ``module:attr`` naming a judge instance, class or zero-argument factory;
    ``kwargs`` go to the judge class."""
    parsed = parse_spec(spec)
    if parsed.name is not None:
        if parsed.model is not None:
            if kwargs.get("model") is not None:
                raise ConfigurationError(
                    f"judge {spec!r} names the model {parsed.model!r} and model={kwargs['model']!r}"
                    f" is given too; name it once (e.g. judge {parsed.name!r} with the model)"
                )
            kwargs = {**kwargs, "model": parsed.model}
        module_name, attr = JUDGE_NAMES[parsed.name]
        return cast("Judge", getattr(importlib.import_module(module_name), attr)(**kwargs))
    spec = str(parsed.path)
    target = import_object(spec, what="judge")
    judge = (
        target(**kwargs)
        if isinstance(target, type) or (callable(target) and not hasattr(target, "evaluate"))
        else target
    )
    try:
        return check_judge(judge, what=f"the judge spec {spec!r} gave an object that")
    except TypeError as exc:
        raise ConfigurationError(f"{exc}; point the spec at a judge") from None
