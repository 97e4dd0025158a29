"""The judges' own cost, apart from the system's: token usage of LLM-judged verdicts, priced.

A verdict of an LLM judge carries its token usage (`semantix.judges.base.TokenUsage`); with prices
for the judge's model (``--semantic-judge-prices``: a JSON file ``{"gpt-4o-mini": [0.15, 0.6]}``,
USD per million input and output tokens), the report shows what judging cost, per assertion and
in all. It never enters the system under test's own cost (the `Cost` leaves of its checks).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = ["JudgeCost", "judge_cost", "judge_cost_lines", "record_judge_cost"]


@dataclass(frozen=True, slots=True)
class JudgeCost:
    """What the judges spent over a run: tokens, and USD where every model had a price."""

    verdicts: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    usd: float = 0.0
    #: Models that spent tokens without a price (then ``usd`` leaves them out, and says so).
    unpriced: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdicts": self.verdicts,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "usd": self.usd,
            "unpriced": list(self.unpriced),
        }


def record_judge_cost(
    record: Mapping[str, Any], prices: Mapping[str, tuple[float, ...]] | None
) -> float | None:
    """One assertion's judge cost in USD (None: no usage, or no price for its model)."""
    total = 0.0
    priced = False
    for leaf in record.get("leaves") or ():
        usage, model = leaf.get("usage"), leaf.get("judge_model")
        if not usage or prices is None or model not in prices:
            continue
        total += _usd(usage, prices[model])
        priced = True
    return total if priced else None


def judge_cost(
    records: Iterable[Mapping[str, Any]], prices: Mapping[str, tuple[float, ...]] | None
) -> JudgeCost:
    verdicts = prompt = completion = 0
    usd = 0.0
    unpriced: set[str] = set()
    for record in records:
        for leaf in record.get("leaves") or ():
            usage = leaf.get("usage")
            if not usage:
                continue
            verdicts += 1
            prompt += int(usage["prompt_tokens"])
            completion += int(usage["completion_tokens"])
            model = leaf.get("judge_model") or "?"
            if prices is not None and model in prices:
                usd += _usd(usage, prices[model])
            else:
                unpriced.add(str(model))
    return JudgeCost(verdicts, prompt, completion, usd, tuple(sorted(unpriced)))


def judge_cost_lines(cost: JudgeCost, *, priced: bool) -> list[tuple[str, dict[str, bool]]]:
    """The terminal lines: tokens and cost of the judges' verdicts (nothing when none spent any)."""
    if not cost.verdicts:
        return []
    tokens = (
        f"{cost.verdicts} LLM-judged verdicts spent {cost.prompt_tokens} input and "
        f"{cost.completion_tokens} output tokens"
    )
    if not priced:
        return [(f"judge cost: {tokens}; give --semantic-judge-prices FILE to see their cost", {})]
    headline = f"judge cost: ${cost.usd:.6f} ({tokens}; the judges' own, apart from the system's)"
    lines: list[tuple[str, dict[str, bool]]] = [(headline, {})]
    if cost.unpriced:
        warning = (
            f"WARNING judge cost incomplete: no price for {', '.join(cost.unpriced)} in "
            "--semantic-judge-prices; their tokens are not in the figure"
        )
        lines.append((warning, {"yellow": True}))
    return lines


def _usd(usage: Mapping[str, Any], price: tuple[float, ...]) -> float:
    return (
        int(usage["prompt_tokens"]) * price[0] + int(usage["completion_tokens"]) * price[1]
    ) / 1e6
