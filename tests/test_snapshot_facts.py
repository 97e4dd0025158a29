"""The structural fact comparison of semantic snapshots: numbers, dates, negations, names."""

from __future__ import annotations

import random

import pytest

from semantix.snapshots._facts import Fact, compare_facts, extract_facts

REFUND = "You can return any item within 30 days for a full refund."

# (stored, new): paraphrases that keep every fact; no change is reported.
KEPT = [
    (REFUND, "Items may be returned for a full refund for up to 30 days."),
    (REFUND, "Any item can be sent back within 30 days, and you get all your money back."),
    ("Offer a 30-day trial.", "Offer a trial of 30 days."),
    ("The plan costs $20 per month, a 15% discount.", "It is 20 dollars a month, 15 percent off."),
    ("We cannot refund digital items.", "We can't refund digital items."),
    ("We do not ship abroad.", "Shipping abroad isn't offered."),
    (
        "Your order ORD-1234 ships on March 3, 2026 via FedEx.",
        "Order ORD-1234 will be shipped by FedEx on March 3, 2026.",
    ),
    ("Contact support@acme.com for help.", "For help, write to SUPPORT@acme.com."),
    ("See https://acme.com/help for details.", "Details are at https://acme.com/help."),
    ("The store opens at 9:30 on Monday.", "On Monday the store opens at 9:30."),
    ("It weighs 2.5 kg.", "Its weight is 2.5 kg."),
    ("Three seats are left.", "There are three seats left."),
    ("We serve 1,000 customers a day.", "We serve 1000 customers a day."),
    ("Ask Maria Lopez at the front desk.", "The front desk has Maria Lopez; ask her."),
    ("Hello! Thanks for writing to us.", "Thanks for writing to us! Hello."),
    ("Delivery takes 3 to 5 days.", "Delivery takes between 3 and 5 days."),
]

# (stored, new, the changes as messages name them, in order).
CHANGED = [
    (
        REFUND,
        "You can return any item within 14 days for a full refund.",
        ['number changed: 30 → 14 ("within 30 days")'],
    ),
    (
        REFUND,
        "Refunds are not available. All sales are final.",
        [
            "number removed: '30 days' (in the snapshot: \"within 30 days\")",
            "negation added: 'not' (in the new output: \"are not available\")",
        ],
    ),
    (
        REFUND,
        "You cannot return any item within 30 days for a full refund.",
        ["negation added: 'cannot' (in the new output: \"You cannot return\")"],
    ),
    (
        "We can't refund digital items.",
        "We can refund digital items.",
        ['negation removed: "can\'t" (in the snapshot: "We can\'t refund")'],
    ),
    (
        "Shipping is free over $50.",
        "Shipping is free over $75.",
        ['number changed: 50 → 75 ("over $50")'],
    ),
    ("A 15% discount applies.", "A 25% discount applies.", ['number changed: 15 → 25 ("A 15%")']),
    (
        "Delivery takes 3 days.",
        "Delivery takes 3 weeks.",
        [
            "number removed: '3 days' (in the snapshot: \"takes 3 days\")",
            "number added: '3 weeks' (in the new output: \"takes 3 weeks\")",
        ],
    ),
    (
        "The sale ends on 2026-03-01.",
        "The sale ends on 2026-04-01.",
        ['date changed: 2026-03-01 → 2026-04-01 ("on 2026-03-01")'],
    ),
    (
        "The office is closed on Sunday.",
        "The office is closed on Saturday.",
        ['date changed: Sunday → Saturday ("on Sunday")'],
    ),
    ("Pick up after 5 pm.", "Pick up after 6 pm.", ['date changed: 5 pm → 6 pm ("after 5 pm")']),
    (
        "Your order ORD-1234 ships via FedEx.",
        "Your order ORD-1243 ships via UPS.",
        [
            'name changed: FedEx → UPS ("via FedEx")',
            'code changed: ORD-1234 → ORD-1243 ("order ORD-1234")',
        ],
    ),
    (
        "Write to support@acme.com.",
        "Write to help@acme.com.",
        ['email changed: support@acme.com → help@acme.com ("to support@acme.com")'],
    ),
    (
        "Read https://acme.com/returns first.",
        "Read https://acme.com/faq first.",
        [
            'url changed: https://acme.com/returns → https://acme.com/faq ("Read https://acme.com/returns")'
        ],
    ),
    (
        "Ask Maria Lopez at the desk.",
        "Ask John Smith at the desk.",
        ['name changed: Ask Maria Lopez → Ask John Smith ("Ask Maria Lopez")'],
    ),
    (
        "It is available in the EU.",
        "It is available in the US.",
        ['name changed: EU → US ("the EU")'],
    ),
    ("Two seats are left.", "Four seats are left.", ['number changed: 2 → 4 ("Two seats")']),
    (
        "You will never be charged twice.",
        "You will be charged twice.",
        ["negation removed: 'never' (in the snapshot: \"will never be\")"],
    ),
    (
        "NOT available in stores.",
        "Available in stores.",
        ["negation removed: 'NOT' (in the snapshot: \"NOT available\")"],
    ),
]


