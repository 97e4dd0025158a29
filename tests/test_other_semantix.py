"""Another package that claims the name semantix (pytest-semantix's plugin name) is refused at
once, with what to do; semantix-ai beside us is refused at import (tests/test_import.py)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize(
    ("distribution", "clash"),
    [
        # registers its plugin under our name: pytest would load only one of them
        ("pytest-semantix", "registers its pytest plugin under the same name"),
        # defines our semantic_matcher fixture and ini keys: pytest would use one of them
        ("pytest-semantic", "defines the semantic_matcher fixture"),
    ],
)
def test_a_clashing_plugin_installed_too_is_a_usage_error(
    pytester: pytest.Pytester, distribution: str, clash: str
) -> None:
    site = pytester.mkdir("site")
    metadata = site / f"{distribution.replace('-', '_')}-0.1.0.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text(f"Name: {distribution}\n")
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.syspathinsert(site)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        [f"*{distribution} is installed too*{clash}*pip uninstall -y {distribution} *"]
    )


def test_the_pytest_entry_point_is_the_plugin_module_itself() -> None:
    import tomllib

    import _semantix_pytest
    import semantix.pytest._plugin

    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["entry-points"]["pytest11"] == {"semantix": "_semantix_pytest"}
    assert _semantix_pytest is semantix.pytest._plugin


def test_semantix_ai_installed_after_us_is_named_when_pytest_loads_the_plugin(
    tmp_path: Path,
) -> None:
    """Issue 34, item 9: semantix-ai installed last hides our package; pytest said only
    "No module named 'semantix.pytest'"."""
    shadow = tmp_path / "site"
    (shadow / "semantix").mkdir(parents=True)
    (shadow / "semantix" / "__init__.py").write_text('"""semantix-ai\'s package."""\n')
    metadata = shadow / "semantix_ai-0.3.3.dist-info"
    metadata.mkdir()
    (metadata / "METADATA").write_text("Metadata-Version: 2.1\nName: semantix-ai\nVersion: 0.3.3\n")
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(shadow), str(ROOT / "src")]),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # the installed entry point: loaded by name below
    }
    completed = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "_semantix_pytest", "-p", "no:cacheprovider"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    assert completed.returncode != 0
    output = completed.stdout + completed.stderr
    assert "No module named 'semantix.pytest'" not in output
    assert (
        "semantix-ai 0.3.3 is installed too, and its 'semantix' package hides semantix-judge's"
        in output
    )
    assert "pip uninstall -y semantix-ai" in output
