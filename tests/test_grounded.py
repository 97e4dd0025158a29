"""Grounded answers: sources, the sentence-level support method, the pipeline's routing, frozen
verdicts and reports, escalation. The NLI core runs on a tiny trained tokenizer with a keyword
forward pass whose scores are chosen so that support, non-support and contradiction each occur,
over sources long enough to need several windows. Real models: tests/test_grounded_models.py."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pytest

from models.tiny import train_tokenizer
from semantix import (
    ConfigurationError,
    FakeJudge,
    Intent,
    JudgeError,
    SemanticAssertionError,
    assert_semantic,
    evaluate_semantic,
)
from semantix.intents import Contradicts, Grounded, SupportDescription
from semantix.intents._grounded import source_texts
from semantix.judges._base import Judge, JudgeIdentity, JudgeRequest, Verdict, capabilities
from semantix.judges._escalating import EscalatingJudge
from semantix.judges._labels import LabelMap
from semantix.judges._nli_core import NLICore
from semantix.judges._onnx import EncodedBatch
from semantix.judges._support import support_verdicts
from semantix.verdicts import RecordReplayJudge
from semantix.verdicts._fingerprint import fingerprint, intent_fields

NLI3 = LabelMap(("contradiction", "entailment", "neutral"), 1)
NLI2 = LabelMap(("entailment", "not_entailment"), 0)
IDENTITY = JudgeIdentity("KeywordNLI", model="tiny")

FILLER = (
    "The reply is polite. The agent mentions the refund! It seems calm and friendly? "
    "Our team offers a discount. The customer thanks us for the delay. The answer looks clear. "
)
#: A source of several 32-token windows; only one of them holds "banana".
LONG_SOURCE = FILLER * 2 + "The agent mentions the banana. " + FILLER * 2
#: A source that says the opposite of the banana claim (its "password" contradicts it).
CONTRADICTING = FILLER + "The agent mentions a password. " + FILLER


def _core(labels: LabelMap = NLI3, max_length: int = 32) -> NLICore:
    tokenizer = train_tokenizer("bert")
    return NLICore(tokenizer, labels, max_length, tokenizer.token_to_id("[PAD]"))


class KeywordForward:
    """Scores a (source window, claim) pair from its tokens: a claim naming ``banana`` is
    entailed by a window naming it, contradicted by one naming ``password``; a claim naming
    ``invoice`` is entailed by a window naming it; anything else is neutral."""

    def __init__(self, core: NLICore) -> None:
        ids = {word: core.tokenizer.token_to_id(word) for word in ("banana", "password", "invoice")}
        assert all(value is not None for value in ids.values())
        self.ids = ids
        self.two_labels = core.label_map.num_labels == 2
        self.rows = 0

    def __call__(self, batch: EncodedBatch) -> Sequence[Sequence[float]]:
        self.rows += len(batch.input_ids)
        out = []
        for ids, types in zip(batch.input_ids, batch.token_type_ids, strict=True):
            source = {i for i, t in zip(ids, types, strict=True) if t == 0}
            claim = {i for i, t in zip(ids, types, strict=True) if t == 1}
            label = "neutral"
            for word in ("banana", "invoice"):
                if self.ids[word] in claim:
                    label = "entailment" if self.ids[word] in source else label
            if self.ids["banana"] in claim and self.ids["password"] in source:
                label = "contradiction"
            out.append(self._logits(label))
        return out

    def _logits(self, label: str) -> list[float]:
        if self.two_labels:
            return [4.0, -4.0] if label == "entailment" else [-4.0, 4.0]
        return {
            "entailment": [-4.0, 4.0, -4.0],
            "contradiction": [4.0, -4.0, -4.0],
            "neutral": [-4.0, -4.0, 4.0],
        }[label]


class KeywordSupportJudge(Judge):
    """A judge on the real support method and a keyword model; plain intents score 0.9."""

    recommended_threshold = 0.5

    def __init__(self, labels: LabelMap = NLI3) -> None:
        self.core = _core(labels)
        self.forward = KeywordForward(self.core)
        self.identity = IDENTITY
        self.support_calls = 0

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return self.evaluate_batch([(output, intent_description, threshold)])[0]

    def evaluate_batch(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return self._plain(requests)  # support requests reach evaluate_support (judges.calls)

    def evaluate_support(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        self.support_calls += 1
        return support_verdicts(self.core, requests, self.forward, batch_size=8, identity=IDENTITY)

    def _plain(self, requests: Sequence[JudgeRequest]) -> list[Verdict]:
        return [Verdict(0.9 >= t, 0.9, "plain", threshold=t) for _, _, t in requests]


def _request(output: str, intent: type[Intent], threshold: float = 0.5) -> JudgeRequest:
    description = intent.judge_description()
    assert isinstance(description, SupportDescription)
    return (output, description, threshold)


# -- sources ---------------------------------------------------------------------------------


@dataclass
class LangChainDocument:
    page_content: str
    metadata: dict[str, str]


@dataclass
class LlamaNode:
    text: str


class LlamaDocument:
    def get_content(self) -> str:
        return "Shipping is free over 50 euros."


def test_a_source_with_a_lone_surrogate_is_cleaned_as_outputs_are() -> None:
    # A retrieved page with a broken character: the same U+FFFD cleaning as an output gets.
    source = "The agent mentions the banana \ud800 here."
    assert source_texts([source]) == ("The agent mentions the banana \ufffd here.",)
    assert source_texts(LangChainDocument(source, {})) == source_texts([source])
    result = assert_semantic(
        "The agent mentions the banana.", Grounded([source]), judge=KeywordSupportJudge()
    )
    assert result.passed


def test_sources_are_text_lists_or_documents_by_duck_typing() -> None:
    assert source_texts("  Refunds take 14 days.  ") == ("Refunds take 14 days.",)
    documents = [
        LangChainDocument("Refunds take 14 days.", {"source": "faq"}),
        LlamaNode("Returns need a receipt."),
        LlamaDocument(),
        "   ",  # blank sources are dropped, not checked against
    ]
    assert source_texts(documents) == (
        "Refunds take 14 days.",
        "Returns need a receipt.",
        "Shipping is free over 50 euros.",
    )
    assert source_texts(LlamaNode("One node.")) == ("One node.",)


@pytest.mark.parametrize("sources", ["", [], ["  ", "\n"]])
def test_empty_sources_are_an_error_never_a_pass(sources: object) -> None:
    with pytest.raises(ValueError, match="no source text .* never a pass"):
        Grounded(sources)


@pytest.mark.parametrize("sources", [42, {"text": "a"}, [b"bytes"], [object()]])
def test_sources_that_are_not_text_name_the_value(sources: object) -> None:
    with pytest.raises(TypeError, match="page_content"):
        Contradicts(sources)


def test_the_same_sources_give_the_same_class_and_others_another() -> None:
    first = Grounded(["Refunds take 14 days."])
    assert Grounded("Refunds take 14 days.") is first
    other = Grounded(["Refunds take 30 days."])
    assert other is not first
    assert first.__name__ == "Grounded(1 source)"
    assert str(first.judge_description()) != str(other.judge_description())
    assert Contradicts(["a.", "b."]).__name__ == "Contradicts(2 sources)"


# -- the method ------------------------------------------------------------------------------


def test_a_claim_supported_by_one_window_of_a_long_source_passes() -> None:
    core = _core()
    forward = KeywordForward(core)
    assert len(core.windows(LONG_SOURCE, "The agent mentions the banana.")) >= 3
    (verdict,) = support_verdicts(
        core,
        [_request("The agent mentions the banana.", Grounded(LONG_SOURCE))],
        forward,
        batch_size=4,
        identity=IDENTITY,
    )
    assert verdict.passed
    assert verdict.score == pytest.approx(0.9993, abs=1e-3)
    assert verdict.evidence is not None and "banana" in verdict.evidence
    assert verdict.reason is not None and verdict.reason.startswith("all 1 claims supported")
    assert "source 1, characters" in verdict.reason


def test_the_weakest_claim_decides_and_each_unsupported_claim_is_named() -> None:
    core = _core()
    output = "The agent mentions the banana. The agent offers the invoice. The answer looks clear."
    (verdict,) = support_verdicts(
        core,
        [_request(output, Grounded([LONG_SOURCE, CONTRADICTING]))],
        KeywordForward(core),
        batch_size=8,
        identity=IDENTITY,
    )
    assert not verdict.passed
    assert verdict.score is not None and verdict.score < 0.01
    reason = verdict.reason or ""
    assert reason.startswith("2 of 3 claims below 0.50 (score = the weakest claim's")
    assert "'The agent offers the invoice.' not supported" in reason
    assert "'The answer looks clear.' not supported" in reason
    assert "banana" not in reason.split("claims below")[1].split("not supported")[0]
    assert verdict.probabilities is not None and set(verdict.probabilities) == set(NLI3.labels)


def test_a_contradicted_claim_is_reported_apart_from_an_unsupported_one() -> None:
    core = _core()
    (verdict,) = support_verdicts(
        core,
        [_request("The agent mentions the banana.", Grounded(CONTRADICTING))],
        KeywordForward(core),
        batch_size=8,
        identity=IDENTITY,
    )
    assert not verdict.passed
    assert "'The agent mentions the banana.' contradicted (1.00)" in (verdict.reason or "")
    assert verdict.evidence is not None and "password" in verdict.evidence


def test_contradicts_scores_the_strongest_contradiction() -> None:
    core = _core()
    output = "The answer looks clear. The agent mentions the banana."
    hit, clean = support_verdicts(
        core,
        [
            _request(output, Contradicts([FILLER, CONTRADICTING])),
            _request(output, Contradicts(LONG_SOURCE)),
        ],
        KeywordForward(core),
        batch_size=8,
        identity=IDENTITY,
    )
    assert hit.passed and hit.score == pytest.approx(0.9993, abs=1e-3)
    assert (hit.reason or "").startswith("1 of 2 claims contradicted at >= 0.50")
    assert "source 2" in (hit.reason or "")
    assert not clean.passed and clean.score is not None and clean.score < 0.01
    assert (clean.reason or "").startswith("no claim contradicted at >= 0.50")


@pytest.mark.parametrize("threshold", [0.0, 0.0002, 0.001, 0.3, 0.5, 0.9, 0.9999, 1.0])
@pytest.mark.parametrize("factory", [Grounded, Contradicts])
def test_the_nli_verdict_and_the_claims_it_names_always_agree(
    threshold: float, factory: object
) -> None:
    """The sibling of the LLM reply whose claims and score disagree: in the NLI method both come
    from the same per-claim scores, so a named claim always means the verdict it says."""
    core = _core()
    output = "The agent mentions the banana. The agent offers the invoice. The answer looks clear."
    requests = [
        _request(output, factory(sources), threshold)  # type: ignore[operator]
        for sources in ([LONG_SOURCE, CONTRADICTING], FILLER, CONTRADICTING, LONG_SOURCE)
    ]
    verdicts = support_verdicts(
        core, requests, KeywordForward(core), batch_size=8, identity=IDENTITY
    )
    for verdict in verdicts:
        reason = verdict.reason or ""
        named = int(reason.split(" of ")[0]) if reason[0].isdigit() else 0
        if factory is Grounded:
            assert verdict.passed is (named == 0), reason
        else:
            assert verdict.passed is (named > 0), reason


def test_identical_pairs_are_scored_once_across_claims_and_requests() -> None:
    core = _core()
    forward = KeywordForward(core)
    source = LONG_SOURCE
    found = core.windows(source, "The agent mentions the banana.")
    windows = len({window.text for window in found})  # the filler repeats: windows do too
    assert windows < len(found)
    output = "The agent mentions the banana. The agent mentions the banana."
    support_verdicts(
        core,
        [_request(output, Grounded(source)), _request(output, Contradicts(source))],
        forward,
        batch_size=4,
        identity=IDENTITY,
    )
    assert windows > 1
    assert forward.rows == windows  # one claim text x its windows, whatever was asked twice


def test_two_label_models_check_support_but_refuse_contradiction() -> None:
    core = _core(NLI2)
    forward = KeywordForward(core)
    (supported,) = support_verdicts(
        core,
        [_request("The agent mentions the banana.", Grounded(LONG_SOURCE))],
        forward,
        batch_size=8,
        identity=IDENTITY,
    )
    assert supported.passed
    (unsupported,) = support_verdicts(
        core,
        [_request("The agent mentions the banana.", Grounded(CONTRADICTING))],
        forward,
        batch_size=8,
        identity=IDENTITY,
    )
    assert not unsupported.passed and "not supported" in (unsupported.reason or "")
    assert "contradicted" not in (unsupported.reason or "")
    with pytest.raises(ConfigurationError, match="cannot tell a contradicted claim"):
        support_verdicts(
            core,
            [_request("The agent mentions the banana.", Contradicts(CONTRADICTING))],
            forward,
            batch_size=8,
            identity=IDENTITY,
        )


def test_a_claim_too_long_for_the_model_is_an_error_naming_it() -> None:
    core = _core(max_length=32)
    claim = "the agent is polite and calm and friendly " * 4 + "."
    with pytest.raises(ConfigurationError, match="leaves no room for a source"):
        support_verdicts(
            core,
            [_request(claim, Grounded(FILLER))],
            KeywordForward(core),
            batch_size=8,
            identity=IDENTITY,
        )


def test_support_requests_only_and_text_outputs_only() -> None:
    core = _core()
    with pytest.raises(TypeError, match="Grounded"):
        support_verdicts(
            core, [("x.", "polite", 0.5)], KeywordForward(core), batch_size=8, identity=IDENTITY
        )
    description = Grounded(FILLER).judge_description()
    with pytest.raises(TypeError, match="output of type int"):
        support_verdicts(
            core,
            [(3, description, 0.5)],
            KeywordForward(core),  # type: ignore[list-item]
            batch_size=8,
            identity=IDENTITY,
        )
    with pytest.raises(JudgeError, match="has no claim"):
        support_verdicts(
            core, [("  ", description, 0.5)], KeywordForward(core), batch_size=8, identity=IDENTITY
        )


# -- the pipeline ----------------------------------------------------------------------------


class Polite(Intent):
    """The text is polite."""


def test_grounded_composes_with_other_intents_through_the_pipeline() -> None:
    judge = KeywordSupportJudge()
    answer = "The agent mentions the banana."
    assert_semantic(answer, Grounded(LONG_SOURCE) & Polite, judge=judge)
    assert_semantic(answer, ~Contradicts(LONG_SOURCE), judge=judge)
    result = evaluate_semantic(answer, Grounded(LONG_SOURCE) & Polite, judge=judge)
    grounded = next(leaf for leaf in result.leaves if leaf.intent is Grounded(LONG_SOURCE))
    assert grounded.threshold == 0.5 and grounded.threshold_source == "judge"
    with pytest.raises(SemanticAssertionError) as failure:
        assert_semantic(answer, ~Contradicts(CONTRADICTING), judge=judge)
    assert "'The agent mentions the banana.' contradiction 1.00" in str(failure.value)


def test_the_documented_threshold_order_applies_to_support_leaves() -> None:
    judge = KeywordSupportJudge()
    answer = "The agent mentions the banana."
    result = evaluate_semantic(answer, Grounded(LONG_SOURCE), judge=judge, threshold=0.9999)
    (leaf,) = result.leaves
    assert (leaf.threshold, leaf.threshold_source, leaf.passed) == (0.9999, "argument", False)

    class Strict(Grounded(LONG_SOURCE)):  # type: ignore[misc]
        threshold = 0.3

    (strict,) = evaluate_semantic(answer, Strict, judge=judge).leaves
    assert (strict.threshold, strict.threshold_source) == (0.3, "intent")


def test_a_judge_without_the_support_ability_is_an_error_naming_those_that_have_it() -> None:
    with pytest.raises(ConfigurationError) as error:
        assert_semantic(
            "Refunds take 14 days.",
            Grounded("Refunds take 14 days."),
            judge=FakeJudge(lambda output, intent: 1.0),
        )
    message = str(error.value)
    assert "Grounded(1 source) needs a judge that declares evaluate_support" in message
    assert "the judge FakeJudge does not" in message
    for name in ("QuantizedNLIJudge", "NLIJudge", "LLMJudge", "EscalatingJudge"):
        assert name in message


def test_wrappers_forward_the_ability_and_replay_support_verdicts(tmp_path: Path) -> None:
    judge = KeywordSupportJudge()
    recorder = RecordReplayJudge(judge, store=tmp_path, mode="update")
    assert capabilities(recorder).support is not None
    assert capabilities(RecordReplayJudge(FakeJudge(lambda o, i: 1.0))).support is None
    answer = "The agent mentions the banana. The answer looks clear."
    failing = evaluate_semantic(answer, Grounded(LONG_SOURCE), judge=recorder)
    assert not failing.passed
    (stored,) = list(tmp_path.rglob("*.json"))
    record = json.loads(stored.read_text())
    assert record["intent"]["relation"] == "support"
    assert len(record["intent"]["sources"]) == 64
    assert "'The answer looks clear.' not supported" in record["verdict"]["reason"]

    replayer = RecordReplayJudge(KeywordSupportJudge(), store=tmp_path, mode="strict")
    replayed = evaluate_semantic(answer, Grounded(LONG_SOURCE), judge=replayer)
    assert replayed.leaves[0].verdict.reason == failing.leaves[0].verdict.reason
    assert replayer.stats.replayed == 1 and replayer.stats.judged == 0


def test_the_fingerprint_and_the_memo_cover_the_sources() -> None:
    judge = KeywordSupportJudge()
    one = Grounded(["Refunds take 14 days."]).judge_description()
    other = Grounded(["Refunds take 30 days."]).judge_description()
    assert fingerprint(judge, "x", one) != fingerprint(judge, "x", other)
    assert intent_fields(one)["sources"] != intent_fields(other)["sources"]
    plain = intent_fields("The text is polite.")
    assert "sources" not in plain and "relation" not in plain  # other keys unchanged
    memo = RecordReplayJudge(judge)
    answer = "The agent mentions the banana."
    assert evaluate_semantic(answer, Grounded(LONG_SOURCE), judge=memo).passed
    assert not evaluate_semantic(answer, Grounded(FILLER), judge=memo).passed
    assert memo.stats.judged == 2


def test_the_json_record_keeps_the_full_reason() -> None:
    from semantix.report._model import to_json
    from semantix.report._records import result_record

    judge = KeywordSupportJudge()
    claims = " ".join(f"The agent offers the invoice number {n}." for n in range(12))
    result = evaluate_semantic(claims, Grounded(FILLER * 3), judge=judge)
    record = result_record(result, "test_x")
    reason = json.dumps(to_json(record))
    assert reason.count("not supported") == 12


def test_escalation_needs_every_level_and_escalates_the_whole_verdict() -> None:
    assert (
        capabilities(EscalatingJudge(KeywordSupportJudge(), FakeJudge(lambda o, i: 1.0))).support
        is None
    )
    first, second = KeywordSupportJudge(), KeywordSupportJudge(NLI3)
    chain = EscalatingJudge(first, second, band=0.5)
    assert capabilities(chain).support is not None
    verdict = (
        evaluate_semantic("The agent mentions the banana.", Grounded(LONG_SOURCE), judge=chain)
        .leaves[0]
        .verdict
    )
    assert "decided by KeywordNLI" in (verdict.reason or "")
    assert [level.decided for level in chain.stats()] == [0, 1]
    assert second.support_calls == 1
