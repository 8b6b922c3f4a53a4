"""Logistic kernels: Wald inference by hand, separation detection, and Bradley–Terry strengths
against a direct statsmodels fit and planted strengths."""

from __future__ import annotations

import numpy as np
import pytest
import statsmodels.api as sm
from scipy import stats

from cueshift.stats import bradley_terry_fit, logistic_fit, wald_test


def test_wald_by_hand_and_undefined() -> None:
    result = wald_test(1.0, 0.25, 0.95)  # se = 0.5, z = 2
    z = stats.norm.ppf(0.975)
    assert (result.se, result.statistic) == (0.5, 2.0)
    assert (result.ci_low, result.ci_high) == pytest.approx((1 - 0.5 * z, 1 + 0.5 * z))
    assert result.p_value == pytest.approx(2 * stats.norm.sf(2.0))
    for variance in (0.0, -1e-9, float("nan"), float("inf")):
        assert wald_test(1.0, variance).se is None


def test_logistic_fit_flags_separation() -> None:
    x = np.column_stack([np.ones(8), np.arange(8.0)])
    separated = logistic_fit(np.array([0, 0, 0, 0, 1, 1, 1, 1.0]), x)
    assert separated.separated
    mixed = logistic_fit(np.array([0, 1, 0, 0, 1, 0, 1, 1.0]), x)
    ref = sm.GLM(np.array([0, 1, 0, 0, 1, 0, 1, 1.0]), x, family=sm.families.Binomial()).fit()
    assert not mixed.separated
    np.testing.assert_allclose(mixed.params, ref.params, rtol=1e-10)


def _trials(strengths: np.ndarray, home: float, n: int, seed: int) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    m = strengths.size
    left = rng.integers(0, m, n)
    right = (left + rng.integers(1, m, n)) % m  # never the same stimulus
    p = 1 / (1 + np.exp(-(home + strengths[left] - strengths[right])))
    return left.astype(np.int64), right.astype(np.int64), (rng.uniform(size=n) < p).astype(float)


def test_bradley_terry_mle_equals_statsmodels_and_recovers_planted_strengths() -> None:
    planted = np.array([0.8, 0.2, -0.3, -0.7])
    left, right, won = _trials(planted, 0.4, 4000, seed=2)
    fit = bradley_terry_fit(left, right, won, 4, prior_games=0.0)
    x = np.zeros((won.size, 4))
    x[np.arange(won.size), left] += 1.0
    x[np.arange(won.size), right] -= 1.0
    ref = sm.GLM(won, np.column_stack([np.ones(won.size), x[:, :-1]]), family=sm.families.Binomial()).fit()
    full = np.append(ref.params[1:], 0.0)
    np.testing.assert_allclose(fit.strengths, full - full.mean(), rtol=1e-10)
    assert fit.position == pytest.approx(ref.params[0]) and not fit.separated
    assert fit.strengths.sum() == pytest.approx(0.0, abs=1e-12)
    assert np.all(np.abs(fit.strengths - (planted - planted.mean())) < 4 * np.sqrt(fit.strength_vars))
    shrunk = bradley_terry_fit(left, right, won, 4, prior_games=1.0)  # one virtual game: tiny pull to 0
    assert np.all(np.abs(shrunk.strengths) <= np.abs(fit.strengths) + 1e-9)


def test_bradley_terry_prior_keeps_an_unbeaten_stimulus_finite() -> None:
    left = np.array([0, 0, 1, 2, 1, 2], dtype=np.int64)
    right = np.array([1, 2, 0, 0, 2, 1], dtype=np.int64)
    won = np.array([1, 1, 0, 0, 1, 0], dtype=float)  # stimulus 0 wins every trial
    assert bradley_terry_fit(left, right, won, 3, prior_games=0.0).separated
    fit = bradley_terry_fit(left, right, won, 3, prior_games=1.0)
    assert not fit.separated and fit.strengths[0] == fit.strengths.max() and np.isfinite(fit.strengths).all()
