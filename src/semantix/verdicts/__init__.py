"""Frozen verdicts: record a judge's verdicts once, replay them in CI bit for bit.

```python
import tempfile

from semantix import FakeJudge, assert_semantic
from semantix.verdicts import RecordReplayJudge

store = tempfile.mkdtemp()  # default: .semantix/verdicts in the current directory
judge = RecordReplayJudge(FakeJudge(lambda output, intent: 0.9), mode="update", store=store)
assert_semantic("Thank you!", "polite", judge=judge)   # judged, and stored in `store`
replay = RecordReplayJudge(FakeJudge(lambda o, i: 0.0), mode="replay", store=store)
assert_semantic("Thank you!", "polite", judge=replay)  # read from `store`; judge not called
```

Its modules, bottom to top: docs/frozen-verdicts.md, "API".
"""

from __future__ import annotations

import importlib as _importlib
from typing import TYPE_CHECKING

from semantix import _compat as compat

if TYPE_CHECKING:
    from semantix.verdicts._fingerprint import fingerprint
    from semantix.verdicts._judge import (
        RecordReplayJudge,
        VerdictStats,
        VerdictUsage,
        wrap_judge,
    )
    from semantix.verdicts._record import StoredVerdict
    from semantix.verdicts._store import VerdictStore

__all__ = [
    "RecordReplayJudge",
    "StoredVerdict",
    "VerdictStats",
    "VerdictStore",
    "VerdictUsage",
    "fingerprint",
    "wrap_judge",
]

#: Where each name lives, imported on first use: the pipeline resolves a judge without loading
#: the store or the record schema until a check needs them.
_LAZY = {
    **dict.fromkeys(("RecordReplayJudge", "VerdictStats", "VerdictUsage", "wrap_judge"), "judge"),
    "StoredVerdict": "record",
    "VerdictStore": "store",
    "fingerprint": "fingerprint",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(_importlib.import_module(f"semantix.verdicts._{_LAZY[name]}"), name)
    return compat.resolve(__name__, name)  # CachingJudge (semantix-ai)
