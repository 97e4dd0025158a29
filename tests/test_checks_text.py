"""Structural text checks (issue 23): decided on the output view, score 1.0 or 0.0."""

from __future__ import annotations

import math
import re

import pytest

from semantix import Intent
from semantix.checks import (
    Contains,
    ContainsAll,
    ContainsAny,
    EndsWith,
    Equals,
    Length,
    Matches,
    StartsWith,
    Structural,
)
from semantix.checks._base import STRUCTURAL
from semantix.outputs import output_view

TOOL_ONLY = {
    "role": "assistant",
    "content": [{"type": "tool_use", "id": "t1", "name": "lookup", "input": {"id": 7}}],
}


def decide(check: type[Intent], output: object) -> tuple[bool, str]:
    assert issubclass(check, Structural)
    verdict = check.decide(output_view(output))
    assert verdict.judge == STRUCTURAL
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    assert verdict.reason is not None
    return verdict.passed, verdict.reason


def test_contains_ignores_case_by_default_and_says_where() -> None:
    assert decide(Contains("Refund"), "Your refund is on its way.") == (
        True,
        "found 'Refund' at character 5",
    )
    assert decide(Contains("refund"), "We ship today.") == (
        False,
        "'refund' not found (ignoring case) in 14 characters of text",
    )
    assert decide(Contains("Refund", case_sensitive=True), "a refund")[0] is False


def test_contains_all_and_any_name_what_is_missing() -> None:
    passed, reason = decide(ContainsAll("refund", "order"), "The refund is issued.")
    assert not passed
    assert (
        reason
        == "found 'refund' at character 4; 'order' not found (ignoring case) in 21 characters of text"
    )
    assert decide(ContainsAll(["refund", "issued"]), "The refund is issued.")[0]
    assert decide(ContainsAny("refund", "credit"), "store credit")[0]
    assert decide(ContainsAny("refund", "credit"), "nothing") == (
        False,
        "'refund', 'credit' not found (ignoring case) in 7 characters of text",
    )


def test_names_and_descriptions() -> None:
    assert repr(Contains("refund")) == "Contains('refund')"
    assert Contains("refund").description == "The text contains 'refund' (ignoring case)."
    assert repr(ContainsAll("a", "b", case_sensitive=True)) == (
        "ContainsAll('a', 'b', case_sensitive=True)"
    )
    assert ContainsAny("a", "b").description == (
        "The text contains at least one of 'a', 'b' (ignoring case)."
    )
    assert repr(Matches(r"\d+", re.IGNORECASE)) == r"Matches('\\d+', flags=re.IGNORECASE)"
    assert repr(Length(min_words=3, max_words=80)) == "Length(min_words=3, max_words=80)"
    assert Length(max_words=80, max_chars=500).description == (
        "The text has at most 500 characters and at most 80 words."
    )
    assert Contains("refund") is Contains("refund")  # the same arguments, the same class


def test_equals_strips_by_default_and_is_case_sensitive() -> None:
    assert decide(Equals("OK"), "  OK\n") == (True, "the text equals 'OK'")
    assert decide(Equals("OK"), "ok") == (
        False,
        "the text 'ok' differs from 'OK' from character 0 on",
    )
    assert decide(Equals("OK", case_sensitive=False), "ok")[0]
    assert decide(Equals("OK", strip=False), " OK")[0] is False


def test_matches_searches_with_flags() -> None:
    assert decide(Matches(r"order #\d+"), "Your order #1234 shipped.") == (
        True,
        "matched 'order #1234' at character 5",
    )
    assert decide(Matches(r"^order"), "Your order")[0] is False
    assert decide(Matches(r"^your", flags=re.IGNORECASE), "Your order")[0]
    assert decide(Matches(re.compile(r"^your", re.IGNORECASE)), "Your order")[0]


def test_length_in_words_and_characters() -> None:
    assert decide(Length(max_words=2), "one two three") == (
        False,
        "3 words, more than the maximum 2",
    )
    assert decide(Length(min_chars=5, max_words=3), "one two") == (
        True,
        "7 characters, 2 words: within at least 5 characters and at most 3 words",
    )
    assert decide(Length(min_chars=10), "short") == (
        False,
        "5 characters, fewer than the minimum 10",
    )


