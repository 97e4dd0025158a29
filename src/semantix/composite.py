"""``AllOf``, ``AnyOf`` and ``Not``: the spelled-out forms of ``&``, ``|`` and ``~``.

For code written against semantix-ai: ``from semantix.composite import AllOf, AnyOf, Not`` keeps
working, and means what the operators mean here — every part is judged on its own (leaf by
leaf), never by gluing the descriptions into one hypothesis, and ``Not`` really negates.

```python
from semantix.composite import AllOf, Not
from semantix.intents import MedicalAdvice, Polite

SafeAndPolite = AllOf(Polite, Not(MedicalAdvice))   # the same as Polite & ~MedicalAdvice
```
"""

from __future__ import annotations

import functools
import operator
from collections.abc import Callable

from semantix._intent import Intent, IntentLike, as_intent

__all__ = ["AllOf", "AnyOf", "Not"]


def AllOf(*intents: IntentLike) -> type[Intent]:
    """An intent that holds when every one of ``intents`` holds (``A & B & ...``)."""
    return _fold(operator.and_, intents, "AllOf")


def AnyOf(*intents: IntentLike) -> type[Intent]:
    """An intent that holds when at least one of ``intents`` holds (``A | B | ...``)."""
    return _fold(operator.or_, intents, "AnyOf")


def Not(intent: IntentLike) -> type[Intent]:
    """An intent that holds exactly when ``intent`` does not (``~intent``)."""
    return ~as_intent(intent)


def _fold(
    combine: Callable[[type[Intent], type[Intent]], type[Intent]],
    intents: tuple[IntentLike, ...],
    name: str,
) -> type[Intent]:
    if len(intents) < 2:
        raise TypeError(
            f"{name} needs at least two intents, got {len(intents)}; for one intent use it directly"
        )
    return functools.reduce(combine, (as_intent(intent) for intent in intents))
