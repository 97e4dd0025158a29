"""Waiting for a call at most so long: the one deadline helper (bottom floor, stdlib only).

```python
from semantix.judges._deadline import run_with_deadline

print(run_with_deadline(lambda: 42, 1.0, lambda: TimeoutError("too slow"), name="demo"))
#> 42
```

A Python thread cannot be interrupted, so the call runs in a daemon thread and the caller stops
waiting at the deadline; the call finishes (or not) on its own, its result unused.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["run_with_deadline"]

T = TypeVar("T")


def run_with_deadline(
    call: Callable[[], T], seconds: float, expired: Callable[[], BaseException], *, name: str
) -> T:
    """``call()`` in a daemon thread named ``name``, its exception re-raised here; past
    ``seconds``, raise ``expired()`` (called only then: it may tell the abandoned call to stop)."""
    done = threading.Event()
    outcome: list[tuple[bool, Any]] = []
    context = contextvars.copy_context()  # the call sees the caller's run context

    def target() -> None:
        try:
            outcome.append((True, context.run(call)))
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread below
            outcome.append((False, exc))
        finally:
            done.set()

    threading.Thread(target=target, name=name, daemon=True).start()
    if not done.wait(max(0.0, seconds)):
        raise expired()
    ok, value = outcome[0]
    if not ok:
        raise value
    result: T = value
    return result