@pytest.mark.parametrize(
    "check",
    [Contains("x"), ContainsAll("x", "y"), Equals("x"), Matches("x"), Length(max_words=3)],
    ids=repr,
)
def test_a_text_check_on_a_tool_only_reply_fails_naming_the_calls(check: type[Intent]) -> None:
    assert decide(check, TOOL_ONLY) == (
        False,
        'the output holds no text, only tool calls: lookup({"id": 7})',
    )


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (lambda: Contains(""), ValueError, r"Contains\(\) got an empty substring \(''\)"),
        (lambda: Contains("  "), ValueError, r"empty substring \('  '\)"),
        (lambda: Contains(True), TypeError, r"needs the substring as a str.*got bool True"),
        (lambda: Contains(None), TypeError, r"needs the substring as a str.*got NoneType"),
        (lambda: Contains(1e20), ValueError, r"Contains\(1e\+20\): a number is looked for by"),
        (lambda: ContainsAny(1, math.nan), ValueError, r"ContainsAny\(nan\).*pass the text"),
        (lambda: StartsWith(""), ValueError, r"StartsWith\(\) got an empty prefix"),
        (lambda: EndsWith(3), TypeError, r"EndsWith\(\) needs the suffix as a str"),
        (lambda: StartsWith("a", strip="no"), TypeError, r"StartsWith\(strip=...\) must be"),
        (lambda: ContainsAll(), ValueError, r"ContainsAll\(\) needs at least one substring"),
        (lambda: ContainsAny("a", ""), ValueError, r"ContainsAny\(\) got an empty substring"),
        (lambda: Contains("a", case_sensitive="yes"), TypeError, r"True or False, got 'yes'"),
        (lambda: Matches("(unclosed"), ValueError, r"invalid regular expression '\(unclosed'"),
        (lambda: Matches(""), ValueError, r"Matches\(\) got an empty pattern"),
        (
            lambda: Matches(re.compile("a"), re.IGNORECASE),
            ValueError,
            r"compiled pattern 'a' and flags",
        ),
        (lambda: Equals(None), TypeError, r"Equals\(\) needs the expected text as a str"),
        (lambda: Length(), ValueError, r"Length\(\) needs at least one bound"),
        (lambda: Length(max_words=-1), ValueError, r"Length\(max_words=-1\) must be 0 or more"),
        (lambda: Length(max_words=2.5), TypeError, r"Length\(max_words=...\) must be an int"),
        (lambda: Length(min_words=5, max_words=2), ValueError, r"minimum exceeds the maximum"),
    ],
)
def test_bad_arguments_are_errors_at_construction(build, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        build()


def test_a_threshold_on_a_structural_check_is_a_type_error() -> None:
    with pytest.raises(TypeError, match=r"structural check: it passes or fails outright.*0.7"):

        class Strict(Contains("refund")):  # type: ignore[misc]
            """The reply mentions refunds."""

            threshold = 0.7


def test_a_subclass_keeps_the_check_with_its_own_description() -> None:
    class MentionsRefund(Contains("refund")):  # type: ignore[misc]
        """The reply mentions the refund."""

    assert MentionsRefund.description == "The reply mentions the refund."
    assert decide(MentionsRefund, "A REFUND")[0]


def test_checks_compose_with_semantic_intents() -> None:
    class Apologizes(Intent):
        """The text apologizes for the delay."""

    combined = Contains("refund") & ~Apologizes | Length(max_words=3)
    assert repr(combined) == "(Contains('refund') & ~Apologizes) | Length(max_words=3)"
    assert repr(~Contains("refund")) == "~Contains('refund')"


@pytest.mark.parametrize(
    ("check", "text", "reason"),
    [
        # "ß" folds to "ss", "İ" to two characters: offsets count the text as the user gave it.
        (Contains("REFUND"), "Großes refund", "found 'REFUND' at character 7"),
        (Contains("refund"), "straße İ refund", "found 'refund' at character 9"),
        (
            ContainsAll("refund", "GRÜSSE"),
            "Straße, Grüße, refund",
            "found 'refund' at character 15, 'GRÜSSE' at character 8",
        ),
        (
            ContainsAny("x", "s"),
            "Maß",
            "found 's' at character 2; 'x' not found (ignoring case) in 3 characters of text",
        ),
    ],
)
def test_offsets_count_characters_of_the_users_text(
    check: type[Intent], text: str, reason: str
) -> None:
    assert decide(check, text) == (True, reason)


def test_equals_reports_where_the_users_text_differs() -> None:
    # Stripped and case-folded for the comparison; the offset is in the text as given.
    assert decide(Equals("grosses x", case_sensitive=False), "  Großes y") == (
        False,
        "the text 'Großes y' differs from 'grosses x' from character 9 on",
    )
    assert decide(Equals("OK"), "  OX") == (
        False,
        "the text 'OX' differs from 'OK' from character 3 on",
    )


def test_starts_with_and_ends_with() -> None:
    assert repr(StartsWith("Dear")) == "StartsWith('Dear')"
    assert StartsWith("Dear").description == (
        "The text starts with 'Dear' (ignoring surrounding whitespace)."
    )
    assert decide(StartsWith("Dear"), "\n Dear Ann,") == (True, "the text starts with 'Dear'")
    assert decide(StartsWith("Dear"), "Hello Ann") == (
        False,
        "the text starts with 'Hell', not 'Dear'",
    )
    assert decide(StartsWith("dear", case_sensitive=False), "DEAR Ann")[0]
    assert decide(StartsWith("Dear", strip=False), " Dear")[0] is False
    assert decide(EndsWith("Best regards"), "Thanks.\nBest regards\n") == (
        True,
        "the text ends with 'Best regards'",
    )
    assert decide(EndsWith("regards"), "ok") == (False, "the text ends with 'ok', not 'regards'")
    assert decide(EndsWith("ss", case_sensitive=False), "MASS")[0]
    assert repr(EndsWith("x", case_sensitive=False, strip=False)) == (
        "EndsWith('x', case_sensitive=False, strip=False)"
    )
    assert StartsWith("a") is StartsWith("a")
    assert StartsWith("a") is not Equals("a")


def test_numbers_are_looked_for_by_their_text() -> None:
    assert Contains(42) is Contains("42")
    assert decide(Contains(42), "Order 42 shipped") == (True, "found '42' at character 6")
    assert decide(Contains(4.5), "rated 4.5 stars")[0]
    assert decide(ContainsAll(20, "refund"), "a refund of $20") == (
        True,
        "found '20' at character 13, 'refund' at character 2",
    )
    assert decide(ContainsAny([7, 8]), "no digits here")[0] is False
