"""``pytest --semantic-shard i/N``: run shard ``i`` of ``N`` of the collected tests, chosen by a
stable hash of each test's node id (`semantix._shards`), so N CI machines split one run without
a plugin of their own (docs/ci.md). The JSON report says which shard it holds; ``semantix report
merge`` joins the shards' reports.
"""

from __future__ import annotations

import pytest

from semantix._shards import parse_shard
from semantix.errors import ConfigurationError

__all__ = ["pytest_addoption", "pytest_collection_modifyitems"]

OPTION = "--semantic-shard"


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("semantix", "semantic assertions (semantix)").addoption(
        OPTION,
        dest="semantic_shard",
        metavar="I/N",
        default=None,
        help="run only shard I of N of the collected tests (a stable hash of each test id), "
        "e.g. 2/8 on the second of 8 CI machines",
    )


@pytest.hookimpl(trylast=True)  # after -k, -m and the other plugins' selection
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    given = config.getoption("semantic_shard", None)
    if given is None:
        return
    try:
        shard = parse_shard(given, source=OPTION)
    except ConfigurationError as exc:
        raise pytest.UsageError(str(exc)) from None
    chosen = [shard.selects(item.nodeid) for item in items]
    if not all(chosen):
        config.hook.pytest_deselected(
            items=[i for i, c in zip(items, chosen, strict=True) if not c]
        )
        items[:] = [item for item, keep in zip(items, chosen, strict=True) if keep]
