"""`semantix.judges._request`: a typed request, and the one key the memo and the frozen-verdict
fingerprint share (issue 42, item 1)."""

from __future__ import annotations

from pathlib import Path

from semantix import FakeJudge, Intent, evaluate_semantic
from semantix._intent import EquivalenceDescription, IntentDescription, SupportDescription
from semantix.judges._request import Request
from semantix.verdicts import RecordReplayJudge, VerdictStore, fingerprint
from semantix.verdicts._fingerprint import fingerprint_of


class Polite(Intent):
    """The text is polite."""


def test_a_request_is_the_triple_judges_take_and_says_what_it_asks() -> None:
    plain = Request("Thanks!", "polite", 0.5)
    output, description, threshold = plain
    assert (output, description, threshold) == ("Thanks!", "polite", 0.5)
    assert plain.asks == "statement"
    support = SupportDescription("supported", sources=("a source",), relation="support")
    assert Request("x", support, 0.5).asks == "support"
    assert Request("x", EquivalenceDescription("stored"), 0.5).asks == "equivalence"


def test_what_is_asked_is_part_of_the_key() -> None:
    """A snapshot's equivalence question and a statement of the same text are two questions
    (the memo's former key, the texts as given, took them for one)."""
    statement = Request("new", IntentDescription("stored", hypothesis="stored"), 0.5)
    equivalence = Request("new", EquivalenceDescription("stored"), 0.5)
    assert statement.key() != equivalence.key()
    one = SupportDescription("supported", sources=("a",), relation="support")
    other = SupportDescription("supported", sources=("b",), relation="support")
    assert Request("x", one, 0.5).key() != Request("x", other, 0.5).key()
    assert Request("x", "polite", 0.5).key() == Request("x", "polite", 0.9).key()  # no threshold


def test_the_fingerprint_is_made_from_the_key() -> None:
    judge = FakeJudge(lambda output, intent: 0.9)
    request = Request("Thanks!\r\n", Polite.judge_description(), 0.5)
    assert fingerprint_of(judge, request.key()) == fingerprint(judge, *request[:2])


def test_the_memo_and_the_store_take_one_check_for_one_check(tmp_path: Path) -> None:
    """Outputs that differ only in line ends and trailing spaces are one frozen verdict, and
    now one memo entry too: the memo no longer keys them apart and reads the store again."""
    store = VerdictStore(tmp_path / "verdicts")
    judge = RecordReplayJudge(FakeJudge(lambda output, intent: 0.9), store=store, mode="update")
    evaluate_semantic("Thanks for waiting!", Polite, judge=judge)
    evaluate_semantic("Thanks for waiting!  \r\n", Polite, judge=judge)
    stats = judge.stats
    assert (stats.judged, stats.memo_hits, stats.replayed) == (1, 1, 0)
    assert len(list(store.path.glob("*/*.json"))) == 1
