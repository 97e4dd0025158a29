"""to_hypothesis: descriptions as users write them, and the statement an NLI model gets."""

from __future__ import annotations

import pytest

from semantix.hypothesis import to_hypothesis

CASES = [
    ("The text must be polite", "The text is polite."),
    ("The text must be polite and professional.", "The text is polite and professional."),
    ("The text must not contain profanity", "The text does not contain profanity."),
    ("must not contain personal data", "The text does not contain personal data."),
    ("polite and professional", "The text is polite and professional."),
    ("Polite and professional.", "The text is polite and professional."),
    ("The response should be concise.", "The response is concise."),
    ("The answer must not be rude.", "The answer is not rude."),
    ("The reply needs to mention the refund policy.", "The reply mentions the refund policy."),
    ("The output has to be valid JSON.", "The output is valid JSON."),
    ("The text shall not reveal the system prompt.", "The text does not reveal the system prompt."),
    ("The response is required to cite a source.", "The response cites a source."),
    ("Apologize for the delay.", "The text apologizes for the delay."),
    (
        "Apologize for the delay and offer a discount.",
        "The text apologizes for the delay and offers a discount.",
    ),
    ("Never mention competitors.", "The text never mentions competitors."),
    ("Do not mention pricing.", "The text does not mention pricing."),
    ("Don't use jargon.", "The text does not use jargon."),
    ("Be polite.", "The text is polite."),
    (
        "The text provides medical diagnoses or treatment recommendations.",
        "The text provides medical diagnoses or treatment recommendations.",
    ),
    ("The text is written in English.", "The text is written in English."),
    ("Written in English.", "The text is written in English."),
    ("about cooking", "The text is about cooking."),
    ("in French", "The text is in French."),
    ("no profanity", "The text contains no profanity."),
    ("not rude", "The text is not rude."),
    ("Mentions the refund policy.", "The text mentions the refund policy."),
    ("is written in formal English", "The text is written in formal English."),
    ("has a friendly tone", "The text has a friendly tone."),
    ("does not mention competitors", "The text does not mention competitors."),
    ("contains a link to the docs", "The text contains a link to the docs."),
    ("The reply must always be respectful.", "The reply is always respectful."),
    ("The response should clearly explain the error.", "The response clearly explains the error."),
    ("It must be polite. It must not mention prices.", "It is polite. It does not mention prices."),
    ("The response must never be rude.", "The response is never rude."),
    ("The answer must never reveal passwords.", "The answer never reveals passwords."),
    ("You must greet the user.", "The text greets the user."),
    ("Is the text polite?", "The text is polite."),
    ("Does the response mention a deadline?", "The response mentions a deadline."),
    ("The text should apologize and offer a refund.", "The text apologizes and offers a refund."),
    ("A greeting", "The text is a greeting."),
    ("positive sentiment", "The text is positive sentiment."),
    ("The message is friendly!", "The message is friendly."),
    ("- polite", "The text is polite."),
    ("- mentions the order number", "The text mentions the order number."),
    ("JSON output", "The text is JSON output."),
    (
        "The summary must be in English, e.g. in plain words.",
        "The summary is in English, e.g. in plain words.",
    ),
    ("The text mustn't include URLs", "The text does not include URLs."),
    ("The text cannot contain insults", "The text does not contain insults."),
    ("Should be short", "The text is short."),
    ("The reply will be in Spanish", "The reply is in Spanish."),
    ("The reply must not be rude or dismissive.", "The reply is not rude or dismissive."),
    (
        "The answer should mention the deadline and apologize.",
        "The answer mentions the deadline and apologizes.",
    ),
    ("Responds in English.", "The text responds in English."),
    (
        "The chatbot must refuse to give medical advice.",
        "The chatbot refuses to give medical advice.",
    ),
    ("Provide a summary of the article.", "The text provides a summary of the article."),
    ("Offers a refund.", "The text offers a refund."),
    ("The text must include a call to action", "The text includes a call to action."),
    ("The response must be under 100 words.", "The response is under 100 words."),
    ("The email must be signed by the support team.", "The email is signed by the support team."),
    ("Thank the customer.", "The text thanks the customer."),
    ("Avoid technical jargon.", "The text avoids technical jargon."),
    ("The model should not speculate.", "The model does not speculate."),
    (
        "The assistant must never reveal the system prompt.",
        "The assistant never reveals the system prompt.",
    ),
    ("The text expresses gratitude.", "The text expresses gratitude."),
    ("The text should be written in a formal tone.", "The text is written in a formal tone."),
    ("The summary has to include the key findings.", "The summary includes the key findings."),
    ("Describe the return policy.", "The text describes the return policy."),
    ("The reply must contain no personal data.", "The reply contains no personal data."),
    ("Must be polite!", "The text is polite."),
    ("  The text must be polite.  ", "The text is polite."),
    (
        "The response should be helpful.\nIt must not be condescending.",
        "The response is helpful. It is not condescending.",
    ),
    ("friendly", "The text is friendly."),
    ("The output is valid JSON.", "The output is valid JSON."),
    ("The SQL query must use an index.", "The SQL query uses an index."),
    ("The answer must be in French.", "The answer is in French."),
    ("The code should handle errors gracefully.", "The code handles errors gracefully."),
    ("The user's name must be mentioned.", "The user's name is mentioned."),
    ("The final answer should be short", "The final answer is short."),
    ("The text is expected to cite its sources.", "The text cites its sources."),
    ("The reply ought to be brief.", "The reply is brief."),
    ("The text has got to be kind.", "The text is kind."),
    ("The text must not have typos.", "The text does not have typos."),
    ("The reply must never have links.", "The reply never has links."),
    ("Keep the answer short.", "The text keeps the answer short."),
    ("Politely decline the request.", "The text politely declines the request."),
    ("Always greet the customer by name.", "The text always greets the customer by name."),
    ("Stay on topic.", "The text stays on topic."),
]


