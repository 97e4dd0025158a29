"""Constructor spellings of semantix-ai that keep working (issue 16: their code must run)."""

from __future__ import annotations

from pathlib import Path

import pytest

from models.fixtures import *  # the tiny models
from semantix import (
    CachingJudge,
    EmbeddingJudge,
    FakeJudge,
    Intent,
    IntentDescription,
    LLMJudge,
    NLIJudge,
    QuantizedNLIJudge,
    Verdict,
    assert_semantic,
)


class Polite(Intent):
    """The text is polite."""


def test_model_name_is_a_spelling_of_model_for_nli(tmp_path: Path) -> None:
    assert NLIJudge(model_name=str(tmp_path)).model == str(tmp_path)
    with pytest.raises(TypeError, match="NLIJudge got both model=.* and model_name="):
        NLIJudge(model=str(tmp_path), model_name="other")


def test_model_name_is_a_spelling_of_model_for_embeddings(tmp_path: Path) -> None:
    # identity before loading names the model it was given
    assert EmbeddingJudge(model_name=str(tmp_path)).identity.location == str(tmp_path.resolve())
    with pytest.raises(TypeError, match="EmbeddingJudge got both model=.* and model_name="):
        EmbeddingJudge(model=str(tmp_path), model_name="other")


def test_llm_judge_takes_the_key_as_its_second_positional_argument() -> None:
    pytest.importorskip("openai")
    judge = LLMJudge("gpt-4o-mini", "sk-test-0123456789", "http://127.0.0.1:9/v1")
    assert judge.base_url == "http://127.0.0.1:9/v1"
    assert "sk-test-0123456789" not in repr(judge)  # still masked


def test_caching_judge_maxsize_bounds_the_memo() -> None:
    inner = FakeJudge(lambda output, description: 0.9)
    judge = CachingJudge(inner, maxsize=2)
    for output in ("a", "b", "c", "a"):
        assert_semantic(output, Polite, judge=judge, threshold=0.5)
    # "a" fell out of a two-entry memo when "c" came in, so it was judged again
    assert [call[0] for call in inner.calls] == ["a", "b", "c", "a"]


# -- semantix-ai's README, as written (issue 34, item 9) -----------------------------------------


class GratefulReply(Intent):
    """The text expresses gratitude."""


def test_description_is_also_called_as_a_method_as_in_semantix_ai() -> None:
    assert GratefulReply.description() == GratefulReply.description
    assert GratefulReply.description() == "The text expresses gratitude."
    assert type(GratefulReply.description()) is str
    assert (Polite & GratefulReply).description() == (Polite & GratefulReply).__name__


@pytest.mark.parametrize("kind", [QuantizedNLIJudge, NLIJudge, EmbeddingJudge])
def test_model_judges_take_semantix_ais_premise_and_hypothesis(
    kind: type, entailing_model: Path
) -> None:
    judge = kind(entailing_model, **({"file": "model.onnx"} if kind is EmbeddingJudge else {}))
    reply = "Thank you for reaching out. I'm issuing a full refund today."
    verdict = judge.evaluate(
        premise=str(reply), hypothesis=GratefulReply.description(), threshold=0.5
    )
    assert verdict == judge.evaluate(reply, GratefulReply.description, 0.5)
    name = kind.__name__
    with pytest.raises(
        TypeError, match=f"{name}.evaluate\\(\\) got both output= and its semantix-ai "
    ):
        judge.evaluate(reply, premise=reply, hypothesis="x", threshold=0.5)
    with pytest.raises(TypeError, match="got neither intent_description= nor its semantix-ai"):
        judge.evaluate(premise=reply, threshold=0.5)
    with pytest.raises(TypeError, match=f"{name}.evaluate\\(\\) needs a threshold"):
        judge.evaluate(premise=reply, hypothesis="The text is polite.")


def test_caching_judges_first_verdict_equals_its_remembered_one() -> None:
    """semantix-ai's CachingJudge returns the same verdict twice; ours remembers it without
    what only the first answer cost (latency, tokens), and the two are equal."""

    class Timed:
        def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
            return Verdict(
                passed=True, score=0.9, reason="ok", threshold=threshold, latency_ms=12.5
            )

    judge = CachingJudge(Timed())
    first = judge.evaluate("Thanks!", "The text is polite.", 0.5)
    again = judge.evaluate("Thanks!", "The text is polite.", 0.5)
    assert (first.latency_ms, again.latency_ms) == (12.5, None)
    assert first == again
    assert first != Verdict(passed=True, score=0.8, reason="ok", threshold=0.5)


def test_the_spellings_hand_the_judge_the_intent_description_as_it_is(
    entailing_model: Path,
) -> None:
    """An IntentDescription carries the examples: neither spelling may turn it into a str."""
    judge = EmbeddingJudge(entailing_model, file="model.onnx")
    described = IntentDescription(
        "The text is polite.", examples=("Thanks a lot!",), counterexamples=("Go away.",)
    )
    for verdict in (
        judge.evaluate("Thank you!", described, 0.0),
        judge.evaluate(premise="Thank you!", hypothesis=described, threshold=0.0),
    ):
        assert "closest counterexample" in (verdict.reason or "")


def test_results_carry_the_description_as_a_plain_str() -> None:
    """The callable description must not leak into results: pytest-xdist's channel sends only
    plain ``str``."""
    result = assert_semantic("Thank you!", GratefulReply, judge=FakeJudge(lambda o, d: 0.9))
    assert type(result.leaves[0].to_dict()["description"]) is str
