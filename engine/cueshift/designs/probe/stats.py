r"""Statistics of human impressions vs model probes (seed 004): compositions of the kernels in
:mod:`cueshift.stats` (reliability, correlations) and an OLS of similarity on scale; the
correlation structure of the attributes is :mod:`.structure`'s.

Inputs: human ratings in long form (``rater_id, image_id, attribute, rating``), human means
per stimulus (``image_id, attribute, mean``) and model scores (``model_id, image_id,
attribute, score``: CLIP's :math:`m` or P(favorable), or a VLM's :math:`\phi`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cueshift._types import F64
from cueshift.stats import (
    CORRELATION_SCHEMA,
    Resampling,
    bh_by_family,
    correlation_columns,
    krippendorff_alpha,
    rating_matrix,
    split_half_reliability,
)


def reliability_table(
    ratings: pl.DataFrame,
    resampling: Resampling,
    *,
    method: Literal["pearson", "spearman"] = "pearson",
) -> pl.DataFrame:
    """Per attribute: split-half (Spearman–Brown) reliability over ``resampling.resamples`` random
    rater splits drawn with ``resampling.seed`` (:meth:`.section.ProbeConfig.resampling`), and
    Krippendorff's α (interval, ordinal)."""
    rows = []
    for (attribute,), part in ratings.group_by("attribute", maintain_order=True):
        split = split_half_reliability(
            part, n_splits=resampling.resamples, seed=resampling.seed, method=method
        )
        matrix = rating_matrix(part)
        rows.append(
            {
                "attribute": attribute,
                **split,
                "alpha_interval": krippendorff_alpha(matrix, "interval"),
                "alpha_ordinal": krippendorff_alpha(matrix, "ordinal"),
                "n": int(part["image_id"].n_unique()),
                "source": "split-half",
            }
        )
    return (
        pl.DataFrame(rows).with_columns(pl.col("n_raters", "n_splits", "n").cast(pl.Int64)).sort("attribute")
    )


def model_human_similarity(
    scores: pl.DataFrame, human_means: pl.DataFrame, *, confidence: float = 0.95
) -> pl.DataFrame:
    r"""Seed 004 Eq. 4: :math:`s^a_m = \rho(\mathbf m^a, \mathbf h^a)` per model × attribute,
    Spearman (:func:`cueshift.stats.spearman_with_ci`) over the stimuli scored by the model and
    rated by humans; BH over attributes per model."""
    joined = scores.join(human_means, on=["image_id", "attribute"], how="inner")
    rows = [
        {
            "model_id": model_id,
            "attribute": attribute,
            **correlation_columns(part["score"].to_numpy(), part["mean"].to_numpy(), "spearman", confidence),
        }
        for (model_id, attribute), part in joined.group_by(["model_id", "attribute"], maintain_order=True)
    ]
    schema: dict[str, type[pl.DataType]] = {
        "model_id": pl.String,
        "attribute": pl.String,
        **CORRELATION_SCHEMA,
    }
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return (
        bh_by_family(frame.with_columns(pl.col("p").fill_nan(None)), ["model_id"])
        .with_columns(pl.lit("spearman").alias("test"))
        .sort(["model_id", "attribute"])
    )


def reliability_similarity(
    similarity: pl.DataFrame,
    reliability: pl.DataFrame,
    *,
    method: Literal["pearson", "spearman"] = "spearman",
    confidence: float = 0.95,
    families: dict[str, str] | None = None,
) -> pl.DataFrame:
    """Seed 004 Fig. 3/4: across attributes, the correlation between human reliability and
    model–human similarity, per model and per model family (family mean similarity)."""
    rel = reliability.select("attribute", pl.col("estimate").alias("reliability"))
    sim = similarity.select("model_id", "attribute", pl.col("estimate").alias("similarity"))
    groups = [("model", m, part) for (m,), part in sim.group_by("model_id", maintain_order=True)]
    if families:
        fam = (
            sim.with_columns(pl.col("model_id").replace_strict(families, default=None).alias("family"))
            .drop_nulls("family")
            .group_by(["family", "attribute"])
            .agg(pl.col("similarity").mean())
        )
        groups += [("family", f, part) for (f,), part in fam.group_by("family", maintain_order=True)]
    rows = []
    for level, name, part in groups:
        joined = part.join(rel, on="attribute", how="inner").sort("attribute")  # fixed order: same bits
        x, y = joined["reliability"].to_numpy(), joined["similarity"].to_numpy()
        rows.append(
            {"level": level, "name": name, **correlation_columns(x, y, method, confidence), "test": method}
        )
    schema: dict[str, type[pl.DataType]] = {
        "level": pl.String,
        "name": pl.String,
        **CORRELATION_SCHEMA,
        "test": pl.String,
    }
    return pl.DataFrame(rows, schema=schema, orient="row")


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
