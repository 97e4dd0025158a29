"""scripts/bench-grounded end to end on a tiny model: it runs, measures, and says how to rerun."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from models.tiny import build_tiny_nli_model

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # builds a 512-token model and runs the script twice: run with -m slow
def test_bench_grounded_prints_accuracy_speed_and_the_rerun(tmp_path: Path) -> None:
    model = build_tiny_nli_model(
        tmp_path / "model",
        id2label={0: "contradiction", 1: "entailment", 2: "neutral"},
        head="wide",
        max_length=512,
    )
    script = [sys.executable, str(ROOT / "scripts" / "bench-grounded"), str(model)]
    figures = json.loads(
        subprocess.run(
            [*script, "--rounds", "1", "--json"],
            check=True,
            capture_output=True,
            text=True,
            timeout=300,
        ).stdout
    )
    assert figures["items"] == 20 and figures["pairs"] >= 20
    assert 0.0 <= figures["balanced_accuracy"] <= 1.0
    assert figures["ours_pairs_per_s"] > 0 and figures["bare_pairs_per_s"] > 0
    text = subprocess.run(
        [*script, "--rounds", "1"], check=True, capture_output=True, text=True, timeout=300
    ).stdout
    assert "meaningless with random weights" in text
    assert "rerun with real weights: semantix download nli-deberta-v3-xsmall" in text
