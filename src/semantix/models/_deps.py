"""Optional dependencies: check for them cheaply, import them late, name the extra when missing."""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

from semantix.errors import JudgeUnavailableError

__all__ = ["ensure_installed", "install_command", "require"]


def _missing(modules: tuple[str, ...]) -> list[str]:
    return [name for name in modules if not _found(name)]


def _found(name: str) -> bool:
    """Whether ``name`` can be imported; a dotted name whose parent package is missing is not
    (``find_spec`` raises for it, importing the parents)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def ensure_installed(modules: tuple[str, ...], *, extra: str, feature: str) -> None:
    """Raise `JudgeUnavailableError` unless every module is importable (``find_spec`` only)."""
    missing = _missing(modules)
    if missing:
        verb = "is" if len(missing) == 1 else "are"
        raise JudgeUnavailableError(
            f"{feature} needs {', '.join(missing)}, which {verb} not installed; "
            f"run: {install_command(extra)}"
        )


def install_command(extra: str) -> str:
    """How to install ``extra``: from a clone (no release is on PyPI yet) and, later, PyPI."""
    return f"pip install -e '.[{extra}]' in a clone (or pip install 'semantix-judge[{extra}]')"


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module`` or raise `JudgeUnavailableError` naming the extra to install."""
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        raise JudgeUnavailableError(
            f"{feature} needs {module}, which cannot be imported ({exc}); "
            f"run: {install_command(extra)}"
        ) from None
