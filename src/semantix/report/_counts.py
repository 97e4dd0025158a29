"""A summary counted from records as JSON (`semantix eval`'s stream, a merge's shards), by the
rules `semantix.report._model.summarize` counts typed records by.

```python
from semantix.report._counts import Counts

counts = Counts()
counts.add({"outcome": "failed", "test_outcome": None, "borderline": False, "leaves": []})
print(counts.summary().total, counts.summary().failed)
#> 1 1
```
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from semantix.report._model import CheckRecord, Summary, outcome, summary_of

__all__ = ["Counts"]


@dataclass
class Counts:
    """The summary of the records added (each a record's JSON, as the report holds it)."""

    #: Records by their check's outcome and their test's (counted by `outcome` at the end).
    outcomes: Counter[tuple[str, str | None]] = field(default_factory=Counter)
    deciders: Counter[str] = field(default_factory=Counter)
    borderline: int = 0
    topical: int = 0

    def add(self, record: dict[str, Any]) -> None:
        self.outcomes[record["outcome"], record.get("test_outcome")] += 1
        self.borderline += record.get("borderline") is True
        topical = False
        for leaf in record["leaves"]:
            topical = topical or leaf.get("topical") is True
            if leaf.get("judge") and leaf.get("judged") is not False:
                self.deciders[leaf["judge"]] += 1
        self.topical += topical

    def update(self, other: Counts) -> None:
        self.outcomes.update(other.outcomes)
        self.deciders.update(other.deciders)
        self.borderline += other.borderline
        self.topical += other.topical

    def summary(self) -> Summary:
        counted: Counter[str] = Counter()
        for (check, test), count in self.outcomes.items():
            record = CheckRecord(nodeid="", intent="", outcome=check, test_outcome=test)  # type: ignore[arg-type]
            counted[outcome(record)] += count
        return summary_of(
            counted, borderline=self.borderline, topical=self.topical, decided_by=self.deciders
        )
