"""Correlations against scipy: Spearman with the Bonett–Wright interval, Pearson (via
:func:`pearson_slope`), and the result-row helper."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cueshift.stats import correlate, correlation_columns, spearman_with_ci


def test_spearman_against_scipy_with_the_bonett_wright_interval() -> None:
    rng = np.random.default_rng(12)
    x = rng.normal(size=40)
    y = 0.5 * x + rng.normal(size=40)
    x[3] = np.nan  # pairs with a missing value leave
    rho, lo, hi, p, n = spearman_with_ci(x, y, 0.9)
    ref = stats.spearmanr(x[~np.isnan(x)], y[~np.isnan(x)])
    assert rho == pytest.approx(ref.statistic) and p == pytest.approx(ref.pvalue) and n == 39
    half = stats.norm.ppf(0.95) * math.sqrt((1 + rho**2 / 2) / (39 - 3))  # Bonett & Wright (2000)
    assert (lo, hi) == pytest.approx((math.tanh(math.atanh(rho) - half), math.tanh(math.atanh(rho) + half)))
    assert all(math.isnan(v) for v in spearman_with_ci([1, 2], [3, 4])[:4])  # n < 3
    assert math.isnan(spearman_with_ci([1, 1, 1, 1], [1, 2, 3, 4])[0])  # constant
    perfect = spearman_with_ci([1, 2, 3, 4], [2, 4, 6, 8])
    assert perfect[0] == pytest.approx(1.0) and math.isnan(perfect[1])  # |rho| = 1: no interval


def test_pearson_through_correlate_equals_scipy() -> None:
    rng = np.random.default_rng(13)
    x = rng.normal(size=30)
    y = x + rng.normal(size=30)
    est, lo, hi, p, n = correlate(x, y, "pearson", 0.95)
    ref = stats.pearsonr(x, y)
    ci = ref.confidence_interval(0.95)
    assert est == pytest.approx(ref.statistic, rel=1e-12) and p == pytest.approx(ref.pvalue, rel=1e-10)
    assert lo == pytest.approx(ci.low, rel=1e-12) and hi == pytest.approx(ci.high, rel=1e-12) and n == 30
    row = correlation_columns(x, y, "spearman")
    assert list(row) == ["estimate", "ci_low", "ci_high", "p", "n"]
    assert row["estimate"] == spearman_with_ci(x, y)[0]
