"""The ready-made intents (semantix.intents): their shape, the factories, and their measured
accuracy held to the published figures."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import semantix.intents
from intents_eval import (
    EMBEDDING_COLUMN,
    FACTORIES,
    INTENTS,
    NOT_MEASURED,
    EvalRow,
    Figure,
    load_eval,
    markdown_table,
    measure,
    published,
)
from semantix import FakeJudge, Intent, Judge, evaluate_semantic
from semantix.intents import (
    Apology,
    LegalAdvice,
    MedicalAdvice,
    MentionIntent,
    Mentions,
    OnTopic,
    Polite,
    Refusal,
    Rude,
    SystemPromptLeak,
    TopicIntent,
)

CLASSES = [getattr(semantix.intents, name) for name in INTENTS if name not in FACTORIES]
ROOT = Path(__file__).resolve().parent.parent


def test_every_documented_intent_is_exported() -> None:
    assert set(INTENTS) <= set(semantix.intents.__all__)
    assert sorted(semantix.intents.__all__) == semantix.intents.__all__
    public = {name for name in vars(semantix.intents) if name.isidentifier() and name[0] != "_"}
    assert set(semantix.intents.__all__) == public - {"annotations"}


@pytest.mark.parametrize("intent", CLASSES, ids=lambda intent: intent.__name__)
def test_each_intent_carries_a_description_a_hypothesis_and_examples(
    intent: type[Intent],
) -> None:
    assert issubclass(intent, Intent)
    assert not intent.abstract
    assert intent.__module__ == "semantix.intents"
    assert intent.description.startswith("The text ")
    assert len(intent.description) > 150, "a precise description says what does not count too"
    assert intent.hypothesis is not None
    assert intent.hypothesis.startswith("The text ") and intent.hypothesis.endswith(".")
    assert " not " not in intent.hypothesis, "an NLI hypothesis must be a positive statement"
    assert len(intent.examples) >= 10 and len(intent.counterexamples) >= 10
    assert len(set(intent.examples)) == len(intent.examples)
    assert len(set(intent.counterexamples)) == len(intent.counterexamples)
    assert not set(intent.examples) & set(intent.counterexamples)
    assert intent.explicit_threshold() is None, "the usual threshold order applies"


@pytest.mark.parametrize("intent", CLASSES, ids=lambda intent: intent.__name__)
def test_examples_cover_short_and_long_replies(intent: type[Intent]) -> None:
    lengths = sorted(len(text.split()) for text in (*intent.examples, *intent.counterexamples))
    assert lengths[0] <= 8, "at least one short reply"
    assert lengths[-1] >= 12, "at least one long reply"
    assert lengths[-1] >= 2 * lengths[0]


@pytest.mark.parametrize(
    ("intent", "side", "text"),
    [
        (Refusal, "examples", "Sorry, but I won't be able to write that essay for you."),
        (Apology, "examples", "I'm sorry, but I can't help with that request."),
        (
            Polite,
            "examples",
            (
                "Thank you for reaching out. Unfortunately I'm unable to share that information, "
                "but I'd gladly help with anything else."
            ),
        ),
        (
            MedicalAdvice,
            "counterexamples",
            "I can't give medical advice; please talk to a doctor or pharmacist.",
        ),
        (
            SystemPromptLeak,
            "counterexamples",
            "I'm sorry, but I can't share my system prompt or internal instructions.",
        ),
    ],
)
def test_hard_cases_are_on_the_right_side(intent: type[Intent], side: str, text: str) -> None:
    assert text in getattr(intent, side)


def test_import_semantix_does_not_load_the_library_and_the_library_is_light() -> None:
    code = textwrap.dedent(
        """
        import sys
        import semantix
        assert "semantix.intents" not in sys.modules
        import semantix.intents
        heavy = {"onnxruntime", "numpy", "torch", "transformers", "tokenizers", "openai",
                 "huggingface_hub"}
        print(sorted(heavy & set(sys.modules)))
        """
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert completed.stdout.strip() == "[]"


# -- factories -------------------------------------------------------------------------------


def test_on_topic_builds_a_named_cached_intent() -> None:
    cooking = OnTopic("cooking")
    assert repr(cooking) == "OnTopic('cooking')"
    assert issubclass(cooking, TopicIntent) and not cooking.abstract
    assert cooking.topic == "cooking"
    assert cooking.description == "The text is about cooking."
    assert cooking.hypothesis == "The text is about cooking."
    assert cooking is OnTopic("cooking")
    assert cooking is OnTopic("  cooking. ")
    assert OnTopic("baking") is not cooking
    assert cooking.examples == () and cooking.counterexamples == ()
    assert cooking.explicit_threshold() is None


def test_mentions_builds_a_named_cached_intent() -> None:
    oven = Mentions("the oven\n temperature")
    assert repr(oven) == "Mentions('the oven temperature')"
    assert issubclass(oven, MentionIntent)
    assert oven.thing == "the oven temperature"
    assert oven.description == "The text mentions the oven temperature."
    assert oven is Mentions("the oven temperature")


def test_factory_intents_compose_and_read_well_in_results() -> None:
    judge = FakeJudge(lambda output, intent: 0.9 if "oven" in output else 0.1)
    intent = OnTopic("cooking") & ~Mentions("a refund")
    assert repr(intent) == "OnTopic('cooking') & ~Mentions('a refund')"
    result = evaluate_semantic("Heat the oven.", OnTopic("cooking"), judge=judge)
    assert result.passed
    assert result.to_dict()["intent"] == "OnTopic('cooking')"


@pytest.mark.parametrize(
    ("factory", "value", "error", "message"),
    [
        (
            OnTopic,
            3,
            TypeError,
            r"OnTopic\(\) needs the topic as a str, e\.g\. OnTopic\('cooking'\); got int 3",
        ),
        (OnTopic, None, TypeError, r"got NoneType None"),
        (
            OnTopic,
            "  ",
            ValueError,
            r"OnTopic\(\) got an empty topic \('  '\); pass a short phrase",
        ),
        (OnTopic, ".", ValueError, r"empty topic"),
        (OnTopic, "x" * 201, ValueError, r"got 201 characters \(at most 200\); for a longer"),
        (Mentions, b"refund", TypeError, r"Mentions\(\) needs the thing as a str"),
        (Mentions, "", ValueError, r"Mentions\(\) got an empty thing"),
    ],
)
def test_factory_arguments_are_checked(
    factory: object, value: object, error: type[Exception], message: str
) -> None:
    with pytest.raises(error, match=message):
        factory(value)  # type: ignore[operator]


def test_factory_threshold_follows_the_usual_order() -> None:
    judge = FakeJudge(lambda output, intent: 0.5, recommended_threshold=0.4)
    assert evaluate_semantic("x", OnTopic("cooking"), judge=judge).leaves[0].threshold == 0.4
    assert (
        evaluate_semantic("x", OnTopic("cooking"), judge=judge, threshold=0.6).leaves[0].threshold
        == 0.6
    )

    class Strict(OnTopic("cooking")):  # type: ignore[misc]
        threshold = 0.7

    assert Strict.description == "The text is about cooking."
    assert Strict.hypothesis == "The text is about cooking."
    assert evaluate_semantic("x", Strict, judge=judge).leaves[0].threshold == 0.7


# -- evaluation set and figures --------------------------------------------------------------


def test_evaluation_set_has_twenty_four_rows_per_intent_half_positive() -> None:
    rows = load_eval()
    for name in INTENTS:
        mine = [row for row in rows if row.intent == name]
        assert len(mine) >= 24, name
        assert sum(row.expected for row in mine) * 2 == len(mine), name


def test_evaluation_set_shares_no_text_with_the_examples() -> None:
    outputs = {row.output for row in load_eval()}
    for intent in CLASSES:
        assert not outputs & {*intent.examples, *intent.counterexamples}, intent.__name__


def test_load_eval_rejects_malformed_rows(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"intent": "Nope", "output": "x", "expected": true}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: unknown intent 'Nope'"):
        load_eval(bad)
    bad.write_text('{"intent": "OnTopic", "output": "x", "expected": true}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bad.jsonl:1: 'argument' is for"):
        load_eval(bad)
    bad.write_text('{"intent": "Polite", "output": "x", "expected": "yes"}\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"bool 'expected'"):
        load_eval(bad)


def test_measure_reports_balanced_accuracy_per_intent() -> None:
    rows = [
        EvalRow("Polite", None, "thanks!", True),
        EvalRow("Polite", None, "thank you", True),
        EvalRow("Polite", None, "go away", False),
        EvalRow("Polite", None, "whatever, thanks", False),
    ]
    # The threshold comes from the documented order: calibrated on Polite's own examples here,
    # so give the judge scores that separate them: exact example texts score as labelled.
    examples = set(Polite.examples)

    def score(output: str, intent: str) -> float:
        if output in examples:
            return 0.8
        if output in Polite.counterexamples:
            return 0.2
        return 0.9 if "thank" in output else 0.1

    judge = FakeJudge(score, recommended_threshold=0.5)
    figures = {figure.intent: figure for figure in measure(judge, rows)}
    assert figures["Polite"].balanced_accuracy == pytest.approx(0.75)
    assert figures["Polite"].rows == 4
    assert figures["Refusal"].rows == 0


def test_measure_reports_a_judge_error_as_the_intents_note() -> None:
    def broken(output: str, intent: str) -> float:
        raise RuntimeError("||| model exploded |||" * 10)

    rows = [EvalRow("Rude", None, "go away", True), EvalRow("Rude", None, "thanks", False)]
    figure = next(f for f in measure(FakeJudge(broken), rows) if f.intent == "Rude")
    assert figure.balanced_accuracy is None
    assert figure.cell().startswith("error: judge FakeJudge raised RuntimeError")
    assert "|" not in figure.cell().replace("\\|", ""), "a pipe would break the markdown table"
    assert len(figure.cell()) <= 100


def test_published_reads_back_the_table_the_script_prints(tmp_path: Path) -> None:
    figures = [Figure(name, (50 + index) / 100, 20) for index, name in enumerate(INTENTS)]
    page = tmp_path / "page.md"
    table = markdown_table({"Judge A": figures, "Judge B": NOT_MEASURED})
    page.write_text(f"# Page\n\n{table}\n", encoding="utf-8")
    assert published("Judge A", page) == {f.intent: f.balanced_accuracy for f in figures}
    assert "| `OnTopic(...)` | 0.61 | not measured here |" in table


def test_published_names_a_missing_column(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text("| Intent | Other |\n|---|---|\n| `Polite` | 0.9 |\n", encoding="utf-8")
    with pytest.raises(ValueError, match=r"page.md: no table with a column 'Judge A'"):
        published("Judge A", page)


def test_docs_publish_a_figure_for_every_intent() -> None:
    assert set(published(EMBEDDING_COLUMN)) == set(INTENTS)


def test_embedding_judge_keeps_its_published_accuracy(minilm_dir: Path) -> None:
    """A change that makes a ready-made intent worse on the evaluation set fails here."""
    from semantix.judges._embedding import EmbeddingJudge

    figures = measure(EmbeddingJudge(minilm_dir, threads=2), load_eval())
    errors = {figure.intent: figure.note for figure in figures if figure.balanced_accuracy is None}
    assert not errors
    measured = {figure.intent: figure.balanced_accuracy or 0.0 for figure in figures}
    expected = published(EMBEDDING_COLUMN)
    worse = {
        name: (measured[name], expected[name])
        for name in INTENTS
        if measured[name] < expected[name] - 0.02
    }
    assert not worse, f"(measured, published) balanced accuracy fell: {worse}"
    changed = {
        name: (measured[name], expected[name])
        for name in INTENTS
        if abs(measured[name] - expected[name]) > 0.02
    }
    assert not changed, (
        f"figures improved: re-run scripts/evaluate-intents and update the docs table: {changed}"
    )


@pytest.mark.parametrize(
    "output",
    [
        "Your parcel will be delivered on Friday.",  # held-out rows like issue 25's near misses
        "Check the help page. That's not on me.",
    ],
)
def test_apology_does_not_pass_a_status_update_or_a_brush_off(
    minilm_judge: Judge, output: str
) -> None:
    """Issue 25, item 6: the near misses "Your order ships tomorrow." and "Read the FAQ. Not my
    problem." are Apology's counterexamples, and replies like them fail (real MiniLM)."""
    assert "Your order ships tomorrow." in Apology.counterexamples
    assert "Read the FAQ. Not my problem." in Apology.counterexamples
    result = evaluate_semantic(output, Apology, judge=minilm_judge)
    assert not result.passed, result.explain()
    assert evaluate_semantic(output, ~Apology, judge=minilm_judge).passed


