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

# Eager: the function ``fingerprint`` and its module share a name (a lazy attribute would be
# shadowed by the module once anything imports it).
from semantix.verdicts._fingerprint import FORMAT_VERSION, fingerprint, normalise_text

if TYPE_CHECKING:
    from semantix.verdicts._judge import (
        RecordReplayJudge,
        VerdictStats,
        VerdictUsage,
        wrap_judge,
    )
    from semantix.verdicts._memo import DEFAULT_MEMO_SIZE
    from semantix.verdicts._modes import DEFAULT_PATH, MODES, resolve_mode
    from semantix.verdicts._record import PREVIEW_CHARS, StoredVerdict
    from semantix.verdicts._store import VerdictStore

__all__ = [
    "DEFAULT_MEMO_SIZE",
    "DEFAULT_PATH",
    "FORMAT_VERSION",
    "MODES",
    "PREVIEW_CHARS",
    "RecordReplayJudge",
    "StoredVerdict",
    "VerdictStats",
    "VerdictStore",
    "VerdictUsage",
    "fingerprint",
    "normalise_text",
    "resolve_mode",
    "wrap_judge",
]

#: Where each name lives, imported on first use: the pipeline resolves a judge without loading
#: the store, the record schema or the memo until a check needs them.
_LAZY = {
    **dict.fromkeys(("RecordReplayJudge", "VerdictStats", "VerdictUsage", "wrap_judge"), "judge"),
    "DEFAULT_MEMO_SIZE": "memo",
    **dict.fromkeys(("DEFAULT_PATH", "MODES", "resolve_mode"), "modes"),
    **dict.fromkeys(("PREVIEW_CHARS", "StoredVerdict"), "record"),
    "VerdictStore": "store",
}


def __getattr__(name: str) -> object:
    if name in _LAZY:
        return getattr(_importlib.import_module(f"semantix.verdicts._{_LAZY[name]}"), name)
    return compat.resolve(__name__, name)  # CachingJudge (semantix-ai)
