"""Budget checks: token and cost ceilings read from the response's usage and model.

A ceiling the output cannot be checked against (no usage, a usage that contradicts itself, no
model, a model without a price) raises `UnenforceableCheckError`, never passes
(docs/budgets.md). semantix ships no price table: prices come from you.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Mapping
from typing import Any, ClassVar

from semantix._cache import memo
from semantix._config import is_number
from semantix._intent import Intent
from semantix.checks._base import Structural, build, verdict
from semantix.errors import UnenforceableCheckError
from semantix.judges._base import Verdict
from semantix.outputs import OutputView, Usage

__all__ = ["Cost", "Tokens", "check_prices", "cost_of"]

_NO_USAGE = (
    "the output carries no token usage (a plain str never does); pass the provider's response "
    "object (an OpenAI ChatCompletion or Responses object, an Anthropic Message) or its "
    "model_dump() dict instead of its text"
)
#: Where a transcript's usage lives, and how to keep it.
_KEEP_USAGE = (
    "usage is reported on the whole response (ChatCompletion.usage, an Anthropic Message's "
    "usage), not on choices[0].message; append the whole response to the list you check "
    "(run.append(response): semantix reads its message and its usage), while you send "
    "response.choices[0].message back to the model"
)
#: A dated snapshot of a model (gpt-4o-mini-2024-07-18, claude-3-5-haiku-20241022): priced as
#: its base name when only the base is in the prices.
_SNAPSHOT = re.compile(r"(?P<base>.+)-(?:\d{4}-\d{2}-\d{2}|\d{8})")


class TokensCheck(Structural, abstract=True):
    """Base of ``Tokens``: ``ceilings`` are (keyword, Usage field, maximum) triples."""

    needs: ClassVar[str] = "token usage"
    ceilings: ClassVar[tuple[tuple[str, str, int], ...]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        usage = _usage(cls.__name__, view)
        facts, problems = [], []
        for keyword, field, maximum in cls.ceilings:
            count = getattr(usage, field)
            unit = field.removesuffix("_tokens")
            if count is None:
                raise UnenforceableCheckError(
                    f"{cls.__name__} cannot be checked: the response's usage reports no "
                    f"{unit} tokens ({usage}); drop {keyword}= or pass a response that reports them"
                )
            if count > maximum:
                problems.append(f"{count} {unit} tokens, more than the maximum {maximum}")
            else:
                facts.append(f"{count} {unit} tokens (at most {maximum})")
        return verdict(not problems, "; ".join(problems) if problems else ", ".join(facts))


def Tokens(
    *,
    max_input: int | None = None,
    max_output: int | None = None,
    max_completion: int | None = None,
    max_total: int | None = None,
) -> type[Intent]:
    """The check "the response used at most so many tokens", read from its ``usage``.

    ``max_completion`` is another name for ``max_output``; input tokens count cached ones too.

    Raises:
        ValueError: no ceiling, one that is no whole number 0 or more, or both names of one.
        UnenforceableCheckError: when checked, the output has no usage or lacks the count.
    """
    if max_output is not None and max_completion is not None:
        raise ValueError(
            f"Tokens() got max_output={max_output!r} and max_completion={max_completion!r}, "
            "two names for one ceiling; pass one of them"
        )
    given = (
        ("max_input", "input_tokens", max_input),
        ("max_output", "output_tokens", max_output),
        ("max_completion", "output_tokens", max_completion),
        ("max_total", "total_tokens", max_total),
    )
    ceilings = []
    for keyword, field, value in given:
        if value is None:
            continue
        if not is_number(value, low=0) or not float(value).is_integer():
            raise ValueError(
                f"Tokens({keyword}={value!r}) must be a whole number of tokens, 0 or more; "
                f"e.g. Tokens({keyword}=400)"
            )
        ceilings.append((keyword, field, int(value)))
    if not ceilings:
        raise ValueError(
            "Tokens() needs at least one ceiling: max_input, max_output (or max_completion) or "
            "max_total, e.g. Tokens(max_output=400)"
        )
    return _tokens(tuple(ceilings))


@memo(maxsize=256)
def _tokens(ceilings: tuple[tuple[str, str, int], ...]) -> type[Intent]:
    arguments = ", ".join(f"{keyword}={maximum}" for keyword, _, maximum in ceilings)
    limits = " and ".join(
        f"at most {maximum} {field.removesuffix('_tokens')} tokens"
        for _, field, maximum in ceilings
    )
    return build(
        TokensCheck, f"Tokens({arguments})", f"The response used {limits}.", ceilings=ceilings
    )


Price = tuple[float, ...]


class CostCheck(Structural, abstract=True):
    """Base of ``Cost``: ``prices`` map a model to USD per million tokens."""

    needs: ClassVar[str] = "token usage and the model name"
    max_usd: ClassVar[float]
    prices: ClassVar[Mapping[str, Price]]

    @classmethod
    def decide(cls, view: OutputView) -> Verdict:
        cost, how = cost_of(view, cls.prices, what=cls.__name__)
        if cost > cls.max_usd:
            return verdict(False, f"cost ${cost:.6f} ({how}), more than the maximum ${cls.max_usd}")
        return verdict(True, f"cost ${cost:.6f} ({how}), at most ${cls.max_usd}")


def check_prices(prices: object, *, what: str) -> dict[str, Price]:
    """``prices`` as checked (model name -> USD per million tokens, see `Cost`), or a TypeError
    or ValueError naming ``what`` and the value at fault."""
    if not isinstance(prices, Mapping) or not prices:
        raise TypeError(
            f"{what} must map model names to (usd_per_1M_input, usd_per_1M_output), "
            f"e.g. prices={{'gpt-4o-mini': (0.15, 0.60)}}; got {prices!r:.80}"
        )
    checked: dict[str, Price] = {}
    for model, price in prices.items():
        if not isinstance(model, str) or not model.strip():
            raise TypeError(f"{what} keys must be model names (str), got {model!r}")
        if (
            not isinstance(price, (tuple, list))
            or len(price) not in (2, 4)
            or not all(is_number(part, low=0) for part in price)
        ):
            raise ValueError(
                f"prices[{model!r}] must be (usd_per_1M_input, usd_per_1M_output) or (input, "
                "output, cache_read, cache_write), numbers 0 or more, e.g. (0.15, 0.60); got "
                f"{price!r}"
            )
        checked[model] = tuple(float(part) for part in price)
    return checked


def cost_of(view: OutputView, prices: Mapping[str, Price], *, what: str) -> tuple[float, str]:
    """The response's cost in USD at ``prices`` (checked by `check_prices`), and how it was
    counted; an `UnenforceableCheckError` naming ``what`` when it cannot be known.

    A run (a transcript) is priced step by step, each step's usage at its own model's price:
    a step without usage, a step with usage but no model, or a model without a price is
    unenforceable, never priced at another model's rate."""
    if view.steps and any(step.usage is not None for step in view.steps):
        return _run_cost(view, prices, what)
    usage = _usage(what, view)
    if view.model is None:
        raise UnenforceableCheckError(
            f"{what} cannot be checked: the output names no model, so no price "
            "applies; pass the provider's response object (it carries 'model') or its dict"
        )
    return _cost(what, usage, _price(what, prices, view.model), view.model)


