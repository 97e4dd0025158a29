"""Names kept for earlier code, in one table: where each lives now, and whether it warns.

Two kinds:

- **semantix-ai's names** (the same import name, so their documented code must run unchanged):
  ``semantix.CachingJudge`` and ``semantix.verdicts.CachingJudge`` (now ``RecordReplayJudge``),
  ``semantix.composite.AllOf/AnyOf/Not``. They resolve silently.
- **semantix 0.1's names**, renamed since: ``semantix.verdicts.identity_of``,
  ``semantix.judges.JUDGE_NAMES``/``judge_from_spec``/``default_judge``/``build_default_judge``,
  ``LeafResult.ok``, ``LLMJudge(backoff=...)``. They work and raise a ``DeprecationWarning``
  that names the replacement; they will go in a later release.

Names that only moved off the top level (``semantix.assert_pass_rate``,
``semantix.ConfigurationError``, ...) are not deprecated: ``semantix`` resolves them on access
(they are not in ``semantix.__all__``, which lists what a test author imports).

The bottom floor: it imports its targets by name, on access only.
"""

from __future__ import annotations

import importlib
import warnings

__all__ = ["OLD_NAMES", "resolve", "warn_renamed"]

#: (module, old name) -> (module it lives in, its name there, deprecated?)
OLD_NAMES: dict[tuple[str, str], tuple[str, str, bool]] = {
    ("semantix", "CachingJudge"): ("semantix.verdicts.judge", "RecordReplayJudge", False),
    ("semantix.verdicts", "CachingJudge"): ("semantix.verdicts.judge", "RecordReplayJudge", False),
    ("semantix.verdicts", "identity_of"): ("semantix.judges.base", "judge_identity", True),
    ("semantix.judges", "JUDGE_NAMES"): ("semantix.pipeline.specs", "JUDGE_NAMES", True),
    ("semantix.judges", "judge_from_spec"): ("semantix.pipeline.specs", "judge_from_spec", True),
    ("semantix.judges", "default_judge"): ("semantix.pipeline.judging", "default_judge", True),
    ("semantix.judges", "build_default_judge"): (
        "semantix.pipeline.judging",
        "build_default_judge",
        True,
    ),
}


def resolve(module: str, name: str) -> object:
    """The object an old ``module.name`` stands for (warning if deprecated).

    Raises:
        AttributeError: ``name`` is not an old name of ``module``.
    """
    try:
        target_module, target, deprecated = OLD_NAMES[(module, name)]
    except KeyError:
        raise AttributeError(f"module {module!r} has no attribute {name!r}") from None
    if deprecated:
        warn_renamed(f"{module}.{name}", f"{target_module}.{target}", stacklevel=4)
    return getattr(importlib.import_module(target_module), target)


def warn_renamed(old: str, new: str, *, stacklevel: int = 3) -> None:
    """The one deprecation message: ``old`` is ``new`` now."""
    warnings.warn(
        f"{old} is deprecated and will be removed; use {new}",
        DeprecationWarning,
        stacklevel=stacklevel,
    )
