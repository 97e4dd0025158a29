"""The options of a check, declared once for every entry point, sync and async.

``assert_semantic``, ``evaluate_semantic``, ``evaluate_many``, their async forms and every other
runner take the same keyword options, ``**options: Unpack[CheckOptions]``; `read_options` checks
them once, before anything is judged, into one `Options`. Adding an option is adding it here.

- ``judge``: a judge object, or a spec such as ``"embedding"`` or ``"llm:gpt-4o-mini"``;
  default: the run's (``set_default_judge``, ``--semantic-judge``, ``SEMANTIX_JUDGE``), else the
  quantized NLI judge;
- ``threshold``: overrides every semantic leaf's threshold (step 1 of the threshold order);
- ``timeout``: seconds the WHOLE check may take — building the judge, calibration and every
  request of its batch — before `JudgeTimeoutError`; default: the run's
  (``--semantic-timeout``, the ``semantic`` marker's), else no limit. Everywhere in semantix
  ``timeout`` means this; a repeated check's timeout bounds judging all of its runs' outputs,
  which is one check of many outputs.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypedDict

from semantix._config import check_seconds, check_threshold
from semantix.judges._base import JudgeLike, check_judge

__all__ = ["CheckOptions", "Options", "read_options"]


class CheckOptions(TypedDict, total=False):
    """The keyword options every check takes (module docstring)."""

    judge: JudgeLike | str | None
    threshold: float | None
    timeout: float | None


@dataclass(frozen=True, slots=True)
class Options:
    """`CheckOptions` as checked: what one check uses."""

    judge: object = None
    threshold: float | None = None
    timeout: float | None = None


#: No option given: the run's defaults for everything.
DEFAULT = Options()

#: Options some runners used to take, and what replaces them.
_GONE = {
    "max_latency_ms": "put Latency(max_ms=...) (semantix.checks) in the intent",
    "latency_percentile": (
        "put Latency(max_ms=...) in the intent and set min_pass_rate: a p95 ceiling is "
        "min_pass_rate=0.95 on the Latency leaf"
    ),
    "max_cost_usd": "put Cost(max_usd=..., prices=...) (semantix.checks) in the intent",
    "prices": "pass prices= to Cost(max_usd=..., prices=...) in the intent",
    "max_workers": "use concurrency=, the name of the sync and async runners alike",
}


def read_options(options: Mapping[str, Any], *, what: str, extra: tuple[str, ...] = ()) -> Options:
    """``options`` checked into `Options`; ``what`` names the caller, ``extra`` the options it
    takes besides the check's (the caller reads those itself).

    Raises:
        TypeError: an unknown option (with the closest name), a judge class or an object
            without ``evaluate``.
        ValueError: a threshold outside [0, 1] or NaN, a timeout that is not a positive number.
    """
    if not options:
        return DEFAULT
    if not _KNOWN.issuperset(options):
        unknown = options.keys() - _KNOWN - set(extra)
        if unknown:
            raise TypeError(_unknown(min(unknown), what, (*_KNOWN, *extra)))
    judge = options.get("judge")
    threshold = options.get("threshold")
    timeout = options.get("timeout")
    return Options(
        judge if judge is None or isinstance(judge, str) else check_judge(judge),
        None if threshold is None else check_threshold(threshold),
        None if timeout is None else check_seconds(timeout),
    )


_KNOWN = frozenset(CheckOptions.__annotations__)


def _unknown(name: str, what: str, known: tuple[str, ...]) -> str:
    if name in _GONE:
        return f"{what}() no longer takes {name}=: {_GONE[name]}"
    import difflib  # only for the error

    close = difflib.get_close_matches(name, known, n=1)
    hint = f"; did you mean {close[0]}=?" if close else ""
    return f"{what}() got an unknown option {name}={hint} Its options: {', '.join(sorted(known))}"
