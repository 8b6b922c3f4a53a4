"""Rank tests, ANOVA, BH and Pearson of cueshift.stats against scipy / statsmodels (to 1e-12).

Reference values come from scipy.stats and statsmodels on the same random data; the data
include ties, zeros and missing values so the tie/zero handling is exercised.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import numpy.typing as npt
import pandas as pd
import pytest
import scipy.stats as st
from statsmodels.formula.api import ols
from statsmodels.stats.anova import anova_lm
from statsmodels.stats.multitest import multipletests

from cueshift.stats import (
    bh_adjust,
    kruskal_columns,
    kruskal_wallis,
    mann_whitney_columns,
    one_way_anova,
    pearson_slope,
    signed_rank_columns,
    wilcoxon_signed_rank,
)
from tests.scalars import Tolerance

TOL: Tolerance = dict(rtol=1e-12, atol=1e-12)


@pytest.fixture(scope="module")
def tied() -> np.ndarray:
    """60 × 6 values on a coarse grid (ties and zeros), a few missing."""
    rng = np.random.default_rng(11)
    x = np.round(rng.normal(0.15, 1.0, size=(60, 6)), 1)
    x[rng.integers(0, 60, 5), rng.integers(0, 6, 5)] = np.nan
    x[:4, 0] = 0.0
    return x


@pytest.mark.parametrize("zero_method", ["wilcox", "pratt", "zsplit"])
@pytest.mark.parametrize("correction", [False, True])
@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_signed_rank_asymptotic_equals_scipy(tied, zero_method, correction, alternative):
    ours = signed_rank_columns(
        tied, zero_method=zero_method, correction=correction, alternative=alternative, method="asymptotic"
    )
    for c in range(tied.shape[1]):
        ref = st.wilcoxon(
            tied[:, c],
            zero_method=zero_method,
            correction=correction,
            alternative=alternative,
            method="asymptotic",
            nan_policy="omit",
        )
        np.testing.assert_allclose(ours.statistic[c], ref.statistic, **TOL)
        np.testing.assert_allclose(ours.p_value[c], ref.pvalue, **TOL)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_signed_rank_exact_equals_scipy(alternative):
    x = np.random.default_rng(3).normal(0.3, 1.0, size=(18, 4))  # continuous: no ties, no zeros
    ours = signed_rank_columns(x, alternative=alternative)  # 'auto' → exact for n ≤ 50
    ref = st.wilcoxon(x, axis=0, alternative=alternative, method="exact")
    np.testing.assert_allclose(ours.p_value, ref.pvalue, **TOL)
    np.testing.assert_allclose(ours.statistic, ref.statistic, **TOL)


def test_signed_rank_effect_size_by_hand():
    # d = [1, -2, 3, 4]: ranks 1, 2, 3, 4; R+ = 1 + 3 + 4 = 8, R- = 2 → r = (8 - 2) / 10 = 0.6
    ours = signed_rank_columns(np.array([[1.0], [-2.0], [3.0], [4.0]]))
    assert ours.effect_size[0] == pytest.approx(0.6, abs=1e-15)
    assert ours.statistic[0] == 2.0  # two-sided statistic: min(R+, R-)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
@pytest.mark.parametrize("continuity", [True, False])
def test_mann_whitney_asymptotic_equals_scipy(tied, alternative, continuity):
    labels = np.random.default_rng(5).integers(-1, 2, size=60)  # -1 = face not in either group
    ours = mann_whitney_columns(
        tied, labels, use_continuity=continuity, alternative=alternative, method="asymptotic"
    )
    for c in range(tied.shape[1]):
        v = tied[:, c]
        ok = ~np.isnan(v)
        ref = st.mannwhitneyu(
            v[ok & (labels == 0)],
            v[ok & (labels == 1)],
            use_continuity=continuity,
            alternative=alternative,
            method="asymptotic",
        )
        np.testing.assert_allclose(ours.statistic[c], ref.statistic, **TOL)
        np.testing.assert_allclose(ours.p_value[c], ref.pvalue, **TOL)


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_mann_whitney_exact_equals_scipy(alternative):
    x = np.random.default_rng(8).normal(size=(13, 3))
    labels = np.array([0] * 6 + [1] * 7)
    ours = mann_whitney_columns(x, labels, alternative=alternative)  # 'auto' → exact (a group ≤ 8, no ties)
    ref = st.mannwhitneyu(x[:6], x[6:], axis=0, alternative=alternative, method="exact")
    np.testing.assert_allclose(ours.p_value, ref.pvalue, **TOL)


def test_kruskal_equals_scipy(tied):
    labels = np.random.default_rng(9).integers(0, 4, size=60)
    ours = kruskal_columns(tied, labels, 4)
    for c in range(tied.shape[1]):
        v = tied[:, c]
        ok = ~np.isnan(v)
        ref = st.kruskal(*[v[ok & (labels == g)] for g in range(4)])
        np.testing.assert_allclose(ours.statistic[c], ref.statistic, **TOL)
        np.testing.assert_allclose(ours.p_value[c], ref.pvalue, **TOL)
        assert ours.z[c] == 3.0  # df = k - 1


def test_kruskal_wallis_one_sample_hand_worked_and_against_scipy():
    # ranks 1..6, R = (6, 15): H = 12/(6*7) * (36/3 + 225/3) - 3*7 = 27/7
    result = kruskal_wallis([[1, 2, 3], [4, 5, 6]])
    assert result.statistic == pytest.approx(27 / 7)
    assert result.epsilon_squared == pytest.approx(27 / 7 / 5)
    rng = np.random.default_rng(3)
    groups = [rng.integers(0, 5, n) / 4 for n in (30, 25, 11)]  # many ties, as s in {0, 1/4, ...}
    ours, ref = kruskal_wallis(groups), st.kruskal(*groups)
    assert ours.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert ours.df == 2 and ours.n == 66
    # missing values and empty groups leave the test; it is the column kernel on one cell
    with_gaps: list[npt.ArrayLike] = [np.append(groups[0], np.nan), [], groups[1], groups[2]]
    assert kruskal_wallis(with_gaps) == ours
    labels = np.repeat([0, 1, 2], [30, 25, 11])
    cell = kruskal_columns(np.concatenate(groups), labels, 3)
    assert (ours.statistic, ours.p_value) == (cell.statistic[0], cell.p_value[0])


def test_kruskal_columns_of_an_all_tied_cell_is_undefined():
    """Every base face with the same φ (a scenario a judge always answers one way): H = 0/0.

    The numerator 12/(N(N+1)) Σ R²/n − 3(N+1) is rounding noise there, not 0 (N = 25, 26, 35, ...),
    and noise / 0 gave H = inf, p = 0: a 'significant' demographic effect from constant data.
    Reference: R's ``kruskal.test(rep(1, n), factor((0:(n-1)) %% 3))`` gives NaN for every n here
    (R 4, checked by hand); scipy 1.17's ``kruskal`` has the same flaw (inf, p = 0 at N = 25)."""
    sizes = range(3, 60)
    x = np.full((59, len(sizes)), np.nan)
    for c, n in enumerate(sizes):
        x[:n, c] = 1.0
    labels = np.arange(59) % 3
    ours = kruskal_columns(x, labels, 3)
    assert np.isnan(ours.statistic).all() and np.isnan(ours.p_value).all()
    assert np.isnan(ours.effect_size).all()


