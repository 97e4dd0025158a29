"""semantix.judges._deadline: a call waited for at most so long, its errors re-raised."""

from __future__ import annotations

import threading

import pytest

from semantix.judges._deadline import run_with_deadline


def test_a_quick_call_returns_its_value() -> None:
    assert run_with_deadline(lambda: 42, 5.0, lambda: TimeoutError("late"), name="t") == 42


def test_the_calls_error_is_re_raised() -> None:
    def boom() -> int:
        raise KeyError("inner")

    with pytest.raises(KeyError, match="inner"):
        run_with_deadline(boom, 5.0, lambda: TimeoutError("late"), name="t")


def test_a_call_past_the_deadline_raises_the_expiry_and_is_told_to_stop() -> None:
    release = threading.Event()
    told: list[str] = []

    def expired() -> BaseException:
        told.append("stop")
        release.set()  # let the abandoned call finish
        return TimeoutError("late")

    with pytest.raises(TimeoutError, match="late"):
        run_with_deadline(lambda: release.wait(30), 0.05, expired, name="t")
    assert told == ["stop"]


def test_the_call_runs_in_a_named_daemon_thread() -> None:
    thread = run_with_deadline(threading.current_thread, 5.0, lambda: TimeoutError(), name="x-1")
    assert (thread.name, thread.daemon) == ("x-1", True)
    assert thread is not threading.current_thread()
