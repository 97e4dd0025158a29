"""Shards of one run: ``i/N`` selects a deterministic 1/N of the tests or rows by a stable hash
of their id, so N CI machines split one run without talking to each other
(``pytest --semantic-shard i/N``, ``semantix eval --shard i/N``; docs/ci.md shows it at work).

The hash is SHA-1 of the id's UTF-8 bytes (stable across processes, machines and Python
versions, unlike ``hash()``); shard ``i`` of ``N`` holds the ids whose hash is ``i - 1``
modulo ``N``.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from semantix.errors import ConfigurationError

__all__ = ["Shard", "parse_shard"]

_SHARD = re.compile(r"\s*(\d+)\s*/\s*(\d+)\s*")


@dataclass(frozen=True, slots=True)
class Shard:
    """Shard ``index`` (from 1) of ``count``."""

    index: int
    count: int

    def selects(self, key: str) -> bool:
        """Whether the id ``key`` belongs to this shard."""
        digest = hashlib.sha1(key.encode("utf-8", "surrogatepass")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index - 1

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


def parse_shard(text: str, *, source: str = "shard") -> Shard:
    """``"i/N"`` (1 <= i <= N) as a `Shard`, or a ConfigurationError naming ``source``."""
    found = _SHARD.fullmatch(text) if isinstance(text, str) else None
    if found is None:
        raise ConfigurationError(
            f"{source} {text!r} is not a shard; write i/N with 1 <= i <= N, e.g. 2/8 for the "
            "second of 8 shards"
        )
    index, count = int(found[1]), int(found[2])
    if not 1 <= index <= count:
        raise ConfigurationError(
            f"{source} {text!r}: shard {index} of {count} does not exist; i runs from 1 to N "
            f"(e.g. 1/{max(count, 1)})"
        )
    return Shard(index, count)
