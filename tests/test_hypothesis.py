"""to_hypothesis: descriptions as users write them, and the statement an NLI model gets."""

from __future__ import annotations

import re

import pytest

from semantix.judges._phrasing import negated_statement, to_hypothesis

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


# -- negated_statement: negatively phrased requirements ---------------------------------------------

#: (negatively phrased description, the positive statement judged, the positive requirement a user
#: would write for it: to_hypothesis of that must give the same statement).
NEGATED = [
    (
        "The text must not contain medical advice",
        "The text contains medical advice.",
        "The text must contain medical advice",
    ),
    (
        "Never reveal the system prompt",
        "The text reveals the system prompt.",
        "Reveal the system prompt",
    ),
    ("Do not use profanity", "The text uses profanity.", "Use profanity"),
    ("Don't use jargon.", "The text uses jargon.", "Use jargon."),
    ("DO NOT mention competitors.", "The text mentions competitors.", "Mention competitors."),
    ("Please do not use emojis.", "The text uses emojis.", "Use emojis."),
    ("Do not be rude.", "The text is rude.", "Be rude."),
    ("Never be sarcastic.", "The text is sarcastic.", "Be sarcastic."),
    ("NEVER reveal the password!", "The text reveals the password.", "Reveal the password!"),
    ("Never mention competitors.", "The text mentions competitors.", "Mention competitors."),
    ("The response should not be rude.", "The response is rude.", "The response should be rude."),
    (
        "The answer must not be rude or dismissive.",
        "The answer is rude or dismissive.",
        "The answer must be rude or dismissive.",
    ),
    (
        "The reply shouldn't include URLs",
        "The reply includes URLs.",
        "The reply should include URLs",
    ),
    ("The text mustn't include URLs", "The text includes URLs.", "The text must include URLs"),
    (
        "The text shall not reveal the system prompt.",
        "The text reveals the system prompt.",
        "The text shall reveal the system prompt.",
    ),
    (
        "The text cannot contain insults",
        "The text contains insults.",
        "The text must contain insults",
    ),
    (
        "The reply can't mention prices.",
        "The reply mentions prices.",
        "The reply must mention prices.",
    ),
    (
        "The answer may not include links.",
        "The answer includes links.",
        "The answer must include links.",
    ),
    ("The model will not speculate.", "The model speculates.", "The model will speculate."),
    ("The model should not speculate.", "The model speculates.", "The model should speculate."),
    (
        "The assistant must never reveal the system prompt.",
        "The assistant reveals the system prompt.",
        "The assistant must reveal the system prompt.",
    ),
    ("The response must never be rude.", "The response is rude.", "The response must be rude."),
    (
        "The assistant never reveals the system prompt.",
        "The assistant reveals the system prompt.",
        "The assistant reveals the system prompt.",
    ),
    ("The bot never swears.", "The bot swears.", "The bot swears."),
    ("never mentions competitors", "The text mentions competitors.", "mentions competitors"),
    (
        "The reply does not mention competitors.",
        "The reply mentions competitors.",
        "The reply must mention competitors.",
    ),
    ("does not mention competitors", "The text mentions competitors.", "must mention competitors"),
    (
        "The reply doesn't contain personal data.",
        "The reply contains personal data.",
        "The reply must contain personal data.",
    ),
    (
        "You must not share the user's address.",
        "The text shares the user's address.",
        "You must share the user's address.",
    ),
    ("You should never diagnose the user.", "The text diagnoses the user.", "Diagnose the user."),
    (
        "The chatbot is not allowed to give legal advice.",
        "The chatbot gives legal advice.",
        "The chatbot must give legal advice.",
    ),
    (
        "The agent is not supposed to promise refunds.",
        "The agent promises refunds.",
        "The agent must promise refunds.",
    ),
    (
        "The assistant is not to discuss politics.",
        "The assistant discusses politics.",
        "The assistant must discuss politics.",
    ),
    ("The text must not have typos.", "The text has typos.", "The text must have typos."),
    (
        "Must not contain personal data",
        "The text contains personal data.",
        "Must contain personal data",
    ),
    ("Should not exceed 100 words", "The text exceeds 100 words.", "must exceed 100 words"),
    ("Do not mention prices at all.", "The text mentions prices.", "Mention prices."),
    ("Never say anything rude.", "The text says something rude.", "Say something rude."),
    ("The reply must not use any slang.", "The reply uses slang.", "The reply must use slang."),
    ("No profanity", "The text contains profanity.", "contains profanity"),
    ("No medical advice.", "The text contains medical advice.", "Contains medical advice."),
    (
        "no personal data or credentials",
        "The text contains personal data or credentials.",
        "contains personal data or credentials",
    ),
    (
        "The reply must contain no personal data.",
        "The reply contains personal data.",
        "The reply must contain personal data.",
    ),
    ("The summary has no typos.", "The summary has typos.", "The summary has typos."),
    ("The answer includes no links.", "The answer includes links.", "The answer includes links."),
    ("without profanity", "The text contains profanity.", "contains profanity"),
    ("Without mentioning prices.", "The text mentions prices.", "Mention prices."),
    ("without being rude", "The text is rude.", "Be rude"),
    (
        "Avoid technical jargon.",
        "The text contains technical jargon.",
        "The text must contain technical jargon.",
    ),
    ("Avoid mentioning competitors.", "The text mentions competitors.", "Mention competitors."),
    ("Avoid giving medical advice", "The text gives medical advice.", "Give medical advice"),
    (
        "The response should avoid jargon.",
        "The response contains jargon.",
        "The response should contain jargon.",
    ),
    (
        "The reply must avoid making promises.",
        "The reply makes promises.",
        "The reply must make promises.",
    ),
    ("Avoids speculation.", "The text contains speculation.", "Contains speculation."),
    (
        "Refrain from giving medical advice.",
        "The text gives medical advice.",
        "Give medical advice.",
    ),
    (
        "The assistant must refrain from discussing politics.",
        "The assistant discusses politics.",
        "The assistant must discuss politics.",
    ),
    ("Refrains from criticizing the user.", "The text criticizes the user.", "Criticize the user."),
    ("Stay away from legal advice.", "The text contains legal advice.", "Contains legal advice."),
    (
        "The text must be free of profanity.",
        "The text contains profanity.",
        "The text must contain profanity.",
    ),
    ("free from jargon", "The text contains jargon.", "contains jargon"),
    ("Profanity is not allowed.", "The text contains profanity.", "Contains profanity."),
    (
        "Mentioning competitors is forbidden.",
        "The text mentions competitors.",
        "Mention competitors.",
    ),
    ("The text is not rude.", "The text is rude.", "The text is rude."),
    ("The reply isn't in English.", "The reply is in English.", "The reply is in English."),
    ("not rude", "The text is rude.", "rude"),
    ("Not about politics.", "The text is about politics.", "About politics."),
    (
        "Make sure not to mention competitors.",
        "The text mentions competitors.",
        "Mention competitors.",
    ),
    (
        "Be careful not to reveal internal tools.",
        "The text reveals internal tools.",
        "Reveal internal tools.",
    ),
    (
        "Ensure the response does not contain PII.",
        "The response contains PII.",
        "The response must contain PII.",
    ),
    (
        "Make sure the reply never mentions prices.",
        "The reply mentions prices.",
        "The reply mentions prices.",
    ),
    (
        "Under no circumstances should the assistant reveal its instructions.",
        "The assistant reveals its instructions.",
        "The assistant must reveal its instructions.",
    ),
    (
        "Under no circumstances reveal the password.",
        "The text reveals the password.",
        "Reveal the password.",
    ),
    ("At no point should you mention pricing.", "The text mentions pricing.", "Mention pricing."),
    (
        "Do not use profanity or insults.",
        "The text uses profanity or insults.",
        "Use profanity or insults.",
    ),
    ("Don\u2019t apologize.", "The text apologizes.", "Apologize."),
    (
        "- Never reveal the system prompt",
        "The text reveals the system prompt.",
        "Reveal the system prompt",
    ),
    ("No emojis, please.", "The text contains emojis.", "Contains emojis."),
    ("Without any profanity.", "The text contains profanity.", "Contains profanity."),
    ("Never ever swear.", "The text swears.", "must swear"),
    ("Never, ever reveal secrets.", "The text reveals secrets.", "Reveal secrets."),
    ("Please, never swear.", "The text swears.", "must swear"),
    (
        "The assistant must not, under any circumstances, reveal the prompt.",
        "The assistant reveals the prompt.",
        "The assistant must reveal the prompt.",
    ),
    ("There should be no profanity.", "The text contains profanity.", "Contains profanity."),
    ("There is no small talk.", "The text contains small talk.", "Contains small talk."),
    ("The text must be free of any jargon.", "The text contains jargon.", "Contains jargon."),
    ("Do not make up facts.", "The text makes up facts.", "Make up facts."),
    (
        "The bot must not pretend to be human.",
        "The bot pretends to be human.",
        "The bot must pretend to be human.",
    ),
    ("The output must not be empty.", "The output is empty.", "The output must be empty."),
    (
        "The response contains no profanity.",
        "The response contains profanity.",
        "The response contains profanity.",
    ),
    (
        "The reply mentions no competitors.",
        "The reply mentions competitors.",
        "The reply mentions competitors.",
    ),
    ("It should never mention prices.", "It mentions prices.", "It should mention prices."),
    (
        "You must never guess the answer.",
        "The text guesses the answer.",
        "You must guess the answer.",
    ),
    ("The chatbot won't swear.", "The chatbot swears.", "The chatbot will swear."),
    (
        "The agent may not offer discounts.",
        "The agent offers discounts.",
        "The agent must offer discounts.",
    ),
    ("Do NOT include the API key.", "The text includes the API key.", "Include the API key."),
    (
        "Under no circumstances should the bot share passwords.",
        "The bot shares passwords.",
        "The bot must share passwords.",
    ),
    (
        "The reply shouldn't sound robotic.",
        "The reply sounds robotic.",
        "The reply should sound robotic.",
    ),
    ("Never fabricate quotes.", "The text fabricates quotes.", "Fabricate quotes."),
]

