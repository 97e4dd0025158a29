"""The statistics of pass/fail counts, against worked examples computed here and statsmodels."""

from __future__ import annotations

import itertools
import math
from statistics import NormalDist

import pytest
from statsmodels.stats.contingency_tables import mcnemar  # the dev extras' oracle
from statsmodels.stats.proportion import confint_proportions_2indep, proportion_confint

from semantix._proportions import (
    Z_JOINT_95,
    JudgeAccuracy,
    corrected_rate,
    mcnemar_exact,
    newcombe_interval,
    wilson_interval,
)
from semantix.runs import wilson_interval as runs_wilson


def binomial_two_sided(b: int, c: int) -> float:
    """The exact two-sided sign test, summed here term by term: 2 * P(X <= min(b, c))."""
    n = b + c
    return min(1.0, 2 * sum(math.comb(n, k) * 0.5**n for k in range(min(b, c) + 1)))


@pytest.mark.parametrize(
    ("b", "c"), [(0, 0), (1, 0), (0, 5), (1, 6), (3, 9), (10, 10), (2, 14), (40, 61)]
)
def test_mcnemar_exact_is_the_two_sided_binomial_of_the_discordant_pairs(b: int, c: int) -> None:
    p = mcnemar_exact(b, c)
    assert p == pytest.approx(binomial_two_sided(b, c), rel=1e-12)
    assert p == pytest.approx(mcnemar([[7, b], [c, 9]], exact=True).pvalue, rel=1e-9)
    assert mcnemar_exact(c, b) == p  # symmetric: only the split of the flips matters


def test_mcnemar_worked_example() -> None:
    # 1 regression, 6 fixes: 2 * (C(7,0) + C(7,1)) / 2**7 = 2 * 8 / 128 = 0.125.
    assert mcnemar_exact(1, 6) == 0.125
    # 0 of 12 flips one way: 2 / 4096.
    assert mcnemar_exact(0, 12) == 2 / 4096


def test_mcnemar_on_ten_thousand_flips_stays_exact() -> None:
    p = mcnemar_exact(4000, 4100)
    assert p == pytest.approx(mcnemar([[0, 4000], [4100, 0]], exact=True).pvalue, rel=1e-9)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "3"])
def test_mcnemar_rejects_what_is_not_a_count(bad: object) -> None:
    with pytest.raises(ValueError, match=r"regressions must be a count \(an int >= 0\), got"):
        mcnemar_exact(bad, 3)  # type: ignore[arg-type]


# Newcombe (1998), Statistics in Medicine 17:873-890, Table II, method 10 (score interval
# without continuity correction): (m/n) - (x/y) and its published bounds.
NEWCOMBE_TABLE_II = [
    ((56, 70), (48, 80), (0.0524, 0.3339)),
    ((9, 10), (3, 10), (0.1705, 0.8090)),
    ((6, 7), (2, 7), (0.0582, 0.8062)),
    ((5, 56), (0, 29), (-0.0381, 0.1926)),
    ((0, 10), (0, 20), (-0.1611, 0.2775)),
    ((10, 10), (0, 20), (0.6791, 1.0000)),
    ((10, 10), (0, 10), (0.6075, 1.0000)),
]


@pytest.mark.parametrize(("first", "second", "published"), NEWCOMBE_TABLE_II)
def test_newcombe_interval_reproduces_the_published_examples(
    first: tuple[int, int], second: tuple[int, int], published: tuple[float, float]
) -> None:
    # newcombe_interval(a, b) is the interval of b - a: here first - second.
    low, high = newcombe_interval(second[0], second[1], first[0], first[1])
    assert (low, high) == pytest.approx(published, abs=1.5e-4)
    oracle = confint_proportions_2indep(*first, *second, method="newcomb")
    assert (low, high) == pytest.approx(oracle, abs=2e-4)  # statsmodels uses z = 1.959964


def test_newcombe_excludes_zero_exactly_when_the_wilson_bounds_are_far_enough() -> None:
    low, high = newcombe_interval(10, 10, 5, 10)  # 10/10 -> 5/10
    assert high < 0 and low > -1
    low, high = newcombe_interval(9, 10, 8, 10)  # 9/10 -> 8/10: not significant
    assert low < 0 < high


