"""Smoke runs of scripts/bench-eval and scripts/bench-merge at tiny sizes: every figure is
printed (no timing asserts; the figures themselves are the scripts' to print)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from models.fixtures import *  # session fixtures: the tiny models

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str) -> str:
    completed = subprocess.run(
        [sys.executable, *argv],
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(ROOT / "src")},
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    return completed.stdout


def test_bench_eval_prints_the_nli_structural_and_memory_figures(wide_bert_model: Path) -> None:
    out = run(
        str(ROOT / "scripts" / "bench-eval"), str(wide_bert_model), "--only",
        "nli,structural,memory", "--pairs", "16", "--structural", "300", "--memory", "100,1000", "--max-words", "10",
    )  # fmt: skip
    labels = [line.split("  ")[0].strip() for line in out.splitlines()]
    assert labels == [
        "machine", "nli embedded eval", "nli bare onnxruntime", "nli ratio", "structural rows/s",
        "structural rows/CPU s", "memory 100 rows", "memory 1,000 rows", "memory ratio",
    ]  # fmt: skip
    assert "(target >= 0.9)" in out and "(target <= 1.2)" in out


def test_bench_merge_prints_the_merge_time() -> None:
    out = run(str(ROOT / "scripts" / "bench-merge"), "--shards", "2", "--records", "50")
    assert "2 x 50 records" in out and "s wall for 100 records (target < 10 s)" in out
    assert "s CPU (all processes;" in out
