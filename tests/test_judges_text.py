"""semantix._text: one sentence rule, near-equal windows, batches of similar length."""

from __future__ import annotations

import itertools
import math
import re

import pytest

from semantix._text import length_batches, sentence_starts, split_sentences, token_windows


def word_offsets(text: str) -> list[tuple[int, int]]:
    """One token per word or punctuation mark, like a tokenizer's offsets."""
    return [match.span() for match in re.finditer(r"\w+|[^\w\s]", text)]


def test_sentence_starts_follow_punctuation_quotes_and_newlines() -> None:
    text = 'One two. "Three!" Four?\nFive'
    offsets = word_offsets(text)
    starts = sentence_starts(text, offsets)
    assert [text[offsets[i][0] :].split()[0] for i in starts[:-1]] == [
        "One",
        '"Three!"',
        "Four?",
        "Five",
    ]
    assert starts[-1] == len(offsets)


def test_short_text_is_one_window() -> None:
    text = "Short and sweet."
    assert token_windows(text, word_offsets(text), 10) == [(0, 4)]


def test_just_over_the_budget_gives_two_near_equal_windows_at_a_sentence() -> None:
    # 11 sentences of 5 tokens = 55 tokens, budget 50: greedy filling gave 50 + 5.
    text = " ".join(f"Word{i} is here now." for i in range(11))
    offsets = word_offsets(text)
    windows = token_windows(text, offsets, 50)
    assert len(windows) == 2
    sizes = [end - start for start, end in windows]
    assert sizes == [30, 25]
    assert all(start in sentence_starts(text, offsets) for start, _ in windows)


@pytest.mark.parametrize("factor", [1.1, 2.0, 10.0, 100.0])
def test_fewest_windows_of_near_equal_size_covering_every_token(factor: float) -> None:
    budget = 40
    sentence = "The agent explains the refund policy in plain words today."  # 11 tokens
    count = int(budget * factor / 11) + 1
    text = " ".join([sentence] * count)
    offsets = word_offsets(text)
    windows = token_windows(text, offsets, budget)
    assert windows[0][0] == 0 and windows[-1][1] == len(offsets)
    assert all(a[1] == b[0] for a, b in itertools.pairwise(windows))
    sizes = [end - start for start, end in windows]
    assert max(sizes) <= budget
    starts = sentence_starts(text, offsets)
    assert all(start in starts for start, _ in windows)
    # whole sentences, three to a window: the fewest windows that can hold them
    assert len(windows) == math.ceil(count / 3)


def test_an_over_long_sentence_is_cut_before_words_into_near_equal_parts() -> None:
    text = "abc-def " * 30  # 90 tokens, no sentence end; "abc-def" is three tokens
    offsets = word_offsets(text)
    windows = token_windows(text, offsets, 50)
    assert len(windows) == 2
    for start, _ in windows:
        assert text[offsets[start][0]] == "a"  # a word's first token, never "-" or "def"
    sizes = [end - start for start, end in windows]
    assert abs(sizes[0] - sizes[1]) <= 3


def test_bad_budget_is_an_error() -> None:
    with pytest.raises(ValueError, match="budget"):
        token_windows("text", [(0, 4)], 0)


def test_batches_group_similar_lengths_and_cover_every_index() -> None:
    lengths = [480, 20, 25, 22, 470, 21]
    batches = length_batches(lengths, batch_size=16)
    assert sorted(i for batch in batches for i in batch) == list(range(len(lengths)))
    assert batches == [[1, 5, 3, 2], [4, 0]]  # the long windows are not padded with the short


def test_batches_respect_batch_size() -> None:
    batches = length_batches([10] * 5, batch_size=2)
    assert [len(batch) for batch in batches] == [2, 2, 1]


def test_an_abbreviation_ends_no_sentence_in_windows() -> None:
    """Regression: the window rule cut after "e.g." and "Dr." (only the phrasing rule knew "e.g.")."""
    text = "Ask e.g. for a refund. Call Dr. Smith. Done"
    offsets = word_offsets(text)
    starts = sentence_starts(text, offsets)
    assert [text[offsets[i][0] :].split()[0] for i in starts[:-1]] == ["Ask", "Call", "Done"]
    assert split_sentences(text) == ["Ask e.g. for a refund.", "Call Dr. Smith.", "Done"]


def test_phrasing_splits_descriptions_by_the_same_rule() -> None:
    """Regression: phrasing's own regex cut "Never call Dr. Smith by name." in two, so the
    prohibition was not recognised."""
    from semantix.judges._phrasing import negated_statement, to_hypothesis

    assert negated_statement("Never call Dr. Smith by name.") == "The text calls Dr. Smith by name."
    assert to_hypothesis("Mention e.g. a refund. Be polite.") == (
        "The text mentions e.g. a refund. The text is polite."
    )


def test_a_run_of_periods_is_split_in_linear_time() -> None:
    """An LLM stuck in a loop prints thousands of dots: the sentence rule must not backtrack
    from every one of them (quadratic: 8.8 s on 10,000 before; a child process bounds it)."""
    import subprocess
    import sys

    code = (
        "from semantix._text import split_sentences\n"
        "print(len(split_sentences('Wait' + '.' * 60000)), split_sentences('Hi... you. Ok'))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.split("\n")[0] == "1 ['Hi...', 'you.', 'Ok']"
