from __future__ import annotations

import re
from pathlib import Path

import pytest

from semantix import _config as config
from semantix.errors import ConfigurationError


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
        if path.name != "_config.py" and re.search(r"os\.environ|os\.getenv", path.read_text())
    )
    assert readers == []


def test_unknown_variables_are_refused() -> None:
    with pytest.raises(KeyError, match="add it to semantix._config.VARIABLES"):
        config.env("SEMANTIX_TYPO")


@pytest.mark.parametrize("value", ["maybe", "2"])
def test_a_bad_flag_is_named(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv("SEMANTIX_ORT_CACHE", value)
    with pytest.raises(ValueError, match=f"SEMANTIX_ORT_CACHE='{value}' is not a yes/no value"):
        config.ort_cache_enabled()


def test_the_verdict_store_path_is_one_rule(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from semantix.verdicts import VerdictStore
    from semantix.verdicts._modes import DEFAULT_PATH

    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("SEMANTIX_VERDICTS_PATH", raising=False)
    assert DEFAULT_PATH is config.DEFAULT_VERDICTS_PATH
    assert config.verdicts_path() == tmp_path / ".semantix" / "verdicts" == VerdictStore().path
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", "~/frozen")
    assert config.verdicts_path() == Path.home() / "frozen" == VerdictStore().path
    # a path given wins over the variable, expanded and made absolute the same way
    assert config.verdicts_path("~/given") == Path.home() / "given" == VerdictStore("~/given").path
    assert config.verdicts_path("rel") == tmp_path / "rel" == VerdictStore("rel").path


@pytest.mark.parametrize(
    ("value", "offline"),
    [(None, False), ("1", True), ("ON", True), ("yes", True), ("True", True), ("0", False),
     ("off", False), ("no", False), ("false", False), ("  ", False)],
)  # fmt: skip
def test_hf_offline_reads_the_one_boolean_vocabulary(
    monkeypatch: pytest.MonkeyPatch, value: str | None, offline: bool
) -> None:
    if value is None:
        monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    else:
        monkeypatch.setenv("HF_HUB_OFFLINE", value)
    assert config.hf_offline() is offline


def test_a_bad_hf_offline_value_is_named(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "maybe")
    with pytest.raises(ConfigurationError, match="HF_HUB_OFFLINE='maybe' is not a yes/no value"):
        config.hf_offline()
