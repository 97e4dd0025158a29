"""The progress bar of a dataset run: tqdm on stderr (rows/s, ETA, failures so far) when asked
and stderr is a terminal; nothing otherwise (CI logs stay clean)."""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["Progress"]


class Progress:
    """A bar over ``total`` rows (None: unknown), starting at ``done``; silent unless
    ``shown`` and stderr is a terminal and tqdm is installed."""

    def __init__(self, total: int | None, *, shown: bool, done: int = 0) -> None:
        self.failures = 0
        self._bar: Any = None
        if not shown or not sys.stderr.isatty():
            return
        try:
            from tqdm import tqdm
        except ImportError:
            print(
                "semantix eval: no progress bar: pip install 'semantix-judge[eval]' for tqdm",
                file=sys.stderr,
            )
            return
        self._bar = tqdm(total=total, initial=done, unit="rows", dynamic_ncols=True)
        self._bar.set_postfix(failures=0)

    def update(self, position: int, failures: int) -> None:
        """The stream reached ``position`` rows, with ``failures`` more failed or errored
        records."""
        if self._bar is None:
            return
        self.failures += failures
        self._bar.update(position - self._bar.n)
        self._bar.set_postfix(failures=self.failures, refresh=False)

    def close(self) -> None:
        if self._bar is not None:
            self._bar.close()
