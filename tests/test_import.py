"""`import semantix` stays cheap: no heavy library is imported until a judge is used."""

from __future__ import annotations

import subprocess
import sys
import types

import pytest

import semantix
import semantix.judges

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


def test_all_matches_public_names() -> None:
    public = {
        name
        for name, value in vars(semantix).items()
        if not name.startswith("_") and not isinstance(value, types.ModuleType)
    } - {"annotations", "TYPE_CHECKING", "Any"}
    public |= set(semantix._LAZY)
    assert sorted(public) == sorted(set(semantix.__all__) - {"__version__"})


def test_lazy_names_resolve_to_their_modules() -> None:
    # Resolving a lazy name imports its heavy module: do it in a fresh interpreter.
    probe = (
        "import semantix, semantix.judges\n"
        "for name, module in semantix._LAZY.items():\n"
        "    value = getattr(semantix, name)\n"
        "    assert value is getattr(__import__(module, fromlist=[name]), name), name\n"
        "    print(name, value.__module__)\n"
        "for name in ('QuantizedNLIJudge', 'NLIJudge', 'EmbeddingJudge', 'LLMJudge'):\n"
        "    assert getattr(semantix.judges, name) is getattr(semantix, name), name\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    )
    resolved = dict(line.split() for line in completed.stdout.splitlines())
    assert set(resolved) == set(semantix._LAZY)
    assert resolved["VerdictStore"] == "semantix"
    assert resolved["QuantizedNLIJudge"] == "semantix.judges.quantized"


def test_unknown_attribute_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'NoSuchThing'"):
        semantix.NoSuchThing  # noqa: B018
