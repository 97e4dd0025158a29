"""The ``semantix`` command line, end to end through ``main(argv)`` (and once as a process)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

from semantix import FakeJudge, Intent, JudgeIdentity
from semantix.cli import main
from semantix.judges.quantized import required_files as quantized_files
from semantix.models import default_model

SEMANTIX = Path(sys.executable).parent / "semantix"


class Polite(Intent):
    """The text is polite."""


class LenientPolite(Intent):
    """The text is polite."""

    threshold = 0.5


def _score(output: str, description: str) -> float:
    return 0.9 if "thank" in output.lower() else 0.1


@pytest.fixture(autouse=True)
def fake_modules(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    """An importable module 'cli_fakes' holding judges and intents, named by import path."""
    module = types.ModuleType("cli_fakes")
    module.judge = FakeJudge(_score, name="KeywordJudge")  # type: ignore[attr-defined]
    module.unscored = FakeJudge(  # type: ignore[attr-defined]
        lambda output, description: __import__("semantix").Verdict(passed=True), name="NoScore"
    )
    module.Polite = Polite  # type: ignore[attr-defined]
    module.LenientPolite = LenientPolite  # type: ignore[attr-defined]
    module.not_an_intent = 42  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "cli_fakes", module)
    monkeypatch.delenv("SEMANTIX_JUDGE", raising=False)
    return module


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# --- check ---------------------------------------------------------------------------------


def test_check_passes_with_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(
        capsys,
        "check",
        "Thank you for waiting.",
        "The text is polite.",
        "--judge",
        "cli_fakes:judge",
    )
    assert (status, err) == (0, "")
    assert out.splitlines() == [
        "PASS 'The text is polite.' (judge: KeywordJudge)",
        "  'The text is polite.': score 0.90, threshold 0.80, ok",
    ]


def test_check_fails_with_exit_1_and_the_explanation(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "check", "Go away.", "cli_fakes:Polite", "--judge", "cli_fakes:judge"
    )
    assert status == 1
    assert out.startswith("Semantic check failed (score=0.10): the output does not satisfy Polite\n")
    assert "Polite   0.10       0.80  FAIL: not satisfied" in out
    assert "output (8 chars): 'Go away.'" in out


def test_check_uses_intent_class_threshold_and_explicit_threshold(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, _, _ = run(
        capsys, "check", "meh", "cli_fakes:LenientPolite", "--judge", "cli_fakes:judge"
    )
    assert status == 1  # 0.1 < 0.5
    status, out, _ = run(
        capsys,
        "check",
        "meh",
        "cli_fakes:LenientPolite",
        "--judge",
        "cli_fakes:judge",
        "--threshold",
        "0.05",
    )
    assert status == 0
    assert "threshold 0.05" in out


def test_check_reads_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, fake_modules: Any
) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("Thanks a lot!\n"))
    status, out, _ = run(capsys, "check", "-", "polite", "--judge", "cli_fakes:judge", "--json")
    assert status == 0
    document = json.loads(out)
    assert document["output"] == "Thanks a lot!"
    assert fake_modules.judge.calls == [("Thanks a lot!", "polite")]


def test_check_json(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(
        capsys, "check", "Go away.", "cli_fakes:Polite", "--judge", "cli_fakes:judge", "--json"
    )
    assert status == 1
    document = json.loads(out)
    assert document.pop("duration_ms") >= 0
    assert document == {
        "intent": "Polite",
        "judge": "KeywordJudge",
        "passed": False,
        "empty": False,
        "output": "Go away.",
        "leaves": [
            {
                "intent": "Polite",
                "description": "The text is polite.",
                "expected": True,
                "score": 0.1,
                "threshold": 0.8,
                "satisfied": False,
                "ok": False,
                "reason": "fake score 0.100",
                "latency_ms": None,
            }
        ],
    }


def test_check_honours_frozen_verdicts(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path / "verdicts"))
    monkeypatch.setenv("SEMANTIX_VERDICTS", "update")
    argv = ["check", "Thank you!", "cli_fakes:Polite", "--judge", "cli_fakes:judge"]
    assert run(capsys, *argv)[0] == 0
    assert list((tmp_path / "verdicts").rglob("*.json"))
    monkeypatch.setenv("SEMANTIX_VERDICTS", "replay")
    status, _, err = run(
        capsys, "check", "Never seen.", "cli_fakes:Polite", "--judge", "cli_fakes:judge"
    )
    assert status == 2
    assert err.startswith("semantix check: error: ")
    assert err.count("\n") == 1


def test_check_uses_the_default_judge(capsys: pytest.CaptureFixture[str]) -> None:
    import semantix

    semantix.set_default_judge(FakeJudge(_score, name="DefaultJudge"))
    try:
        status, out, _ = run(capsys, "check", "thank you", "polite")
    finally:
        semantix.set_default_judge(None)
    assert status == 0
    assert "judge: DefaultJudge" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["check", "hi", "polite", "--judge", "cli_fakes:judge", "--threshold", "1.5"],
            (
                "semantix check: error: threshold must be between 0 and 1 inclusive, got 1.5; "
                "pass e.g. threshold=0.8"
            ),
        ),
        (
            ["check", "hi", "polite", "--judge", "gpt4"],
            (
                "semantix check: error: unknown judge 'gpt4'; use one of quantized, nli, embedding, "
                "llm or an import path 'package.module:judge'"
            ),
        ),
        (
            ["check", "hi", "cli_fakes:Missing", "--judge", "cli_fakes:judge"],
            (
                "semantix check: error: INTENT 'cli_fakes:Missing' looks like an import path but "
                "cannot be loaded (module 'cli_fakes' has no attribute 'Missing'); check the path, "
                "or write the intent as a sentence such as 'The text is polite.'"
            ),
        ),
        (
            ["check", "hi", "cli_fakes:not_an_intent", "--judge", "cli_fakes:judge"],
            (
                "semantix check: error: INTENT 'cli_fakes:not_an_intent' is int, not an Intent "
                "class; point it at a subclass of semantix.Intent"
            ),
        ),
        (
            ["check", "hi", "   ", "--judge", "cli_fakes:judge"],
            (
                "semantix check: error: the intent description is empty; pass a requirement such "
                "as 'The text is polite.' or an Intent class"
            ),
        ),
    ],
)
def test_check_configuration_errors_exit_2_with_one_line(
    capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    status, out, err = run(capsys, *argv)
    assert (status, out) == (2, "")
    assert err == message + "\n"


def test_judge_errors_exit_2(capsys: pytest.CaptureFixture[str], fake_modules: Any) -> None:
    def broken(output: str, description: str) -> float:
        raise RuntimeError("model exploded")

    fake_modules.broken = FakeJudge(broken)
    status, _, err = run(capsys, "check", "hi", "polite", "--judge", "cli_fakes:broken")
    assert status == 2
    assert err.startswith("semantix check: error: judge FakeJudge raised RuntimeError")
    assert err.count("\n") == 1


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "check", "only-text")
    assert status == 2
    assert "the following arguments are required: INTENT" in err
    status, _, err = run(capsys, "check", "a", "b", "--threshold", "high")
    assert status == 2
    assert "invalid float value: 'high'" in err
    status, _, err = run(capsys)
    assert status == 2
    assert "usage: semantix" in err
    status, _, err = run(capsys, "frobnicate")
    assert status == 2
    assert "invalid choice: 'frobnicate'" in err


@pytest.mark.parametrize("command", [[], ["check"], ["download"], ["export"], ["calibrate"]])
def test_help_everywhere(capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    status, out, _ = run(capsys, *command, "--help")
    assert status == 0
    assert out.startswith(f"usage: semantix {' '.join(command)}".rstrip())


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    import semantix

    status, out, _ = run(capsys, "--version")
    assert (status, out) == (0, f"semantix {semantix.__version__}\n")


def test_console_script_runs() -> None:
    completed = subprocess.run(
        [str(SEMANTIX), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert completed.returncode == 0, completed.stderr
    for command in ("check", "download", "export", "calibrate"):
        assert command in completed.stdout


# --- download ------------------------------------------------------------------------------


@pytest.fixture
def downloads(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[dict[str, Any]]:
    """Record what would be fetched: judges loaded (by spec) and repositories downloaded."""
    calls: list[dict[str, Any]] = []

    def fake_download(model: str | None = None, **kwargs: Any) -> Path:
        calls.append({"model": model, **kwargs})
        return tmp_path / str(model).replace("/", "--")

    def fake_judge_from_spec(spec: str, **kwargs: Any) -> FakeJudge:
        calls.append({"judge": spec, **kwargs})
        judge = FakeJudge(_score, name=f"{spec.title()}Judge")
        judge.identity = JudgeIdentity(f"{spec.title()}Judge", model="org/model", revision="abc")
        return judge

    monkeypatch.setattr("semantix.models.download_model", fake_download)
    monkeypatch.setattr("semantix.judges.judge_from_spec", fake_judge_from_spec)
    return calls


def test_download_defaults_to_the_default_judge(
    capsys: pytest.CaptureFixture[str], downloads: list[dict[str, Any]]
) -> None:
    status, out, err = run(capsys, "download")
    assert status == 0
    assert downloads == [{"judge": "quantized", "lazy_load": False}]
    assert out == "quantized: QuantizedJudge(org/model@abc)\n"
    assert "[1/1] fetching the quantized judge's model ..." in err
    assert "copy the cache (HF_HOME) to offline machines and set HF_HUB_OFFLINE=1" in err


def test_download_follows_semantix_judge(
    capsys: pytest.CaptureFixture[str],
    downloads: list[dict[str, Any]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("SEMANTIX_JUDGE", "embedding")
    status, _, _ = run(capsys, "download")
    assert status == 0
    assert downloads == [{"judge": "embedding", "lazy_load": False}]


def test_download_judges_and_models(
    capsys: pytest.CaptureFixture[str], downloads: list[dict[str, Any]], tmp_path: Path
) -> None:
    status, out, err = run(
        capsys,
        "download",
        "--judge",
        "embedding",
        "--judge",
        "llm",
        "--judge",
        "nli",
        "--model",
        "cross-encoder/nli-deberta-v3-small",
        "--model",
        "all-MiniLM-L6-v2",
        "--revision",
        "abc123",
        "--cache-dir",
        str(tmp_path / "hf"),
    )
    assert status == 0
    cache = str(tmp_path / "hf")
    assert downloads == [
        {"judge": "embedding", "lazy_load": False, "cache_dir": cache},
        {"judge": "nli", "lazy_load": False, "cache_dir": cache},
        {
            "model": "cross-encoder/nli-deberta-v3-small",
            "kind": "nli",
            "revision": "abc123",
            "cache_dir": cache,
            "allow_patterns": quantized_files("cross-encoder/nli-deberta-v3-small"),
        },
        {
            "model": "all-MiniLM-L6-v2",
            "kind": "embedding",
            "revision": "abc123",
            "cache_dir": cache,
            "allow_patterns": [default_model("embedding").onnx_file, "*.json", "vocab.txt"],
        },
    ]
    assert "llm: nothing to download (the judge calls a server)" in err
    assert "[4/4] fetching all-MiniLM-L6-v2 ..." in err
    assert out.splitlines() == [
        "embedding: EmbeddingJudge(org/model@abc)",
        "nli: NliJudge(org/model@abc)",
        f"cross-encoder/nli-deberta-v3-small: {tmp_path / 'cross-encoder--nli-deberta-v3-small'}",
        f"all-MiniLM-L6-v2: {tmp_path / 'all-MiniLM-L6-v2'}",
    ]


def test_download_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from semantix.errors import ModelNotFoundError

    def offline(model: str | None = None, **kwargs: Any) -> Path:
        raise ModelNotFoundError(
            "model 'x/y' is not in the Hugging Face cache\nand HF_HUB_OFFLINE is set"
        )

    monkeypatch.setattr("semantix.models.download_model", offline)
    status, _, err = run(capsys, "download", "--model", "x/y")
    assert status == 2
    assert err.endswith(
        "semantix download: error: model 'x/y' is not in the Hugging Face cache and "
        "HF_HUB_OFFLINE is set\n"
    )


def test_download_rejects_unknown_judge(capsys: pytest.CaptureFixture[str]) -> None:
    status, _, err = run(capsys, "download", "--judge", "gpt")
    assert status == 2
    assert "invalid choice: 'gpt'" in err


# --- export --------------------------------------------------------------------------------


def test_export_calls_export_model(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    calls = []

    def export_model(model: str, out_dir: Any, *, revision: str | None = None) -> Path:
        calls.append((model, out_dir, revision))
        return Path(out_dir)

    fake = types.ModuleType("semantix.export")
    fake.export_model = export_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "semantix.export", fake)
    out_dir = str(tmp_path / "nli-small")
    status, out, err = run(
        capsys, "export", "cross-encoder/nli-deberta-v3-small", out_dir, "--revision", "v1"
    )
    assert status == 0
    assert calls == [("cross-encoder/nli-deberta-v3-small", out_dir, "v1")]
    assert out == out_dir + "\n"
    assert f"SEMANTIX_MODEL_DIR={out_dir}" in err


def test_export_without_export_support(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "semantix.export", None)
    status, _, err = run(capsys, "export", "some/model", "out")
    assert status == 2
    assert "pip install 'semantix-judge[export]'" in err


def test_export_errors_are_one_line(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from semantix.errors import JudgeUnavailableError

    def export_model(model: str, out_dir: Any, *, revision: str | None = None) -> Path:
        raise JudgeUnavailableError(
            "export needs optimum; run: pip install 'semantix-judge[export]'"
        )

    fake = types.ModuleType("semantix.export")
    fake.export_model = export_model  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "semantix.export", fake)
    status, _, err = run(capsys, "export", "some/model", "out")
    assert status == 2
    assert err.splitlines()[-1] == (
        "semantix export: error: export needs optimum; run: pip install 'semantix-judge[export]'"
    )


# --- calibrate -----------------------------------------------------------------------------

LABELS = """output,intent,expected
Thank you for waiting.,cli_fakes:Polite,yes
"Thanks, I appreciate it.",cli_fakes:Polite,true
Go away.,cli_fakes:Polite,no
Whatever.,cli_fakes:Polite,false
Thank you? Not.,cli_fakes:Polite,false
Thank you!,The text is grateful.,1
Never.,The text is grateful.,0
"""


@pytest.fixture
def labels_csv(tmp_path: Path) -> Path:
    path = tmp_path / "labels.csv"
    path.write_text(LABELS, encoding="utf-8")
    return path


def test_calibrate_reports_metrics_and_thresholds(
    capsys: pytest.CaptureFixture[str], labels_csv: Path
) -> None:
    status, out, err = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:judge")
    assert status == 0
    assert out.splitlines() == [
        f"calibration of KeywordJudge on {labels_csv} (7 rows)",
        "",
        "cli_fakes:Polite: 5 rows, 2 expected to pass",
        "  threshold               accuracy  balanced   kappa",
        "  current 0.800              0.800     0.833   0.615",
        "  best 0.500                 0.800     0.833   0.615",
        "",
        "'The text is grateful.': 2 rows, 1 expected to pass",
        "  threshold               accuracy  balanced   kappa",
        "  current 0.800              1.000     1.000   1.000",
        "  best 0.500                 1.000     1.000   1.000",
        "",
        "# thresholds from semantix calibrate (KeywordJudge, labels.csv); paste into each",
        "# intent class, or pass threshold=... for description strings",
        "# cli_fakes:Polite: accuracy 0.800, kappa 0.615",
        "threshold = 0.500",
        "# 'The text is grateful.': accuracy 1.000, kappa 1.000",
        "threshold = 0.500",
    ]
    assert "scoring [##############################] 7/7" in err


def test_calibrate_filters_intents(capsys: pytest.CaptureFixture[str], labels_csv: Path) -> None:
    status, out, _ = run(
        capsys,
        "calibrate",
        str(labels_csv),
        "--judge",
        "cli_fakes:judge",
        "--intent",
        "The text is grateful.",
    )
    assert status == 0
    assert "(2 rows)" in out
    assert "cli_fakes:Polite" not in out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "text,label\nhi,yes\n",
            "has columns ['text', 'label'] but needs output, intent and expected",
        ),
        ("output,intent,expected\n", "has a header but no rows"),
        ("output,intent,expected\nhi,polite,maybe\n", ":2: expected = 'maybe' is not a label"),
        (
            "output,intent,expected\nhi,cli_fakes:Polite,yes\n",
            "--intent 'Rude' matches no row",
        ),
    ],
)
def test_calibrate_bad_labels(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str, message: str
) -> None:
    path = tmp_path / "labels.csv"
    path.write_text(content, encoding="utf-8")
    extra = ["--intent", "Rude"] if "--intent" in message else []
    status, out, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge", *extra)
    assert (status, out) == (2, "")
    assert err.startswith("semantix calibrate: error: ")
    assert message in err
    assert err.count("\n") == 1


def test_calibrate_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    status, _, err = run(capsys, "calibrate", str(tmp_path / "nope.csv"))
    assert status == 2
    assert "does not exist; pass a CSV with the columns output,intent,expected" in err


def test_calibrate_needs_scores(capsys: pytest.CaptureFixture[str], labels_csv: Path) -> None:
    status, _, err = run(capsys, "calibrate", str(labels_csv), "--judge", "cli_fakes:unscored")
    assert status == 2
    assert "judge NoScore gives no scores, so there is no threshold to calibrate" in err


def test_calibrate_rejects_composite_intents(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, fake_modules: Any
) -> None:
    fake_modules.NotPolite = ~Polite
    path = tmp_path / "labels.csv"
    path.write_text("output,intent,expected\nhi,cli_fakes:NotPolite,yes\n", encoding="utf-8")
    status, _, err = run(capsys, "calibrate", str(path), "--judge", "cli_fakes:judge")
    assert status == 2
    assert "is composite or negated; calibrate one plain intent at a time" in err
