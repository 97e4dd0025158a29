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
from semantix.snapshots._errors import (
    DuplicateSnapshotError,
    SnapshotDriftError,
    SnapshotFileError,
    SnapshotMissingError,
)
from semantix.snapshots._files import write_snapshot

__all__ = [
    "DuplicateSnapshotError",
    "Equivalence",
    "SnapshotDriftError",
    "SnapshotFileError",
    "SnapshotMissingError",
    "SnapshotResult",
    "assert_semantic_snapshot",
    "check_snapshot",
    "judge_equivalence",
    "write_snapshot",
]
