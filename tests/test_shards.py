"""`semantix._shards`: ``i/N`` parsed, and a stable hash that splits ids exactly once."""

from __future__ import annotations

import pytest

from semantix._shards import Shard, parse_shard
from semantix.errors import ConfigurationError


def test_every_id_is_in_exactly_one_shard_and_shards_are_balanced() -> None:
    ids = [f"tests/test_x.py::test_{n}" for n in range(3000)]
    shards = [parse_shard(f"{i}/4") for i in range(1, 5)]
    sizes = [sum(shard.selects(i) for i in ids) for shard in shards]
    assert all(sum(shard.selects(i) for shard in shards) == 1 for i in ids)
    assert sum(sizes) == 3000 and min(sizes) > 650


def test_the_hash_is_sha1_and_stable_across_processes() -> None:
    # sha1("a") starts 86f7e437faa5a7fc: 0x86f7e437faa5a7fc % 3 == 1, so shard 2 of 3 holds "a".
    assert int("86f7e437faa5a7fc", 16) % 3 == 1
    assert [Shard(i, 3).selects("a") for i in (1, 2, 3)] == [False, True, False]
    assert str(parse_shard(" 2 / 8 ")) == "2/8"


@pytest.mark.parametrize(("text", "message"), [("3/2", "does not exist"), ("1-2", "not a shard")])
def test_bad_shards_say_how_to_write_one(text: str, message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        parse_shard(text, source="--shard")
