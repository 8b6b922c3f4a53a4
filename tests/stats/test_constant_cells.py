"""Constant data: statistics whose spread is exactly zero, where rounding makes it noise (D49).

Every value of a cell equal: a spread computed from sums is rounding noise, not 0, and a test of
"is it zero?" on it gives F = 3, t = 1e16 or NaN intervals. Each statistic here is checked on
such cells at several sizes (the sizes where rounding put every replicate on one side of the
estimate) against the exact answer: the point as the interval, or scipy's value where scipy
defines one.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from scipy import stats as sps

from cueshift.designs.stylisticbias.stats import model_summary
from cueshift.stats import (
    CIMethod,
    Resampling,
    cohens_dz,
    crossed_bootstrap,
    face_multiplicities,
    mean_interval,
    one_sample_test,
    scenario_multiplicities,
    tost,
    welch_interval,
)
from tests.stats.frames import delta_rows

SCALE = 27720.0  # COMMON_DENOMINATOR: Δ · SCALE is an integer


def _constant_row(n_faces: int, n_scen: int, value: float) -> tuple[np.ndarray, np.ndarray]:
    """Integer sums and unequal counts (1 to 3 judgments) per face × scenario, every Δ = value."""
    counts = np.random.default_rng(n_faces).integers(1, 4, (n_faces, 1, n_scen)).astype(np.float64)
    return np.rint(counts * value * SCALE), counts


@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("redrawn", [True, False])
def test_crossed_bootstrap_of_a_constant_row_is_the_point(method: CIMethod, redrawn: bool) -> None:
    """Each replicate of Δ = 0.1 (or 0.3, 1/7) everywhere is that value but for the rounding of
    its sums, which put every replicate on one side of the estimate for 42, 43, 44, 47, 72, 80, ...
    faces: BCa's z0 was infinite and its interval NaN, the percentile interval excluded the point."""
    n_scen, n_rep = 5, 200
    for value, sizes in ((0.1, (42, 43, 44, 45, 47, 96)), (0.3, (64, 72, 80)), (1 / 7, (24, 48, 56))):
        for n in sizes:
            sums, counts = _constant_row(n, n_scen, value)
            w = face_multiplicities(n, n_rep, 1)
            v = scenario_multiplicities(n_scen, n_rep, 1) if redrawn else np.ones((n_rep, n_scen))
            boot = crossed_bootstrap(sums, counts, SCALE, w, v, method=method)
            assert boot.estimate[0] == pytest.approx(value, rel=1e-13)
            assert boot.ci_low[0] == boot.estimate[0] == boot.ci_high[0], (value, n)


def test_crossed_bootstrap_of_equal_face_means_over_varying_scenarios_is_not_the_point() -> None:
    """Every face has the same mean, but its scenarios differ (0.2 and 0.0 in turn): redrawing the
    scenarios moves the estimate, so only the faces-only bootstrap has a zero-width interval."""
    n, n_scen, n_rep = 45, 4, 400
    counts = np.ones((n, 1, n_scen))
    sums = np.rint(np.tile([0.2, 0.0, 0.2, 0.0], (n, 1))[:, None, :] * SCALE)
    w = face_multiplicities(n, n_rep, 2)
    crossed = crossed_bootstrap(sums, counts, SCALE, w, scenario_multiplicities(n_scen, n_rep, 2))
    faces = crossed_bootstrap(sums, counts, SCALE, w, np.ones((n_rep, n_scen)))
    assert crossed.ci_high[0] - crossed.ci_low[0] > 0.05
    assert faces.ci_low[0] == faces.estimate[0] == faces.ci_high[0]


def test_welch_interval_of_two_constant_samples_is_the_exact_difference() -> None:
    """45 values 0.1 against 30 values 0.3: scipy's Welch test gives t = -1.7e16 and an interval
    of width 1e-16 about -0.2000000000000001 (the means' rounding); the exact answer is the point
    0.1 - 0.3. Two constant samples of the same value differ by exactly 0 (was ±8e-17)."""
    x, y = np.full(45, 0.1), np.full(30, 0.3)
    assert welch_interval(x, y) == (0.1 - 0.3, 0.1 - 0.3, 0.1 - 0.3)
    assert welch_interval(x, np.full(30, 0.1)) == (0.0, 0.0, 0.0)
    assert mean_interval(np.full(45, 0.1)) == (0.1, 0.1, 0.1)