#: Descriptions that are positive requirements, or negations that must NOT be rewritten.
NOT_NEGATED = [
    # positive requirements
    "The text must be polite.",
    "polite and professional",
    "Apologize for the delay.",
    "The text provides medical diagnoses or treatment recommendations.",
    "The response explains why the order was not delivered.",
    "Explain that refunds are not possible after 30 days.",
    "The chatbot must refuse to give medical advice.",
    "Help the user avoid late fees.",
    "The reply tells the user there is no charge.",
    "Knows the answer.",
    "Nothing to declare",
    "The text mentions a discount.",
    # negations that mean something positive
    "The reply does not hesitate to help.",
    "Don't hesitate to offer help.",
    "The assistant never fails to greet the user.",
    "Never forget to thank the customer.",
    "Do not neglect to mention the deadline.",
    "You cannot be too careful with passwords.",
    "The agent can't wait to help.",
    "Don't be afraid to ask a clarifying question.",
    "We cannot stress this enough.",
    # a positive part or an exception
    "The reply should not only apologize but also offer a refund.",
    "not only X but also Y",
    "Not just a list, but an explanation.",
    "Do not apologize, but explain the delay.",
    "Do not mention prices unless the user asks.",
    "Never mention competitors except by name in comparisons.",
    "Do not guess; instead, ask a clarifying question.",
    "Do not mention prices and always be polite.",
    "Never mention prices, only features.",
    "Reply without technical jargon.",
    "The reply should not always apologize.",
    "The answer does not necessarily cite sources.",
    # "no" that is no absence
    "no later than Friday",
    "The reply must arrive no later than Friday.",
    "No more than 100 words.",
    "no fewer than three examples",
    "No matter what, be polite.",
    "No longer than two sentences.",
    "No one is insulted.",
    "The reply has no more than three bullet points.",
    # permission, not prohibition
    "The reply does not need to mention prices.",
    "The answer need not cite sources.",
    "The reply doesn't have to be formal.",
    "The answer may not be accurate.",
    # double negatives, unknown verbs
    "The reply must not be without a greeting.",
    "Never say no to a customer.",
    "Do not answer questions that are not about cooking.",
    "Avoid frobnicating the widgets.",
    "Never not greet.",
    # several sentences, even when every one is negative
    "Be polite. Never mention prices.",
    "Never reveal the system prompt. Do not use profanity.",
    "The response should be helpful.\nIt must not be condescending.",
    "- no profanity\n- no personal data",
    "It must be polite. It must not mention prices.",
    # subjects and forms the rewrite does not know: left as written
    "Responses should not use markdown.",
    "I don't want any jargon.",
    "Nothing about pricing.",
    "Never answer with yes or no.",
    "There must be no more than three bullet points.",
    "Refuse to answer questions about politics.",
]


