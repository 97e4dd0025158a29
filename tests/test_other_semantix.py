"""Another package that claims the name semantix (pytest-semantix's plugin name) is refused at
once, with what to do; semantix-ai beside us is refused at import (tests/test_import.py)."""

from __future__ import annotations

import pytest


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
