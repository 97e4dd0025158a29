"""Semantic snapshots: pin a reviewed output and catch drift in what it means, not its wording.

```python
from semantix import FakeJudge
from semantix.snapshots import assert_semantic_snapshot

judge = FakeJudge(lambda output, stored: 1.0)  # a stand-in judge: everything means the same
assert_semantic_snapshot("Refunds within 30 days.", "refund-policy", judge=judge, update=True)
```

In pytest, use the ``semantic_snapshot`` fixture and ``--semantic-snapshot-update``.
"""

from __future__ import annotations

from semantix.snapshots._assertion import SnapshotResult, assert_semantic_snapshot, check_snapshot
from semantix.snapshots._compare import Equivalence, judge_equivalence
from semantix.snapshots._diff import WordDiff, word_diff
from semantix.snapshots._errors import (
    DuplicateSnapshotError,
    SnapshotDriftError,
    SnapshotFileError,
    SnapshotMissingError,
)
from semantix.snapshots._files import SnapshotFile, read_snapshot, write_snapshot

__all__ = [
    "DuplicateSnapshotError",
    "Equivalence",
    "SnapshotDriftError",
    "SnapshotFile",
    "SnapshotFileError",
    "SnapshotMissingError",
    "SnapshotResult",
    "WordDiff",
    "assert_semantic_snapshot",
    "check_snapshot",
    "judge_equivalence",
    "read_snapshot",
    "word_diff",
    "write_snapshot",
]
