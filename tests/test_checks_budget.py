"""Token and cost checks (issue 26 items 1 and 5): an unenforceable ceiling is never a pass."""

from __future__ import annotations

import math
from typing import Any

import pytest

from semantix import evaluate_semantic
from semantix.checks import Cost, Tokens
from semantix.errors import SemantixError, UnenforceableCheckError
from semantix.outputs import output_view

openai_chat = pytest.importorskip("openai.types.chat")
anthropic_types = pytest.importorskip("anthropic.types")

PRICES = {"gpt-4o-mini": (0.15, 0.60)}


def completion(usage: dict[str, Any] | None, model: str = "gpt-4o-mini-2024-07-18") -> Any:
    return openai_chat.ChatCompletion.model_validate(
        {
            "id": "c",
            "object": "chat.completion",
            "created": 1,
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "stop",
                    "message": {"role": "assistant", "content": "Hi."},
                }
            ],
            "usage": usage,
        }
    )


def message(**usage: int | None) -> Any:
    return anthropic_types.Message.model_validate(
        {
            "id": "m",
            "type": "message",
            "role": "assistant",
            "model": "claude-3-5-haiku-20241022",
            "content": [{"type": "text", "text": "Hi."}],
            "stop_reason": "end_turn",
            "usage": {"input_tokens": 100, "output_tokens": 50, **usage},
        }
    )


USAGE = {"prompt_tokens": 1000, "completion_tokens": 400, "total_tokens": 1400}


def decide(check: Any, output: object) -> tuple[bool, str]:
    verdict = check.decide(output_view(output))
    assert verdict.score == (1.0 if verdict.passed else 0.0)
    return verdict.passed, verdict.reason


@pytest.mark.parametrize("as_dict", [False, True], ids=["sdk", "dict"])
def test_tokens_read_the_usage(as_dict: bool) -> None:
    output = completion(USAGE)
    output = output.model_dump() if as_dict else output
    assert decide(Tokens(max_completion=400), output) == (True, "400 output tokens (at most 400)")
    assert decide(Tokens(max_output=399, max_total=2000), output) == (
        False,
        "400 output tokens, more than the maximum 399",
    )
    assert decide(Tokens(max_input=999), output) == (
        False,
        "1000 input tokens, more than the maximum 999",
    )


def test_anthropic_input_tokens_include_the_cache() -> None:
    output = message(cache_read_input_tokens=900, cache_creation_input_tokens=None)
    assert decide(Tokens(max_input=1000, max_total=1050), output) == (
        True,
        "1000 input tokens (at most 1000), 1050 total tokens (at most 1050)",
    )


def test_tokens_on_a_str_is_unenforceable_never_a_pass() -> None:
    with pytest.raises(UnenforceableCheckError) as info:
        Tokens(max_output=400).decide(output_view("Hi."))
    assert str(info.value).startswith(
        "Tokens(max_output=400) cannot be checked: the output carries no token usage "
        "(a plain str never does); pass the provider's response object"
    )
    assert isinstance(info.value, SemantixError)
    assert not isinstance(info.value, AssertionError)


def test_a_response_without_usage_is_unenforceable() -> None:
    with pytest.raises(UnenforceableCheckError, match="carries no token usage"):
        Cost(max_usd=1, prices=PRICES).decide(output_view(completion(None)))


def test_a_usage_lacking_the_count_is_unenforceable() -> None:
    output = {"role": "assistant", "content": "Hi.", "usage": {"output_tokens": 5}}
    with pytest.raises(UnenforceableCheckError, match=r"reports no input tokens.*drop max_input="):
        Tokens(max_input=10).decide(output_view(output))


def test_cost_from_usage_and_prices_with_a_dated_snapshot() -> None:
    # 1000 * 0.15 / 1M + 400 * 0.60 / 1M = 0.00039
    assert decide(Cost(max_usd=0.0004, prices=PRICES), completion(USAGE)) == (
        True,
        "cost $0.000390 (1000 input tokens at $0.15/1M, 400 output at $0.6/1M), at most $0.0004",
    )
    passed, reason = decide(Cost(max_usd=0.0003, prices=PRICES), completion(USAGE))
    assert not passed
    assert reason.endswith("more than the maximum $0.0003")


def test_a_model_without_a_price_is_unenforceable() -> None:
    with pytest.raises(UnenforceableCheckError) as info:
        Cost(max_usd=1, prices=PRICES).decide(output_view(completion(USAGE, model="gpt-4o")))
    assert str(info.value) == (
        "Cost(max_usd=1) cannot be checked: no price for model 'gpt-4o' (priced: gpt-4o-mini); "
        "add it, e.g. prices={'gpt-4o': (usd_per_1M_input, usd_per_1M_output)}"
    )


