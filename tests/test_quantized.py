"""QuantizedNLIJudge on tiny models built at test time: the real onnxruntime path."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from models.fixtures import *  # session fixtures: the tiny models
from models.fixtures import PERMUTED, copy_model
from models.tiny import make_hf_cache
from semantix import (
    ConfigurationError,
    Intent,
    IntentDescription,
    ModelNotFoundError,
    SemanticAssertionError,
    assert_semantic,
)
from semantix._cache import clear_cache, model_cache
from semantix.judges import _sessions as sessions
from semantix.judges._quantized import QuantizedNLIJudge

REPO = "acme/tiny-nli"
COMMIT = "0123456789abcdef0123456789abcdef01234567"


class Polite(Intent):
    """The text must be polite."""


@pytest.fixture
def offline_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty HF cache with the hub offline."""
    hub = tmp_path / "hf" / "hub"
    hub.mkdir(parents=True)
    monkeypatch.setenv("HF_HUB_CACHE", str(hub))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return hub


def test_follows_permuted_labels_and_passes(entailing_model: Path) -> None:
    judge = QuantizedNLIJudge(entailing_model)
    verdict = judge.evaluate("Thank you for your patience.", "The text must be polite.", 0.5)
    assert verdict.passed
    assert verdict.probabilities is not None
    assert set(verdict.probabilities) == {"neutral", "contradiction", "entailment"}
    assert verdict.probabilities["entailment"] == pytest.approx(0.9647, abs=0.01)
    assert verdict.score == verdict.probabilities["entailment"]
    assert verdict.reason.startswith("entailment 0.96 (neutral 0.02, contradiction 0.02)")
    assert "'The text is polite.'" in verdict.reason
    assert verdict.evidence is None
    assert verdict.judge is not None
    assert verdict.judge.name == "QuantizedNLIJudge"
    assert verdict.judge.file == "model_quantized.onnx"
    assert verdict.latency_ms is not None and verdict.latency_ms > 0


def test_contradiction_model_fails(contradicting_model: Path) -> None:
    verdict = QuantizedNLIJudge(contradicting_model).evaluate("Go away.", "polite", 0.5)
    assert not verdict.passed
    assert verdict.probabilities is not None
    assert verdict.probabilities["contradiction"] == pytest.approx(0.9647, abs=0.01)
    assert verdict.score is not None and verdict.score < 0.05
    assert "contradiction 0.96" in verdict.reason


def test_two_label_model(two_label_model: Path) -> None:
    verdict = QuantizedNLIJudge(two_label_model).evaluate("Hello.", "polite", 0.5)
    assert verdict.passed
    assert verdict.probabilities is not None
    assert set(verdict.probabilities) == {"entailment", "not_entailment"}
    assert verdict.probabilities["entailment"] == pytest.approx(0.982, abs=0.01)


def test_model_without_entailment_label_is_a_clear_error(
    entailing_model: Path, tmp_path: Path
) -> None:
    model = copy_model(entailing_model, tmp_path / "model")
    config = json.loads((model / "config.json").read_text())
    config["id2label"] = {"0": "LABEL_0", "1": "LABEL_1", "2": "LABEL_2"}
    (model / "config.json").write_text(json.dumps(config))
    clear_cache()
    with pytest.raises(ConfigurationError, match="no entailment label") as info:
        QuantizedNLIJudge(model).evaluate("Hello.", "polite", 0.5)
    assert "LABEL_2" in str(info.value)


def test_explicit_hypothesis_is_used(entailing_model: Path) -> None:
    description = IntentDescription("The text must be polite.", hypothesis="Someone is kind.")
    verdict = QuantizedNLIJudge(entailing_model).evaluate("Hello.", description, 0.5)
    assert "'Someone is kind.'" in verdict.reason


