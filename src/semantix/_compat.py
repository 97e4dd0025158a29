"""Names kept for earlier code, in one table: where each lives now.

Two kinds:

- **semantix-ai's names** (the same import name, so their documented code must run unchanged):
  ``semantix.CachingJudge`` and ``semantix.verdicts.CachingJudge`` (now ``RecordReplayJudge``),
  ``semantix.composite.AllOf/AnyOf/Not``. They resolve silently. Its spellings too:
  ``Intent.description()`` (a `Description`, callable) and the model judges'
  ``evaluate(premise=..., hypothesis=...)`` (`semantix.judges._lazy.SemantixAiArguments`).
- semantix 0.1 was never released: the names it renamed before its first release are gone
  (``semantix.verdicts.identity_of``, ``semantix.judges.JUDGE_NAMES``/``judge_from_spec``/
  ``default_judge``/``build_default_judge``, ``LeafResult.ok``, the ``semantic`` fixture's
  ``check``/``acheck``, ``LLMJudge(backoff=..., timeout=...)``, ``RunStats.below_floor``).
  The repeated-run ceilings
  (``max_latency_ms=``, ``max_cost_usd=``, ``prices=``, ``latency_percentile=``) and
  ``max_workers=`` are gone: each is a ``TypeError`` that names the leaf (``Latency``, ``Cost``)
  or option (``concurrency``) to use.

Names that only moved off the top level (``semantix.assert_pass_rate``, ...) are not deprecated:
``semantix`` resolves them on access. The bottom floor: it imports its targets on access only.
"""

from __future__ import annotations

import importlib
import os
import sys

__all__ = [
    "OLD_NAMES",
    "OTHER_DISTRIBUTIONS",
    "Description",
    "refuse_a_second_semantix",
    "resolve",
]

#: Distributions that install a top-level ``semantix`` package of their own.
OTHER_DISTRIBUTIONS = ("semantix_ai",)

#: (module, old name) -> (module it lives in, its name there)
OLD_NAMES: dict[tuple[str, str], tuple[str, str]] = {
    ("semantix", "CachingJudge"): ("semantix.verdicts._judge", "RecordReplayJudge"),
    ("semantix.verdicts", "CachingJudge"): ("semantix.verdicts._judge", "RecordReplayJudge"),
}


def resolve(module: str, name: str) -> object:
    """The object an old ``module.name`` stands for; AttributeError when ``name`` is not an
    old name of ``module``."""
    try:
        target_module, target = OLD_NAMES[(module, name)]
    except KeyError:
        raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
    return getattr(importlib.import_module(target_module), target)


class Description(str):
    """An intent's description, also callable: semantix-ai's ``Intent.description()`` is a
    method, semantix's ``Intent.description`` a property; both spellings give the same text."""

    __slots__ = ()

    def __call__(self) -> str:
        return str(self)


def refuse_a_second_semantix() -> None:
    """Raise ``ImportError`` at import when semantix-ai, which installs a top-level ``semantix``
    too (the one installed last overwrote the other's files), is installed beside us: its
    ``semantix_ai-*.dist-info`` on ``sys.path``, found without importlib.metadata (a fifth of
    the import time)."""
    found = installed_beside_us(OTHER_DISTRIBUTIONS)
    if found is not None:
        raise ImportError(
            f"semantix-judge and semantix-ai are both installed ({found[1]}): both install a "
            "top-level 'semantix' package, so the one installed last overwrote the "
            "other's files. Keep one: pip uninstall -y semantix-ai, then reinstall "
            "semantix-judge (pip install --force-reinstall --no-deps -e . in its clone)"
        )


def installed_beside_us(distributions: tuple[str, ...]) -> tuple[str, str] | None:
    """The first of ``distributions`` (normalised names, e.g. ``pytest_semantix``) installed on
    ``sys.path``, with its metadata folder, or None. One pass over ``sys.path`` for them all."""
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for name in names:
            if name.endswith(".dist-info"):
                distribution = name.split("-", 1)[0].lower()
                if distribution in distributions:
                    return distribution, os.path.join(entry or ".", name)
    return None
