"""The frozen-verdict modes (their table: docs/frozen-verdicts.md): which one applies, and what
each lets the recording judge do. The environment is read through ``semantix._config``.
"""

from __future__ import annotations

from dataclasses import dataclass

from semantix import _config as config

__all__ = ["DEFAULT_PATH", "MODES", "ModePolicy", "policy", "resolve_mode"]

#: The modes a recording judge runs in.
MODES: tuple[str, ...] = config.VERDICT_MODES

#: Store directory, relative to the current directory, when nothing else says where.
DEFAULT_PATH = config.DEFAULT_VERDICTS_PATH

#: What to tell a user whose verdict is missing or unusable.
RECORD_HINT = (
    "record it by running once with the judge available and SEMANTIX_VERDICTS=update "
    "(pytest: --semantic-verdicts update), then commit the new file"
)


@dataclass(frozen=True, slots=True)
class ModePolicy:
    """What one mode allows."""

    mode: str
    reads_store: bool  #: stored verdicts are looked up
    writes_store: bool  #: the judge's verdicts are written to the store
    calls_judge: bool  #: the wrapped judge may be asked
    exact_threshold: bool  #: a stored verdict replays only at the threshold it was recorded at


_POLICIES = {
    "off": ModePolicy("off", reads_store=False, writes_store=False, calls_judge=True,
                      exact_threshold=False),
    "replay": ModePolicy("replay", reads_store=True, writes_store=False, calls_judge=False,
                         exact_threshold=False),
    "update": ModePolicy("update", reads_store=True, writes_store=True, calls_judge=True,
                         exact_threshold=False),
    "strict": ModePolicy("strict", reads_store=True, writes_store=False, calls_judge=False,
                         exact_threshold=True),
}  # fmt: skip


def resolve_mode(mode: str | None = None) -> str:
    """The mode to use: ``mode`` if given, else ``SEMANTIX_VERDICTS``, else ``"off"`` (a
    `ConfigurationError` for a mode not in ``MODES``)."""
    if mode is None:
        return config.verdicts_mode() or "off"
    return config.check_verdict_mode(mode, source="mode")


def policy(mode: str) -> ModePolicy:
    """The ``ModePolicy`` of a resolved mode."""
    return _POLICIES[mode]
