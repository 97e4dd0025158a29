"""semantix.text: masking keys and URL passwords out of texts, values and exceptions."""

from __future__ import annotations

import pytest

from semantix.text import MASK, mask_exception, mask_secrets, mask_url, mask_value

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
