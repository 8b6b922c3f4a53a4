"""Partial pooling of sparse cells: empirical Bayes shrinkage with Morris's interval.

References: statsmodels' Paule–Mandel τ² (``combine_effects(method_re="pm")``) and its one-way
ANOVA residual variance for the pooled standard errors; planted normal–normal cells for the
interval's coverage (95 ± 2 % averaged over cells) and the Efron–Morris risk gain; a planted
crossed cell of the φ-level simulator for the Table 11 columns.
"""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
import statsmodels.formula.api as smf
from statsmodels.stats.meta_analysis import combine_effects

from cueshift.designs.stylisticbias.stats import crossed_variation_table, demographic_variation_table
from cueshift.errors import CueshiftError
from cueshift.stats import eb_shrink, pooled_standard_errors, shrink
from tests.scalars import real
from tests.stats.test_subgroups import BOOT, PLANTED, PLANTED_VALUE, _study


def _planted(rng: np.random.Generator, tau: float, parents: int = 40, groups: int = 4):
    """Cells of 2–12 faces (face sd 0.1) around parent means: θ ~ N(μ_p, τ²); the face × cell
    matrix (NaN: face not in the cell), the true θ and the parent of each cell."""
    parent = np.repeat(np.arange(parents), groups)
    theta = rng.normal(0.0, 0.05, parents)[parent] + rng.normal(0.0, tau, parent.size)
    n = rng.integers(2, 13, parent.size)
    values = np.full((n.max(), parent.size), np.nan)
    for j in range(parent.size):
        values[: n[j], j] = rng.normal(theta[j], 0.1, n[j])
    return values, theta, parent


def test_paule_mandel_tau2_equals_statsmodels_for_one_parent() -> None:
    rng = np.random.default_rng(0)
    y, v = rng.normal(0.0, 0.2, 12), rng.uniform(0.002, 0.05, 12)
    fit = eb_shrink(y, np.sqrt(v), np.zeros(12))
    assert fit.tau2 == pytest.approx(combine_effects(y, v, method_re="pm").tau2, rel=1e-6)


def test_pooled_standard_errors_equal_the_anova_residual_variance() -> None:
    values, _, parent = _planted(np.random.default_rng(1), tau=0.03, parents=3)
    se, df = pooled_standard_errors(values, parent)
    for p in range(3):
        cols = np.flatnonzero(parent == p)
        long = pl.DataFrame(
            [{"x": values[i, j], "cell": str(j)} for j in cols for i in range(values.shape[0])]
        ).drop_nans()
        ols = smf.ols("x ~ C(cell)", data=long.to_pandas()).fit()
        n = np.isfinite(values[:, cols]).sum(axis=0)
        assert np.allclose(se[cols], np.sqrt(ols.mse_resid / n), rtol=1e-10)
        assert (df[cols] == ols.df_resid).all()


def test_a_cell_without_faces_leaves_its_parents_pooled_variance_alone() -> None:
    """A face × cell matrix may hold a cell no face has (facial hair: no female face). It has no
    standard error, and its parent's variance is that of the parent's other cells: the one-way
    ANOVA residual variance without it (here 2 cells of 3 faces: df = 4, σ² = 4/4 = 1, SE 1/√3).
    It counted n − 1 = −1 degree of freedom: df 3, σ² 4/3, the siblings' SE 0.667 for 0.577,
    the empty cell's inf."""
    values = np.array([[0.0, 1.0, np.nan], [1.0, 2.0, np.nan], [2.0, 0.0, np.nan]])
    se, df = pooled_standard_errors(values, [0, 0, 0])
    alone, alone_df = pooled_standard_errors(values[:, :2], [0, 0])
    assert np.allclose(se[:2], np.sqrt(1 / 3), rtol=1e-12) and np.array_equal(se[:2], alone)
    assert (df == 4.0).all() and np.array_equal(alone_df, [4.0, 4.0])
    assert np.isnan(se[2])


@pytest.mark.parametrize("tau", [0.0, 0.03, 0.1])
def test_morris_interval_covers_planted_cells_95_percent_on_average(tau: float) -> None:
    rng = np.random.default_rng(7)
    covered, raw_error, pooled_error = [], [], []
    for _ in range(60):  # 60 studies x 160 cells: coverage to about +-0.2 %
        values, theta, parent = _planted(rng, tau)
        raw = np.nanmean(values, axis=0)
        se, df = pooled_standard_errors(values, parent)
        fit = eb_shrink(raw, se, parent, se_df=df)
        covered.append((fit.ci_low <= theta) & (theta <= fit.ci_high))
        raw_error.append((raw - theta) ** 2)
        pooled_error.append((fit.estimate - theta) ** 2)
    # with no between-cell variance Morris's interval is conservative (97 %): tau2 > 0 half the time
    assert np.mean(covered) == pytest.approx(0.95, abs=0.02 if tau else 0.03)
    assert np.mean(pooled_error) < np.mean(raw_error)  # Efron & Morris: pooling lowers the risk