def test_a_base_price_never_prices_another_model() -> None:
    # "gpt-4o" must not price "gpt-4o-mini": only a dated snapshot suffix is stripped.
    with pytest.raises(UnenforceableCheckError, match="no price for model 'gpt-4o-mini'"):
        Cost(max_usd=1, prices={"gpt-4o": (2.5, 10)}).decide(
            output_view(completion(USAGE, model="gpt-4o-mini"))
        )


def test_an_output_without_a_model_is_unenforceable() -> None:
    output = {
        "role": "assistant",
        "content": "Hi.",
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    with pytest.raises(UnenforceableCheckError, match="the output names no model"):
        Cost(max_usd=1, prices=PRICES).decide(output_view(output))


def test_cache_writes_need_their_own_price() -> None:
    prices = {"claude-3-5-haiku": (0.8, 4.0)}
    output = message(cache_creation_input_tokens=1000, cache_read_input_tokens=0)
    with pytest.raises(UnenforceableCheckError, match=r"wrote 1000 tokens to the prompt cache"):
        Cost(max_usd=1, prices=prices).decide(output_view(output))
    four = {"claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0)}
    # 100 * 0.8 + 1000 * 1.0 + 50 * 4.0 = 1280 per 1M
    passed, reason = decide(Cost(max_usd=0.00128, prices=four), output)
    assert passed
    assert reason.startswith("cost $0.001280 (100 input tokens at $0.8/1M, 0 cache reads")


def test_cache_reads_with_a_pair_are_charged_at_the_input_price() -> None:
    usage = dict(USAGE, prompt_tokens_details={"cached_tokens": 600})
    passed, reason = decide(Cost(max_usd=1, prices=PRICES), completion(usage))
    assert passed
    assert "(600 of them cache reads, charged at the input price)" in reason


@pytest.mark.parametrize(
    ("build", "error", "pattern"),
    [
        (lambda: Tokens(), ValueError, r"Tokens\(\) needs at least one ceiling"),
        (lambda: Tokens(max_output=-1), ValueError, r"Tokens\(max_output=-1\) must be a whole"),
        (lambda: Tokens(max_total=math.nan), ValueError, r"Tokens\(max_total=nan\)"),
        (lambda: Tokens(max_input=2.5), ValueError, r"max_input=2.5"),
        (lambda: Tokens(max_output=1, max_completion=1), ValueError, r"two names for one ceiling"),
        (lambda: Cost(max_usd=-0.1, prices=PRICES), ValueError, r"Cost\(max_usd=-0.1\) must be"),
        (lambda: Cost(max_usd=math.nan, prices=PRICES), ValueError, r"max_usd=nan"),
        (lambda: Cost(max_usd=1, prices={}), TypeError, r"must map model names"),
        (lambda: Cost(max_usd=1, prices={"m": (0.1,)}), ValueError, r"prices\['m'\] must be"),
        (lambda: Cost(max_usd=1, prices={"m": (0.1, -1)}), ValueError, r"got \(0.1, -1\)"),
        (lambda: Cost(max_usd=1, prices={"m": "0.1,0.2"}), ValueError, r"prices\['m'\]"),
        (lambda: Cost(max_usd=1, prices={"m": (0.1, math.nan)}), ValueError, r"prices\['m'\]"),
    ],
)
def test_bad_ceilings_and_prices_are_errors(build, error, pattern) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error, match=pattern):
        build()


FOUR_PART = {"gpt-4o-mini": (0.15, 0.60, 0.075, 0.30)}
CACHE_ABOVE_INPUT = {
    "prompt_tokens": 10,
    "completion_tokens": 5,
    "total_tokens": 15,
    "prompt_tokens_details": {"cached_tokens": 5000},
}
TOTAL_OFF = {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 9}


@pytest.mark.parametrize(
    ("usage", "problem"),
    [
        (CACHE_ABOVE_INPUT, r"5000 cached tokens \(reads and writes\) but only 10 input tokens"),
        (TOTAL_OFF, r"9 total tokens, not the 10 input plus 5 output tokens it reports"),
    ],
    ids=["cache-above-input", "total-off"],
)
@pytest.mark.parametrize(
    "check",
    [
        Cost(max_usd=0, prices=FOUR_PART),
        Cost(max_usd=1, prices=PRICES),
        Tokens(max_input=100),
        Tokens(max_output=100),
        Tokens(max_total=100),
    ],
    ids=repr,
)
def test_a_usage_that_contradicts_itself_is_unenforceable_never_a_pass(
    check: Any, usage: dict[str, Any], problem: str
) -> None:
    # Before: Cost(max_usd=0) passed at a negative cost (10 - 5000 uncached input tokens).
    with pytest.raises(UnenforceableCheckError) as info:
        check.decide(output_view(completion(usage)))
    assert str(info.value).startswith(f"{check!r} cannot be checked: the response's usage")
    assert info.match(problem)
    assert info.match("no count in it can be trusted")


def test_anthropic_cache_counts_are_consistent_by_construction() -> None:
    # Anthropic reports cache reads and writes beside input_tokens: never a contradiction.
    output = message(cache_read_input_tokens=5000, cache_creation_input_tokens=10)
    prices = {"claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0)}
    passed, reason = decide(Cost(max_usd=1, prices=prices), output)
    assert passed
    assert reason.startswith("cost $0.000690 (100 input tokens at $0.8/1M, 5000 cache reads")


# --- runs of several steps and models (issues 43 §4, 44) ----------------------------------------


def run_of(*steps: Any) -> list[Any]:
    return [{"role": "user", "content": "Plan, then answer."}, *steps]


def usage(input_tokens: int, output_tokens: int) -> dict[str, int]:
    return {
        "prompt_tokens": input_tokens,
        "completion_tokens": output_tokens,
        "total_tokens": input_tokens + output_tokens,
    }


def test_each_step_is_priced_at_its_own_models_price() -> None:
    """A gpt-4o planning step (100k input) and a gpt-4o-mini reply: $0.2602, not the mini rate."""
    run = run_of(
        completion(usage(100_000, 1_000), model="gpt-4o"),
        completion(usage(1_000, 100), model="gpt-4o-mini"),
    )
    prices = {"gpt-4o": (2.50, 10.00), "gpt-4o-mini": (0.15, 0.60)}
    expected = (100_000 * 2.50 + 1_000 * 10.00 + 1_000 * 0.15 + 100 * 0.60) / 1e6
    result = evaluate_semantic(run, Cost(max_usd=0.05, prices=prices))
    assert not result.passed
    reason = result.leaves[0].verdict.reason or ""
    assert f"${expected:.6f}" in reason
    assert "gpt-4o: 100000 input tokens at $2.5/1M" in reason
    assert evaluate_semantic(run, Cost(max_usd=0.30, prices=prices)).passed


def test_a_step_whose_model_has_no_price_is_unenforceable() -> None:
    run = run_of(
        completion(usage(100_000, 1_000), model="gpt-4o"),
        completion(usage(1_000, 100), model="gpt-4o-mini"),
    )
    with pytest.raises(UnenforceableCheckError, match=r"no price for model 'gpt-4o' \(used in 1"):
        evaluate_semantic(run, Cost(max_usd=0.05, prices=PRICES))


def test_a_step_with_usage_but_no_model_or_a_step_without_usage_is_unenforceable() -> None:
    no_model = completion(usage(10, 1)).model_dump()
    no_model["model"] = ""
    with pytest.raises(
        UnenforceableCheckError, match=r"step 2 of 3 reports token usage but names no"
    ):
        evaluate_semantic(run_of(no_model, completion(usage(10, 1))), Cost(1.0, prices=PRICES))
    partial = run_of(completion(usage(10, 1)), completion(usage(10, 1)).choices[0].message)
    for check in (Cost(1.0, prices=PRICES), Tokens(max_total=100)):
        with pytest.raises(UnenforceableCheckError, match=r"assistant step\(s\) 3 of 3 report no"):
            evaluate_semantic(partial, check)


def test_a_step_whose_usage_contradicts_itself_is_unenforceable() -> None:
    bad = completion({"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 99})
    run = run_of(completion(usage(10, 5)), bad)
    for check in (Cost(1.0, prices=PRICES), Tokens(max_total=1000)):
        with pytest.raises(UnenforceableCheckError, match=r"usage \(step 3.*contradicts itself"):
            evaluate_semantic(run, check)


def test_a_transcript_of_messages_says_where_usage_lives() -> None:
    run = run_of(completion(usage(10, 5)).choices[0].message)
    for check in (Cost(1.0, prices=PRICES), Tokens(max_total=100)):
        with pytest.raises(
            UnenforceableCheckError,
            match=r"not on choices\[0\]\.message; append the whole response",
        ):
            evaluate_semantic(run, check)
