"""The failure message: what was asked, what the judge saw, and by how much it missed.

An illustration of its shape (the scores are made up, not measured):

```
Semantic check failed (score=0.12): the output does not satisfy Polite
  judge: QuantizedNLIJudge(MoritzLaurer/deberta-v3-xsmall-zeroshot-v1.1-all-33@262ae02f2917)

  intent   score  threshold  verdict
  Polite    0.12       0.50  FAIL: not satisfied

  Polite: The text must be polite and professional.
    reason: entailment 0.12 (not_entailment 0.88)

  output (41 chars): 'Whatever. Read the manual next time.'
```

The first line keeps the shape semantix-ai users match on (``Semantic check failed
(score=...)``, ``score=N/A`` without a score) for single-intent checks.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING

from semantix import config
from semantix.text import mask_secrets, preview

if TYPE_CHECKING:
    from semantix.pipeline.results import LeafResult, SemanticResult

__all__ = ["OUTPUT_PREVIEW_CHARS", "failure_message", "leaf_verdict_text"]

#: Characters of the output shown in a failure message (the length of the whole is shown too).
OUTPUT_PREVIEW_CHARS = 200
EVIDENCE_PREVIEW_CHARS = 160


def failure_message(result: SemanticResult) -> str:
    """The multi-line failure message of a result (also used by the CLI for a failed check)."""
    lines = [_headline(result), f"  judge: {result.judge}", ""]
    name_width = max(len("intent"), *(len(leaf.label) for leaf in result.leaves))
    lines.append(f"  {'intent':<{name_width}}  score  threshold  verdict")
    for leaf in result.leaves:
        score = "  n/a" if leaf.verdict.score is None else f"{leaf.verdict.score:5.2f}"
        threshold = f"{leaf.threshold:9.2f}" if leaf.judged else f"{'—':>9}"
        lines.append(
            f"  {leaf.label:<{name_width}}  {score}  {threshold}  {leaf_verdict_text(leaf)}"
        )
    lines.append("")
    for leaf in result.leaves:
        lines.append(_block(f"  {leaf.intent.__name__}: ", leaf.intent.description, "    "))
        if leaf.judged_as is not None:
            lines.append(
                f"    judged as NOT: {leaf.judged_as} (a model cannot confirm an absence, so a "
                "negative requirement is judged as the negation of its positive statement)"
            )
        if leaf.threshold_source != "default" and leaf.judged:
            lines.append(
                f"    threshold {leaf.threshold:.2f} from: {_SOURCES[leaf.threshold_source]}"
            )
        if leaf.verdict.reason:
            lines.append(_block("    reason: ", leaf.verdict.reason, "      "))
        evidence = leaf.verdict.evidence
        if evidence and evidence != result.output:
            lines.append(f"    evidence: {preview(evidence, EVIDENCE_PREVIEW_CHARS)}")
    borderline = [leaf for leaf in result.leaves if leaf.borderline]
    if borderline:
        lines.append("")
        names = ", ".join(leaf.label for leaf in borderline)
        lines.append(
            f"  borderline: {names} scored within {_borderline_margin():.2f} of the threshold; a "
            "reworded output may flip this verdict"
        )
    topical = [leaf for leaf in result.leaves if _topical(leaf)]
    if topical:
        lines.append("")
        lines.append(_similarity_note(topical))
    lines.append("")
    lines.append(_output_line(result.output))
    # The message reaches the terminal, JUnit XML and CI logs: the API key is masked there too.
    return mask_secrets("\n".join(lines), [config.openai_api_key()])


def _output_line(output: str) -> str:
    """``output (55 chars): '…'``, or ``output (truncated, 500 chars in all): '…'`` for an output
    longer than `OUTPUT_PREVIEW_CHARS`: its length stated once."""
    shown = preview(output, OUTPUT_PREVIEW_CHARS, quote=False)
    cut = shown != " ".join(output.split())
    return f"  output ({'truncated, ' if cut else ''}{len(output)} chars{' in all' if cut else ''}): {shown!r}"


def _block(head: str, text: str, indent: str) -> str:
    """``head`` and ``text``; a text of several lines (a docstring's paragraphs) continues on
    lines indented by ``indent``, so it stays inside the message's indentation."""
    first, _, rest = text.strip("\n").partition("\n")
    if not rest:
        return head + first
    return head + first + "\n" + textwrap.indent(textwrap.dedent(rest), indent)


def _topical(leaf: LeafResult) -> bool:
    """Whether a similarity judge decided this leaf from its description alone."""
    if leaf.scale != "similarity" or not leaf.judged or leaf.structural:
        return False
    description = leaf.intent.judge_description()
    return not description.examples and not description.counterexamples


def _similarity_note(leaves: list[LeafResult]) -> str:
    labels = list(dict.fromkeys(leaf.label for leaf in leaves))
    judged = "was judged" if len(labels) == 1 else "were judged"
    return (
        f"  similarity: {', '.join(labels)} {judged} by topical closeness to the description (cosine "
        "similarity), not by whether the output does what it says: a curt reply about the same "
        "thing scores like a polite one. For better verdicts give the intent examples and "
        "counterexamples (the judge then compares the output with them), or use an entailment "
        'judge (judge="quantized", --judge quantized).'
    )


def _borderline_margin() -> float:
    # results imports this module for SemanticResult.explain, so the margin is read when a
    # message is built, not at import: one constant, results.BORDERLINE_MARGIN.
    from semantix.pipeline.results import BORDERLINE_MARGIN

    return BORDERLINE_MARGIN


_SOURCES = {
    "argument": "the threshold= argument",
    "intent": "the intent's threshold attribute",
    "calibrated": "calibrated from the intent's examples and counterexamples",
    "marker": "the pytest semantic marker",
    "judge": "the judge's recommended_threshold",
    "default": "the Intent default",
    "structural": "decided by semantix itself, exactly (no judge)",
}


def _headline(result: SemanticResult) -> str:
    name = result.intent.__name__
    if result.empty:
        return f"Semantic check failed: the output is empty, so it cannot satisfy {name}"
    if len(result.leaves) == 1:
        score = result.leaves[0].verdict.score
        shown = "N/A" if score is None else f"{score:.2f}"
        return f"Semantic check failed (score={shown}): the output does not satisfy {name}"
    return f"Semantic check failed: the output does not satisfy {name}"


def leaf_verdict_text(leaf: LeafResult) -> str:
    """``ok``, ``FAIL: not satisfied``, ``FAIL: the output DID satisfy X (0.91 >= 0.70)``, or
    ``not judged`` for a leaf the structural leaves made irrelevant (its reason says which).

    A verdict that fails at or above its threshold (a judge's extra condition, such as the
    embedding judge's counterexamples) says why: the first clause of its reason, ``FAIL: closer
    to counterexample 'Whatever.' (0.41) than to any example (0.36)``."""
    verdict = leaf.verdict
    flag = " (borderline)" if leaf.borderline else ""
    if not leaf.judged:
        return "not judged"
    if leaf.passed:
        return "ok" + flag
    if leaf.expected:
        if verdict.score is not None and verdict.score >= leaf.threshold:
            return "FAIL: " + _why_above_threshold(verdict.reason)
        return "FAIL: not satisfied" + flag
    what = leaf.judged_as if leaf.judged_as is not None else leaf.intent.__name__
    if verdict.score is None:
        return f"FAIL: the output DID satisfy {what}"
    return (
        f"FAIL: the output DID satisfy {what} ({verdict.score:.2f} >= {leaf.threshold:.2f}){flag}"
    )


#: The most characters of a reason's first clause shown in the verdict column.
WHY_CHARS = 120


def _why_above_threshold(reason: str | None) -> str:
    """The reason's first clause (up to the first ``;``), or what is known without one."""
    first = (reason or "").split(";", 1)[0].strip()
    if not first:
        return "failed at or above its threshold (a condition of the judge beyond the score)"
    return preview(first, WHY_CHARS, quote=False)
