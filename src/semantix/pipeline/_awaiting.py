"""How `semantix.pipeline.acheck` waits: the same steps as `check`, with what may block in the
worker pool and a judge that declares ``aevaluate_batch`` awaited on the loop (imported on the
first async check, so ``import semantix`` imports no asyncio)."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence

from semantix._intent import IntentLike, as_intent
from semantix.judges._base import Verdict
from semantix.judges._calls import in_pool
from semantix.pipeline._options import Options
from semantix.pipeline._steps import Asked, Setup, ask_within_limit, begin, expired, plan_requests

__all__ = ["aask"]


async def aask(
    outputs: Sequence[object], intent: IntentLike, options: Options
) -> tuple[Setup, tuple[Asked, list[Verdict]]]:
    """Setup, planning and asking, bounded by the check's timeout."""
    if options.timeout is None:
        return await _aask(outputs, intent, options)
    # The limit is known before the judge is built: the argument, not the run's default.
    try:
        return await asyncio.wait_for(_aask(outputs, intent, options), options.timeout)
    except asyncio.TimeoutError:
        raise expired(None, options.timeout, as_intent(intent)) from None


async def _aask(
    outputs: Sequence[object], intent: IntentLike, options: Options
) -> tuple[Setup, tuple[Asked, list[Verdict]]]:
    def prepare() -> tuple[Setup, tuple[Asked, list[Verdict]] | None]:
        setup = begin(outputs, intent, options)
        if setup.declared is not None and setup.declared.abatch is not None:
            return setup, None  # asked on the loop below
        return setup, ask_within_limit(setup)

    setup, answers = await in_pool(prepare)
    if answers is not None:
        return setup, answers
    if setup.limit is not None and options.timeout is None:  # the run's default timeout
        try:
            return setup, await asyncio.wait_for(_aask_declared(setup), setup.limit)
        except asyncio.TimeoutError:
            raise setup.expired() from None
    return setup, await _aask_declared(setup)


async def _aask_declared(setup: Setup) -> tuple[Asked, list[Verdict]]:
    asked = await in_pool(plan_requests, setup)
    assert setup.judge is not None
    return asked, await setup.judge.aask(asked.requests, asked.what)
