"""The replicate kernels of the face bootstrap against numpy, exactly: the quantile selection must
give numpy's linear-interpolation quantile bit for bit whether or not its search window holds the
order statistics, and the in-place replicate means must be numpy's divisions."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from cueshift.stats._face_draws import _Divisors
from cueshift.stats._replicate_kernels import replicate_means, row_moments, row_quantiles, share_below


def _rows() -> np.ndarray:
    """Rows the window finds (normal), misses (heavy skew, ties, constant), and extreme quantiles."""
    rng = np.random.default_rng(5)
    return np.vstack(
        [
            rng.normal(size=(3, 2001)),
            rng.lognormal(sigma=2.0, size=(3, 2001)),  # skewed: the normal window misses
            rng.integers(0, 4, size=(2, 2001)).astype(np.float64),  # heavy ties
            np.full((1, 2001), 0.25),  # constant
        ]
    )


@pytest.mark.parametrize("q_pair", [(0.025, 0.975), (0.0, 1.0), (0.3, 0.9999), (1e-5, 0.5)])
def test_row_quantiles_equal_numpy(q_pair):
    rep = _rows()
    q = np.tile(np.asarray(q_pair), (rep.shape[0], 1))
    with np.errstate(divide="ignore"):
        z = special.ndtri(q)
    out = row_quantiles(rep, q, z, *row_moments(rep))
    expected = np.quantile(rep, q_pair, axis=1).T
    np.testing.assert_array_equal(out, expected)


def test_row_quantiles_skip_rows_with_a_missing_replicate_and_missing_q():
    rep = _rows()
    rep[1, 7] = np.nan
    q = np.tile([0.025, 0.975], (rep.shape[0], 1))
    q[2, 0] = np.nan
    out = row_quantiles(rep, q, special.ndtri(q), *row_moments(rep))
    assert np.isnan(out[1]).all() and np.isnan(out[2, 0]) and not np.isnan(out[2, 1])
    assert np.isnan(out).sum() == 3


def test_replicate_means_divide_in_place_and_take_share_and_moments():
    rng = np.random.default_rng(3)
    sums = rng.normal(size=(4, 500))
    denom = rng.integers(0, 3, size=(2, 500)).astype(np.float64)  # zeros: 0/0 and x/0 replicates
    sums[2, denom[0] == 0] = 0.0
    pattern_of = np.array([-1, 1, 0, -1])
    estimate = np.array([0.01, np.nan, 0.0, -0.02])
    rep = sums.copy()
    share, mean, sd, complete = replicate_means(rep, 40.0, denom, pattern_of, estimate)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.vstack([sums[0] / 40, sums[1] / denom[1], sums[2] / denom[0], sums[3] / 40])
    np.testing.assert_array_equal(rep, expected)
    for j in (0, 3):  # scipy's percentile of score, ties counted half
        assert share[j] == stats.percentileofscore(expected[j], estimate[j], kind="mean") / 100
    assert np.isnan(share[1])
    np.testing.assert_array_equal(share[2], share_below(expected[2:3], estimate[2:3])[0])
    assert complete.tolist() == [True, not np.isnan(expected[1]).any(), False, True]
    np.testing.assert_allclose(mean[[0, 3]], expected[[0, 3]].mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(sd[[0, 3]], expected[[0, 3]].std(axis=1, ddof=1), rtol=1e-9)


@pytest.mark.parametrize("budget", [None, 1])  # all pattern rows at once, or per block of cells
def test_divisors_count_the_drawn_faces_with_data(budget, monkeypatch):
    if budget is not None:
        monkeypatch.setattr("cueshift.stats._face_draws.CHUNK_BYTES", budget)
    rng = np.random.default_rng(8)
    observed = rng.random((30, 12)) < 0.6
    observed[:, [0, 5]] = True  # complete cells
    observed[:, 7] = observed[:, 3]  # a shared pattern
    w = rng.integers(0, 3, size=(50, 30)).astype(np.float64)
    complete = observed.all(axis=0)
    assert isinstance(complete, np.ndarray)
    divisors = _Divisors(observed, complete, np.ascontiguousarray(w.T))
    denom, pattern_of = divisors.of(np.arange(12))
    assert (pattern_of[[0, 5]] == -1).all() and pattern_of[3] == pattern_of[7]
    assert len(set(pattern_of[pattern_of >= 0].tolist())) == 9
    for c in np.flatnonzero(~complete):
        np.testing.assert_array_equal(denom[pattern_of[c]], w @ observed[:, c])
    cols = np.array([4, 5, 7])
    denom, pattern_of = divisors.of(cols)
    assert pattern_of[1] == -1 and pattern_of[0] != pattern_of[2]
    for i in (0, 2):
        np.testing.assert_array_equal(denom[pattern_of[i]], w @ observed[:, cols[i]])
