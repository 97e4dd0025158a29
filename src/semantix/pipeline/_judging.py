"""Which judge a check uses: the one function every runner goes through.

`resolve_judge` turns what the caller gave — a judge object, a spec (``"quantized"``,
``"nli"``, ``"embedding"``, ``"llm"``, ``"module:attr"``) or nothing — into the judge the run uses,
behind the frozen-verdict store as the verdict mode says. ``assert_semantic``, the pytest plugin
(``--semantic-judge``, the ``semantic`` marker), ``SEMANTIX_JUDGE`` and the CLI all call it, so a
judge can never skip ``strict`` or ``replay`` mode by arriving through another path.

What it returns:

- nothing given: the run's default judge (``semantix.set_default_judge``/``--semantic-judge``,
  else ``SEMANTIX_JUDGE``, else the quantized NLI judge), built once per process on first use and
  kept behind the store (mode ``off`` keeps only the in-process memo, so the same check is judged
  once per run). A failed build is remembered: a missing model is reported once.
- a spec: the judge it names, built once per process and spec, behind the store like the default.
- a judge object: behind the in-process memo alone when the mode is ``off`` (so an object, like
  a spec, is judged once per check), behind the store otherwise; one wrapper per judge object
  and mode, reused. A user's own `RecordReplayJudge` keeps its store, and only the run's mode
  applies to it.

The verdict mode is the ``mode=`` argument, else the run's (``--semantic-verdicts``), else
``SEMANTIX_VERDICTS``, else ``off``.

A check turns that into a `JudgeHandle` once (`resolve_handle`): the judge itself, what it
declares (read once, kept on nothing of the user's) and its verdict cache (memo, store, mode).
The handle asks the judge through the cache, so a check crosses the judge boundary once.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, cast

from semantix import _config as config
from semantix import _context as context
from semantix._cache import model_cache
from semantix.errors import JudgeUnavailableError
from semantix.judges._base import (
    DECLARED,
    Capabilities,
    Judge,
    JudgeLike,
    Verdict,
    capabilities,
    check_judge,
)
from semantix.judges._calls import aask_judge, ask_judge
from semantix.judges._request import Request
from semantix.pipeline._specs import check_spec, judge_from_spec
from semantix.verdicts._modes import resolve_mode

if TYPE_CHECKING:
    from semantix.verdicts._judge import RecordReplayJudge, VerdictCache

__all__ = [
    "JudgeHandle",
    "build_default_judge",
    "default_judge",
    "resolve_handle",
    "resolve_judge",
    "verdicts_mode",
]


@dataclass(frozen=True, slots=True)
class JudgeHandle:
    """A check's judge, resolved once: the judge, what it declares, and its verdict cache."""

    judge: JudgeLike
    declared: Capabilities
    verdicts: VerdictCache

    def ask(self, requests: Sequence[Request], what: str = "") -> list[Verdict]:
        """One checked verdict per request: remembered, stored, else the judge's."""
        if not requests:
            return []
        return self.verdicts.answer(
            requests,
            lambda missing: ask_judge(self.judge, missing, what=what, declared=self.declared),
        )

    async def aask(self, requests: Sequence[Request], what: str = "") -> list[Verdict]:
        """`ask`, awaited: a judge that declares ``aevaluate_batch`` on the loop, any other in
        the worker pool."""

        async def missing(asked: Sequence[Request]) -> list[Verdict]:
            return await aask_judge(self.judge, asked, what=what, declared=self.declared)

        return await self.verdicts.aanswer(requests, missing) if requests else []


def resolve_handle(
    judge: object = None, *, mode: str | None = None, defaults: context.Defaults | None = None
) -> JudgeHandle:
    """The `JudgeHandle` of a check: `resolve_judge`'s judge, unwrapped from its verdict cache."""
    recorder = cast("RecordReplayJudge", resolve_judge(judge, mode=mode, defaults=defaults))
    declared = capabilities(recorder.judge)
    # Abilities set on the wrapper are the wrapper's; the methods stay the judge's.
    if not _OWN.isdisjoint(recorder.__dict__):
        declared = replace(capabilities(recorder), batch=declared.batch, abatch=declared.abatch)
    return JudgeHandle(recorder.judge, declared, recorder.verdicts)