def test_welch_interval_with_one_constant_sample_is_scipys() -> None:
    """Only one sample constant: the interval is defined, and scipy's (its variance noise of 1e-35
    beside the other's does not move it beyond rounding)."""
    x = np.full(45, 0.1)
    y = np.random.default_rng(3).normal(0.3, 0.1, 30)
    est, low, high = welch_interval(x, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # scipy: "catastrophic cancellation" in x
        ref = sps.ttest_ind(x, y, equal_var=False).confidence_interval()
    assert (low, high) == pytest.approx((ref.low, ref.high), rel=1e-12)
    assert est == pytest.approx(x.mean() - y.mean(), rel=1e-14)


def test_cohens_dz_of_constant_columns_is_infinite_or_undefined() -> None:
    """d_z = mean / sd: equal non-zero values have sd exactly 0 (d = ±inf; was ±1.6e16, the mean
    over rounding noise), equal zeros 0/0 (NaN); one value leaves sd undefined. A face without data
    (NaN) is left out. Ordinary columns are scipy's mean / sd."""
    ordinary = np.random.default_rng(4).normal(0.2, 0.5, 45)
    values = np.column_stack(
        [np.full(45, 0.1), np.full(45, -0.3), np.zeros(45), np.r_[0.2, [np.nan] * 44], ordinary]
    )
    values[7, 0] = np.nan
    expected = [np.inf, -np.inf, np.nan, np.nan, ordinary.mean() / sps.tstd(ordinary)]
    np.testing.assert_allclose(cohens_dz(values), expected, rtol=1e-12)
    _, _, d, name = one_sample_test(values, test="permutation", n_resamples=200)
    assert name == "sign-flip"
    np.testing.assert_allclose(d, expected, rtol=1e-12)


def test_table5_cohens_d_of_a_model_whose_faces_all_shift_alike_is_infinite() -> None:
    """Every face of m1 at Δ = 0.1 in every scenario: Table 5's d was 1.6e16 (sd of rounding noise)."""
    rows = [
        {"face_id": f"f{i}", "variation_value": "Casual", "scenario_id": s, "delta": 0.1}
        for i in range(45)
        for s in ("s1", "s2")
    ]
    out = model_summary(delta_rows(rows), resampling=Resampling(resamples=200))
    m1 = out.filter(pl.col("model_id") == "m1").row(0, named=True)
    assert m1["cohens_d"] == np.inf
    assert m1["ci_low"] == m1["estimate"] == m1["ci_high"]


def test_tost_of_constant_faces_is_the_point_and_decided() -> None:
    """n equal values: the TOST's interval is the value itself (was that value off by ulps, ±1e-17:
    the sd of rounding noise) and both one-sided tests reject (t = ±inf), whatever n."""
    for value in (0.1, 0.3, 1 / 7, -0.2):
        for n in (3, 6, 12, 45, 46, 52, 100):
            res = tost(np.full((n, 1), value), 0.5)
            assert res.estimate[0] == res.ci_low[0] == res.ci_high[0] == value, (value, n)
            assert res.p[0] == 0.0 and res.p_shift[0] == 0.0


def test_tost_of_constant_faces_on_or_beyond_the_margin_is_not_equivalent() -> None:
    """Equal values exactly on the margin: H0 |mu| >= m holds, so p = 1 (the 0/0 one-sided test
    was NaN and np.fmax dropped it, reading "equivalent" with p = 0)."""
    for margin in (0.5, 0.25, 0.1):
        for sign in (1.0, -1.0):
            on_margin = tost(np.full((30, 1), sign * margin), margin)
            assert on_margin.p[0] == 1.0, (margin, sign)
            beyond = tost(np.full((30, 1), sign * 2 * margin), margin)
            assert beyond.p[0] == 1.0, (margin, sign)
            inside = tost(np.full((30, 1), sign * margin / 2), margin)
            assert inside.p[0] == 0.0, (margin, sign)