@pytest.mark.parametrize(("description", "hypothesis"), CASES)
def test_to_hypothesis(description: str, hypothesis: str) -> None:
    assert to_hypothesis(description) == hypothesis


@pytest.mark.parametrize(("description", "hypothesis"), CASES)
def test_no_word_is_mangled(description: str, hypothesis: str) -> None:
    """Every word of the description survives, apart from subject/modal words and verb endings."""
    structural = {
        "must",
        "should",
        "shall",
        "will",
        "needs",
        "need",
        "has",
        "have",
        "to",
        "is",
        "required",
        "expected",
        "ought",
        "got",
        "be",
        "do",
        "does",
        "don't",
        "mustn't",
        "cannot",
        "not",
        "you",
        "the",
        "text",
        "a",
    }
    out_words = {w.strip(".,!?").lower() for w in hypothesis.split()}
    for word in description.replace("\n", " ").split():
        core = word.strip(".,!?-").lower()
        if not core or core in structural:
            continue
        assert any(
            o == core or o.startswith(core.removesuffix("e")) or core.startswith(o)
            for o in out_words
            if o
        ), (word, hypothesis)


def test_hypothesis_is_one_statement_per_sentence() -> None:
    assert to_hypothesis("Be polite. Never mention prices!") == (
        "The text is polite. The text never mentions prices."
    )


def test_bullets_are_separate_statements() -> None:
    assert to_hypothesis("- polite\n- mentions the order number") == (
        "The text is polite. The text mentions the order number."
    )


def test_capitals_of_proper_words_are_kept() -> None:
    assert to_hypothesis("English only") == "The text is English only."
    assert to_hypothesis("JSON output") == "The text is JSON output."


@pytest.mark.parametrize("description", ["", "   ", "...", "\n\n"])
def test_empty_description_is_an_error(description: str) -> None:
    with pytest.raises(ValueError, match="empty description"):
        to_hypothesis(description)


def test_non_string_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="got int"):
        to_hypothesis(3)  # type: ignore[arg-type]
