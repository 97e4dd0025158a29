from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from semantix import set_default_judge

pytest_plugins = ["pytester"]

_OUR_VARIABLES = ("SEMANTIX_", "PYTEST_XDIST_WORKER_COUNT")


@pytest.fixture(autouse=True)
def clean_environ(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test starts with no semantix environment variables and no default judge override."""
    for name in list(os.environ):
        if name.startswith(_OUR_VARIABLES):
            monkeypatch.delenv(name)
    set_default_judge(None)
    yield
    set_default_judge(None)
