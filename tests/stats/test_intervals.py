"""t intervals of means against scipy (Welch two-sample, one-sample / paired) and by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from cueshift.stats import mean_interval, t_half_width, welch_interval


def test_intervals_against_scipy() -> None:
    rng = np.random.default_rng(7)
    x, y = rng.normal(0.6, 0.2, 40), rng.normal(0.5, 0.3, 35)
    est, lo, hi = welch_interval(x, y, 0.95)
    ref = stats.ttest_ind(x, y, equal_var=False).confidence_interval(0.95)
    assert est == pytest.approx(x.mean() - y.mean())
    assert (lo, hi) == pytest.approx((ref.low, ref.high), rel=1e-10)
    est, lo, hi = mean_interval(x[:35] - y, 0.9)
    ref = stats.ttest_1samp(x[:35] - y, 0.0).confidence_interval(0.9)
    assert (lo, hi) == pytest.approx((ref.low, ref.high), rel=1e-10)


def test_t_half_width_by_hand_and_degenerate_samples() -> None:
    # n = 4, s = 2: t(0.975, 3) = 3.182446305 -> half-width 3.182446305 * 2 / 2
    assert t_half_width(2.0, 4) == pytest.approx(3.182446305284263)
    half = 3.182446305284263 * math.sqrt(5 / 3) / 2  # s = sqrt(5/3) for 1, 2, 3, 4
    assert mean_interval([1.0, 2.0, 3.0, 4.0]) == pytest.approx((2.5, 2.5 - half, 2.5 + half))
    est, lo, hi = mean_interval([0.3, np.nan])
    assert est == 0.3 and math.isnan(lo) and math.isnan(hi)
    assert math.isnan(mean_interval([])[0])
    est, lo, hi = welch_interval([1.0], [0.5, 0.7])
    assert est == pytest.approx(0.4) and math.isnan(lo) and math.isnan(hi)
    assert welch_interval([1.0, 1.0], [0.5, 0.5]) == (0.5, 0.5, 0.5)  # no variance: the point