def test_rank_tests_of_one_sample_have_no_statistic():
    """A cell where only one group has values has no test (D97): scipy's ``kruskal`` and
    ``mannwhitneyu`` give NaN there. Kruskal–Wallis gave H = 12/(N(N+1)) R²/N − 3(N+1) =
    1.4e-14 (0 at most N) and ε² of it; Mann–Whitney gave U₁ = 0, which reads as complete
    separation, and z = −inf. Found by a property test whose panels leave arms out of a group."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy: too small a sample
        assert math.isnan(st.kruskal(np.arange(25.0), []).statistic)
        assert math.isnan(st.mannwhitneyu(np.arange(3.0), []).statistic)
    x = np.full((25, 3), np.nan)
    x[:, 0] = np.arange(25.0)  # every value in group 0 (N = 25: H was 1.4e-14)
    x[:2, 1] = [0.0, 0.25]
    kw = kruskal_columns(x, np.zeros(25, dtype=np.int64), 2)
    assert np.isnan(kw.statistic).all() and np.isnan(kw.effect_size).all() and np.isnan(kw.p_value).all()
    assert kw.n.tolist() == [25.0, 2.0, 0.0] and (kw.z[:2] == 0.0).all()  # df = k - 1 = 0
    for labels in (np.zeros(25, dtype=np.int64), np.ones(25, dtype=np.int64)):  # the other side empty
        mw = mann_whitney_columns(x, labels)
        assert np.isnan(mw.statistic).all() and np.isnan(mw.z).all() and np.isnan(mw.p_value).all()
        assert np.isnan(mw.effect_size).all() and mw.n.tolist() == [25.0, 2.0, 0.0]


@pytest.mark.parametrize("alternative", ["two-sided", "less", "greater"])
def test_mann_whitney_exact_with_ties_floors_u_as_scipy(alternative):
    """``method='exact'`` on tied data: U is a half-integer, referred to the untied null at
    ⌊U⌋ as scipy does. Rounding half to even took P(U ≥ 2) at U = 1.5 (x = [0], y = [0, 1]:
    two-sided p 2/3, scipy 1) and at U = 2.5 alike."""
    cases = [([0.0], [0.0, 1.0]), ([0.0, 1.0, 1.0], [1.0, 2.0]), ([0.0, 0.0, 2.0], [1.0, 2.0, 2.0, 3.0])]
    for x, y in cases:
        values = np.array(x + y)
        labels = np.repeat([0, 1], [len(x), len(y)])
        ours = mann_whitney_columns(values, labels, method="exact", alternative=alternative)
        ref = st.mannwhitneyu(x, y, method="exact", alternative=alternative)
        assert ours.statistic[0] == ref.statistic
        assert ours.p_value[0] == pytest.approx(ref.pvalue, rel=1e-12), (x, y)


def test_kruskal_wallis_undefined_cases():
    tied = kruskal_wallis([[0.5, 0.5], [0.5]])  # every value tied: H undefined
    assert math.isnan(tied.statistic) and math.isnan(tied.p_value) and (tied.df, tied.n) == (1.0, 3)
    one = kruskal_wallis([[1.0, 2.0], [np.nan]])  # one group left
    assert math.isnan(one.statistic) and (one.df, one.n) == (0.0, 2)
    none = kruskal_wallis([])
    assert math.isnan(none.statistic) and (none.df, none.n) == (0.0, 0)


def test_wilcoxon_one_sample_against_scipy_and_rank_biserial_by_hand():
    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.08, 0.25, 60), 1)  # zeros and ties
    ours = wilcoxon_signed_rank(d)
    ref = st.wilcoxon(d, method="approx", correction=False, zero_method="wilcox")
    assert ours.p_value == pytest.approx(ref.pvalue, rel=1e-10)
    assert min(ours.statistic, ours.n * (ours.n + 1) / 2 - ours.statistic) == pytest.approx(ref.statistic)
    assert ours.n == int(np.sum(d != 0))
    # d = (1, 2, -3): T+ = 3, T- = 3 -> r = 0; d = (1, 2, 3): r = 1, T+ = 6
    assert wilcoxon_signed_rank([1, 2, -3]).rank_biserial == pytest.approx(0.0)
    assert wilcoxon_signed_rank([1, 2, 3]).rank_biserial == pytest.approx(1.0)
    assert wilcoxon_signed_rank([1, 2, 3, np.nan]).statistic == 6.0
    empty = wilcoxon_signed_rank([0.0, np.nan])
    assert empty.n == 0 and math.isnan(empty.statistic) and math.isnan(empty.p_value)


def test_one_way_anova_equals_scipy_and_statsmodels():
    rng = np.random.default_rng(21)
    groups = rng.choice(["thin", "normal", "obese"], size=120)
    y = rng.normal(size=120) + (groups == "obese") * 0.4
    ours = one_way_anova(y, groups)
    ref = st.f_oneway(*[y[groups == g] for g in ("thin", "normal", "obese")])
    np.testing.assert_allclose(ours.statistic, ref.statistic, **TOL)
    np.testing.assert_allclose(ours.p_value, ref.pvalue, **TOL)
    table = anova_lm(ols("y ~ C(g)", data=pd.DataFrame({"y": y, "g": groups})).fit())
    ss_b, ss_w = table["sum_sq"].iloc[0], table["sum_sq"].iloc[1]
    np.testing.assert_allclose(ours.eta_sq_partial, ss_b / (ss_b + ss_w), rtol=1e-10)
    assert (ours.df_between, ours.df_within) == (2.0, 117.0)


@pytest.mark.parametrize("missing", [None, np.nan, pd.NA])
def test_one_way_anova_drops_missing_labels(missing):
    """A missing label of any spelling (None, a float NaN from pandas or numpy, pandas' NA) is
    dropped, not a group of its own: the test equals scipy's on the labelled rows."""
    rng = np.random.default_rng(5)
    labelled = rng.choice(["thin", "normal"], size=40).astype(object)
    y = rng.normal(size=48) + 0.3
    labels = np.concatenate([labelled, [missing] * 8])
    ours = one_way_anova(y, labels)
    ref = st.f_oneway(*[y[:40][labelled == g] for g in ("thin", "normal")])
    np.testing.assert_allclose([ours.statistic, ours.p_value], [ref.statistic, ref.pvalue], **TOL)
    assert (ours.df_between, ours.n) == (1.0, 40)


@pytest.mark.parametrize(
    "y",
    [
        [0.1] * 9,  # every value equal: F undefined (the sums of squares are rounding noise)
        [0.1] * 3 + [0.3] * 3 + [0.7] * 3,  # constant groups that differ: F infinite, p = 0
        [0.1, 0.1, 0.3] * 3,  # equal group means: F = 0, p = 1
    ],
)
def test_one_way_anova_of_constant_groups_equals_scipy(y):
    y = np.asarray(y)
    groups = np.repeat(["elderly", "middle-aged", "young adult"], 3)
    ours = one_way_anova(y, groups)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about constant input
        ref = st.f_oneway(y[:3], y[3:6], y[6:])
    np.testing.assert_allclose(ours.statistic, ref.statistic, atol=1e-12)
    np.testing.assert_allclose(ours.p_value, ref.pvalue, atol=1e-12)
    if np.all(y == y[0]):
        assert math.isnan(ours.eta_sq_partial)
    else:  # SS_b / (SS_b + SS_w) by hand: 1 when the groups are constant, 0 when the means are equal
        assert ours.eta_sq_partial == pytest.approx(1.0 if np.isinf(ref.statistic) else 0.0, abs=1e-12)


def test_bh_equals_statsmodels_and_scipy():
    p = np.random.default_rng(4).uniform(size=437) ** 3  # many small p-values, ties from rounding
    p = np.round(p, 4)
    ours = bh_adjust(p)
    np.testing.assert_allclose(ours, multipletests(p, method="fdr_bh")[1], **TOL)
    np.testing.assert_allclose(ours, st.false_discovery_control(p), **TOL)
    with_nan = p.copy()
    with_nan[[3, 10]] = np.nan  # missing p-values leave the family
    adj = bh_adjust(with_nan)
    assert np.isnan(adj[[3, 10]]).all()
    keep = ~np.isnan(with_nan)
    np.testing.assert_allclose(adj[keep], multipletests(with_nan[keep], method="fdr_bh")[1], **TOL)


def test_bh_by_hand():
    # m = 3; sorted p = 0.01, 0.03, 0.04 → 0.03, 0.045, 0.04 → step-up minima 0.03, 0.04, 0.04
    np.testing.assert_allclose(bh_adjust([0.01, 0.04, 0.03]), [0.03, 0.04, 0.04], **TOL)


@pytest.mark.parametrize("n", [10, 37])
def test_pearson_slope_of_a_constant_variable_is_undefined_as_scipy(n):
    """Equal values centre to rounding noise (mean of ten 0.1s is not 0.1): r must be NaN, not ~0."""
    y = np.random.default_rng(n).normal(size=n)
    constant = np.full(n, 2 / 7)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy warns about constant input
        assert math.isnan(st.pearsonr(constant, y).statistic)
    for x, other in ((constant, y), (y, constant)):
        ours = pearson_slope(x, other)
        assert math.isnan(ours.r) and math.isnan(ours.p_value) and math.isnan(ours.statistic)
    assert math.isnan(pearson_slope(constant, y).slope)  # no slope on a constant x
    assert pearson_slope(y, constant).slope == 0.0  # a constant y: the OLS slope is exactly 0


def test_pearson_slope_equals_scipy():
    rng = np.random.default_rng(6)
    x = rng.normal(size=25)
    y = 0.39 * x + rng.normal(scale=0.3, size=25)
    ours = pearson_slope(x, y)
    ref = st.pearsonr(x, y)
    lin = st.linregress(x, y)
    np.testing.assert_allclose(ours.r, ref.statistic, **TOL)
    np.testing.assert_allclose(ours.p_value, ref.pvalue, rtol=1e-10)
    np.testing.assert_allclose(ours.slope, lin.slope, **TOL)
    np.testing.assert_allclose([ours.ci_low, ours.ci_high], list(ref.confidence_interval()), **TOL)
