"""Async tests that await semantix checks run under pytest-asyncio (strict and auto modes) and
anyio's plugin, serially and under xdist, and their checks reach the report."""

from __future__ import annotations

import pytest

pytest.importorskip("pytest_asyncio")

JUDGES = """
from semantix import FakeJudge

judge = FakeJudge(lambda output, intent: 0.9 if "thank" in output.lower() else 0.1)
"""

ASYNCIO_TESTS = """
import asyncio

import pytest

from judges_mod import judge
from semantix import SemanticAssertionError, aassert_semantic, aevaluate_many

{mark}
async def test_polite():
    await aassert_semantic("Thank you!", "The text is polite.", judge=judge)

{mark}
async def test_rude_fails():
    with pytest.raises(SemanticAssertionError):
        await aassert_semantic("Go away.", "The text is polite.", judge=judge)

{mark}
async def test_gathered():
    results = await asyncio.gather(
        *(aassert_semantic(f"Thanks {{n}}", "The text is polite.", judge=judge) for n in range(5))
    )
    assert [r.passed for r in results] == [True] * 5
"""

ANYIO_TESTS = """
import pytest

from judges_mod import judge
from semantix import aassert_semantic

@pytest.mark.anyio
async def test_polite():
    await aassert_semantic("Thank you!", "The text is polite.", judge=judge)

@pytest.fixture
def anyio_backend():
    return "asyncio"
"""


@pytest.mark.parametrize(
    ("mode", "mark", "extra"),
    [
        ("strict", "@pytest.mark.asyncio", []),
        ("auto", "", []),
        ("strict", "@pytest.mark.asyncio", ["-n", "2"]),
    ],
)
def test_pytest_asyncio(pytester: pytest.Pytester, mode: str, mark: str, extra: list[str]) -> None:
    pytester.makepyfile(judges_mod=JUDGES, test_async_checks=ASYNCIO_TESTS.format(mark=mark))
    result = pytester.runpytest(
        "-p",
        "asyncio",
        f"--asyncio-mode={mode}",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "--semantic-report",
        *extra,
    )
    result.assert_outcomes(passed=3)
    result.stdout.fnmatch_lines(["*semantic report*"])


def test_anyio_plugin(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(judges_mod=JUDGES, test_anyio_checks=ANYIO_TESTS)
    result = pytester.runpytest("-p", "no:asyncio", "--semantic-report")
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*semantic report*"])


def test_the_semantic_fixture_awaits_too(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        judges_mod=JUDGES,
        test_fixture_async="""
import pytest

from judges_mod import judge

@pytest.mark.asyncio
@pytest.mark.semantic(judge=judge)
async def test_aassert(semantic):
    await semantic.aassert("Thank you!", "The text is polite.")
    semantic("Thanks a lot", "The text is polite.")
""",
    )
    result = pytester.runpytest(
        "-p",
        "asyncio",
        "-o",
        "asyncio_default_fixture_loop_scope=function",
        "--semantic-report",
    )
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*semantic report*"])
