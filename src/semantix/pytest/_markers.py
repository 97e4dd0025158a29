"""The ``semantic`` marker, read once per test: its arguments on the function, its class and its
module merge key by key, the closest first; each is checked here, and a bad one becomes the
test's error (`MarkerSettings.error`), naming the test, the marker and where it sits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import pytest
from _pytest.nodes import Node

from semantix._config import check_threshold, is_number
from semantix.errors import SemantixError

__all__ = ["MARKER_HELP", "MARKER_KEYWORDS", "MarkerSettings", "marker_settings"]

#: What ``@pytest.mark.semantic(...)`` accepts.
MARKER_KEYWORDS = ("judge", "threshold", "timeout", "runs", "min_pass_rate")

#: The marker's line in ``pytest --markers``.
MARKER_HELP = (
    "semantic(judge=None, threshold=None, timeout=None, runs=None, min_pass_rate=None): the "
    "judge (an object or a spec such as 'embedding' or 'module:attr'), default threshold and "
    "timeout of every semantic assertion in this test. The threshold takes the place of the "
    "judge's recommended threshold: thresholds written on intents and threshold= arguments "
    "still win. Markers on the module, class and function merge key by key, the closest first."
)


class MarkerSettings(NamedTuple):
    """A test's merged ``semantic`` markers, checked; or the error to report for them."""

    judge: object = None
    threshold: float | None = None
    timeout: float | None = None
    runs: int | None = None
    min_pass_rate: float | None = None
    error: str | None = None


_STASH = pytest.StashKey[MarkerSettings]()


def marker_settings(item: pytest.Item) -> MarkerSettings:
    """The checked, merged ``semantic`` markers of ``item`` (read once, kept on the item)."""
    if _STASH not in item.stash:
        item.stash[_STASH] = _read(item)
    return item.stash[_STASH]


class _MarkerError(Exception):
    pass


def _read(item: pytest.Item) -> MarkerSettings:
    merged: dict[str, tuple[Any, Node]] = {}
    for node, mark in item.iter_markers_with_node("semantic"):  # the closest first
        where = _where(item, node)
        if mark.args:
            return MarkerSettings(
                error=f"{where} takes keywords only, got positional {mark.args!r}; write e.g. "
                "@pytest.mark.semantic(judge='embedding', threshold=0.8)"
            )
        unknown = sorted(set(mark.kwargs) - set(MARKER_KEYWORDS))
        if unknown:
            return MarkerSettings(
                error=f"{where} got unknown {', '.join(f'{name}=' for name in unknown)}; it "
                f"accepts {', '.join(f'{name}=' for name in MARKER_KEYWORDS)}"
            )
        for key, value in mark.kwargs.items():
            merged.setdefault(key, (value, node))
    checked: dict[str, Any] = {}
    for key, (value, node) in merged.items():
        if value is None:
            continue
        try:
            checked[key] = _CHECKS[key](value)
        except (_MarkerError, ValueError, SemantixError) as exc:
            return MarkerSettings(error=f"{_where(item, node, f'({key}={value!r})')}: {exc}")
    return MarkerSettings(**checked)


def _where(item: pytest.Item, node: Node, arguments: str = "") -> str:
    """``test.py::test_x: @pytest.mark.semantic(...)``, and the marker's place (class, module)."""
    place = "" if node is item else f" on {node.nodeid}"
    return f"{item.nodeid}: @pytest.mark.semantic{arguments}{place}"


def _judge(value: object) -> object:
    from semantix.judges._base import check_judge  # a marker naming a judge: not at start-up
    from semantix.pipeline._specs import check_spec

    if isinstance(value, str):
        return check_spec(value, source="the semantic marker's judge")
    try:
        return check_judge(value, what="the judge")
    except TypeError as exc:
        raise _MarkerError(
            f"{exc}; or give a spec, e.g. @pytest.mark.semantic(judge='embedding')"
        ) from None


def _timeout(value: object) -> float:
    if not is_number(value, low=0.0) or value == 0:
        raise _MarkerError(
            f"timeout must be a positive number of seconds, got {value!r} "
            f"({type(value).__name__}); write e.g. @pytest.mark.semantic(timeout=30)"
        )
    return float(value)


def _runs(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise _MarkerError(
            f"runs must be a whole number >= 1, got {value!r} ({type(value).__name__}); write "
            "e.g. @pytest.mark.semantic(runs=10)"
        )
    return value


_CHECKS: dict[str, Callable[[Any], object]] = {
    "judge": _judge,
    "threshold": lambda value: check_threshold(
        value, what="threshold", example="@pytest.mark.semantic(threshold=0.8)"
    ),
    "timeout": _timeout,
    "runs": _runs,
    "min_pass_rate": lambda value: check_threshold(
        value, what="min_pass_rate", example="@pytest.mark.semantic(runs=10, min_pass_rate=0.8)"
    ),
}
