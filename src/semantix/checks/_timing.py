"""``Latency``: a ceiling on the time the system took, read from the time the subject carries
(measured by `semantix.agents.timed` or a repeated run); a subject without that time raises
`UnenforceableCheckError`, never passes.
"""

from __future__ import annotations

from typing import ClassVar

from semantix._config import is_number
from semantix._intent import Intent
from semantix.checks._base import Structural, build, verdict
from semantix.errors import UnenforceableCheckError
from semantix.judges._base import Verdict
from semantix.outputs import OutputView

__all__ = ["Latency"]


class LatencyCheck(Structural, abstract=True):
    """Base of ``Latency``: ``ceilings`` are (keyword, `Timing` field, maximum ms) triples."""

    needs: ClassVar[str] = "timing"
    ceilings: ClassVar[tuple[tuple[str, str, float], ...]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        facts, problems = [], []
        timing = view.timing
        if (
            timing is not None
            and is_number(timing.total_ms, low=0)
            and is_number(timing.first_token_ms, low=0)
            and timing.first_token_ms > timing.total_ms
        ):
            raise UnenforceableCheckError(
                f"{cls.__name__} cannot be checked: the output's timing contradicts itself (its "
                f"first chunk after {timing.first_token_ms:g} ms, but {timing.total_ms:g} ms in "
                "all); a hand-built timing is the usual cause"
            )
        for keyword, field, maximum in cls.ceilings:
            took = None if view.timing is None else getattr(view.timing, field)
            if took is None:
                raise UnenforceableCheckError(
                    f"{cls.__name__} cannot be checked: the output carries no "
                    f"{'time to the first chunk' if keyword == 'first_token_ms' else 'timing'} "
                    f"({view.timing or 'a plain output never does'}); measure it with "
                    "semantix.agents.timed(fn, *args) (a stream it consumes gives the first "
                    "chunk's time), or check it in a repeated run, which times each call"
                )
            if not is_number(took, low=0):
                raise UnenforceableCheckError(
                    f"{cls.__name__} cannot be checked: the output's timing says {field}="
                    f"{took!r}, not a time of 0 ms or more ({view.timing}); a clock that went "
                    "backwards or a hand-built timing is the usual cause"
                )
            what = "first chunk after" if keyword == "first_token_ms" else "took"
            if took > maximum:
                problems.append(f"{what} {took:.0f} ms, more than the maximum {maximum:g} ms")
            else:
                facts.append(f"{what} {took:.0f} ms (at most {maximum:g} ms)")
        return verdict(not problems, "; ".join(problems or facts))


def Latency(*, max_ms: float | None = None, first_token_ms: float | None = None) -> type[Intent]:
    """The check "the system answered within ``max_ms`` (and its stream's first chunk came within
    ``first_token_ms``)", in milliseconds.

    Raises:
        ValueError: no ceiling, or one that is not a number above 0.
        UnenforceableCheckError: when checked, the output carries no such time.
    """
    ceilings = []
    for keyword, field, value in (
        ("max_ms", "total_ms", max_ms),
        ("first_token_ms", "first_token_ms", first_token_ms),
    ):
        if value is None:
            continue
        if not is_number(value, low=0) or value == 0:
            raise ValueError(
                f"Latency({keyword}={value!r}) must be a number of milliseconds above 0, e.g. "
                f"Latency({keyword}=2000)"
            )
        ceilings.append((keyword, field, float(value)))
    if not ceilings:
        raise ValueError(
            "Latency() needs max_ms= or first_token_ms= (or both), e.g. Latency(max_ms=2000)"
        )
    arguments = ", ".join(f"{keyword}={maximum:g}" for keyword, _, maximum in ceilings)
    limits = " and ".join(
        f"{'its first chunk within' if keyword == 'first_token_ms' else 'within'} {maximum:g} ms"
        for keyword, _, maximum in ceilings
    )
    return build(
        LatencyCheck,
        f"Latency({arguments})",
        f"The system answered {limits}.",
        ceilings=tuple(ceilings),
    )
