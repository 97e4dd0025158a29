"""The shared NLI core: labels, probabilities, hypothesis choice, windows, batching."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest

from models.tiny import train_tokenizer
from semantix import ConfigurationError, IntentDescription, JudgeError
from semantix.judges._base import JudgeIdentity
from semantix.judges._labels import LabelMap, label_map_from_config, probabilities
from semantix.judges._model_dir import model_max_length
from semantix.judges._nli_core import NLICore, hypothesis_for
from semantix.judges._onnx import EncodedBatch

IDENTITY = JudgeIdentity("TestJudge", model="tiny")
NLI3 = LabelMap(("contradiction", "entailment", "neutral"), 1)


# -- labels -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("id2label", "labels", "entailment"),
    [
        (
            {0: "contradiction", 1: "entailment", 2: "neutral"},
            ("contradiction", "entailment", "neutral"),
            1,
        ),
        (
            {"0": "ENTAILMENT", "1": "NEUTRAL", "2": "CONTRADICTION"},
            ("entailment", "neutral", "contradiction"),
            0,
        ),
        (
            {0: "Neutral", 1: "Contradiction", 2: "Entailment"},
            ("neutral", "contradiction", "entailment"),
            2,
        ),
        ({0: "entail", 1: "not_entailment"}, ("entailment", "not_entailment"), 0),
        ({0: "not entailment", 1: "Entailment"}, ("not_entailment", "entailment"), 1),
        (
            {0: "contradict", 1: "neutral", 2: "entails"},
            ("contradiction", "neutral", "entailment"),
            2,
        ),
    ],
)
def test_labels_found_by_name(
    id2label: dict[object, str], labels: tuple[str, ...], entailment: int
) -> None:
    label_map = label_map_from_config({"id2label": id2label})
    assert label_map.labels == labels
    assert label_map.entailment == entailment
    assert not label_map.sigmoid


def test_single_logit_head_uses_sigmoid() -> None:
    label_map = label_map_from_config({"id2label": {0: "LABEL_0"}})
    assert label_map.sigmoid and label_map.entailment == 0
    assert probabilities([0.0], label_map) == {"entailment": 0.5}
    assert probabilities([100.0], label_map)["entailment"] == pytest.approx(1.0)
    assert probabilities([-800.0], label_map)["entailment"] == pytest.approx(0.0)


def test_missing_entailment_label_names_the_labels_found() -> None:
    with pytest.raises(ConfigurationError, match="no entailment label") as info:
        label_map_from_config({"id2label": {0: "LABEL_0", 1: "LABEL_1", 2: "LABEL_2"}})
    assert "LABEL_1" in str(info.value)
    assert "id2label" in str(info.value)


@pytest.mark.parametrize(
    ("config", "message"),
    [
        ({}, "no id2label"),
        ({"id2label": {"a": "entailment"}}, "keys must be integers"),
        ({"id2label": {0: "entailment", 2: "neutral"}}, "0..1"),
        ({"id2label": {0: "entailment", 1: "Entailment"}}, "same label twice"),
        ({"id2label": {0: "positive", 1: "negative"}}, "no entailment label"),
    ],
)
def test_bad_label_configs_are_errors(config: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        label_map_from_config(config)


def test_softmax_follows_the_label_order() -> None:
    probs = probabilities([0.0, 2.0, 1.0], NLI3)
    assert list(probs) == ["contradiction", "entailment", "neutral"]
    assert sum(probs.values()) == pytest.approx(1.0)
    assert probs["entailment"] == pytest.approx(math.exp(2) / (1 + math.exp(2) + math.exp(1)))


def test_wrong_logit_count_and_nan_are_judge_errors() -> None:
    with pytest.raises(JudgeError, match="2 logits per pair"):
        probabilities([0.1, 0.2], NLI3)
    with pytest.raises(JudgeError, match="NaN"):
        probabilities([0.1, float("nan"), 0.2], NLI3)


# -- hypothesis and lengths -----------------------------------------------------------------


def test_explicit_hypothesis_overrides_the_rewrite() -> None:
    plain = IntentDescription("The text must be polite.")
    explicit = IntentDescription("The text must be polite.", hypothesis="Someone is courteous.")
    assert hypothesis_for(plain) == "The text is polite."
    assert hypothesis_for(explicit) == "Someone is courteous."
    assert hypothesis_for("must not contain prices") == "The text does not contain prices."


@pytest.mark.parametrize(
    ("config", "tokenizer_config", "stored", "expected"),
    [
        ({"max_position_embeddings": 512}, {}, None, 512),
        (
            {"max_position_embeddings": 514, "model_type": "roberta", "pad_token_id": 1},
            {},
            None,
            512,
        ),
        (
            {"max_position_embeddings": 512},
            {"model_max_length": 1000000000000000019884624838656},
            None,
            512,
        ),
        ({"max_position_embeddings": 512}, {"model_max_length": 128}, None, 128),
        ({}, {}, 256, 256),
        ({}, {}, None, 512),
    ],
)
def test_model_max_length(
    config: dict[str, object],
    tokenizer_config: dict[str, object],
    stored: int | None,
    expected: int,
) -> None:
    assert model_max_length(config, tokenizer_config, stored) == expected


# -- windows ----------------------------------------------------------------------------------

SENTENCES = [
    "The reply is polite.",
    "The agent mentions the refund!",
    "It seems calm and friendly?",
    "Our team offers a discount.",
    "The customer thanks us for the delay.",
    "The answer looks clear.",
]


def _core(arch: str = "bert", max_length: int = 32) -> NLICore:
    tokenizer = train_tokenizer(arch)  # type: ignore[arg-type]
    pad = tokenizer.token_to_id("[PAD]" if arch != "roberta" else "<pad>")
    return NLICore(tokenizer, NLI3, max_length, pad)


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_short_output_is_one_window(arch: str) -> None:
    core = _core(arch)
    windows = core.windows("The reply is polite.", "The text is polite.")
    assert len(windows) == 1
    assert windows[0].text == "The reply is polite."


@pytest.mark.parametrize("arch", ["bert", "roberta"])
def test_long_output_windows_fit_and_follow_sentences(arch: str) -> None:
    core = _core(arch)
    output = " ".join(SENTENCES * 4)
    hypothesis = "The text is polite."
    windows = core.windows(output, hypothesis)
    assert len(windows) > 3
    for window in windows:
        assert len(window.encoding.ids) <= core.max_length
        assert output[window.start : window.end] == window.text
        # Sentence-aligned: every window starts a sentence and ends one.
        assert window.text[0].isupper()
        assert window.text[-1] in ".!?"
    # Windows cover the output in order, without overlap and without dropping a word.
    assert [w.start for w in windows] == sorted(w.start for w in windows)
    assert " ".join(w.text for w in windows) == output


def test_an_over_long_sentence_is_cut_between_tokens() -> None:
    core = _core(max_length=32)
    sentence = " ".join(["the agent is polite and calm and friendly"] * 12) + "."
    windows = core.windows(sentence, "The text is polite.")
    assert len(windows) > 2
    assert all(len(w.encoding.ids) <= 32 for w in windows)
    rebuilt = " ".join(w.text for w in windows)
    assert rebuilt.split() == sentence.split()


def test_hypothesis_longer_than_the_model_is_a_configuration_error() -> None:
    core = _core(max_length=32)
    hypothesis = "The text is polite and calm and friendly and kind. " * 5
    with pytest.raises(ConfigurationError, match="leaves no room"):
        core.windows("The reply is polite. " * 20, hypothesis)


def test_hundred_thousand_characters_do_not_crash() -> None:
    core = _core(max_length=64)
    output = ("The agent mentions the refund. " * 4000)[:100_000]
    windows = core.windows(output, "The text mentions a refund.")
    assert all(len(w.encoding.ids) <= 64 for w in windows)
    assert windows[-1].end == len(output.rstrip())


# -- run: scoring, evidence, batching ---------------------------------------------------------


class KeywordModel:
    """A fake forward pass: entailment when the batch row contains the keyword's token."""

    def __init__(self, keyword_id: int) -> None:
        self.keyword_id = keyword_id
        self.widths: list[int] = []
        self.sizes: list[int] = []

    def __call__(self, batch: EncodedBatch) -> Sequence[Sequence[float]]:
        self.widths.append(len(batch.input_ids[0]))
        self.sizes.append(len(batch.input_ids))
        assert all(len(row) == len(batch.input_ids[0]) for row in batch.attention_mask)
        return [
            [0.0, 5.0, 0.0] if self.keyword_id in row else [0.0, -3.0, 2.0]
            for row in batch.input_ids
        ]


