"""The judges' own cost, apart from the system's: token usage of LLM-judged verdicts, priced
by ``--semantic-judge-prices``. An LLM verdict given this run without usage is of unknown cost,
never free (docs/budgets.md, "The judges' own cost, apart", has the rules)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from semantix.judges._verdict import TokenUsage
from semantix.report._model import CheckRecord, JudgeCost, Leaf
from semantix.report._records import format_usd

__all__ = ["JudgeCost", "judge_cost", "judge_cost_lines", "record_judge_cost"]

#: What `_usage` returns for an LLM verdict given this run without usage.
_UNKNOWN = TokenUsage(0, 0)


def _usage(leaf: Leaf) -> TokenUsage | None:
    """A leaf's token usage; `_UNKNOWN` for an LLM verdict given this run without any; None when
    the leaf spent nothing."""
    if leaf.usage is not None:
        return leaf.usage
    asked = leaf.judged is not False and leaf.latency_ms is not None
    return _UNKNOWN if asked and str(leaf.judge).startswith("LLMJudge(") else None


def record_judge_cost(
    record: CheckRecord, prices: Mapping[str, tuple[float, ...]] | None
) -> float | None:
    """One assertion's judge cost in USD (None: no usage, a verdict of unknown usage, or no
    price for a model that spent tokens)."""
    cost = judge_cost([record], prices)
    return cost.usd if cost.verdicts else None


def judge_cost(
    records: Iterable[CheckRecord], prices: Mapping[str, tuple[float, ...]] | None
) -> JudgeCost:
    verdicts = prompt = completion = unknown = 0
    usd = 0.0
    unpriced: set[str] = set()
    for record in records:
        for leaf in record.leaves:
            usage = _usage(leaf)
            if usage is None:
                continue
            verdicts += 1
            if usage is _UNKNOWN:
                unknown += 1
                continue
            prompt += usage.prompt_tokens
            completion += usage.completion_tokens
            model = leaf.judge_model or "?"
            if prices is not None and model in prices:
                usd += _usd(usage, prices[model])
            else:
                unpriced.add(str(model))
    complete = prices is not None and not unpriced and not unknown
    return JudgeCost(
        verdicts=verdicts,
        prompt_tokens=prompt,
        completion_tokens=completion,
        usd=usd if complete else None,
        known_usd=usd,
        unpriced=tuple(sorted(unpriced)),
        unknown=unknown,
    )


def judge_cost_lines(cost: JudgeCost, *, priced: bool) -> list[tuple[str, dict[str, bool]]]:
    """The terminal lines: tokens and cost of the judges' verdicts (nothing when none spent any),
    and a warning for each part the figure leaves out."""
    if not cost.verdicts:
        return []
    some = f" ({cost.unknown} of unknown usage)" if cost.unknown else ""
    tokens = (
        f"{cost.verdicts} LLM-judged verdicts{some} spent {cost.prompt_tokens} input and "
        f"{cost.completion_tokens} output tokens"
    )
    if priced:
        shown = "unknown" if cost.usd is None else format_usd(cost.usd)
        if cost.usd is None and cost.known_usd:
            tokens += f"; {format_usd(cost.known_usd)} for those priced"
        headline = f"judge cost: {shown} ({tokens}; the judges' own, apart from the system's)"
    else:
        headline = f"judge cost: {tokens}; give --semantic-judge-prices FILE to see their cost"
    missing = []
    if cost.unknown:
        missing.append(
            f"{cost.unknown} of them carried no token usage (their server reported none): not in "
            "the figure, never priced at zero"
        )
    if priced and cost.unpriced:
        missing.append(
            f"no price for {', '.join(cost.unpriced)} in --semantic-judge-prices; their tokens "
            "are not in the figure"
        )
    warnings = [(f"WARNING judge cost incomplete: {text}", {"yellow": True}) for text in missing]
    return [(headline, {}), *warnings]


def _usd(usage: TokenUsage, price: tuple[float, ...]) -> float:
    return (usage.prompt_tokens * price[0] + usage.completion_tokens * price[1]) / 1e6