@pytest.mark.parametrize(("stored", "new"), KEPT)
def test_a_paraphrase_that_keeps_every_fact_has_no_change(stored: str, new: str) -> None:
    assert compare_facts(stored, new) == ()
    assert compare_facts(new, stored) == ()


@pytest.mark.parametrize(("stored", "new", "expected"), CHANGED)
def test_a_changed_fact_is_named_with_its_words(stored: str, new: str, expected: list[str]) -> None:
    assert [change.describe() for change in compare_facts(stored, new)] == expected


@pytest.mark.parametrize(("stored", "new", "expected"), CHANGED)
def test_a_change_is_seen_from_either_side(stored: str, new: str, expected: list[str]) -> None:
    assert len(compare_facts(new, stored)) == len(expected)


@pytest.mark.parametrize(
    ("text", "facts"),
    [
        ("within 30 days", [("number", "30 day")]),
        ("a 30-day trial", [("number", "30 day")]),
        ("costs $1,250.50", [("number", "1250.5 dollar")]),
        ("twelve months", [("number", "12 month")]),
        ("3 of them", [("number", "3")]),
        ("5 not 6", [("number", "5"), ("negation", "not"), ("number", "6")]),
        ("on March 3rd, 2026", [("date", "march 3rd 2026")]),
        ("by 3 March 2026", [("date", "3 march 2026")]),
        ("at 10am", [("date", "10am")]),
        ("Don't, won't, isn't", [("negation", "not")] * 3),
        ("Our Premium plan", [("name", "Premium")]),
        ("Acme Corp ships it.", [("name", "Acme Corp")]),
        ("Refunds are quick.", []),
        ("I think so. OK.", []),
        ("code A1B2 and 4K", [("code", "A1B2"), ("code", "4K")]),
        ("mail a.b+c@x.co.uk now", [("email", "a.b+c@x.co.uk")]),
        ("see www.acme.com/a?b=1.", [("url", "www.acme.com/a?b=1")]),
    ],
)
def test_extraction_finds_each_kind_by_its_rule(text: str, facts: list[tuple[str, str]]) -> None:
    assert [(fact.kind, fact.value) for fact in extract_facts(text)] == facts


# A sign is part of the number: every way of writing a negative one, against the positive.
SIGNS = [
    ("The balance is -50 dollars.", "-50 dollar"),
    ("It is -5 degrees outside.", "-5 degree"),
    ("Prices moved -3% this week.", "-3 percent"),
    ("It is \u22125 degrees outside.", "-5 degree"),  # U+2212 MINUS SIGN
    ("The balance is -$50.", "-50 dollar"),
    ("The balance is $-50.", "-50 dollar"),
    ("It is minus 5 degrees.", "-5 degree"),
    ("It is negative five degrees.", "-5 degree"),
    ("Net income: ($50).", "-50 dollar"),  # accounting: a currency amount in parentheses
    ("Net income: (\u20ac1,200.00).", "-1200 euro"),
]