@pytest.mark.parametrize(("passes", "runs"), [(0, 5), (5, 5), (17, 20), (1, 3), (480, 1000)])
def test_wilson_interval_matches_statsmodels_and_is_the_one_repeated_runs_use(
    passes: int, runs: int
) -> None:
    assert wilson_interval(passes, runs) == pytest.approx(
        proportion_confint(passes, runs, method="wilson"), abs=1e-4
    )
    assert runs_wilson is wilson_interval  # one implementation, re-exported


def test_rogan_gladen_worked_example_with_known_accuracy() -> None:
    # 17 of 20 runs passed a judge of sensitivity 0.9 and specificity 0.95:
    # (0.85 + 0.95 - 1) / (0.9 + 0.95 - 1) = 0.8 / 0.85.
    rate, (low, high) = corrected_rate(17, 20, JudgeAccuracy(0.9, 0.95))
    assert rate == pytest.approx(0.8 / 0.85)
    w_low, w_high = wilson_interval(17, 20)  # the observed rate's interval, carried through
    assert low == pytest.approx((w_low + 0.95 - 1) / 0.85)
    assert high == 1.0  # (w_high - 0.05) / 0.85 = 1.056: clipped
    assert (w_high - 0.05) / 0.85 > 1


def test_rogan_gladen_clips_below_zero() -> None:
    # 1 of 50 passed, but a judge of specificity 0.9 passes 10 % of bad outputs: below 0.
    rate, (low, high) = corrected_rate(1, 50, JudgeAccuracy(0.95, 0.9))
    assert rate == 0.0 and low == 0.0
    assert high == pytest.approx((wilson_interval(1, 50)[1] - 0.1) / 0.85)


def test_rogan_gladen_interval_widens_for_estimated_accuracy_and_covers_the_whole_box() -> None:
    accuracy = JudgeAccuracy(0.9, 0.95, positives=50, negatives=40)
    rate, (low, high) = corrected_rate(15, 20, accuracy)
    _, (known_low, known_high) = corrected_rate(15, 20, JudgeAccuracy(0.9, 0.95))
    assert rate == pytest.approx((0.75 + 0.95 - 1) / 0.85)
    assert low < known_low and high >= known_high  # widened by the uncertainty of Se and Sp
    # Independently: the formula over a grid of the three 98.3 % Wilson intervals.
    boxes = [
        wilson_interval(15, 20, z=Z_JOINT_95),
        wilson_interval(45, 50, z=Z_JOINT_95),
        wilson_interval(38, 40, z=Z_JOINT_95),
    ]
    grid = [[lo + (hi - lo) * i / 12 for i in range(13)] for lo, hi in boxes]
    values = [
        min(1.0, max(0.0, (p + sp - 1) / (se + sp - 1))) for p, se, sp in itertools.product(*grid)
    ]
    assert (low, high) == pytest.approx((min(values), max(values)), abs=1e-12)


def test_the_joint_quantile_makes_three_intervals_hold_together_at_95_percent() -> None:
    each = 0.95 ** (1 / 3)
    assert NormalDist().inv_cdf(1 - (1 - each) / 2) == pytest.approx(Z_JOINT_95, abs=1e-4)


def test_a_judge_that_may_be_no_better_than_chance_gives_the_whole_range() -> None:
    rate, interval = corrected_rate(6, 10, JudgeAccuracy(0.7, 0.7, positives=5, negatives=5))
    assert interval == (0.0, 1.0)
    assert rate == pytest.approx((0.6 + 0.7 - 1) / 0.4)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ((0.5, 0.5), r"sensitivity 0.5 \+ specificity 0.5 <= 1: such a judge is no better"),
        ((1.2, 0.9), "judge_accuracy sensitivity"),
        ((0.9, 0.9, 10, None), "needs both counts"),
        ((0.9, 0.9, 0, 10), "judge_accuracy positives"),
        ("0.9,0.9", r"judge_accuracy must be \(sensitivity, specificity\)"),
        ((0.9,), r"judge_accuracy must be \(sensitivity, specificity\)"),
    ],
)
def test_bad_judge_accuracy_is_an_error_that_names_it(value: object, message: str) -> None:
    with pytest.raises((TypeError, ValueError), match=message):
        JudgeAccuracy.of(value)


def test_judge_accuracy_reads_as_its_figures() -> None:
    assert str(JudgeAccuracy(0.9, 0.95)) == "sensitivity 0.90, specificity 0.95"
    assert str(JudgeAccuracy.of((0.9, 0.95, 50, 40))).endswith("(n=50+40)")
