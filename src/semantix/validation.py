"""Checks of user-given values, shared by every layer (the bottom floor: imports only errors).

Each check names the value at fault, says what was expected and how to fix it.
"""

from __future__ import annotations

import math
from typing import TypeGuard

from semantix.errors import ConfigurationError

__all__ = ["check_positive_int", "check_seconds", "check_threshold", "is_number"]


def is_number(
    value: object, *, low: float = -math.inf, high: float = math.inf
) -> TypeGuard[int | float]:
    """Whether ``value`` is a finite int or float (not a bool) in [low, high]."""
    return (
        not isinstance(value, bool)
        and isinstance(value, (int, float))
        and math.isfinite(value)
        and low <= value <= high
    )


def check_threshold(
    value: object, *, what: str = "threshold", example: str = "threshold=0.8"
) -> float:
    """Return ``value`` as a float in [0, 1], or raise a ``ValueError`` that names it.

    ``example`` is the fix the message suggests (``min_pass_rate=0.8`` for a floor).
    """
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        # A ValueError, not TypeError: the documented contract for every invalid threshold.
        raise ValueError(  # noqa: TRY004
            f"{what} must be a number between 0 and 1, got {value!r} "
            f"({type(value).__name__}); pass e.g. {example}"
        )
    number = float(value)
    if math.isnan(number) or not 0.0 <= number <= 1.0:
        raise ValueError(
            f"{what} must be between 0 and 1 inclusive, got {value!r}; pass e.g. {example}"
        )
    return number


def check_positive_int(value: object, *, what: str, example: int, optional: bool = False) -> None:
    """Raise a ``ConfigurationError`` unless ``value`` is a positive int (or None if optional)."""
    if optional and value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        allowed = " or None (all available cores)" if optional else ""
        raise ConfigurationError(
            f"{what} must be a positive int{allowed}, got {value!r}; pass e.g. {what}={example}"
        )


def check_seconds(value: object, *, what: str = "timeout") -> float | None:
    """Return ``value`` as a positive, finite number of seconds (None passes), else ValueError."""
    if value is None:
        return None
    if not is_number(value, low=0.0) or value == 0:
        raise ValueError(
            f"{what} must be a positive number of seconds, got {value!r}; pass e.g. "
            f"{what}=30, or None for no limit"
        )
    return float(value)
