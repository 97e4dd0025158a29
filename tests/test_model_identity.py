"""A local model is identified by what it is, never by where it is (issue 34, item 1): frozen
verdicts and snapshot headers recorded in one checkout replay in a copy of it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from models.fixtures import *  # the tiny models, copy_model
from semantix import (
    Intent,
    Verdict,
    VerdictNotRecordedError,
    assert_semantic,
    clear_cache,
    evaluate_semantic,
)
from semantix._cache import model_cache
from semantix.judges import _model_dir as model_dir
from semantix.judges._embedding import EmbeddingJudge
from semantix.judges._quantized import QuantizedNLIJudge
from semantix.judges._transformers import NLIJudge
from semantix.verdicts import RecordReplayJudge, VerdictStore, fingerprint

ROOT = Path(__file__).resolve().parent.parent


class Polite(Intent):
    """The text is polite."""


def _cp_r(source: Path, target: Path) -> Path:
    """``cp -r`` as a person runs it: new files, new times."""
    subprocess.run(["cp", "-r", str(source), str(target)], check=True)
    return target


@pytest.mark.parametrize("kind", [QuantizedNLIJudge, NLIJudge, EmbeddingJudge])
def test_a_copied_model_directory_has_the_same_identity(
    kind: type, entailing_model: Path, tmp_path: Path
) -> None:
    here = copy_model(entailing_model, tmp_path / "app" / "nli")
    there = _cp_r(tmp_path / "app", tmp_path / "app2") / "nli"
    assert (there / "config.json").stat().st_mtime_ns != (here / "config.json").stat().st_mtime_ns
    options = {"file": "model.onnx"} if kind is EmbeddingJudge else {}
    first, second = kind(here, **options).identity, kind(there, **options).identity
    assert first == second
    assert first.model == "nli"  # the directory's name, for people
    assert len(first.revision or "") == 64  # the digest of its files
    assert str(tmp_path) not in str(first)
    assert (first.location, second.location) == (str(here.resolve()), str(there.resolve()))
    renamed = copy_model(here, tmp_path / "minilm-for-ci")
    keys = {fingerprint(kind(path, **options), "out", "polite") for path in (here, there, renamed)}
    assert len(keys) == 1  # keyed by the digest: neither the place nor the name counts
    assert kind(renamed, **options).identity.model == "minilm-for-ci"


def test_the_digest_changes_with_the_weights_and_configs_only(
    entailing_model: Path, tmp_path: Path
) -> None:
    model = copy_model(entailing_model, tmp_path / "nli")
    before = QuantizedNLIJudge(model).identity.revision
    (model / "README.md").write_text("notes\n")  # not what the model computes
    assert QuantizedNLIJudge(model).identity.revision == before
    config = model / "config.json"
    config.write_bytes(config.read_bytes().replace(b"\n", b"\r\n"))  # a Windows checkout
    assert QuantizedNLIJudge(model).identity.revision == before
    weights = model / "model_quantized.onnx"
    data = bytearray(weights.read_bytes())
    data[-1] ^= 1
    weights.write_bytes(bytes(data))
    changed = QuantizedNLIJudge(model).identity.revision
    assert changed != before
    edited = json.loads(config.read_text())
    edited["max_position_embeddings"] = 64
    config.write_text(json.dumps(edited))
    assert QuantizedNLIJudge(model).identity.revision not in (before, changed)
    # The file the judge loads is digested, not the other ONNX files beside it.
    assert QuantizedNLIJudge(model, file="model.onnx").identity.revision != before


def test_the_digest_is_computed_once_per_process_per_directory_and_loads_nothing(
    entailing_model: Path,
) -> None:
    clear_cache()
    builds = model_cache.builds
    misses = model_dir._digest.cache_info().misses  # type: ignore[attr-defined]
    for _ in range(3):
        judge = QuantizedNLIJudge(entailing_model)
        assert judge.identity.revision is not None
        assert not judge.loaded
    assert model_dir._digest.cache_info().misses == misses + 1  # type: ignore[attr-defined]
    assert model_cache.builds == builds  # naming loaded no session nor tokenizer


class _PathNamed:
    """A judge named as semantix 0.1 named one on a local model directory: by its absolute path,
    with no digest of what the files hold (its fingerprints are the keys 0.1 stored)."""

    def __init__(self, judge: QuantizedNLIJudge) -> None:
        identity = judge.identity
        self.identity = identity.__class__(
            identity.name, model=identity.location, file=identity.file
        )

    def evaluate(self, output: str, intent_description: str, threshold: float) -> Verdict:
        return Verdict(passed=False, score=0.01, reason="recorded for other weights")


@pytest.mark.parametrize("weights_changed", [False, True])
def test_a_verdict_keyed_by_the_directory_path_is_never_replayed(
    entailing_model: Path, tmp_path: Path, weights_changed: bool
) -> None:
    """Issue 44: a 0.1-era record names no digest, so it cannot say which weights it judged; it
    is a miss (replay says so), and update judges afresh instead of re-saving it under the
    new model's key."""
    model = copy_model(entailing_model, tmp_path / "nli")
    store = VerdictStore(tmp_path / "verdicts")
    output = "The agent is polite and kind."
    former = RecordReplayJudge(_PathNamed(QuantizedNLIJudge(model)), store=store, mode="update")
    assert not evaluate_semantic(output, Polite, judge=former, threshold=0.5).passed
    if weights_changed:
        weights = model / "model_quantized.onnx"
        data = bytearray(weights.read_bytes())
        data[-1] ^= 1
        weights.write_bytes(bytes(data))
    judge = QuantizedNLIJudge(model)
    replaying = RecordReplayJudge(judge, store=store, mode="replay")
    with pytest.raises(VerdictNotRecordedError, match="no frozen verdict"):
        assert_semantic(output, Polite, judge=replaying, threshold=0.5)
    updating = RecordReplayJudge(QuantizedNLIJudge(model), store=store, mode="update")
    assert assert_semantic(output, Polite, judge=updating, threshold=0.5).passed
    assert updating.stats.judged == 1 and updating.stats.replayed == 0
    recorded = store.get(fingerprint(judge, output, Polite.description))
    assert recorded is not None and recorded.reason != "recorded for other weights"


