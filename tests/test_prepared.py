"""What a check is made from (`semantix.pipeline._plans`, `semantix._context.current`) is read at
each check: the next check sees a change."""

from __future__ import annotations

import pytest

from semantix import FakeJudge, Intent, evaluate_semantic, set_default_judge
from semantix import _context as context


class Polite(Intent):
    """The text must be polite."""


def _threshold(**options: object) -> tuple[float, str]:
    (leaf,) = evaluate_semantic("Thank you.", Polite, **options).leaves  # type: ignore[arg-type]
    return leaf.threshold, leaf.threshold_source


def test_an_intent_threshold_set_after_a_check_is_used_by_the_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    assert _threshold(judge=judge) == (0.8, "default")
    monkeypatch.setattr(Polite, "threshold", 0.6)
    assert _threshold(judge=judge) == (0.6, "intent")
    monkeypatch.undo()
    assert _threshold(judge=judge) == (0.8, "default")


def test_a_judge_attribute_set_after_a_check_is_used_by_the_next() -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    assert _threshold(judge=judge) == (0.8, "default")
    judge.recommended_threshold = 0.55
    assert _threshold(judge=judge) == (0.55, "judge")


def test_the_run_defaults_and_the_scope_are_read_at_each_check() -> None:
    ours = FakeJudge(lambda output, intent: 0.9, recommended_threshold=0.3)
    theirs = FakeJudge(lambda output, intent: 0.9, recommended_threshold=0.4)
    set_default_judge(ours)
    try:
        assert _threshold() == (0.3, "judge")
        with context.run_defaults(judge=theirs):
            assert _threshold() == (0.4, "judge")
            with context.scope(threshold=0.45):
                assert _threshold() == (0.45, "marker")
            assert _threshold() == (0.4, "judge")
        assert _threshold() == (0.3, "judge")
    finally:
        set_default_judge(None)


def test_the_verdict_mode_variable_is_read_at_each_check(
    monkeypatch: pytest.MonkeyPatch, tmp_path: object
) -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    monkeypatch.setenv("SEMANTIX_VERDICTS_PATH", str(tmp_path))
    evaluate_semantic("Thank you.", Polite, judge=judge)
    monkeypatch.setenv("SEMANTIX_VERDICTS", "strict")
    from semantix.errors import VerdictNotRecordedError

    with pytest.raises(VerdictNotRecordedError):
        evaluate_semantic("Thank you.", Polite, judge=judge)


def test_the_defaults_are_merged_again_when_a_layer_changes() -> None:
    before = context.current()
    assert context.current() is before  # kept while nothing changes
    context.set_defaults(timeout=7.0)
    try:
        # (the session's own run defaults, such as its verdict store's root, stay under it)
        assert context.current() == before._replace(timeout=7.0)
        with context.scope(timeout=3.0):
            assert context.current().timeout == 3.0
        assert context.current().timeout == 7.0
    finally:
        context.set_defaults(timeout=None)
    assert context.current() == before


def test_clear_cache_forgets_the_verdicts_checks_remembered() -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    evaluate_semantic("Thank you.", Polite, judge=judge)
    evaluate_semantic("Thank you.", Polite, judge=judge)
    assert len(judge.calls) == 1  # remembered
    from semantix import clear_cache

    clear_cache()
    evaluate_semantic("Thank you.", Polite, judge=judge)
    assert len(judge.calls) == 2


class _Counting(FakeJudge):
    """A judge that counts how often its declared threshold is read."""

    reads = 0

    @property  # type: ignore[override]
    def recommended_threshold(self) -> float:
        type(self).reads += 1
        return 0.5

    @recommended_threshold.setter
    def recommended_threshold(self, value: object) -> None:
        pass


def test_a_check_reads_what_its_judge_declares_once_and_keeps_it_on_nothing_of_the_users() -> None:
    """Issue 42: abilities were cached inside the judge object and a planned intent class."""
    judge = _Counting(lambda output, intent: 0.9)
    state, intent_state = dict(vars(judge)), dict(vars(Polite))
    for count in (1, 2, 3):
        evaluate_semantic(f"Thank you {count}.", Polite, judge=judge)
        assert _Counting.reads == count
    assert vars(judge).keys() == state.keys()
    assert dict(vars(Polite)).keys() - intent_state.keys() <= {"_cached_description"}


def test_one_check_asks_its_judge_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 42: a recording wrapper asked the judge through the gateway a second time."""
    from semantix.judges import _calls as calls

    asked: list[int] = []
    real = calls._ask

    def counted(*args: object) -> object:
        asked.append(len(args[1]))  # type: ignore[arg-type]
        return real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(calls, "_ask", counted)
    judge = FakeJudge(lambda output, intent: 0.9)
    evaluate_semantic("Thank you.", Polite & "The text thanks the reader.", judge=judge)
    assert asked == [2]


def test_a_base_class_threshold_set_after_a_check_is_used_by_its_subclass_next(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Strict(Intent, abstract=True):
        threshold = 0.7

    class Courteous(Strict):
        """The text is courteous."""

    judge = FakeJudge(lambda output, intent: 0.9)
    (leaf,) = evaluate_semantic("Thank you.", Courteous, judge=judge).leaves
    assert (leaf.threshold, leaf.threshold_source) == (0.7, "intent")
    monkeypatch.setattr(Strict, "threshold", 0.65)
    (leaf,) = evaluate_semantic("Thank you.", Courteous, judge=judge).leaves
    assert (leaf.threshold, leaf.threshold_source) == (0.65, "intent")


def test_a_description_string_is_one_intent_so_its_checks_share_their_verdicts() -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    first = evaluate_semantic("Thank you.", "The text thanks the reader.", judge=judge)
    second = evaluate_semantic("Thank you.", "The text thanks the reader.", judge=judge)
    assert first.intent is second.intent
    assert judge.calls == [("Thank you.", "The text thanks the reader.")]  # the second remembered
