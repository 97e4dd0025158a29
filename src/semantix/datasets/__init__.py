"""Judging a dataset: the same intents over recorded outputs (``semantix eval``;
docs/evaluating-datasets.md). Rows in (JSON Lines, CSV, Parquet), records out (the pytest
plugin's JSON report), through the one pipeline; embedded by default, on Ray Data when asked.
"""

from __future__ import annotations

from semantix.datasets._rows import Fields, Row
from semantix.datasets._runner import DatasetResult, evaluate_dataset

__all__ = ["DatasetResult", "Fields", "Row", "evaluate_dataset"]
