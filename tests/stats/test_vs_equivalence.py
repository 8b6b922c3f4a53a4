"""``cueshift.stats.vs_tost``: VS below its margin (equivalent to no shift) or above 0, on planted data.

References: with two groups and one scenario VS is half the gap of the group means, so the test is
a two-sample TOST of the gap against twice the margin with the larger group variance and
``min n - 1`` degrees of freedom, written here with scipy from the raw values (and beside
statsmodels' Welch TOST, which it can only be more conservative than); its Type I error at the
margin and power at a planted zero against their normal-theory values; beyond that, the bounds
against Table 2's :func:`variation_strength_kernel` at level ``1 - 2 alpha``.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.weightstats import ttost_ind

from cueshift.stats import variation_strength_kernel, vs_tost

ALPHA, MARGIN, K, HALF_SPREAD = 0.05, 0.05, 4, 0.1


def planted(
    rng: np.random.Generator, n_per_group: int, group_means: np.ndarray, cells: int
) -> tuple[np.ndarray, np.ndarray]:
    """``(faces, cells)`` φ of ``K`` binary answers each; face ``f`` in group ``g`` answers
    favourably with probability ``group_means[g] + u_f``, ``u_f ~ U(-0.1, 0.1)`` per cell."""
    codes = np.repeat(np.arange(group_means.size), n_per_group)
    p = group_means[codes][:, None] + rng.uniform(-HALF_SPREAD, HALF_SPREAD, size=(codes.size, cells))
    return rng.binomial(K, p) / K, codes


def phi_variance(mean: float) -> float:
    """Variance of one face's φ in a group of true mean ``mean`` (binomial + face spread)."""
    spread = HALF_SPREAD**2 / 3.0
    return (mean * (1.0 - mean) - spread) / K + spread


def test_two_groups_one_scenario_is_a_tost_of_half_the_gap() -> None:
    rng = np.random.default_rng(3)
    for gap, n_a, n_b in ((0.0, 60, 80), (0.04, 150, 120), (0.2, 40, 40), (0.09, 300, 310)):
        codes = np.r_[np.zeros(n_a, dtype=np.int64), np.ones(n_b, dtype=np.int64)]
        x = rng.normal(0.5, 0.15, size=(n_a + n_b, 1)) + gap * codes[:, None]
        res = vs_tost(x, codes, 2, np.zeros(1, dtype=np.int64), MARGIN, alpha=ALPHA)
        a, b = x[codes == 0, 0], x[codes == 1, 0]
        diff = abs(a.mean() - b.mean())
        se = np.sqrt(2.0 * max(a.var(ddof=1) / a.size, b.var(ddof=1) / b.size))
        df = min(a.size, b.size) - 1
        t_one = stats.t.ppf(1 - ALPHA, df)
        assert res.ci_high[0] == pytest.approx(min(diff / 2 + t_one * se / 2, 0.5), rel=1e-9)
        low = max(diff / 2 - stats.t.ppf(1 - ALPHA / 2, df) * se / 2, 0.0)
        assert res.ci_low[0] == pytest.approx(low, rel=1e-9, abs=1e-15)
        p = stats.t.sf((2 * MARGIN - diff) / se, df) if diff < 2 * MARGIN else 1.0
        assert res.p[0] == pytest.approx(p, rel=1e-7)
        assert res.p_shift[0] == pytest.approx(2 * stats.t.sf(diff / se, df), rel=1e-9)
        welch = ttost_ind(a, b, -2 * MARGIN, 2 * MARGIN, usevar="unequal")[0]
        assert res.p[0] >= welch - 1e-12  # the larger variance and fewer df: never less conservative
        if diff < 2 * MARGIN:
            assert res.p[0] == pytest.approx(welch, abs=0.01)  # similar sizes and variances: close