def _price(what: str, prices: Mapping[str, Price], model: str, where: str = "") -> Price:
    snapshot = _SNAPSHOT.fullmatch(model)
    price = prices.get(model) or (prices.get(snapshot.group("base")) if snapshot else None)
    if price is None:
        priced = ", ".join(sorted(prices))
        raise UnenforceableCheckError(
            f"{what} cannot be checked: no price for model {model!r}{where} (priced: "
            f"{priced}); add it, e.g. prices={{{model!r}: (usd_per_1M_input, "
            "usd_per_1M_output)}"
        )
    return price


def _run_cost(view: OutputView, prices: Mapping[str, Price], what: str) -> tuple[float, str]:
    """A run's cost: each model's steps, their usage summed, at that model's price."""
    _missing_steps(what, view)
    by_model: dict[str, list[Usage]] = {}
    for number, step in enumerate(view.steps, 1):
        if step.usage is None:
            continue
        if step.model is None:
            raise UnenforceableCheckError(
                f"{what} cannot be checked: step {number} of {len(view.steps)} reports token "
                "usage but names no model, so no price applies to it; pass the provider's "
                "response objects (they carry 'model') in the transcript"
            )
        _consistent(what, step.usage, f" (step {number}, {step.model})")
        by_model.setdefault(step.model, []).append(step.usage)
    total, hows = 0.0, []
    for model, usages in by_model.items():
        price = _price(what, prices, model, f" (used in {len(usages)} step(s) of the run)")
        usage = _sum(what, usages, model)
        cost, how = _cost(what, usage, price, model)
        total += cost
        hows.append(f"{model}: {how}" if len(by_model) > 1 else how)
    return total, "; ".join(hows)


def _sum(what: str, usages: list[Usage], model: str) -> Usage:
    for usage in usages:
        if usage.input_tokens is None or usage.output_tokens is None:
            raise UnenforceableCheckError(
                f"{what} cannot be checked: a step of {model!r} reports no input or output "
                f"tokens ({usage}); pass responses that report both"
            )
    return Usage(
        sum(usage.input_tokens or 0 for usage in usages),
        sum(usage.output_tokens or 0 for usage in usages),
        None,
        sum(usage.cache_read_tokens or 0 for usage in usages),
        sum(usage.cache_write_tokens or 0 for usage in usages),
    )


def _missing_steps(what: str, view: OutputView) -> None:
    """Assistant steps of a run that report no usage: its total is unknown."""
    missing = [
        str(number)
        for number, step in enumerate(view.steps, 1)
        if step.role == "assistant" and step.usage is None
    ]
    if missing:
        raise UnenforceableCheckError(
            f"{what} cannot be checked: assistant step(s) {', '.join(missing)} of "
            f"{len(view.steps)} report no token usage, so the run's total is unknown; "
            f"{_KEEP_USAGE}"
        )


