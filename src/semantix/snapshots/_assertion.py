"""Check an output against its semantic snapshot: record, pass, update or fail with a diff.

A missing snapshot fails with the output and the way to record it; ``update`` records it (and
rewrites a drifted one). Where ``CI`` is set nothing is ever written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from semantix._config import in_ci
from semantix._text import preview
from semantix.judges._base import Judge, Verdict
from semantix.judges._calls import judge_identity
from semantix.outputs import output_view
from semantix.pipeline import SemanticResult, check
from semantix.pipeline._judging import resolve_judge
from semantix.pipeline._options import read_options
from semantix.pipeline._steps import REPORTED, report_error
from semantix.snapshots._compare import (
    PART_CHARS,
    Equivalence,
    FactsMode,
    equivalence_of,
    same_meaning,
)
from semantix.snapshots._diff import word_diff
from semantix.snapshots._errors import SnapshotDriftError, SnapshotFileError, SnapshotMissingError
from semantix.snapshots._files import (
    SUFFIX,
    SnapshotFile,
    module_directory,
    read_snapshot,
    safe_name,
    write_snapshot,
)

__all__ = ["SnapshotResult", "assert_semantic_snapshot", "check_snapshot"]

#: How a pytest user records or rewrites snapshots.
PYTEST_UPDATE = "pytest --semantic-snapshot-update"
_TEXT_PREVIEW = 1200

Status = Literal["written", "passed", "updated"]


@dataclass(frozen=True, slots=True)
class SnapshotResult:
    """What a snapshot check did: wrote a new snapshot, passed, or rewrote a drifted one."""

    path: Path
    name: str
    status: Status
    #: The judgement against the stored text (None when the snapshot was just written).
    equivalence: Equivalence | None = None
    #: The check's `SemanticResult` (None when the snapshot was just written).
    result: SemanticResult | None = None

    def __repr__(self) -> str:
        return f"<SnapshotResult {self.status} {self.name!r} {self.path}>"


def assert_semantic_snapshot(
    output: object,
    name: str,
    *,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    directory: str | Path | None = None,
    update: bool = False,
    facts: FactsMode = "fail",
) -> SnapshotResult:
    """Assert that ``output`` means the same as the snapshot called ``name`` (any test runner).

    The file is ``<directory>/<name>.txt`` (default directory:
    ``__semantic_snapshots__/<module>`` next to the calling module). ``judge``, ``threshold``
    (for both directions) and ``timeout`` are ``assert_semantic``'s. ``update`` writes a missing
    snapshot and rewrites a drifted one, never where ``CI`` is set. ``facts="fail"`` (default)
    fails a changed number, date, negation or name without asking the judge; ``"judge"`` lets
    the judge decide, the change quoted.

    Raises:
        SnapshotMissingError: no snapshot yet (and ``update`` is off, or this is CI).
        SnapshotDriftError: the meaning drifted (a ``SemanticAssertionError``, with a word diff).
        SnapshotFileError: the snapshot file cannot be read.
        TypeError, ValueError: a non-text output, a bad name or threshold.
    """
    __tracebackhide__ = True
    if directory is None:
        directory = module_directory(Path(sys._getframe(1).f_code.co_filename))
    return check_snapshot(
        output,
        Path(directory) / f"{safe_name(name)}{SUFFIX}",
        name=name,
        judge=judge,
        threshold=threshold,
        timeout=timeout,
        update=update,
        facts=facts,
        how_to_update="call assert_semantic_snapshot(..., update=True)",
    )


def check_snapshot(
    output: object,
    path: Path,
    *,
    name: str,
    judge: Judge | str | None = None,
    threshold: float | None = None,
    timeout: float | None = None,
    update: bool = False,
    facts: FactsMode = "fail",
    test: str | None = None,
    how_to_update: str = PYTEST_UPDATE,
) -> SnapshotResult:
    """Check ``output`` against the snapshot file at ``path`` (the fixture and the function):
    one check of the pipeline, reported unless in update mode. ``test``, the pytest node id
    owning the snapshot, is written into the header and checked against the stored one."""
    __tracebackhide__ = True
    options = read_options(
        {"judge": judge, "threshold": threshold, "timeout": timeout}, what="check_snapshot"
    )
    view = output_view(output)
    try:
        stored = read_snapshot(path)
        if stored is not None and test and stored.test and stored.test != test:
            raise SnapshotFileError(
                f"semantic snapshot {path} belongs to test {stored.test!r} (its header), not to "
                f"{test!r}: two tests map to the same file name (e.g. parameter ids that differ "
                "only in case on a case-insensitive file system); pass name=... to tell them apart",
                path=path,
            )
        writable = update and not in_ci()
        if stored is None:
            if view.text is None:  # the pipeline's error for an output without text
                check([view], same_meaning(name, ""), options)
            assert view.text is not None
            if not writable:
                raise SnapshotMissingError(
                    _missing_message(
                        name, path, view.text, update=update, how_to_update=how_to_update
                    ),
                    path=path,
                    output=view.text,
                )
            identity = judge_identity(resolve_judge(options.judge))
            write_snapshot(path, name=name, text=view.text, judge=str(identity), test=test)
            return SnapshotResult(path, name, "written")
    except REPORTED as exc:
        report_error([view], same_meaning(name, ""), exc)
        raise
    (outcome,) = check(
        [view], same_meaning(name, stored.text, facts=facts), options, report=not writable
    )
    if isinstance(outcome, BaseException):
        raise outcome
    equivalence = equivalence_of(outcome, stored.text)
    if outcome.passed:
        return SnapshotResult(path, name, "passed", equivalence, outcome)
    if writable:
        write_snapshot(
            path, name=name, text=outcome.output, judge=str(equivalence.judge), test=test
        )
        return SnapshotResult(path, name, "updated", equivalence, outcome)
    raise SnapshotDriftError(
        drift_message(name, stored, equivalence, update=update, how_to_update=how_to_update),
        outcome,
        path=path,
        stored=stored.text,
        output=outcome.output,
        equivalence=equivalence,
    )


def drift_message(
    name: str,
    stored: SnapshotFile,
    equivalence: Equivalence,
    *,
    update: bool = False,
    how_to_update: str = PYTEST_UPDATE,
) -> str:
    """The failure message of a drifted snapshot: what changed first (the lines a runner that
    shortens the message keeps), then the word diff, the file and both texts."""
    diff = word_diff(equivalence.stored, equivalence.output)
    lines = [
        f"semantic snapshot {name!r} drifted: the new output does not mean what the snapshot says",
        f"  judge:     {equivalence.judge}, threshold {equivalence.threshold:g}",
    ]
    if equivalence.symmetric:
        lines.append("  " + _direction("same meaning, both ways", equivalence.forward))
    else:
        lines.append("  " + _direction("new output => snapshot", equivalence.forward))
        lines.append("  " + _direction("snapshot => new output", equivalence.backward))
    if not equivalence.forward.passed:
        lines.append(
            "  the new output does not state: "
            + _what(equivalence.unstated_parts, diff.removed, "everything the snapshot states")
        )
    if not equivalence.backward.passed:
        if equivalence.added_parts or diff.added:
            lines.append("  the new output adds: " + _what(equivalence.added_parts, diff.added, ""))
        else:
            lines.append(
                "  the new output adds no words the snapshot lacks (it only drops or rewords "
                "content), yet the judge did not find it implied by the snapshot"
            )
    if equivalence.fact_changes:
        lines.append("  facts changed (compared before the judge):")
        lines.extend(f"    {change.describe()}" for change in equivalence.fact_changes)
    if equivalence.note:
        lines.append(f"  note: {equivalence.note}")
    lines += [
        f"  snapshot:  {stored.path}",
        f"  recorded:  {stored.recorded.isoformat()} with {stored.judge}",
        "  word diff ([-only in the snapshot-] {+only in the new output+}):",
        f"    {preview(diff.rendered, _TEXT_PREVIEW, quote=False)}",
        f"  snapshot:   {preview(equivalence.stored, _TEXT_PREVIEW)}",
        f"  new output: {preview(equivalence.output, _TEXT_PREVIEW)}",
    ]
    if update:
        lines.append("  CI is set, so the snapshot was not rewritten: nothing is written in CI")
    else:
        lines.append(f"  If the new output is right, review it and record it: {how_to_update}")
    return "\n".join(lines)


def _direction(label: str, verdict: Verdict) -> str:
    score = "n/a" if verdict.score is None else f"{verdict.score:.3f}"
    threshold, compare = verdict.threshold, ""
    if threshold is not None and verdict.score is not None:
        compare = (" >= " if verdict.score >= threshold else " < ") + f"{threshold:g}"
    mark = "pass" if verdict.passed else "FAIL"
    reason = f" ({preview(verdict.reason, 160, quote=False)})" if verdict.reason else ""
    return f"{label}: {score}{compare} {mark}{reason}"


def _what(parts: tuple[str, ...], runs: tuple[str, ...], otherwise: str) -> str:
    """The parts a long text failed on, else the diff's word runs, else ``otherwise``."""
    pieces = parts or runs
    if not pieces:
        return otherwise
    limit = PART_CHARS if parts else 160
    shown = [preview(piece, limit) for piece in pieces[:5]]
    more = f" (and {len(pieces) - 5} more)" if len(pieces) > 5 else ""
    return "; ".join(shown) + more


def _missing_message(name: str, path: Path, text: str, *, update: bool, how_to_update: str) -> str:
    if in_ci():
        why = (
            "CI is set: a snapshot nobody reviewed is never written in CI"
            + (", even with the update flag" if update else "")
            + f". Record it on your machine ({how_to_update}), review the file and commit it"
        )
    else:
        why = f"Record it with: {how_to_update} (then review the file and commit it)"
    return (
        f"no semantic snapshot {name!r} yet: {path} does not exist.\n"
        f"  the output to review: {preview(text, _TEXT_PREVIEW)}\n"
        f"  {why}"
    )