#: What a wrapper may declare itself, instead of the judge it wraps (`WrappingJudge`).
_OWN = frozenset((*DECLARED, "_declared_identity"))


def build_default_judge() -> Judge:
    """Build the built-in default: ``SEMANTIX_JUDGE`` if set, else the quantized NLI judge.

    Falls back to the full NLI judge only when the ONNX extras are not installed (never on a
    runtime error), and says which extra to install when neither is.
    """
    configured = config.judge_spec()
    if configured:
        return judge_from_spec(configured)
    try:
        from semantix.judges._quantized import QuantizedNLIJudge
    except JudgeUnavailableError as onnx_missing:
        try:
            from semantix.judges._transformers import NLIJudge
        except JudgeUnavailableError:
            raise JudgeUnavailableError(
                "no judge backend is installed: the default judge needs "
                "pip install 'semantix-judge[onnx]' (or pass judge=... to assert_semantic)"
            ) from onnx_missing
        return NLIJudge()
    return QuantizedNLIJudge()


def verdicts_mode(mode: str | None = None, *, defaults: context.Defaults | None = None) -> str:
    """The verdict mode in force: ``mode``, else the run's, else ``SEMANTIX_VERDICTS``, else off
    (`semantix.verdicts._modes.resolve_mode` is the one fallback).

    ``defaults`` are the run's (`semantix._context.current`), when the caller has read them."""
    chosen = mode if mode is not None else (defaults or context.current()).verdicts_mode
    return resolve_mode(chosen)


def resolve_judge(
    judge: object = None, *, mode: str | None = None, defaults: context.Defaults | None = None
) -> Judge:
    """The judge a check uses, behind the frozen-verdict store as configured (module docstring):
    always a `RecordReplayJudge` (the memo alone in mode ``off``).

    ``defaults`` are the run's (`semantix._context.current`), when the caller has read them.

    Raises:
        ConfigurationError: an unknown spec or a bad verdict mode.
        TypeError: an object with no ``evaluate`` method, or a judge class instead of an instance.
    """
    defaults = defaults or context.current()
    resolved_mode = verdicts_mode(mode, defaults=defaults)
    path = None
    if resolved_mode != "off":
        path = defaults.verdicts_path or config.verdicts_path(root=defaults.verdicts_root)
    target = judge if judge is not None else defaults.judge
    if target is None:
        spec = config.judge_spec()
        return model_cache.get_or_create(
            ("default", spec, resolved_mode, path),
            lambda: _wrap(build_default_judge(), resolved_mode, path),
            region="judges",
            remember_failure=True,
        )
    if isinstance(target, str):
        spec = check_spec(target)
        return model_cache.get_or_create(
            ("spec", spec, resolved_mode, path),
            lambda: _wrap(judge_from_spec(spec), resolved_mode, path),
            region="judges",
            remember_failure=True,
        )
    from semantix.verdicts._judge import RecordReplayJudge  # the verdict cache, on first use

    checked = check_judge(target)
    recorder = issubclass(type(checked), RecordReplayJudge)  # no metaclass __instancecheck__
    if recorder:
        # The user's own store stays the store: only the run's mode applies to it.
        own = cast("RecordReplayJudge", checked)
        if own.mode == resolved_mode or (mode is None and _mode_unset()):
            return checked
        store: object = own.store
    else:
        store = path
    # One wrapper per judge object and mode (the memo, so an object is judged once per check
    # like a spec); the entry holds the object, so its id stays unique while the entry lives.
    return model_cache.get_or_create(
        ("object", id(checked), resolved_mode, store),
        lambda: _wrap(
            cast("RecordReplayJudge", checked).judge if recorder else checked, resolved_mode, store
        ),
        region="judges",
    )


def _wrap(judge: JudgeLike, mode: str, store: object) -> Judge:
    """``judge`` behind the verdict cache of ``mode``, on ``store`` (a path or a store)."""
    from semantix.verdicts._judge import wrap_judge

    return wrap_judge(judge, mode=mode, path=store)  # type: ignore[arg-type]


def _mode_unset() -> bool:
    """No verdict mode was chosen for the run or by ``SEMANTIX_VERDICTS``."""
    return context.current().verdicts_mode is None and config.verdicts_mode() is None


def default_judge() -> Judge:
    """The process's default judge (see `resolve_judge` with no judge)."""
    return resolve_judge(None)
