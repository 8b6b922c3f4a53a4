"""Bootstrap intervals of Table 10's partial η² and R² and of Table 4's elderly − young contrast:
hand-worked cases, the replicates against a direct resample, and coverage of planted values."""

from __future__ import annotations

from typing import Literal

import numpy as np
import polars as pl
import pytest

from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.designs.stylisticbias.stats import face_anova, fashion_age_table
from cueshift.stats import Resampling, mixed_model, one_way_anova
from cueshift.stats._contrast import group_difference_interval
from cueshift.stats._effect_intervals import bias_shifted_interval, eta_squared_replicates, refit_replicates
from cueshift.stats._face_draws import face_multiplicities
from cueshift.stats._model_terms import cell_blocks, term_values
from cueshift.stats._reml import reml_fit
from tests.simulate.outputs import delta_frame
from tests.simulate.study import SimulationSpec, simulate_study


def test_bias_shifted_interval_by_hand() -> None:
    replicates = (np.arange(101) / 100.0)[None, :] ** 2  # mean 201/600 = 0.335, right-skewed
    low, high = bias_shifted_interval(np.array([0.3]), replicates, 0.9, lower=-1.0)
    # quantiles 0.05, 0.95: 0.05² and 0.95²; bias 0.035 → shifted by −0.07
    assert low[0] == pytest.approx(0.0025 - 0.07) and high[0] == pytest.approx(0.9025 - 0.07)
    low, _ = bias_shifted_interval(np.array([0.3]), replicates, 0.9)
    assert low[0] == 0.0  # clamped to the range
    # near zero the shifted interval ends below the estimate; its upper end is raised to it
    low, high = bias_shifted_interval(np.array([0.02]), replicates * 0.01 + 0.05, 0.9)
    assert low[0] == 0.0 and high[0] == pytest.approx(0.02)
    low, high = bias_shifted_interval(np.array([0.3]), np.full((1, 1), 0.3), 0.9)
    assert np.isnan(low[0]) and np.isnan(high[0])  # one replicate: no interval


def test_eta_squared_replicates_equal_anova_on_resampled_faces() -> None:
    rng = np.random.default_rng(0)
    y, codes = rng.normal(size=30), rng.integers(0, 3, size=30)
    codes[4] = -1  # a face without a group is left out
    draws = face_multiplicities(30, 5, seed=1)
    reps = eta_squared_replicates(y, codes, np.vstack([np.ones(30), draws]))
    keep = codes >= 0
    assert reps[0] == pytest.approx(one_way_anova(y[keep], codes[keep]).eta_sq_partial, rel=1e-12)
    for b in range(5):  # the same faces, each repeated by its multiplicity
        rep = np.repeat(np.arange(30), draws[b].astype(int))
        rep = rep[codes[rep] >= 0]
        assert reps[b + 1] == pytest.approx(one_way_anova(y[rep], codes[rep]).eta_sq_partial, rel=1e-10)


def _draws(n: int, n_resamples: int, seed: int) -> np.ndarray:
    """Face multiplicities of ``n_resamples`` resamples (numpy's multinomial: the same law as
    :func:`face_multiplicities`, without its thread pool on a busy machine)."""
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, np.full(n, 1.0 / n), size=n_resamples).astype(np.float64)


def _population_eta(means: np.ndarray, probs: np.ndarray, sd: float) -> float:
    between = float(np.sum(probs * (means - np.sum(probs * means)) ** 2))
    return between / (between + sd**2)


def test_eta_squared_interval_covers_planted_value() -> None:
    rng = np.random.default_rng(11)
    means, probs, sd, n = np.array([0.0, 0.3, 0.6]), np.array([0.3, 0.4, 0.3]), 1.0, 150
    truth = _population_eta(means, probs, sd)  # 0.051
    covered, reps = 0, 200
    for r in range(reps):
        codes = rng.choice(3, size=n, p=probs)
        y = means[codes] + rng.normal(0, sd, n)
        est = one_way_anova(y, codes).eta_sq_partial
        reps_eta = eta_squared_replicates(y, codes, _draws(n, 400, r))
        low, high = bias_shifted_interval(np.array([est]), reps_eta[None, :], 0.95)
        assert 0.0 <= low[0] <= est <= high[0] <= 1.0
        covered += low[0] <= truth <= high[0]
    assert 0.91 <= covered / reps <= 0.99