_PROJECT_TEST = '''
from semantix import Intent, assert_semantic
from semantix.checks import Contains


class Helpful(Intent):
    """The text is helpful."""


def test_polite():
    assert_semantic("Thank you, the agent is polite.", "The text is polite.")


def test_helpful_and_mentions_refund():
    assert_semantic("We will refund you today.", Contains("refund") & Helpful)


def test_snapshot(semantic_snapshot):
    assert semantic_snapshot == "Refunds are possible within 30 days."
'''


def _pytest(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {
        key: value for key, value in os.environ.items() if key not in ("CI", "SEMANTIX_VERDICTS")
    }
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "src"), env.get("PYTHONPATH", "")])
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_record_copy_the_project_and_replay_in_the_copy(
    entailing_model: Path, tmp_path: Path
) -> None:
    """The issue's session: record in app/, ``cp -r app app2``, replay in app2."""
    app = tmp_path / "app"
    copy_model(entailing_model, app / "models" / "nli")
    (app / "pytest.ini").write_text("[pytest]\nsemantic_judge = quantized:models/nli\n")
    (app / "test_bot.py").write_text(textwrap.dedent(_PROJECT_TEST))
    recorded = _pytest(app, "--semantic-verdicts", "update", "--semantic-snapshot-update")
    assert recorded.returncode == 0, recorded.stdout + recorded.stderr
    assert len(list((app / ".semantix" / "verdicts").glob("*/*.json"))) >= 2
    copy = _cp_r(app, tmp_path / "app2")
    shutil.rmtree(app)  # nothing of the first checkout is left to find
    replayed = _pytest(copy, "--semantic-verdicts", "replay")
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "3 passed" in replayed.stdout
    stored = [file.read_text() for file in (copy / ".semantix" / "verdicts").glob("*/*.json")]
    (snapshot,) = (copy / "__semantic_snapshots__").rglob("*.txt")
    for text in [*stored, snapshot.read_text()]:
        assert str(tmp_path) not in text
        assert "QuantizedNLIJudge(nli@" in text
