"""``pytest --semantic-shard i/N``: a deterministic share of the tests by a stable hash of their
id; the shards cover the run exactly once."""

from __future__ import annotations

import re

import pytest

TESTS = "\n".join(f"def test_{n}():\n    pass\n" for n in range(20))


def ran(result: pytest.RunResult) -> set[str]:
    return {m[1] for line in result.outlines if (m := re.match(r"PASSED \S+::(test_\d+)", line))}


@pytest.mark.parametrize("plugin_args", [[], ["-n", "2"]])
def test_the_shards_run_every_test_exactly_once(
    pytester: pytest.Pytester, plugin_args: list[str]
) -> None:
    pytester.makepyfile(test_many=TESTS)
    seen: list[str] = []
    for index in (1, 2, 3):
        result = pytester.runpytest(
            "-rA", "-p", "no:asyncio", f"--semantic-shard={index}/3", *plugin_args
        )
        assert result.ret == 0
        got = ran(result)
        assert 0 < len(got) < 20
        seen += got
        if not plugin_args:
            result.stdout.re_match_lines([rf".*{20 - len(got)} deselected.*"])
    assert sorted(seen) == sorted(f"test_{n}" for n in range(20))


def test_the_same_shard_twice_runs_the_same_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_many=TESTS)
    first = ran(pytester.runpytest("-rA", "-p", "no:asyncio", "--semantic-shard", "2/4"))
    second = ran(pytester.runpytest("-rA", "-p", "no:asyncio", "--semantic-shard", "2/4"))
    assert first == second and first


@pytest.mark.parametrize(
    ("value", "message"),
    [("0/3", "shard 0 of 3 does not exist"), ("two", "is not a shard; write i/N")],
)
def test_a_bad_shard_is_a_usage_error(pytester: pytest.Pytester, value: str, message: str) -> None:
    pytester.makepyfile(test_many=TESTS)
    result = pytester.runpytest("-p", "no:asyncio", f"--semantic-shard={value}")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert message in result.stderr.str()