def test_best_window_decides_and_is_the_evidence() -> None:
    core = _core(max_length=32)
    keyword = core.tokenizer.token_to_id("banana")
    assert keyword is not None
    model = KeywordModel(keyword)
    filler = " ".join(SENTENCES * 2)
    output = f"{filler} The agent mentions the banana. {filler}"
    (verdict,) = core.run(
        [(output, "Mentions some fruit", 0.5)], model, batch_size=4, identity=IDENTITY
    )
    assert verdict.passed
    assert verdict.evidence is not None and "banana" in verdict.evidence
    assert verdict.evidence in output
    assert verdict.score == pytest.approx(math.exp(5) / (math.exp(5) + 2))
    assert "best of" in verdict.reason and "windows" in verdict.reason
    assert verdict.judge == IDENTITY
    assert verdict.latency_ms is not None and verdict.latency_ms >= 0

    (without,) = core.run(
        [(filler, "Mentions some fruit", 0.5)], model, batch_size=4, identity=IDENTITY
    )
    assert not without.passed
    assert without.probabilities is not None
    assert without.probabilities["neutral"] == pytest.approx(
        math.exp(2) / (1 + math.exp(-3) + math.exp(2))
    )
    assert "entailment 0.01 (contradiction 0.12, neutral 0.88)" in without.reason


