"""Two one-sided tests of equivalence (``tost``) and the verdicts.

References: statsmodels' ``DescrStatsW.ttost_mean``, ``ttost_paired``, ``tconfint_mean`` and
``ttest_mean`` on the face values (independent implementations of Schuirmann's TOST and the t
test); planted nulls at the margin (Type I error at α within Monte Carlo error), planted zeros
(power) and planted shifts. The measured rates are in BENCHMARKS.md ("Equivalence").
"""

from __future__ import annotations

import numpy as np
import pytest
from statsmodels.stats.weightstats import DescrStatsW, ttost_paired

from cueshift.stats import equivalence_verdicts, tost

ALPHA = 0.05


def _faces(rng: np.random.Generator, n_faces: int, replicates: int, true_delta: float) -> np.ndarray:
    """Per-face mean Δ of a clustered study: each face has its own base share and its own shift
    around ``true_delta`` (uniform, centred), judged 12 times on each of 5 scenarios (binomial
    shares); a face's value is its mean Δ over the scenarios. The population mean is ``true_delta``."""
    shape = (n_faces, replicates, 5)
    base = rng.uniform(0.3, 0.6, size=(n_faces, replicates, 1))
    shift = true_delta + rng.uniform(-0.08, 0.08, size=(n_faces, replicates, 1))
    phi_base = rng.binomial(12, np.broadcast_to(base, shape)) / 12
    phi_variation = rng.binomial(12, np.broadcast_to(base + shift, shape)) / 12
    face_means: np.ndarray = (phi_variation - phi_base).mean(axis=2)
    return face_means


@pytest.mark.parametrize(("mean", "margin"), [(0.0, 0.05), (0.03, 0.05), (-0.04, 0.02), (0.1, 0.2)])
def test_tost_agrees_with_statsmodels(mean: float, margin: float) -> None:
    rng = np.random.default_rng(7)
    values = rng.normal(mean, 0.06, size=(25, 4))
    values[:6, 1] = np.nan  # a column with fewer faces
    values[:, 2] = rng.standard_t(3, size=25) * 0.03 + mean  # heavy tails
    res = tost(values, margin, alpha=ALPHA)
    for column in range(values.shape[1]):
        x = values[~np.isnan(values[:, column]), column]
        p, (t_low, p_low, df_low), (t_upp, p_upp, _) = DescrStatsW(x).ttost_mean(-margin, margin)
        paired_p = ttost_paired(x, np.zeros_like(x), -margin, margin)[0]
        low, high = DescrStatsW(x).tconfint_mean(alpha=2 * ALPHA)
        assert res.n[column] == x.size == df_low + 1
        assert res.p[column] == pytest.approx(p, rel=1e-10, abs=1e-15)
        assert res.p[column] == pytest.approx(paired_p, rel=1e-10, abs=1e-15)
        assert res.statistic[column] == pytest.approx(t_low if p_low >= p_upp else t_upp, rel=1e-10)
        assert (res.ci_low[column], res.ci_high[column]) == pytest.approx((low, high), rel=1e-10)
        assert res.p_shift[column] == pytest.approx(DescrStatsW(x).ttest_mean(0.0)[1], rel=1e-10)
        # the duality the verdict relies on: p < α exactly when the 1 − 2α interval is inside
        assert (p < ALPHA) == (-margin < low and high < margin)


def test_margin_per_column_and_too_few_faces() -> None:
    values = np.array([[0.01, 0.2, 1.0], [0.02, 0.21, np.nan], [0.0, 0.19, np.nan]])
    res = tost(values, np.array([0.05, 0.05, 0.5]))
    assert res.p[0] < ALPHA < res.p[1]
    assert np.isnan(res.p[2]) and np.isnan(res.ci_low[2]) and res.n[2] == 1
    with pytest.raises(ValueError, match="margin"):
        tost(values, 0.0)


@pytest.mark.parametrize("sign", [1.0, -1.0])
def test_type_one_error_at_the_margin_is_nominal_normal_faces(sign: float) -> None:
    """True mean exactly at ±margin: the TOST rejects in α of the replicates (exact for normal
    face values; a z-based or wrong-df test would reject in about 9 % with 8 faces)."""
    rng = np.random.default_rng(11)
    replicates, margin = 40_000, 0.05
    values = rng.normal(sign * margin, 0.02, size=(8, replicates))
    rate = float(np.mean(tost(values, margin).p < ALPHA))
    mc_se = (ALPHA * (1 - ALPHA) / replicates) ** 0.5
    assert abs(rate - ALPHA) < 4 * mc_se, rate


def test_type_one_error_at_the_margin_clustered_binomial_faces() -> None:
    """Faces with their own base share and shift, binomial answers, true mean Δ = margin: the
    equivalence verdict is reached in α of the replicates (within Monte Carlo error)."""
    rng = np.random.default_rng(5)
    replicates, margin = 4_000, 0.05
    res = tost(_faces(rng, 30, replicates, margin), margin)
    rate = float(np.mean(res.p < ALPHA))
    assert abs(rate - ALPHA) < 4.5 * (ALPHA * (1 - ALPHA) / replicates) ** 0.5, rate


def test_power_on_planted_zeros_and_planted_shifts() -> None:
    """True Δ = 0 with 60 faces: equivalence in most replicates, a shift in about α; a true Δ of
    twice the margin: a shift in most replicates, never equivalence."""
    rng = np.random.default_rng(3)
    replicates, margin = 2_000, 0.05
    for true_delta, expected, share in ((0.0, "equivalent to no shift", 0.9), (0.1, "shift", 0.95)):
        res = tost(_faces(rng, 60, replicates, true_delta), margin)
        verdicts = np.array(equivalence_verdicts(res.p_shift, res.p, res.ci_low, res.ci_high))
        assert np.mean(verdicts == expected) > share, (true_delta, np.unique(verdicts, return_counts=True))
        if true_delta == 0.0:
            assert np.mean(verdicts == "shift") < ALPHA + 4 * (ALPHA * (1 - ALPHA) / replicates) ** 0.5
        else:
            assert not np.any(verdicts == "equivalent to no shift")


def test_verdict_needs_the_interval_to_exclude_zero_for_a_shift() -> None:
    nan = float("nan")
    verdicts = equivalence_verdicts(
        np.array([0.01, 0.01, 0.2, 0.01]),
        np.array([0.5, 0.01, 0.01, nan]),
        np.array([-0.01, 0.01, -0.01, 0.0]),
        np.array([0.02, 0.02, 0.02, 0.1]),
    )
    assert verdicts == ["inconclusive", "shift", "equivalent to no shift", None]