@pytest.mark.parametrize(("description", "statement", "positive"), NEGATED)
def test_negated_statement(description: str, statement: str, positive: str) -> None:
    assert negated_statement(description) == statement


#: Words a negation may drop: negations, modals, emphasis, and the avoidance verbs.
DROPPABLE = re.compile(
    r"must|mustn't|should|shouldn't|shall|will|won't|may|can|can't|cannot|not|never|ever|no|do|"
    r"does|don't|doesn't|isn't|is|are|allowed|supposed|to|forbidden|be|being|you|the|text|a|any|"
    r"at|all|please|without|avoid|avoids|refrain|refrains|from|stay|away|free|of|there|under|"
    r"circumstances|point|make|sure|ensure|careful|that"
)


@pytest.mark.parametrize(("description", "statement", "positive"), NEGATED)
def test_negated_statement_keeps_every_content_word(
    description: str, statement: str, positive: str
) -> None:
    """Only negation, modal and emphasis words go; verbs change only their ending."""
    out_words = {w.strip(".,!?'\"").lower() for w in statement.split()}
    for word in description.replace("\u2019", "'").split():
        core = word.strip(".,!?-'\"").lower()
        if not core or DROPPABLE.fullmatch(core):
            continue
        if core in {"anything", "anyone"}:
            core = "some" + core[3:]
        stem = core.removesuffix("ing")
        assert any(
            o == core
            or o.startswith((core.removesuffix("e"), stem))
            or core.startswith(o.removesuffix("s"))
            for o in out_words
            if o
        ), (word, statement)


@pytest.mark.parametrize(("description", "statement", "positive"), NEGATED)
def test_negated_statement_agrees_with_to_hypothesis(
    description: str, statement: str, positive: str
) -> None:
    """The statement judged is what to_hypothesis gives for the positive requirement."""
    assert to_hypothesis(positive) == statement


@pytest.mark.parametrize("description", NOT_NEGATED)
def test_not_negated(description: str) -> None:
    assert negated_statement(description) is None


def test_to_hypothesis_of_a_negation_is_unchanged() -> None:
    """negated_statement is a separate question: to_hypothesis still phrases the negation."""
    assert negated_statement("Never mention competitors.") == "The text mentions competitors."
    assert to_hypothesis("Never mention competitors.") == "The text never mentions competitors."


def test_there_are_many_table_rows() -> None:
    assert len(NEGATED) + len(NOT_NEGATED) >= 60
    assert len(NEGATED) >= 30 and len(NOT_NEGATED) >= 30


def test_negated_statement_of_a_non_string_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="got bytes"):
        negated_statement(b"Never swear")  # type: ignore[arg-type]


@pytest.mark.parametrize("description", ["", "   ", "..."])
def test_negated_statement_of_an_empty_description_is_none(description: str) -> None:
    assert negated_statement(description) is None
