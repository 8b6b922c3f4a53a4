r"""Seed 004 Table 2: the OLS of model–human similarity on human reliability and model scale,
with the same fit's cluster-robust inference by model (scale varies only between models).

Re-exported by :mod:`.stats`, where the probe's analyses and tests import it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cueshift._types import F64


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
    ``cluster_se, cluster_ci_low, cluster_ci_high, cluster_p`` are the same fit's cluster-robust
    inference by ``model_id`` (statsmodels' CR1 sandwich, t with ``n_clusters`` − 1 df), null
    without a ``model_id`` column or with fewer than two models. Few clusters (under about 20)
    make it unreliable too [1]_.

    References
    ----------
    .. [1] Cameron, A. C. & Miller, D. L. (2015). A practitioner's guide to cluster-robust
       inference. *Journal of Human Resources* 50(2), 317–372.
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
    ).with_columns(pl.col(*_CLUSTER_COLUMNS).cast(pl.Float64), pl.col("n_clusters").cast(pl.Int64))


def _clustered(y: F64, x: F64, clean: pl.DataFrame, confidence: float, k: int) -> dict[str, list[Any]]:
    """The cluster-robust (by ``model_id``) columns of :func:`scale_regression` (nulls when not defined)."""
    import statsmodels.api as sm

    groups = clean["model_id"].to_numpy() if "model_id" in clean.columns else None
    n_clusters = 0 if groups is None else len(set(groups.tolist()))
    if groups is None or n_clusters < 2:
        return {c: [None] * k for c in _CLUSTER_COLUMNS} | {"n_clusters": [n_clusters or None] * k}
    codes = np.unique(groups, return_inverse=True)[1]
    fit = sm.OLS(y, x).fit(cov_type="cluster", cov_kwds={"groups": codes}, use_t=True)
    ci = fit.conf_int(1 - confidence)
    return {
        "cluster_se": list(fit.bse),
        "cluster_ci_low": list(ci[:, 0]),
        "cluster_ci_high": list(ci[:, 1]),
        "cluster_p": list(fit.pvalues),
        "n_clusters": [n_clusters] * k,
    }


_CLUSTER_COLUMNS = ("cluster_se", "cluster_ci_low", "cluster_ci_high", "cluster_p")
