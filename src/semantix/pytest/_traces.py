"""The ``semantic_trace`` fixture: the OpenTelemetry spans a test produces, as a subject.

```python
def test_refund(semantic_trace):
    run_agent("Refund order A17")
    assert_semantic(semantic_trace, ToolCalls(CalledTool("issue_refund")))
```

Registered by `semantix.pytest._plugin`; opentelemetry-sdk is imported only by a test that asks
for the fixture (`semantix.agents.capture_spans` says which tracer provider it uses).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from semantix.agents._capture import CapturedSpans

__all__ = ["semantic_trace"]


@pytest.fixture
def semantic_trace() -> Iterator[CapturedSpans]:
    """The spans that end during the test, on the global tracer provider (an SDK one is set
    when none is): pass it to ``assert_semantic`` as the output."""
    from semantix.agents._capture import capture_spans

    with capture_spans() as captured:
        yield captured