def test_shrinkage_is_towards_the_parent_and_strongest_for_noisy_cells() -> None:
    values, _, parent = _planted(np.random.default_rng(3), tau=0.05)
    raw = np.nanmean(values, axis=0)
    se, _ = pooled_standard_errors(values, parent)
    fit = eb_shrink(raw, se, parent)
    assert fit.tau2 > 0 and ((fit.shrinkage > 0) & (fit.shrinkage < 1)).all()
    lo, hi = np.minimum(raw, fit.parent), np.maximum(raw, fit.parent)
    assert ((fit.estimate >= lo - 1e-12) & (fit.estimate <= hi + 1e-12)).all()
    for p in range(3):  # within a parent: the fewer faces, the larger the shrinkage
        cols = np.flatnonzero(parent == p)
        n = np.isfinite(values[:, cols]).sum(axis=0)
        order = np.argsort(n)
        assert np.all(np.diff(fit.shrinkage[cols][order]) <= 1e-12)


def test_missing_cells_and_too_few_cells_give_nan_not_a_crash() -> None:
    fit = eb_shrink([0.1, np.nan, 0.2, 0.3, 0.0, 0.1], [0.1, 0.1, 0.0, 0.1, 0.1, 0.1], np.zeros(6))
    assert np.isnan(fit.estimate[[1, 2]]).all() and np.isfinite(fit.estimate[[0, 3, 4, 5]]).all()
    assert np.isnan(eb_shrink([0.1, 0.2, 0.3], [0.1] * 3, [0, 0, 0]).estimate).all()  # df = 2


def test_shrink_on_a_frame_matches_the_kernel_and_rejects_bad_input() -> None:
    values, _, parent = _planted(np.random.default_rng(4), tau=0.05, parents=10)
    se, _ = pooled_standard_errors(values, parent)
    cells = pl.DataFrame(
        {"value": parent.astype(str), "cell": np.arange(parent.size), "y": np.nanmean(values, 0), "se": se}
    )
    out = shrink(cells, "y", "se", "value", ["value", "cell"])
    fit = eb_shrink(cells["y"], se, parent)
    assert np.allclose(out["estimate"], fit.estimate) and np.allclose(out["statistic"], fit.shrinkage)
    assert out["n"].to_list() == [4] * parent.size and out["p"].is_null().all()
    by_half = shrink(cells.with_columns(half=pl.col("cell") < 20), "y", "se", "value", tau_by="half")
    assert by_half.height == cells.height
    with pytest.raises(CueshiftError, match="column 'sd'"):
        shrink(cells, "y", "sd", "value")
    with pytest.raises(CueshiftError, match="negative standard error"):
        shrink(cells.with_columns(se=-pl.col("se")), "y", "se", "value")
    with pytest.raises(CueshiftError, match="at least 3"):
        shrink(cells.head(3), "y", "se", "value")


def test_table11_and_crossed_cells_carry_pooled_estimates() -> None:
    delta, _ = _study(240, ("sim-a",), seed=3)
    target = (pl.col("age") == "elderly") & (pl.col("gender") == "female")
    planted = delta.with_columns(
        delta=pl.when(target & (pl.col("variation_value") == PLANTED_VALUE))
        .then(pl.col("delta") + PLANTED)
        .otherwise(pl.col("delta"))
    )
    crossed = crossed_variation_table(planted, resampling=BOOT)
    assert crossed["pooled_estimate"].null_count() == 0 and crossed["shrinkage"].is_between(0, 1).all()
    value = crossed.filter(pl.col("variation_value") == PLANTED_VALUE)
    cell = value.filter(pl.col("group") == "elderly × female").row(0, named=True)
    parent = real((value["estimate"] * value["n"]).sum()) / real(value["n"].sum())
    # the planted cell (26 faces) keeps most of its distance from the value's estimate, and its
    # pooled interval still excludes it; the larger cells move less than the smaller ones
    assert cell["pooled_estimate"] - parent > 0.5 * (cell["estimate"] - parent)
    assert cell["pooled_ci_low"] > parent
    by_size = value.sort("n")
    assert by_size["shrinkage"][0] > by_size["shrinkage"][-1]
    table = demographic_variation_table(planted, resampling=BOOT)
    assert {"pooled_estimate", "pooled_ci_low", "pooled_ci_high", "shrinkage"} <= set(table.columns)
    assert table["pooled_estimate"].null_count() == 0
