"""Numba resampling against scipy.stats.bootstrap / permutation_test within Monte Carlo error.

Tolerances are set from the Monte Carlo error of the quantities compared (stated per test)
and each test also checks that the compared quantity is sensitive to the thing it guards
(e.g. BCa vs percentile differ by more than the tolerance on skewed data).
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.stats as st

from cueshift.stats import cluster_bootstrap, face_multiplicities, label_permutation_test, sign_flip_test

B = 20_000


@pytest.fixture(scope="module")
def skewed() -> np.ndarray:
    """40 faces × 3 cells of right-skewed per-face values."""
    return np.random.default_rng(12).exponential(scale=0.1, size=(40, 3))


def _scipy_ci(x: np.ndarray, method: str, seed: int) -> tuple[float, float]:
    ci = st.bootstrap((x,), np.mean, n_resamples=B, method=method, rng=seed).confidence_interval
    return ci.low, ci.high


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_matches_scipy(skewed, method):
    ours, _ = cluster_bootstrap(skewed, n_resamples=B, seed=1, method=method)
    for c in range(skewed.shape[1]):
        low, high = _scipy_ci(skewed[:, c], "BCa" if method == "bca" else "percentile", seed=c)
        width = high - low
        # MC sd of a 2.5 % quantile at B = 20,000 ≈ 0.005 × CI width (normal theory); two
        # independent runs → 0.007; 0.035 × width ≈ 5 sd.
        assert abs(ours.ci_low[c] - low) < 0.035 * width
        assert abs(ours.ci_high[c] - high) < 0.035 * width
        assert ours.estimate[c] == pytest.approx(skewed[:, c].mean(), abs=1e-15)


def test_bca_is_distinguishable_from_percentile(skewed):
    """The comparison above can fail: on these data BCa and percentile differ by more than its tolerance."""
    bca, _ = cluster_bootstrap(skewed, n_resamples=B, seed=1, method="bca")
    pct, _ = cluster_bootstrap(skewed, n_resamples=B, seed=1, method="percentile")
    width = bca.ci_high - bca.ci_low
    assert np.all(np.abs(bca.ci_high - pct.ci_high) > 0.035 * width)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_of_equal_face_values_is_the_point(method):
    """Every resample of n equal values has that mean, so the interval is the point. The replicate
    sums round to one side of the estimate for some n (45, 46, 52, ... faces of 0.1): BCa's z0 was
    infinite and its interval NaN. A missing face changes nothing where every replicate has data."""
    sizes = [45, 46, 52, 60, 100]
    x = np.full((max(sizes), len(sizes) + 1), np.nan)
    for c, n in enumerate(sizes):
        x[:n, c] = 0.1
    x[:, -1] = 0.3
    x[7, -1] = np.nan
    res, _ = cluster_bootstrap(x, n_resamples=300, method=method, seed=1)
    np.testing.assert_allclose(res.estimate, [0.1] * len(sizes) + [0.3], rtol=1e-14)
    assert (res.ci_low == res.estimate).all() and (res.ci_high == res.estimate).all()


def test_bootstrap_is_seeded_and_resamples_faces():
    x = np.random.default_rng(0).normal(size=(30, 4))
    a, _ = cluster_bootstrap(x, n_resamples=2000, seed=7)
    b, _ = cluster_bootstrap(x, n_resamples=2000, seed=7)
    c, _ = cluster_bootstrap(x, n_resamples=2000, seed=8)
    np.testing.assert_array_equal(a.ci_low, b.ci_low)
    assert not np.array_equal(a.ci_low, c.ci_low)
    w = face_multiplicities(30, 500, seed=3)
    assert w.shape == (500, 30) and np.all(w.sum(axis=1) == 30)  # each replicate draws 30 faces


@pytest.mark.parametrize("alternative", ["two-sided", "greater", "less"])
def test_sign_flip_matches_scipy(alternative):
    rng = np.random.default_rng(5)
    d = np.column_stack([rng.normal(0.25, 1, 40), rng.normal(0.0, 1, 40)])
    _, ours = sign_flip_test(d, n_resamples=B, seed=2, alternative=alternative)
    for c in range(2):
        ref = st.permutation_test(
            (d[:, c],), np.mean, permutation_type="samples", n_resamples=B, alternative=alternative, rng=c
        ).pvalue
        # two independent MC estimates of p: sd ≤ sqrt(2 p (1 - p) / B); 5 sd + 1e-3
        tol = 5 * np.sqrt(2 * ref * (1 - ref) / B) + 1e-3
        assert abs(ours[c] - ref) < tol


def test_sign_flip_exact_when_small():
    d = np.random.default_rng(9).normal(0.5, 1, size=(10, 1))  # 2^10 = 1024 ≤ n_resamples → exact
    _, ours = sign_flip_test(d, n_resamples=5000)
    ref = st.permutation_test((d[:, 0],), np.mean, permutation_type="samples").pvalue
    assert ours[0] == pytest.approx(ref, abs=1e-12)
    # by hand: enumerate all 1024 sign vectors
    signs = np.array(list(itertools.product([1, -1], repeat=10)))
    null = signs @ d[:, 0]
    obs = d[:, 0].sum()
    by_hand = min(1.0, 2 * min(np.mean(null >= obs - 1e-12), np.mean(null <= obs + 1e-12)))
    assert ours[0] == pytest.approx(by_hand, abs=1e-12)


def test_label_permutation_matches_scipy():
    rng = np.random.default_rng(4)
    labels = rng.integers(0, 2, size=50)
    y = rng.normal(size=(50, 1)) + 0.5 * labels[:, None]
    _, ours = label_permutation_test(y, labels, 2, n_resamples=B, seed=3)
    ref = st.permutation_test(
        (y[labels == 0, 0], y[labels == 1, 0]), lambda a, b: np.mean(a) - np.mean(b), n_resamples=B, rng=1
    ).pvalue
    assert abs(ours[0] - ref) < 5 * np.sqrt(2 * ref * (1 - ref) / B) + 1e-3


def test_label_permutation_exact():
    rng = np.random.default_rng(2)
    y = rng.normal(size=(7, 1))
    two = np.array([0, 0, 0, 1, 1, 1, 1])  # C(7, 3) = 35 labelings ≤ n_resamples → exact
    _, ours = label_permutation_test(y, two, 2)
    ref = st.permutation_test((y[:3, 0], y[3:, 0]), lambda a, b: np.mean(a) - np.mean(b)).pvalue
    assert ours[0] == pytest.approx(ref, abs=1e-12)
    three = np.array([0, 0, 1, 1, 2, 2, 2])  # 7! / (2! 2! 3!) = 210 labelings, statistic Σ n_g (ȳ_g − ȳ)²
    _, ours3 = label_permutation_test(y, three, 3)

    def ss_between(lab: np.ndarray) -> float:
        return float(sum((lab == g).sum() * (y[lab == g, 0].mean() - y[:, 0].mean()) ** 2 for g in range(3)))

    labelings = {tuple(p) for p in itertools.permutations(three)}
    assert len(labelings) == 210
    obs = ss_between(three)
    by_hand = np.mean([ss_between(np.array(p)) >= obs - 1e-12 for p in labelings])
    assert ours3[0] == pytest.approx(by_hand, abs=1e-12)


@pytest.mark.parametrize("test", ["sign-flip", "label-3-groups", "label-2-groups"])
def test_permutation_p_values_hold_their_level_under_the_null(test):
    """Type I error on planted nulls: R = 1000 independent null cells (30 faces each), B = 199 random
    resamples (below the exact-enumeration size). With p = (b+1)/(B+1), P(p ≤ α) = α exactly for
    α = 0.05 and 0.2 (10 and 40 of 200 ranks); accepted: binomial 99.9 % regions [28, 76] and
    [158, 242] of 1000. Seeded, so deterministic; the regions bound a false failure for another seed."""
    rng = np.random.default_rng(11)
    values = rng.normal(size=(30, 1000))
    if test == "sign-flip":
        _, p = sign_flip_test(values, n_resamples=199, seed=4)
    else:
        k = 3 if test == "label-3-groups" else 2
        _, p = label_permutation_test(values, np.arange(30) % k, k, n_resamples=199, seed=4)
    assert p.min() > 0  # never 0: the observed labelling counts
    assert 28 <= np.sum(p <= 0.05) <= 76
    assert 158 <= np.sum(p <= 0.2) <= 242
