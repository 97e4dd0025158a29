"""scripts/check-cycles: import cycles among a package's modules, type-only imports included
(DESIGN.md: "Layers import downward only, type-only imports included")."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from collections.abc import Iterator
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = ROOT / "scripts" / "check-cycles"


@pytest.fixture
def check_cycles() -> ModuleType:
    loader = SourceFileLoader("check_cycles", str(SCRIPT))
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(loader.name, loader))
    loader.exec_module(module)
    return module


@pytest.fixture
def package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    root = tmp_path / "cyclic"
    root.mkdir()
    (root / "__init__.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    yield root
    for name in [name for name in sys.modules if name.split(".")[0] == "cyclic"]:
        del sys.modules[name]


def test_a_type_only_cycle_is_a_cycle(check_cycles: ModuleType, package: Path) -> None:
    (package / "core.py").write_text(
        "from __future__ import annotations\nfrom typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from cyclic.support import Scorer\n"
        "class Core:\n    scorer: Scorer\n"
    )
    (package / "support.py").write_text("from cyclic.core import Core\nclass Scorer(Core): ...\n")
    (package / "leaf.py").write_text("from cyclic.core import Core\n")
    assert check_cycles.cycles("cyclic") == [["cyclic.core", "cyclic.support"]]


def test_a_package_without_cycles_has_none(check_cycles: ModuleType, package: Path) -> None:
    (package / "core.py").write_text("class Core: ...\n")
    (package / "support.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from cyclic.core import Core\n"
    )
    assert check_cycles.cycles("cyclic") == []


def test_semantix_has_no_cycle_even_counting_type_only_imports() -> None:
    completed = subprocess.run(
        [sys.executable, str(SCRIPT)], capture_output=True, text=True, check=False, cwd=ROOT
    )
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout == "no import cycles among semantix modules\n"
