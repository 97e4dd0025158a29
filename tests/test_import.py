"""`import semantix` stays cheap: no heavy library is imported until a judge is used."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import semantix
import semantix.judges
import semantix.runs
import semantix.verdicts

HEAVY = ("onnxruntime", "tokenizers", "numpy", "torch", "transformers", "openai", "huggingface_hub")


def _imported_after(code: str) -> set[str]:
    probe = f"import sys; {code}; print(' '.join(sorted(sys.modules)))"
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    return set(completed.stdout.split())


def test_import_semantix_imports_nothing_heavy() -> None:
    loaded = _imported_after("import semantix, semantix.testing, semantix.unittest")
    assert "semantix" in loaded
    assert sorted(loaded & set(HEAVY)) == []


def test_import_semantix_leaves_the_costly_stdlib_modules_for_later() -> None:
    # Each costs a noticeable part of the import: pathlib (with urllib and ipaddress) is
    # imported where a path is made, asyncio by the first async check.
    loaded = _imported_after("import semantix")
    assert sorted(loaded & {"pathlib", "urllib", "ipaddress", "asyncio", "inspect"}) == []


def test_using_a_fake_judge_imports_nothing_heavy() -> None:
    code = (
        "from semantix import Intent, FakeJudge, assert_semantic\n"
        "class P(Intent):\n    '''The text is polite.'''\n"
        "assert_semantic('hi', P, judge=FakeJudge(lambda o, i: 1.0))"
    )
    loaded = _imported_after(f"exec({code!r})")
    assert sorted(loaded & set(HEAVY)) == []


def test_importtime_shows_no_heavy_module() -> None:
    completed = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import semantix"],
        capture_output=True,
        text=True,
        check=True,
    )
    imported = {
        line.rsplit("|", 1)[-1].strip().split(".")[0] for line in completed.stderr.splitlines()
    }
    assert "semantix" in imported
    assert sorted(imported & set(HEAVY)) == []


def test_the_top_level_is_what_a_test_author_imports() -> None:
    assert len(semantix.__all__) <= 23  # 23: semantix.cases (issue 36)
    assert dir(semantix) == sorted(semantix.__all__)  # no Any, TYPE_CHECKING, importlib
    for name in semantix.__all__:
        assert getattr(semantix, name) is not None, name


PUBLIC_MODULES = (
    "semantix",
    "semantix.checks",
    "semantix._context",
    "semantix.errors",
    "semantix._intent",
    "semantix.intents",
    "semantix.judges",
    "semantix.pipeline",
    "semantix.runs",
    "semantix.snapshots",
    "semantix.testing",
    "semantix.unittest",
    "semantix.verdicts",
)


def test_every_public_class_reports_a_module_it_can_be_imported_from() -> None:
    probe = (
        "import importlib\n"
        f"for module_name in {PUBLIC_MODULES!r}:\n"
        "    module = importlib.import_module(module_name)\n"
        "    for name in module.__all__:\n"
        "        value = getattr(module, name)\n"
        "        if isinstance(value, type):\n"
        "            home = importlib.import_module(value.__module__)\n"
        "            assert getattr(home, value.__name__, None) is value, (module_name, name)\n"
        "            print(value.__module__, name)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    homes = dict(line.split()[::-1] for line in completed.stdout.splitlines())
    assert homes["Intent"] == "semantix"
    assert homes["RecordReplayJudge"] == "semantix"


def test_moved_names_still_resolve_and_unreleased_renames_are_gone() -> None:
    assert semantix.assert_pass_rate is semantix.runs.assert_pass_rate  # type: ignore[attr-defined]
    assert semantix.CachingJudge is semantix.verdicts.RecordReplayJudge  # type: ignore[attr-defined]
    with pytest.raises(AttributeError, match="has no attribute 'identity_of'"):
        semantix.verdicts.identity_of  # type: ignore[attr-defined]  # noqa: B018


def test_lazy_names_resolve_to_their_modules() -> None:
    # Resolving a lazy name imports its heavy module: do it in a fresh interpreter.
    probe = (
        "import semantix, semantix.judges\n"
        "for name, module in semantix._LAZY.items():\n"
        "    value = getattr(semantix, name)\n"
        "    assert value is getattr(__import__(module, fromlist=[name]), name), name\n"
        '    print(name, getattr(value, "__module__", module))\n'
        "for name in ('QuantizedNLIJudge', 'NLIJudge', 'EmbeddingJudge', 'LLMJudge'):\n"
        "    assert getattr(semantix.judges, name) is getattr(semantix, name), name\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    resolved = dict(line.split() for line in completed.stdout.splitlines())
    assert set(resolved) == set(semantix._LAZY)
    assert resolved["VerdictStore"] == "semantix"
    assert resolved["ConfigurationError"] == "semantix"
    assert resolved["QuantizedNLIJudge"] == "semantix.judges._quantized"


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        semantix.NoSuchThing  # noqa: B018


def test_semantix_ai_installed_beside_us_fails_at_import_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "semantix_ai-0.3.3.dist-info").mkdir()
    (tmp_path / "semantix_ai-0.3.3.dist-info" / "METADATA").write_text("Name: semantix-ai\n")
    completed = subprocess.run(
        [sys.executable, "-c", "import semantix"],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "PYTHONPATH": str(tmp_path)},
    )
    assert completed.returncode == 1
    last = completed.stderr.strip().splitlines()[-1]
    assert last.startswith("ImportError: semantix-judge and semantix-ai are both installed")
    assert "pip uninstall -y semantix-ai" in last