def test_eta_squared_interval_holds_estimate_at_zero_effect() -> None:
    rng = np.random.default_rng(3)
    covered = 0
    for r in range(50):  # η² > 0 from noise alone: percentile intervals would sit above it
        codes, y = rng.integers(0, 4, size=60), rng.normal(size=60)
        est = one_way_anova(y, codes).eta_sq_partial
        reps = eta_squared_replicates(y, codes, _draws(60, 300, r))
        low, high = bias_shifted_interval(np.array([est]), reps[None, :], 0.95)
        assert 0.0 <= low[0] <= est <= high[0] <= 1.0
        covered += low[0] == 0.0
    assert covered >= 45  # the zero effect is inside


def test_group_difference_percentile_equals_direct_resample() -> None:
    rng = np.random.default_rng(5)
    values = rng.normal(size=(40, 2))
    values[3, 1] = np.nan
    codes = np.array([0] * 15 + [1] * 20 + [-1] * 5)
    est, low, high = group_difference_interval(values, codes, n_resamples=200, seed=2, method="percentile")
    draws = face_multiplicities(40, 200, 2)
    for j in range(2):
        x = values[:, j]
        reps = []
        for w in draws:
            idx = np.repeat(np.arange(40), w.astype(int))
            idx = idx[~np.isnan(x[idx])]
            old, young = idx[codes[idx] == 0], idx[codes[idx] == 1]
            reps.append(x[old].mean() - x[young].mean())
        ok = ~np.isnan(x)
        assert est[j] == pytest.approx(x[ok & (codes == 0)].mean() - x[ok & (codes == 1)].mean())
        assert (low[j], high[j]) == pytest.approx(tuple(np.quantile(reps, [0.025, 0.975])), rel=1e-10)


@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_group_difference_of_constant_groups_is_the_point(method: Literal["bca", "percentile"]) -> None:
    """Elderly all at 0.3, young all at 0.1: every resample's difference is 0.2. Rounding put the
    replicates on one side of the estimate for 61, 62, 63, 68, ... faces: BCa's interval was NaN."""
    for n in (61, 62, 63, 68, 20):
        values = np.where(np.arange(n) % 2 == 0, 0.3, 0.1)[:, None]
        codes = (np.arange(n) % 2).astype(np.int64)
        est, low, high = group_difference_interval(values, codes, n_resamples=300, method=method)
        np.testing.assert_allclose(est, 0.2, rtol=1e-13)
        assert (low == est).all() and (high == est).all(), n


def test_group_difference_bca_covers_planted_difference() -> None:
    rng = np.random.default_rng(8)
    covered, reps = 0, 150
    for r in range(reps):
        codes = rng.choice([0, 1, -1], size=80, p=[0.3, 0.4, 0.3])
        values = (0.1 * (codes == 0) + rng.exponential(0.2, 80))[:, None]  # skewed per-face means
        est, low, high = group_difference_interval(values, codes, n_resamples=400, seed=r)
        assert low[0] <= est[0] <= high[0]
        covered += low[0] <= 0.1 <= high[0]
    assert 0.90 <= covered / reps <= 0.99


def test_table4_contrast_interval() -> None:
    delta = delta_frame(simulate_study(SimulationSpec(n_faces=60, models=("a",), seed=6)))
    table = fashion_age_table(delta, resampling=Resampling(resamples=400))
    contrast = table.filter(pl.col("group") == "elderly - young adult")
    cells = table.filter(pl.col("group").is_in(["elderly", "young adult"]))
    wide = cells.pivot(on="group", index="variation_value", values="estimate")
    joined = contrast.join(wide, on="variation_value")
    np.testing.assert_allclose(joined["estimate"], joined["elderly"] - joined["young adult"], rtol=1e-12)
    assert contrast["ci_low"].null_count() == 0
    assert (
        (contrast["ci_low"] <= contrast["estimate"]) & (contrast["estimate"] <= contrast["ci_high"])
    ).all()


def test_face_anova_and_mixed_model_intervals() -> None:
    delta = delta_frame(simulate_study(SimulationSpec(n_faces=40, models=("a",), seed=2)))
    for table in (
        face_anova(delta, resampling=Resampling(resamples=300)),
        mixed_model(delta, category_map=LME_CATEGORY_MAP, n_resamples=40),
    ):
        assert table["ci_low"].null_count() == 0
        assert ((table["ci_low"] <= table["estimate"]) & (table["estimate"] <= table["ci_high"])).all()
        assert ((table["ci_low"] >= 0) & (table["ci_high"] <= 1)).all()
    assert mixed_model(delta, category_map=LME_CATEGORY_MAP, n_resamples=0)["ci_low"].null_count() == 4


