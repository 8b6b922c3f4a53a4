r"""Seed 004 Table 2: the OLS of model–human similarity on human reliability and model scale,
with the same fit's small-sample cluster-robust inference by model (CR2, Satterthwaite df):
scale varies only between models.

Re-exported by :mod:`.stats`, where the probe's analyses and tests import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cueshift._types import F64
from cueshift.stats import cr2_satterthwaite


def normalise_by_max(values: ArrayLike) -> F64:
    """Seed 004 Table 2: a variable whose range lies outside (0, 1) is divided by its maximum."""
    v = np.asarray(values, dtype=np.float64)
    inside = np.nanmin(v) > 0 and np.nanmax(v) < 1
    return v if inside else v / np.nanmax(v)


def scale_regression(
    data: pl.DataFrame, predictors: Sequence[str], *, confidence: float = 0.95
) -> pl.DataFrame:
    r"""Seed 004 Table 2: OLS of model–human similarity :math:`s^a_m` on human reliability and
    model scale, one row per model × attribute; predictors normalised by :func:`normalise_by_max`.

    .. math:: s^a_m = \beta_0 + \beta_1 \text{IRR}_a + \beta_2 \text{DatasetSize}_m + \dots + \varepsilon

    Returns one row per term (``estimate, se, ci_low, ci_high, statistic`` = t, ``p``: the paper's
    OLS, its rows independent) with the fit's adjusted R², F, N and degrees of freedom repeated on
    every row. Scale varies only between models, so the rows of one model are not independent:
    ``cluster_se, cluster_df, cluster_ci_low, cluster_ci_high, cluster_p`` are the same fit's
    small-sample cluster-robust inference by ``model_id`` over ``n_clusters`` models: the CR2
    (bias-reduced linearisation) standard error with Satterthwaite df per term, t tests and t
    intervals with those df, as R's clubSandwich ``coef_test(..., vcov = "CR2", test =
    "Satterthwaite")`` (:func:`cueshift.stats.cr2_satterthwaite`) [1]_ [2]_. Where they are not
    defined (no ``model_id`` column, fewer than two models, a rank-deficient design, a singular
    :math:`I - H_{gg}`, e.g. model-level terms that saturate the models, or a zero variance) they
    are null and ``cluster_reason`` says why (null where defined).

    References
    ----------
    .. [1] Bell, R. M. & McCaffrey, D. F. (2002). Bias reduction in standard errors for linear
       regression with multi-stage samples. *Survey Methodology* 28(2), 169–181.
    .. [2] Pustejovsky, J. E. & Tipton, E. (2018). Small-sample methods for cluster-robust
       variance estimation and hypothesis testing in fixed effects models. *Journal of Business
       & Economic Statistics* 36(4), 672–683.
    """
    import statsmodels.api as sm

    usable = [p for p in predictors if p in data.columns and data[p].drop_nulls().n_unique() > 1]
    keys = [c for c in ("model_id", "attribute") if c in data.columns]
    clean = data.drop_nulls(["similarity", *usable])
    clean = clean.sort(keys) if keys else clean  # a fixed row order: the same sums, the same bits
    if not usable or clean.height <= len(usable) + 1:
        return pl.DataFrame()
    x = sm.add_constant(np.column_stack([normalise_by_max(clean[p].to_numpy()) for p in usable]))
    y = clean["similarity"].to_numpy()
    fit = sm.OLS(y, x).fit()
    ci = fit.conf_int(1 - confidence)
    terms = ["const", *usable]
    return pl.DataFrame(
        {
            "term": terms,
            "estimate": fit.params,
            "se": fit.bse,
            "ci_low": ci[:, 0],
            "ci_high": ci[:, 1],
            "statistic": fit.tvalues,
            "p": fit.pvalues,
            "adj_r2": [fit.rsquared_adj] * len(terms),
            "f_statistic": [float(fit.fvalue)] * len(terms),
            "f_p": [float(fit.f_pvalue)] * len(terms),
            "n": [int(fit.nobs)] * len(terms),
            "df_model": [float(fit.df_model)] * len(terms),
            "df_resid": [float(fit.df_resid)] * len(terms),
            "test": ["ols-t"] * len(terms),
            **_clustered(y, x, clean, confidence, len(terms)),
        }
    ).with_columns(
        pl.col(*_CLUSTER_COLUMNS).cast(pl.Float64),
        pl.col("n_clusters").cast(pl.Int64),
        pl.col("cluster_reason").cast(pl.String),
    )


def _clustered(y: F64, x: F64, clean: pl.DataFrame, confidence: float, k: int) -> dict[str, list[Any]]:
    """The CR2 (by ``model_id``) columns of :func:`scale_regression` (nulls and a reason when not defined)."""
    if "model_id" not in clean.columns:
        nulls: dict[str, list[Any]] = {c: [None] * k for c in (*_CLUSTER_COLUMNS, "n_clusters")}
        return nulls | {"cluster_reason": [_NO_MODELS] * k}
    fit = cr2_satterthwaite(x, y, clean["model_id"].to_numpy())
    low, high = fit.interval(confidence)
    columns = {"cluster_se": fit.se, "cluster_df": fit.df, "cluster_ci_low": low, "cluster_ci_high": high}
    return {name: _nulled(values) for name, values in (columns | {"cluster_p": fit.p}).items()} | {
        "n_clusters": [fit.n_clusters] * k,
        "cluster_reason": list(fit.reason),
    }


def _nulled(values: F64) -> list[float | None]:
    return [float(v) if np.isfinite(v) else None for v in values]


_CLUSTER_COLUMNS = ("cluster_se", "cluster_df", "cluster_ci_low", "cluster_ci_high", "cluster_p")
_NO_MODELS = "no model_id column"
