"""``assertSemantic`` for ``unittest.TestCase``.

```python
import unittest
from semantix import Intent
from semantix.unittest import SemanticAssertionsMixin

class Polite(Intent):
    \"\"\"The text must be polite and professional.\"\"\"

class ReplyTests(SemanticAssertionsMixin, unittest.TestCase):
    def test_reply_is_polite(self):
        self.assertSemantic("Thank you for your patience.", Polite)
```
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NoReturn

from semantix._intent import IntentLike, as_intent
from semantix.errors import SemantixError
from semantix.judges._base import Judge
from semantix.pipeline import SemanticResult, judged
from semantix.pipeline._api import without_our_frames
from semantix.pipeline._options import read_options
from semantix.runs import RunStats, evaluate_pass_rate
from semantix.runs._runner import publish, raise_for_stats

# Hides this module's frames from unittest tracebacks (unittest.result._is_relevant_tb_level).
__unittest = True

__all__ = ["SemanticAssertionsMixin"]


class SemanticAssertionsMixin:
    """Mix into a ``unittest.TestCase`` to get ``self.assertSemantic(...)``: a failure raises
    ``self.failureException`` with the `SemanticResult` attached as ``semantic_result``."""

    failureException: type[BaseException]
    #: The judge for this test case's assertions; None means the default judge.
    semantic_judge: Judge | None = None

    def assertSemantic(
        self, output: object, intent: IntentLike, msg: str | None = None, **options: Any
    ) -> SemanticResult:
        """Fail the test unless ``output`` satisfies ``intent``; the options are
        ``assert_semantic``'s (``judge``, default the class's ``semantic_judge``; ``threshold``,
        ``timeout``)."""
        if options.get("judge") is None:
            options["judge"] = self.semantic_judge
        try:
            result = judged(output, intent, read_options(options, what="assertSemantic"))
        except SemantixError as exc:  # an error, not a failure: unittest would show our frames
            raise without_our_frames(exc) from exc.__cause__
        if not result.passed:
            self._fail(msg, result.explain(), semantic_result=result)
        return result

    def assertNotSemantic(
        self, output: object, intent: IntentLike, msg: str | None = None, **options: Any
    ) -> SemanticResult:
        """Fail the test if ``output`` satisfies ``intent`` (the same as ``~intent``)."""
        return self.assertSemantic(output, ~as_intent(intent), msg, **options)

    def assertPassRate(
        self,
        system: Callable[[], object],
        intent: IntentLike,
        msg: str | None = None,
        **options: Any,
    ) -> RunStats:
        """Fail unless ``system()``'s outputs satisfy ``intent`` in ``min_pass_rate`` of ``runs``
        (`semantix.runs.assert_pass_rate`'s options), with the `RunStats` as ``run_stats``."""
        if options.get("judge") is None:
            options["judge"] = self.semantic_judge
        stats = evaluate_pass_rate(system, intent, **options)
        publish(stats)
        if stats.verdict == "error":
            raise_for_stats(stats)
        if not stats.passed:
            self._fail(msg, stats.explain(), run_stats=stats)
        return stats

    def _fail(self, msg: str | None, message: str, **attached: object) -> NoReturn:
        # Exactly self.failureException: unittest trims our frames only for that type.
        error = self.failureException(f"{msg}\n{message}" if msg else message)
        for name, value in attached.items():
            setattr(error, name, value)
        raise error