@pytest.mark.parametrize(("text", "value"), SIGNS)
def test_a_negative_number_keeps_its_sign(text: str, value: str) -> None:
    assert [(f.kind, f.value) for f in extract_facts(text) if f.kind == "number"] == [
        ("number", value)
    ]
    positive = text.replace("\u2212", "").replace("-", "").replace("minus ", "")
    positive = positive.replace("negative ", "").replace("(", "").replace(")", "")
    (change,) = compare_facts(text, positive)
    assert change.change == "changed" and change.old is not None and change.new is not None
    assert change.old.shown == value.split()[0] and change.new.shown == value.split()[0][1:]


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("pages 10-20", ["10", "20"]),  # a range, not minus 20
        ("call 555-0100", ["555", "0100"]),
        ("a 30-day trial", ["30 day"]),
        ("steps (1) and (2)", ["1", "2"]),  # a bare number in parentheses is a list marker
        ("a small fee (3%) applies", ["3 percent"]),
        ("+5% on top", ["5 percent"]),  # an explicit plus is the number itself
        ("-0 degrees", ["0 degree"]),
        ("from -5 to -10 degrees", ["-5", "-10 degree"]),
    ],
)
def test_what_is_not_a_minus_sign(text: str, values: list[str]) -> None:
    assert [f.value for f in extract_facts(text) if f.kind == "number"] == values


def test_identical_and_empty_texts_have_no_change() -> None:
    assert compare_facts(REFUND, REFUND) == ()
    assert compare_facts("", "") == ()


def _reference(stored: str, new: str) -> list[tuple[str, str | None, str | None]]:
    """The rule as first written (quadratic): each fact matched against the first unused fact of
    the other text sharing a key; lost facts paired with the first gained one of their unit."""

    def only_in(these: list[Fact], others: list[Fact]) -> list[Fact]:
        unused, kept = list(others), []
        for fact in these:
            keys = {fact.value, *fact.aliases}
            match = next((o for o in unused if keys & {o.value, *o.aliases}), None)
            if match is None:
                kept.append(fact)
            else:
                unused.remove(match)
        return kept

    out: list[tuple[str, str | None, str | None]] = []
    olds, news = extract_facts(stored), extract_facts(new)
    for kind in ("number", "date", "negation", "name", "email", "url", "code"):
        a = [f for f in olds if f.kind == kind]
        b = [f for f in news if f.kind == kind]
        lost, gained = only_in(a, b), only_in(b, a)
        if kind == "negation":
            surplus = len(lost) - len(gained)
            lost, gained = (lost[:surplus], []) if surplus > 0 else ([], gained[:-surplus])
        for old in lost:
            match = next(
                (
                    g
                    for g in gained
                    if kind != "negation"
                    and (kind != "number" or old.value.split(" ")[1:] == g.value.split(" ")[1:])
                ),
                None,
            )
            if match is not None:
                gained.remove(match)
            out.append((kind, old.value, None if match is None else match.value))
        out.extend((kind, None, g.value) for g in gained)
    return out


def test_the_linear_comparison_gives_the_rule_as_first_written() -> None:
    # compare_facts is linear in the texts' length (scripts/bench prints "facts" figures); on
    # random texts its changes are exactly those of the quadratic rule it replaced.
    pieces = [
        *("30 days", "$20", "-5 degrees", "14 days", "3 weeks", "no", "never", "can't"),
        *("Maria Lopez", "Ask Maria Lopez", "UPS", "FedEx", "ORD-1234", "March 3", "Monday"),
        *("5 pm", "a@b.co", "https://x.io/a", "two", "kg", "the", "and", "refund", "."),
    ]
    rng = random.Random(7)
    for _ in range(200):
        stored = " ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        new = " ".join(rng.choice(pieces) for _ in range(rng.randrange(0, 40)))
        got = [
            (c.kind, None if c.old is None else c.old.value, None if c.new is None else c.new.value)
            for c in compare_facts(stored, new)
        ]
        assert got == _reference(stored, new), (stored, new)
