"""The analytic kernels: signed-rank, Kruskal-Wallis and binomial power, BH's level, intervals.

References: scipy's tests (simulated) and small cases worked by hand from the formulas.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from cueshift.power.analytic import (
    bh_level_for_target,
    bh_threshold,
    binomial_power,
    kruskal_power,
    normal_half_width,
    solve_increasing,
    wilson_half_width,
    wsrt_power,
)
from cueshift.stats import wilson_interval


@pytest.mark.parametrize("n", [60, 200, 500])
def test_signed_rank_power_is_alpha_at_zero_effect_in_the_normal_regime(n: int) -> None:
    assert wsrt_power(0.0, 1.0, n, 0.05) == pytest.approx(0.05, abs=1e-9)


@pytest.mark.parametrize("n", [10, 20, 40])
def test_signed_rank_power_at_zero_is_the_exact_tests_size(n: int) -> None:
    # the exact test rejects T+ <= c with 2 F0(c) <= alpha: its size is at most alpha
    assert 0.03 < float(wsrt_power(0.0, 1.0, n, 0.05)) < 0.06


def test_signed_rank_power_is_monotone_in_faces_and_effect() -> None:
    n = np.arange(5, 400)
    power = wsrt_power(0.15, 1.0, n, 0.05)
    assert np.all(np.diff(power[n > 50]) > 0)
    effect = np.linspace(0, 1, 50)
    assert np.all(np.diff(wsrt_power(effect, 1.0, 80, 0.05)) >= 0)


@pytest.mark.parametrize(("mu", "n"), [(0.25, 60), (0.2, 100), (0.5, 30)])
def test_signed_rank_power_matches_scipy_wilcoxon_by_simulation(mu: float, n: int) -> None:
    rng = np.random.default_rng(3)
    sims = 3000
    x = rng.normal(mu, 1.0, size=(sims, n))
    rejected = stats.wilcoxon(x, axis=1).pvalue <= 0.05
    se = np.sqrt(0.25 / sims)
    assert float(wsrt_power(mu, 1.0, n, 0.05)) == pytest.approx(rejected.mean(), abs=4 * se + 0.02)


def test_kruskal_power_is_alpha_without_effect_and_grows_with_noncentrality() -> None:
    assert float(kruskal_power(0.0, 3, 0.05)) == pytest.approx(0.05, abs=1e-6)
    lam = np.linspace(0, 30, 20)
    assert np.all(np.diff(kruskal_power(lam, 3, 0.05)) > 0)


def test_binomial_power_equals_the_sum_over_the_rejection_region() -> None:
    n, p = 40, 0.68
    k = np.arange(n + 1)
    p_values = np.array([stats.binomtest(int(i), n, 0.5).pvalue for i in k])
    expected = stats.binom.pmf(k, n, p)[p_values <= 0.05].sum()
    assert float(binomial_power(p, n, 0.05)) == pytest.approx(expected, rel=1e-9)


def test_bh_level_without_true_effects_is_bonferroni() -> None:
    # no true effect: E R(t) = m t, the fixed point collapses and BH is Bonferroni at q/m
    level = bh_threshold(lambda t: np.full(20, t), 20, 0.05)
    assert level == pytest.approx(0.05 / 20)


def test_bh_level_with_every_test_certain_is_q() -> None:
    assert bh_threshold(lambda t: np.ones(10), 10, 0.05) == pytest.approx(0.05)


def test_bh_level_for_target_worked_by_hand() -> None:
    # m = 100, m1 = 20 at power 0.8, q = 0.05: t = q m1 P / (m - q m0) = 0.8 / 96
    assert bh_level_for_target(100, 20, 0.8, 0.05) == pytest.approx(0.05 * 20 * 0.8 / (100 - 0.05 * 80))


def test_solve_increasing_finds_the_crossing_and_reports_unreachable_targets() -> None:
    out = solve_increasing(lambda x: x**2, np.array([0.25, 4.0]), 0.0, 1.0)
    assert out[0] == pytest.approx(0.5, abs=1e-9)
    assert np.isinf(out[1])


def test_half_widths_match_the_interval_formulas() -> None:
    lo, hi = wilson_interval(30, 80)
    assert float(wilson_half_width(30 / 80, 80)) == pytest.approx((hi - lo) / 2, rel=1e-9)
    assert float(normal_half_width(2.0, 100)) == pytest.approx(1.959964 * 0.2, rel=1e-6)
