"""Another package that claims the name semantix (pytest-semantix's plugin name) is refused at
once, with what to do; semantix-ai beside us is refused at import (tests/test_import.py)."""

from __future__ import annotations

import pytest


def test_pytest_semantix_installed_too_is_a_usage_error(pytester: pytest.Pytester) -> None:
    # pytest-semantix registers its plugin under our name: pytest would load only one of them.
    site = pytester.mkdir("site")
    (site / "pytest_semantix-0.1.0.dist-info").mkdir()
    (site / "pytest_semantix-0.1.0.dist-info" / "METADATA").write_text("Name: pytest-semantix\n")
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    pytester.syspathinsert(site)
    result = pytester.runpytest()
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["*pytest-semantix is installed too*pip uninstall -y pytest-semantix*"]
    )
