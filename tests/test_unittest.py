from __future__ import annotations

import io
import unittest

import pytest

from semantix import FakeJudge, Intent
from semantix.unittest import SemanticAssertionsMixin


class Polite(Intent):
    """The text must be polite and professional."""


JUDGE = FakeJudge(lambda output, intent: 0.9 if "please" in output.lower() else 0.1)


class PoliteTests(SemanticAssertionsMixin, unittest.TestCase):
    __test__ = False  # run by the tests below through unittest's own runner
    semantic_judge = JUDGE

    def test_polite(self) -> None:
        self.assertSemantic("Please hold on.", Polite)

    def test_rude(self) -> None:
        self.assertSemantic("Hold on.", Polite, msg="greeting must be polite")

    def test_not_polite(self) -> None:
        self.assertNotSemantic("Hold on.", Polite)

    def test_explicit_threshold(self) -> None:
        self.assertSemantic("Please hold on.", Polite, threshold=0.95)


def run(name: str) -> tuple[unittest.TestResult, str]:
    stream = io.StringIO()
    runner = unittest.TextTestRunner(stream=stream, verbosity=0)
    result = runner.run(PoliteTests(name))
    return result, stream.getvalue()


def test_passing_assertions_pass() -> None:
    for name in ("test_polite", "test_not_polite"):
        result, _ = run(name)
        assert result.wasSuccessful(), name


def test_failure_is_a_test_failure_with_message_and_our_frames_hidden() -> None:
    result, output = run("test_rude")
    assert len(result.failures) == 1 and not result.errors
    report = result.failures[0][1]
    assert "greeting must be polite" in report
    assert "does not satisfy Polite" in report
    assert "0.10       0.80  FAIL: not satisfied" in report
    # unittest hides frames of modules with __unittest = True: our helpers do not show up
    assert "semantix/unittest.py" not in report
    assert "AssertionError: greeting must be polite" in output


def test_explicit_threshold_is_honoured() -> None:
    result, _ = run("test_explicit_threshold")
    assert len(result.failures) == 1
    assert "0.95" in result.failures[0][1]


def test_custom_failure_exception_is_used() -> None:
    class Custom(Exception):
        pass

    class CustomTests(SemanticAssertionsMixin, unittest.TestCase):
        __test__ = False
        failureException = Custom

        def runTest(self) -> None:
            self.assertSemantic("Hold on.", Polite, judge=JUDGE)

    with pytest.raises(Custom, match="does not satisfy Polite"):
        CustomTests().runTest()


def test_failure_carries_the_result() -> None:
    case = PoliteTests("test_rude")
    with pytest.raises(AssertionError) as info:
        case.assertSemantic("Hold on.", Polite)
    assert type(info.value) is AssertionError
    assert info.value.semantic_result.leaves[0].verdict.score == pytest.approx(0.1)  # type: ignore[attr-defined]