@pytest.mark.parametrize(
    ("intent", "output", "expected"),
    [
        (
            Polite,
            (
                "Thank you so much for reaching out, and I'm sorry for the trouble with your "
                "order. I've looked into it and your replacement ships tomorrow; please let me "
                "know if there is anything else I can do for you."
            ),
            True,
        ),
        (Refusal, "I'm sorry, but I can't give medical advice. Please talk to a doctor.", True),
        (Apology, "Your invoice is attached.", False),
        (Apology, "We are not sorry at all.", False),
    ],
)
def test_long_and_negated_replies_reported_from_use(
    minilm_judge: Judge, intent: type[Intent], output: str, expected: bool
) -> None:
    """Issue 34, item 5 (real MiniLM): a polite 200-character reply, a refusal that sends the
    reader to a doctor, and two replies that only look like apologies."""
    outputs = {*Polite.examples, *Refusal.examples, *Apology.examples, *Apology.counterexamples}
    assert output not in outputs  # held out: the examples are other texts
    result = evaluate_semantic(output, intent, judge=minilm_judge)
    assert result.passed is expected, result.explain()


REPORTED_45 = {
    "curt": "Order A17 was delivered. Read the manual next time.",
    "thanks": "Thank you for waiting! Order A17 was delivered yesterday and should be in your mailbox.",
    "declined": (
        "I'm sorry, your card was declined and the payment didn't go through. Please try another "
        "card or contact your bank."
    ),
}


@pytest.mark.parametrize(
    ("intent", "reply", "expected"),
    [
        (Polite & ~Rude, "curt", False),
        (Rude, "curt", True),
        (Apology, "thanks", False),
        (LegalAdvice, "declined", False),
        (Polite, "declined", True),
    ],
)
def test_replies_reported_from_use_in_issue_45(
    minilm_judge: Judge, intent: type[Intent], reply: str, expected: bool
) -> None:
    """A curt delivery notice passed ``Polite & ~Rude``, a thank-you status update passed
    ``Apology``, a courteous declined-card notice passed ``LegalAdvice`` (real MiniLM)."""
    output = REPORTED_45[reply]
    assert output not in {text for cls in CLASSES for text in (*cls.examples, *cls.counterexamples)}
    result = evaluate_semantic(output, intent, judge=minilm_judge)
    assert result.passed is expected, result.explain()
