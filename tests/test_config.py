from __future__ import annotations

import re
from pathlib import Path

import pytest

from semantix import config


def test_threads_default_to_available_cores(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "available_cores", lambda: 8)
    assert config.default_threads() == 8


def test_threads_are_divided_among_xdist_workers(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(config, "available_cores", lambda: 8)
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "3")
    assert config.default_threads() == 2
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "16")
    assert config.default_threads() == 1


def test_threads_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SEMANTIX_THREADS", "3")
    assert config.default_threads() == 3


@pytest.mark.parametrize("bad", ["0", "-1", "many"])
def test_bad_thread_setting_is_named(monkeypatch: pytest.MonkeyPatch, bad: str) -> None:
    monkeypatch.setenv("SEMANTIX_THREADS", bad)
    with pytest.raises(
        ValueError, match=f"SEMANTIX_THREADS must be a positive integer, got '{bad}'"
    ):
        config.default_threads()


def test_cache_path_prefers_environment_then_user_cache(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("SEMANTIX_CACHE_PATH", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert config.cache_path() == tmp_path / "xdg" / "semantix"
    monkeypatch.setenv("SEMANTIX_CACHE_PATH", str(tmp_path / "mine"))
    assert config.cache_path() == tmp_path / "mine"


def test_every_variable_is_documented() -> None:
    page = (Path(__file__).parent.parent / "docs" / "environment-variables.md").read_text()
    documented = set(re.findall(r"^\| `([A-Z_]+)` \|", page, flags=re.MULTILINE))
    assert documented == {variable.name for variable in config.VARIABLES}


def test_only_config_reads_the_environment() -> None:
    package = Path(config.__file__).parent
    readers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if path.name != "config.py" and re.search(r"os\.environ|os\.getenv", path.read_text())
    )
    assert readers == []


def test_unknown_variables_are_refused() -> None:
    with pytest.raises(KeyError, match="add it to semantix.config.VARIABLES"):
        config.env("SEMANTIX_TYPO")


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_flag_is_named(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", value)
    with pytest.raises(ValueError, match=f"SEMANTIX_ORT_CACHE='{value}' is not a yes/no value"):
        config.ort_cache_enabled()