def test_assert_semantic_without_a_judge_uses_the_model_dir(
    entailing_model: Path, contradicting_model: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Done-when of issue 3: ``assert_semantic(out, Polite)`` runs the quantized judge."""
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(entailing_model))
    clear_cache()
    assert_semantic("Thank you so much!", Polite)
    with pytest.raises(SemanticAssertionError):
        assert_semantic("Thank you so much!", ~Polite)
    monkeypatch.setenv("SEMANTIX_MODEL_DIR", str(contradicting_model))
    clear_cache()
    with pytest.raises(SemanticAssertionError, match="QuantizedNLIJudge"):
        assert_semantic("Thank you so much!", Polite)
    clear_cache()


def test_loads_from_a_prepopulated_hf_cache_offline(
    entailing_model: Path, offline_cache: Path
) -> None:
    make_hf_cache(offline_cache, REPO, entailing_model, revision=COMMIT)
    judge = QuantizedNLIJudge(REPO)
    verdict = judge.evaluate("Hello.", "polite", 0.5)
    assert verdict.passed
    assert judge.identity.model == REPO
    assert judge.identity.revision == "main"
    assert judge.identity.file == "model_quantized.onnx"
    pinned = QuantizedNLIJudge(REPO, revision=COMMIT, file="model.onnx", cache_dir=offline_cache)
    assert pinned.evaluate("Hello.", "polite", 0.5).passed
    assert pinned.identity.revision == COMMIT
    assert pinned.identity.file == "model.onnx"


def test_offline_without_the_model_fails_fast_and_says_what_to_do(
    offline_cache: Path,
) -> None:
    judge = QuantizedNLIJudge("acme/not-downloaded")  # lazy: nothing happens yet
    with pytest.raises(ModelNotFoundError) as info:
        judge.evaluate("Hello.", "polite", 0.5)
    message = str(info.value)
    assert "acme/not-downloaded" in message
    assert str(offline_cache) in message
    assert "semantix download" in message
    assert "SEMANTIX_MODEL_DIR" in message


def test_offline_default_model_error_names_the_default(offline_cache: Path) -> None:
    with pytest.raises(ModelNotFoundError, match="MoritzLaurer/deberta-v3-xsmall-zeroshot"):
        QuantizedNLIJudge(lazy_load=False)


def test_lazy_load(offline_cache: Path, entailing_model: Path) -> None:
    QuantizedNLIJudge("acme/not-downloaded")  # nothing loaded, no error
    with pytest.raises(ModelNotFoundError):
        QuantizedNLIJudge("acme/not-downloaded", lazy_load=False)
    eager = QuantizedNLIJudge(entailing_model, lazy_load=False)
    assert "model_quantized.onnx" in repr(eager)


def test_missing_onnx_file_lists_what_is_there(entailing_model: Path) -> None:
    with pytest.raises(
        ModelNotFoundError, match="ONNX files there: model.onnx, model_quantized.onnx"
    ):
        QuantizedNLIJudge(entailing_model, file="nope.onnx").evaluate("x", "polite", 0.5)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"batch_size": 0}, "batch_size"),
        ({"threads": 0}, "threads"),
        ({"threads": True}, "threads"),
    ],
)
def test_bad_arguments(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ConfigurationError, match=message):
        QuantizedNLIJudge(**kwargs)  # type: ignore[arg-type]


def test_two_judges_share_one_session(wide_bert_model: Path) -> None:
    clear_cache()
    before = model_cache.builds
    first = QuantizedNLIJudge(wide_bert_model, threads=1)
    second = QuantizedNLIJudge(str(wide_bert_model), threads=1)
    first.evaluate("Hello.", "polite", 0.5)
    second.evaluate("Hello.", "polite", 0.5)
    assert model_cache.builds - before == 3  # one tokenizer, one NLI core, one ORT session
    assert first._load().backend.session is second._load().backend.session
    QuantizedNLIJudge(wide_bert_model, threads=2).evaluate("Hello.", "polite", 0.5)
    assert model_cache.builds - before == 4  # another thread count is another session


OUTPUTS = [
    "The agent is polite.",
    "Go away!",
    "The reply mentions the refund and apologizes for the delay. It seems calm and kind.",
    "The customer is angry.",
    " ".join(["The agent offers a discount. The reply is formal."] * 10),
    "Sorry.",
]


@pytest.mark.parametrize("file", ["model.onnx", "model_quantized.onnx"])
def test_batch_equals_one_by_one(wide_bert_model: Path, file: str) -> None:
    # two threads: a dynamic-int8 file runs two pairs at once on the session
    judge = QuantizedNLIJudge(wide_bert_model, file=file, batch_size=4, threads=2)
    requests = [(o, d, 0.5) for o in OUTPUTS for d in ("polite", "Mentions the refund.")]
    batched = judge.evaluate_batch(requests)
    single = [judge.evaluate(*request) for request in requests]
    assert len({v.score for v in batched}) > 3  # the scores really vary by input
    # fp32: padding and batch composition change nothing (float noise aside). Dynamic int8
    # quantizes activations per call, so its pairs run one at a time: exactly the same scores
    # (DESIGN: a score never depends on what is judged beside it).
    tolerance = 1e-5 if file == "model.onnx" else 0.0
    for b, s in zip(batched, single, strict=True):
        assert b.score == pytest.approx(s.score, abs=tolerance)
        assert b.evidence == s.evidence
    if file == "model_quantized.onnx":
        assert batched == single  # score, reason, probabilities, evidence: all identical


class _RowSession:
    """A fake session that answers each call with its rows' lengths, and fails on a 0 token."""

    def __init__(self) -> None:
        self.calls: list[list[list[int]]] = []

    def run(self, names: object, feed: dict[str, Any]) -> list[Any]:
        import numpy as np

        ids = feed["input_ids"].tolist()
        self.calls.append(ids)
        if any(0 in row for row in ids):
            raise RuntimeError("the session failed on a row")
        return [np.array([[float(len(row)), float(row[0])] for row in ids])]


def test_dynamic_int8_rows_run_alone_unpadded_in_order_and_errors_surface() -> None:
    from semantix.judges._onnx import OnnxModel, pad

    session = _RowSession()
    model = OnnxModel(session, Path("m.onnx"), ("input_ids",), one_at_a_time=True, threads=3)
    rows = [[5, 6, 7], [8], [9, 10], [11, 12, 13, 14]]
    results = model.run(pad(rows, pad_id=99))
    assert [r.tolist() for r in results] == [[[len(r), r[0]]] for r in rows]
    assert sorted(session.calls) == sorted([[r] for r in rows])  # one call a row, no padding
    with pytest.raises(RuntimeError, match="failed on a row"):
        model.run(pad([[1, 2], [0, 3], [4]], pad_id=99))


def test_int8_score_does_not_depend_on_batch_company(wide_bert_model: Path) -> None:
    judge = QuantizedNLIJudge(wide_bert_model, file="model_quantized.onnx", batch_size=8)
    alone = judge.evaluate(OUTPUTS[0], "polite", 0.5).score
    for company in (OUTPUTS[1:3], OUTPUTS[3:], OUTPUTS[::-1]):
        requests = [(OUTPUTS[0], "polite", 0.5)] + [(o, "polite", 0.5) for o in company]
        assert judge.evaluate_batch(requests)[0].score == alone


def test_scores_are_deterministic(wide_bert_model: Path) -> None:
    judge = QuantizedNLIJudge(wide_bert_model)
    first = [judge.evaluate(o, "polite", 0.5).score for o in OUTPUTS]
    second = [judge.evaluate(o, "polite", 0.5).score for o in OUTPUTS]
    assert first == second


def test_long_output_is_windowed_with_evidence(wide_bert_model: Path) -> None:
    judge = QuantizedNLIJudge(wide_bert_model)
    output = " ".join(OUTPUTS * 6)
    verdict = judge.evaluate(output, "polite", 0.5)
    assert verdict.evidence is not None
    assert verdict.evidence in output and len(verdict.evidence) < len(output)
    assert "best of" in verdict.reason
    windows = judge.core.windows(output, "The text is polite.")
    best = max(judge.evaluate(w.text, "polite", 0.5).score or 0.0 for w in windows)
    assert verdict.score == pytest.approx(best, abs=0.03)


def test_hundred_thousand_characters(wide_bert_model: Path) -> None:
    output = ("The agent mentions the refund. " * 4000)[:100_000]
    verdict = QuantizedNLIJudge(wide_bert_model, batch_size=64).evaluate(output, "polite", 0.5)
    assert verdict.score is not None
    assert verdict.evidence is not None and len(verdict.evidence) < 400


@pytest.mark.parametrize("fixture", ["wide_deberta_model", "wide_roberta_model"])
def test_models_without_token_types(fixture: str, request: pytest.FixtureRequest) -> None:
    model: Path = request.getfixturevalue(fixture)
    judge = QuantizedNLIJudge(model)
    verdict = judge.evaluate("The agent is polite.", "polite", 0.5)
    assert verdict.score is not None
    assert "token_type_ids" not in judge._load().backend.input_names
    long = judge.evaluate(" ".join(OUTPUTS * 6), "polite", 0.5)
    assert long.evidence is not None


@pytest.fixture
def ort_cache(semantix_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Optimized copies on, kept whatever the timing (tiny models load in milliseconds)."""
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", "1")
    monkeypatch.setattr(sessions, "_KEEP_IF_FASTER", 1e9)
    return semantix_cache / "onnx"


def _scores(model: Path) -> list[float | None]:
    clear_cache()
    verdicts = QuantizedNLIJudge(model).evaluate_batch([(o, "polite", 0.5) for o in OUTPUTS])
    return [v.score for v in verdicts]


def test_loading_and_scoring_write_no_optimized_copy(
    wide_bert_model: Path, ort_cache: Path
) -> None:
    _scores(wide_bert_model)
    assert not ort_cache.exists()  # copies are written by `semantix download`, not by a test run


def test_optimize_model_writes_a_copy_that_later_sessions_load(
    wide_bert_model: Path, tmp_path: Path, ort_cache: Path
) -> None:
    model = copy_model(wide_bert_model, tmp_path / "model")
    plain = _scores(model)
    outcomes = sessions.optimize_model(model)
    assert outcomes == {"model.onnx": "kept", "model_quantized.onnx": "kept"}
    (cached,) = ort_cache.glob("model_quantized-*.ort")
    assert list(ort_cache.glob("*.partial")) == []
    stamp = cached.stat().st_mtime_ns
    assert _scores(model) == plain
    assert cached.stat().st_mtime_ns == stamp  # loaded, not rewritten
    assert sessions.optimize_model(model / "model_quantized.onnx") == {
        "model_quantized.onnx": "already optimized"
    }
    cached.write_bytes(b"truncated")  # a broken copy is dropped, not fatal
    assert _scores(model) == plain
    assert not cached.exists()
    clear_cache()


def test_an_optimized_copy_that_does_not_pay_is_not_kept(
    entailing_model: Path, tmp_path: Path, ort_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sessions, "_KEEP_IF_FASTER", 0.0)  # loading the copy never pays
    model = copy_model(entailing_model, tmp_path / "model")
    assert sessions.optimize_model(model / "model_quantized.onnx") == {
        "model_quantized.onnx": "does not pay"
    }
    assert list(ort_cache.glob("*.ort")) == []
    (marker,) = ort_cache.glob("*.skip.json")
    figures = json.loads(marker.read_text())
    assert set(figures) == {"plain_s", "optimized_s", "plain_peak_mb", "optimized_peak_mb"}
    assert figures["plain_peak_mb"] > 10  # a process with onnxruntime loaded
    assert sessions.optimize_model(model / "model_quantized.onnx") == {
        "model_quantized.onnx": "does not pay"  # the marker stops it from measuring again
    }
    clear_cache()
    assert QuantizedNLIJudge(model).evaluate("Hello.", "polite", 0.5).passed


def test_optimized_session_cache_can_be_disabled(
    entailing_model: Path, semantix_cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", "0")
    assert sessions.optimize_model(entailing_model / "model_quantized.onnx") == {
        "model_quantized.onnx": "off"
    }
    clear_cache()
    assert QuantizedNLIJudge(entailing_model).evaluate("Hello.", "polite", 0.5).passed
    assert not (semantix_cache / "onnx").exists()
    clear_cache()


def test_optimize_model_names_a_path_that_does_not_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"got '.*nowhere', which does not exist"):
        sessions.optimize_model(tmp_path / "nowhere")


def test_sessions_do_not_spin() -> None:
    options = sessions.session_options(2)
    assert options.get_session_config_entry("session.intra_op.allow_spinning") == "0"
    assert options.get_session_config_entry("session.inter_op.allow_spinning") == "0"
    assert options.intra_op_num_threads == 2


def test_recommended_threshold() -> None:
    assert QuantizedNLIJudge.recommended_threshold == 0.5


def test_runtime_imports_neither_torch_nor_transformers(
    entailing_model: Path, semantix_cache: Path
) -> None:
    code = textwrap.dedent(
        f"""
        import sys
        from semantix import Intent, assert_semantic
        from semantix.judges._quantized import QuantizedNLIJudge

        class Polite(Intent):
            '''The text must be polite.'''

        assert_semantic("Hello.", Polite, judge=QuantizedNLIJudge({str(entailing_model)!r}))
        heavy = sorted(m for m in ("torch", "transformers", "optimum") if m in sys.modules)
        print("heavy:", heavy)
        assert not heavy, heavy
        """
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("SEMANTIX_")}
    env["SEMANTIX_CACHE_PATH"] = str(semantix_cache)
    result = subprocess.run(
        [sys.executable, "-c", code],
        check=False,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "heavy: []" in result.stdout


def test_permuted_labels_are_not_the_default_order() -> None:
    """Guard for the fixtures: the permuted order differs from every usual one."""
    assert PERMUTED[1] != "entailment"


def test_required_files_fetch_only_what_the_judge_loads() -> None:
    from semantix.judges._quantized import required_files
    from semantix.models._api import default_model

    default = required_files()
    info = default_model("nli")
    assert sorted(default) == sorted(info.files())
    assert info.onnx_file in default  # the portable file, always fetched
    assert info.onnx_file.startswith("onnx/model_q")
    assert "tokenizer.json" in default and "config.json" in default
    assert not any("*" in pattern for pattern in default)
    assert "model_quantized.onnx" in required_files("acme/unknown")


def test_concurrent_use_of_one_judge_is_safe(wide_bert_model: Path) -> None:
    """Threads share the lazily loaded session and get the scores a single thread gets."""
    from concurrent.futures import ThreadPoolExecutor

    from semantix import Judge

    clear_cache()
    judge = QuantizedNLIJudge(wide_bert_model)  # not loaded yet: the threads race to load it
    assert isinstance(judge, Judge)
    before = model_cache.builds
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda o: judge.evaluate(o, "polite", 0.5).score, OUTPUTS * 4))
    assert model_cache.builds - before == 3  # one tokenizer, one core, one session
    expected = [judge.evaluate(o, "polite", 0.5).score for o in OUTPUTS * 4]
    assert results == expected
