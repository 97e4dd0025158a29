"""semantix._text: masking keys and URL passwords out of texts, values and exceptions."""

from __future__ import annotations

import pytest

from semantix._text import MASK, mask_exception, mask_secrets, mask_url, mask_value

KEY = "sk-test-Very-Secret-Key-0123456789"


def test_every_occurrence_is_masked() -> None:
    text = f"Authorization: Bearer {KEY}; again {KEY}"
    assert mask_secrets(text, [KEY]) == f"Authorization: Bearer {MASK}; again {MASK}"


def test_none_empty_and_short_values_are_not_secrets() -> None:
    assert mask_secrets("a test of the key", [None, "", "key"]) == "a test of the key"


def test_longest_secret_is_masked_first() -> None:
    assert mask_secrets(f"x {KEY} y", [KEY[:10], KEY]) == f"x {MASK} y"


def test_values_are_walked() -> None:
    body = {"error": {"message": f"bad key {KEY}", "codes": [KEY, 3]}, KEY: (KEY,)}
    assert mask_value(body, [KEY]) == {
        "error": {"message": f"bad key {MASK}", "codes": [MASK, 3]},
        MASK: (MASK,),
    }
    assert mask_value(7, [KEY]) == 7


def test_exception_chain_is_masked_in_place() -> None:
    class SDKError(Exception):
        def __init__(self, message: str) -> None:
            super().__init__(message)
            self.message = message
            self.body = {"error": {"message": message}}

    with pytest.raises(RuntimeError) as raised:
        try:
            raise SDKError(f"Incorrect API key provided: {KEY}")
        except SDKError as inner:
            raise RuntimeError(f"wrapped {KEY}") from inner
    masked = mask_exception(raised.value, [KEY])
    assert masked is raised.value
    cause = masked.__cause__
    assert isinstance(cause, SDKError)
    for text in (str(masked), repr(masked), str(cause), cause.message, repr(cause.body)):
        assert KEY not in text
        assert MASK in text


def test_mask_url() -> None:
    assert mask_url("http://127.0.0.1:8000/v1") == "http://127.0.0.1:8000/v1"
    assert mask_url("https://me:pw@proxy.example/v1") == f"https://me:{MASK}@proxy.example/v1"
    assert mask_url("https://me:pw@proxy.example:8443/v1") == (
        f"https://me:{MASK}@proxy.example:8443/v1"
    )
    assert mask_url(None) is None


def leaking(prompt: str) -> str:
    import os

    raise RuntimeError(f"401 from the gateway for key {os.environ['OPENAI_API_KEY']}")


class Leaky:
    """A judge of the plain protocol whose errors carry the key it was told to keep."""

    recommended_threshold = 0.5
    secrets = ("gw-token-Very-Secret-4242",)

    def evaluate(self, output: str, intent_description: str, threshold: float) -> object:
        raise ValueError(f"gateway refused token {self.secrets[0]}")


@pytest.mark.parametrize("kind", ["CallableJudge", "plain judge", "async"])
def test_a_judge_error_never_carries_a_known_secret(
    kind: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    import asyncio
    import traceback

    from semantix import JudgeError, aassert_semantic, assert_semantic
    from semantix.judges import CallableJudge

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    judge: object = CallableJudge(leaking, model_name="m") if kind != "plain judge" else Leaky()
    secret = KEY if kind != "plain judge" else Leaky.secrets[0]
    with pytest.raises(JudgeError) as raised:
        if kind == "async":
            asyncio.run(aassert_semantic("Sorry!", "apologizes", judge=judge))
        else:
            assert_semantic("Sorry!", "apologizes", judge=judge)
    # Every sink reads these: the message, the chained cause, the whole printed traceback.
    printed = "".join(traceback.format_exception(raised.value))
    assert secret not in printed and secret not in repr(raised.value.__cause__)
    assert MASK in str(raised.value) and MASK in printed


def test_the_pytest_terminal_and_junit_never_show_a_judge_errors_secret(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    pytester.makepyfile(
        """
        import os
        from semantix import assert_semantic
        from semantix.judges import CallableJudge

        def ask(prompt):
            raise RuntimeError("bad key " + os.environ["OPENAI_API_KEY"])

        def test_reply():
            assert_semantic("Sorry!", "apologizes", judge=CallableJudge(ask, model_name="m"))
        """
    )
    result = pytester.runpytest(
        "-p", "no:cacheprovider", "-p", "no:asyncio", "--junitxml=junit.xml"
    )
    result.assert_outcomes(failed=1)
    terminal = result.stdout.str() + result.stderr.str()
    junit = (pytester.path / "junit.xml").read_text(encoding="utf-8")
    assert "JudgeError" in terminal and "JudgeError" in junit
    assert KEY not in terminal and KEY not in junit


def test_a_judge_that_cannot_even_be_named_never_shows_the_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import traceback

    from semantix import JudgeError, assert_semantic

    class Unnamed:
        recommended_threshold = 0.5

        @property
        def identity(self) -> object:
            import os

            raise RuntimeError(f"no model for key {os.environ['OPENAI_API_KEY']}")

        def evaluate(self, output: str, intent_description: str, threshold: float) -> object:
            raise AssertionError("never asked")

    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    with pytest.raises(JudgeError) as raised:
        assert_semantic("Sorry!", "apologizes", judge=Unnamed())
    assert KEY not in "".join(traceback.format_exception(raised.value))
    assert MASK in str(raised.value)
