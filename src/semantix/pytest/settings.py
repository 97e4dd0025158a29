"""Reading the plugin's configuration: options with their ini keys, and the ``semantic`` marker.

Every value is checked here, once, with an error that names it: a bad option or ini value is a
``pytest.UsageError``; a bad marker is reported as an error of its test (``MarkerSettings.error``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from semantix.config import check_threshold
from semantix.pipeline.specs import check_spec

__all__ = [
    "HTML_INI",
    "HTML_OPTION",
    "MARKER_KEYWORDS",
    "MarkerSettings",
    "add_html_options",
    "html_report_path",
    "json_path",
    "marker_settings",
    "option",
    "parse_bool",
    "parse_timeout",
]

#: What ``@pytest.mark.semantic(...)`` accepts.
MARKER_KEYWORDS = ("judge", "threshold", "timeout", "runs", "min_pass_rate")


def option(config: pytest.Config, name: str) -> str | None:
    """The command-line value if given, else the ini value (``None`` when neither is set)."""
    value = config.getoption(name)
    if value is None:
        ini = config.getini(name)
        value = ini.strip() if isinstance(ini, str) and ini.strip() else None
    return value  # type: ignore[no-any-return]


def parse_bool(name: str, value: object) -> bool:
    """An ini boolean: true/false, yes/no, on/off, 1/0 (empty is false)."""
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("", "0", "false", "no", "off"):
        return False
    raise pytest.UsageError(f"ini option {name} = {value!r} is not a boolean; write true or false")


def parse_timeout(value: str | None) -> float | None:
    """``--semantic-timeout`` / ``semantic_timeout`` / the marker's ``timeout`` as seconds."""
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise pytest.UsageError(
            f"--semantic-timeout / semantic_timeout = {value!r} is not a positive number of "
            "seconds; write e.g. --semantic-timeout 30"
        )
    return seconds


def json_path(config: pytest.Config) -> Path | None:
    """``--semantic-report-json`` relative to the current directory, the ini key to the ini file."""
    value = config.getoption("semantic_report_json")
    if value:
        return Path(config.invocation_params.dir, value).resolve()
    ini = config.getini("semantic_report_json")
    if isinstance(ini, str) and ini.strip():
        base = config.inipath.parent if config.inipath is not None else config.rootpath
        return Path(base, ini.strip()).resolve()
    return None


@dataclass(frozen=True)
class MarkerSettings:
    """A test's ``@pytest.mark.semantic(...)``, checked; or the error to report for it."""

    judge: object = None
    threshold: float | None = None
    timeout: float | None = None
    error: str | None = None


_MARKER = pytest.StashKey["MarkerSettings"]()


def marker_settings(item: pytest.Item) -> MarkerSettings:
    """The checked ``semantic`` marker of ``item`` (cached on the item)."""
    settings = item.stash.get(_MARKER, None)
    if settings is None:
        settings = _read_marker(item)
        item.stash[_MARKER] = settings
    return settings


def _read_marker(item: pytest.Item) -> MarkerSettings:
    marker = item.get_closest_marker("semantic")
    if marker is None:
        return MarkerSettings()
    where = f"{item.nodeid}: @pytest.mark.semantic"
    if marker.args:
        return MarkerSettings(
            error=f"{where} takes keywords only, got positional {marker.args!r}; write "
            "@pytest.mark.semantic(judge=..., threshold=...)"
        )
    unknown = sorted(set(marker.kwargs) - set(MARKER_KEYWORDS))
    if unknown:
        return MarkerSettings(
            error=f"{where} got unknown {', '.join(unknown)}; it accepts "
            f"{', '.join(f'{name}=' for name in MARKER_KEYWORDS)}"
        )
    judge = marker.kwargs.get("judge")
    if (
        judge is not None
        and not isinstance(judge, str)
        and not callable(getattr(judge, "evaluate", None))
    ):
        return MarkerSettings(
            error=f"{where}(judge={judge!r}) is neither a judge (an object with evaluate(...)) "
            "nor a spec such as 'embedding' or 'module:attr'"
        )
    try:
        if isinstance(judge, str):
            judge = check_spec(judge, source="semantic marker judge")
        threshold = marker.kwargs.get("threshold")
        if threshold is not None:
            threshold = check_threshold(threshold, what="semantic marker threshold")
        timeout = marker.kwargs.get("timeout")
        if timeout is not None:
            timeout = parse_timeout(str(timeout))
    except (ValueError, pytest.UsageError) as exc:
        return MarkerSettings(error=f"{where}: {exc}")
    return MarkerSettings(judge=judge, threshold=threshold, timeout=timeout)


HTML_OPTION = "--semantic-report-html"
HTML_INI = "semantic_report_html"


def add_html_options(group: pytest.OptionGroup, parser: pytest.Parser) -> None:
    """``--semantic-report-html PATH`` and the ini key ``semantic_report_html``."""
    group.addoption(
        HTML_OPTION,
        dest=HTML_INI,
        default=None,
        metavar="PATH",
        help="write the run's semantic report as one self-contained HTML page to PATH",
    )
    parser.addini(HTML_INI, "write the semantic report as an HTML page to this path")


def html_report_path(pytest_config: pytest.Config) -> Path | None:
    """The page's path: the option relative to the current directory, the ini key to the ini
    file (like ``--semantic-report-json``); None when neither is set."""
    value = pytest_config.getoption(HTML_INI)
    if value:
        return Path(pytest_config.invocation_params.dir, value).resolve()
    ini = pytest_config.getini(HTML_INI)
    if isinstance(ini, str) and ini.strip():
        inipath = pytest_config.inipath
        base = inipath.parent if inipath is not None else pytest_config.rootpath
        return Path(base, ini.strip()).resolve()
    return None