def test_bounds_are_table2s_at_level_one_minus_two_alpha_and_p_is_their_inverse() -> None:
    rng = np.random.default_rng(5)
    x, codes = planted(rng, 40, np.array([0.45, 0.5, 0.5, 0.52]), 12)
    x[rng.random(x.shape) < 0.05] = np.nan
    unit = np.repeat(np.arange(3), 4)
    res = vs_tost(x, codes, 4, unit, MARGIN, alpha=ALPHA)
    table2 = variation_strength_kernel(x, codes, 4, unit, level=1 - 2 * ALPHA)
    np.testing.assert_allclose(res.estimate, table2.estimate, rtol=1e-12)
    np.testing.assert_allclose(res.ci_low, table2.ci_low, rtol=1e-12)
    np.testing.assert_allclose(res.ci_high, table2.ci_high, rtol=1e-12)
    for u in np.flatnonzero(res.p < 0.5):  # at level 1 - 2p the upper bound is the margin
        at_p = variation_strength_kernel(x, codes, 4, unit, level=1 - 2 * res.p[u])
        assert at_p.ci_high[u] == pytest.approx(MARGIN, rel=1e-9)
    assert (res.p_shift >= 0).all() and (res.n_cells == 4).all()
    with pytest.raises(ValueError, match="margin"):
        vs_tost(x, codes, 4, unit, 0.0)


def rates(true_vs: float, replicates: int, n_per_group: int, groups: int, cells: int, seed: int) -> float:
    """Share of planted studies whose VS is declared below the margin (p < α)."""
    pattern = np.linspace(-1.0, 1.0, groups)
    means = 0.5 + true_vs * pattern / pattern.std()  # population std of the group means = true_vs
    x, codes = planted(np.random.default_rng(seed), n_per_group, means, replicates * cells)
    unit = np.repeat(np.arange(replicates), cells)
    return float(np.mean(vs_tost(x, codes, groups, unit, MARGIN, alpha=ALPHA).p < ALPHA))


def normal_theory_rate(true_vs: float, n_per_group: int) -> float:
    """Two groups, one scenario: P(|gap| / 2 + t sd < m) with the gap normal, sd its half's sd."""
    means = 0.5 - true_vs, 0.5 + true_vs
    sd = np.sqrt(sum(phi_variance(m) for m in means) / n_per_group) / 2
    room = MARGIN - stats.t.ppf(1 - ALPHA, n_per_group - 1) * sd
    return float(stats.norm.cdf((room - true_vs) / sd) - stats.norm.cdf((-room - true_vs) / sd))


REPLICATES = 4000
MC_SE = np.sqrt(ALPHA * (1 - ALPHA) / REPLICATES)


def test_type_one_error_at_the_margin_is_nominal_with_two_groups_and_one_scenario() -> None:
    measured = rates(MARGIN, REPLICATES, 200, 2, 1, seed=11)
    reference = normal_theory_rate(MARGIN, 200)
    assert reference == pytest.approx(ALPHA, abs=0.002)
    # the larger of two estimated variances makes it slightly conservative, never liberal
    assert reference - 3 * MC_SE - 0.008 <= measured <= reference + 3 * MC_SE


@pytest.mark.parametrize(("groups", "cells"), [(4, 1), (2, 6), (3, 4)])
def test_type_one_error_at_the_margin_is_at_most_nominal_elsewhere(groups: int, cells: int) -> None:
    replicates = REPLICATES // 2
    measured = rates(MARGIN, replicates, 150, groups, cells, seed=groups * 10 + cells)
    assert measured <= ALPHA + 3 * np.sqrt(ALPHA * (1 - ALPHA) / replicates)  # conservative, never liberal


def test_power_on_planted_zero_vs() -> None:
    measured = rates(0.0, REPLICATES, 200, 2, 1, seed=13)
    reference = normal_theory_rate(0.0, 200)
    se = np.sqrt(reference * (1 - reference) / REPLICATES)
    assert reference > 0.9
    assert reference - 3 * se - 0.01 <= measured <= reference + 3 * se
