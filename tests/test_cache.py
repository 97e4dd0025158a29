from __future__ import annotations

import threading
import time

import pytest

from semantix.cache import ModelCache


def test_builds_once_per_key_and_reuses() -> None:
    cache = ModelCache()
    first = cache.get_or_create(("m", 1), lambda: object())
    assert cache.get_or_create(("m", 1), lambda: object()) is first
    assert cache.builds == 1
    assert ("m", 1) in cache and len(cache) == 1


def test_concurrent_requests_for_one_key_build_once() -> None:
    cache = ModelCache()
    calls: list[int] = []

    def slow_factory() -> int:
        calls.append(1)
        time.sleep(0.05)
        return len(calls)

    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.get_or_create("k", slow_factory)))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [1]
    assert results == [1] * 8


def test_failed_build_caches_nothing() -> None:
    cache = ModelCache()

    def broken() -> int:
        raise RuntimeError("no model")

    with pytest.raises(RuntimeError):
        cache.get_or_create("k", broken)
    assert "k" not in cache
    assert cache.get_or_create("k", lambda: 5) == 5


def test_bounded_lru_evicts_least_recently_used() -> None:
    cache = ModelCache(maxsize=2)
    cache.get_or_create("a", lambda: 1)
    cache.get_or_create("b", lambda: 2)
    cache.get_or_create("a", lambda: 99)  # touch a
    cache.get_or_create("c", lambda: 3)
    assert cache.keys() == ["a", "c"]


def test_clear_forgets_models_and_default_judge() -> None:
    cache = ModelCache()
    cache.get_or_create("a", lambda: 1)
    judge = cache.default_judge(lambda: "judge")
    assert cache.default_judge(lambda: "other") == judge
    cache.clear()
    assert len(cache) == 0
    assert cache.default_judge(lambda: "rebuilt") == "rebuilt"


def test_set_default_judge_overrides_until_reset() -> None:
    cache = ModelCache()
    cache.set_default_judge("mine")
    assert cache.default_judge(lambda: "built") == "mine"
    cache.set_default_judge(None)
    assert cache.default_judge(lambda: "built") == "built"


def test_observers_are_called_and_removable() -> None:
    cache = ModelCache()
    seen: list[object] = []
    cache.add_observer(seen.append)
    for callback in cache.observers():
        callback("result")
    cache.remove_observer(seen.append)
    assert cache.observers() == []
    assert seen == ["result"]


def test_maxsize_must_be_positive() -> None:
    with pytest.raises(ValueError, match="maxsize must be at least 1, got 0"):
        ModelCache(maxsize=0)