def test_r2_interval_covers_planted_value() -> None:
    # y = 0.3·[v1] + 0.6·[v2] + u_f + ε, balanced 3 categories × 8 scenarios per face:
    # σ²_f = var of the fixed part over cells, R²m = σ²_f / (σ²_f + σ²_u + σ²_ε)
    rng = np.random.default_rng(21)
    n_faces, face_sd, resid_sd = 40, 0.3, 0.5
    levels = np.tile(np.repeat(np.arange(3), 8), n_faces)
    fixed = np.array([0.0, 0.3, 0.6])[levels]
    var_fixed = float(np.var(fixed, ddof=1))
    truth = var_fixed / (var_fixed + face_sd**2 + resid_sd**2)
    faces = np.repeat(np.arange(n_faces), 24)
    covered, reps = 0, 12
    for r in range(reps):
        y = fixed + rng.normal(0, face_sd, n_faces)[faces] + rng.normal(0, resid_sd, faces.size)
        cells = pl.DataFrame(
            {
                "face_id": [f"f{i:02d}" for i in faces],
                "variation_category": [f"v{i}" for i in levels],
                "scenario_category": [f"k{i % 2}" for i in range(faces.size)],
                "delta": y,
            }
        )
        factors = ("variation_category", "scenario_category")
        blocks = cell_blocks(cells, factors)
        fit = reml_fit(blocks)
        est = term_values(fit, blocks.names, factors).estimates
        replicates = refit_replicates(blocks, factors, fit.theta, n_refits=60, seed=r)
        low, high = bias_shifted_interval(est, replicates, 0.95)
        assert (low <= est).all() and (est <= high).all()
        covered += low[2] <= truth <= high[2]
    assert covered >= 10  # 95 % coverage: P(fewer than 10 of 12) ≈ 2 %


def test_eta_squared_replicates_of_a_draw_of_equal_values_are_nan_as_the_anova() -> None:
    # six faces share one mean, two differ: a draw of only the six has nothing to divide (D49)
    y = np.array([0.1] * 6 + [0.7, 1.3])
    codes = np.array([0, 1, 0, 1, 0, 1, 0, 1])
    draws = np.vstack([np.ones(8), _draws(8, 4000, 2)])
    reps = eta_squared_replicates(y, codes, draws)
    constant = draws[:, 6:].sum(axis=1) == 0
    assert constant.sum() > 20  # (6/8)^8 of the draws: about 10 %
    for b in np.flatnonzero(constant | (np.arange(draws.shape[0]) < 50)):
        rep = np.repeat(np.arange(8), draws[b].astype(int))
        expected = one_way_anova(y[rep], codes[rep]).eta_sq_partial
        if np.isnan(expected):
            assert np.isnan(reps[b]), (b, reps[b])
        else:
            assert reps[b] == pytest.approx(expected, rel=1e-10)


def test_face_anova_leaves_out_draws_of_equal_means_and_counts_the_rest() -> None:
    # 8 faces, 6 with one mean: about 10 % of the draws hold only those six (more than α/2),
    # so no interval; 12 faces with 2 such: none left out, the interval stands on every draw
    def delta(means: list[float]) -> pl.DataFrame:
        return pl.DataFrame(
            {
                "face_id": [f"f{i:02d}" for i in range(len(means))],
                "gender": ["female", "male"] * (len(means) // 2),
                "delta": means,
            }
        )

    few = face_anova(
        delta([0.1] * 6 + [0.7, 1.3]), dimensions=["gender"], resampling=Resampling(resamples=400)
    )
    row = few.row(0, named=True)
    assert 300 < row["n_resamples"] < 390 and row["ci_low"] is None and row["ci_high"] is None
    many = face_anova(
        delta([0.1, 0.1] + [0.2 * i for i in range(1, 11)]),
        dimensions=["gender"],
        resampling=Resampling(resamples=400),
    )
    row = many.row(0, named=True)
    assert row["n_resamples"] == 400 and row["ci_low"] <= row["estimate"] <= row["ci_high"]
