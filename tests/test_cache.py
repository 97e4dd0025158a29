from __future__ import annotations

import threading
import time

import pytest

from semantix._cache import ModelCache, clear_cache, memo


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


def test_clear_forgets_every_region() -> None:
    cache = ModelCache()
    cache.get_or_create("a", lambda: 1)
    cache.get_or_create("j", lambda: "judge", region="judges")
    cache.clear()
    assert len(cache) == 0
    assert cache.get_or_create("j", lambda: "rebuilt", region="judges") == "rebuilt"


def test_clear_cache_empties_every_memo() -> None:
    calls: list[str] = []

    @memo(maxsize=4)
    def parse(text: str) -> str:
        calls.append(text)
        return text.upper()

    assert parse("a") == parse("a") == "A"
    clear_cache()
    parse("a")
    assert calls == ["a", "a"]


def test_regions_are_bounded_separately() -> None:
    cache = ModelCache(maxsize=1)
    cache.get_or_create("model", lambda: 1)
    for n in range(40):
        cache.get_or_create(("calibration", n), lambda n=n: n, region="calibrations")
    assert cache.keys() == ["model"]  # calibrations never evict a loaded model


def test_remembered_failure_is_raised_without_rebuilding() -> None:
    cache = ModelCache()
    builds: list[int] = []

    def missing() -> int:
        builds.append(1)
        raise LookupError("model not found")

    for _ in range(3):
        with pytest.raises(LookupError, match="model not found"):
            cache.get_or_create("k", missing, remember_failure=True)
    assert builds == [1]
    cache.clear()
    assert cache.get_or_create("k", lambda: 7, remember_failure=True) == 7


def test_maxsize_must_be_positive() -> None:
    with pytest.raises(ValueError, match="maxsize must be at least 1, got 0"):
        ModelCache(maxsize=0)