def test_batches_are_sorted_by_length_padded_per_batch_and_order_restored() -> None:
    core = _core(max_length=64)
    keyword = core.tokenizer.token_to_id("banana")
    model = KeywordModel(keyword)
    outputs = [
        "The agent mentions the banana and the refund and the delay.",
        "Calm.",
        "The reply is polite.",
        "The banana.",
        "The customer thanks us for the delay and the banana and the refund.",
    ]
    requests = [(o, "Mentions some fruit", 0.5) for o in outputs]
    verdicts = core.run(requests, model, batch_size=2, identity=IDENTITY)
    assert [v.passed for v in verdicts] == ["banana" in o for o in outputs]
    assert model.sizes == [2, 2, 1]
    assert model.widths == sorted(model.widths)
    one_by_one = [core.run([r], model, batch_size=2, identity=IDENTITY)[0] for r in requests]
    assert [v.score for v in verdicts] == [v.score for v in one_by_one]


def test_run_checks_thresholds_and_output_types() -> None:
    core = _core()
    model = KeywordModel(0)
    with pytest.raises(ValueError, match="threshold"):
        core.run([("text", "polite", 1.5)], model, batch_size=2, identity=IDENTITY)
    with pytest.raises(TypeError, match="NLI judge scores text"):
        core.run([(b"bytes", "polite", 0.5)], model, batch_size=2, identity=IDENTITY)  # type: ignore[list-item]


def test_wrong_row_count_from_the_model_is_a_judge_error() -> None:
    core = _core()
    with pytest.raises(JudgeError, match="3 rows of logits for a batch of 1"):
        core.run(
            [("text", "polite", 0.5)],
            lambda batch: [[0, 1, 2]] * 3,
            batch_size=2,
            identity=IDENTITY,
        )