def Cost(max_usd: float, *, prices: Mapping[str, Any]) -> type[Intent]:
    """The check "the response cost at most ``max_usd``", from its usage and your prices.

    Args:
        max_usd: the ceiling in US dollars, 0 or more.
        prices: for each model name, ``(usd_per_1M_input, usd_per_1M_output)``, or
            ``(input, output, cache_read, cache_write)`` (how a snapshot name and the cache are
            priced: docs/budgets.md).

    Raises:
        TypeError, ValueError: a negative or NaN ceiling, or prices not of that shape.
        UnenforceableCheckError: when checked, the output has no usage, no model, or a model
            without a price.
    """
    if not is_number(max_usd, low=0):
        raise ValueError(
            f"Cost(max_usd={max_usd!r}) must be a number of US dollars, 0 or more; "
            "e.g. Cost(max_usd=0.002, prices=...)"
        )
    checked = check_prices(prices, what="Cost(prices=...)")
    if max_usd == 0 and math.copysign(1.0, max_usd) < 0:
        max_usd = 0.0  # -0.0 is the same budget as 0.0, and is named so
    return build(
        CostCheck,
        f"Cost(max_usd={max_usd!r})",
        f"The response cost at most ${max_usd} (at the prices given).",
        max_usd=float(max_usd),
        prices=checked,
    )


def _usage(what: str, view: OutputView) -> Usage:
    """The view's usage, unless it has none or its counts contradict each other."""
    usage = view.usage
    if len(view.steps) > 1:  # a run (one step: a single response)
        if usage is None:
            raise UnenforceableCheckError(
                f"{what} cannot be checked: no step of the transcript reports token usage; "
                f"{_KEEP_USAGE}"
            )
        _missing_steps(what, view)
        for number, step in enumerate(view.steps, 1):
            if step.usage is not None:
                _consistent(what, step.usage, f" (step {number})")
    if usage is None:
        raise UnenforceableCheckError(f"{what} cannot be checked: {_NO_USAGE}")
    _consistent(what, usage, "")
    return usage


def _consistent(what: str, usage: Usage, where: str) -> None:
    """An error when the counts of ``usage`` contradict each other."""
    cached = (usage.cache_read_tokens or 0) + (usage.cache_write_tokens or 0)
    problem = None
    counts = {field.name: getattr(usage, field.name) for field in dataclasses.fields(usage)}
    wrong = {name: count for name, count in counts.items() if not _is_count(count)}
    if wrong:
        name, count = next(iter(wrong.items()))
        problem = f"{name}={count!r}, not a whole number of tokens, 0 or more"
    elif usage.input_tokens is not None and cached > usage.input_tokens:
        problem = (
            f"{cached} cached tokens (reads and writes) but only {usage.input_tokens} input "
            "tokens in all, which count them"
        )
    elif None not in (usage.input_tokens, usage.output_tokens, usage.total_tokens) and (
        usage.total_tokens != (usage.input_tokens or 0) + (usage.output_tokens or 0)
    ):
        problem = (
            f"{usage.total_tokens} total tokens, not the {usage.input_tokens} input plus "
            f"{usage.output_tokens} output tokens it reports"
        )
    if problem is not None:
        raise UnenforceableCheckError(
            f"{what} cannot be checked: the response's usage{where} contradicts itself "
            f"({problem}), so no count in it can be trusted; pass the provider's response "
            "unchanged (an edited or hand-built usage dict is the usual cause)"
        )


def _is_count(value: object) -> bool:
    return value is None or (isinstance(value, int) and not isinstance(value, bool) and value >= 0)


def _cost(what: str, usage: Usage, price: Price, model: str) -> tuple[float, str]:
    if usage.input_tokens is None or usage.output_tokens is None:
        raise UnenforceableCheckError(
            f"{what} cannot be checked: the usage reports no input or output tokens "
            f"({usage}); pass a response that reports both"
        )
    read, write = usage.cache_read_tokens or 0, usage.cache_write_tokens or 0
    output_cost = usage.output_tokens * price[1]
    if len(price) == 4:
        uncached = usage.input_tokens - read - write
        total = uncached * price[0] + read * price[2] + write * price[3] + output_cost
        how = (
            f"{uncached} input tokens at ${price[0]}/1M, {read} cache reads at ${price[2]}/1M, "
            f"{write} cache writes at ${price[3]}/1M, {usage.output_tokens} output at "
            f"${price[1]}/1M"
        )
        return total / 1e6, how
    if write:
        raise UnenforceableCheckError(
            f"{what} cannot be checked: the response wrote {write} tokens to the prompt "
            f"cache, which {model!r} prices apart; give its price as (input, output, cache_read, "
            "cache_write)"
        )
    total = usage.input_tokens * price[0] + output_cost
    how = f"{usage.input_tokens} input tokens at ${price[0]}/1M"
    if read:
        how += f" ({read} of them cache reads, charged at the input price)"
    return total / 1e6, how + f", {usage.output_tokens} output at ${price[1]}/1M"
