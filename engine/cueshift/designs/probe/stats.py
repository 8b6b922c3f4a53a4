r"""Statistics of human impressions vs model probes (seed 004): compositions of the kernels in
:mod:`cueshift.stats` (reliability, correlations, correlation structure) and an OLS of similarity
on scale.

Inputs: human ratings in long form (``rater_id, image_id, attribute, rating``), human means
per stimulus (``image_id, attribute, mean``) and model scores (``model_id, image_id,
attribute, score``: CLIP's :math:`m` or P(favorable), or a VLM's :math:`\phi`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cueshift._types import F64
from cueshift.stats import (
    CORRELATION_SCHEMA,
    Resampling,
    adjusted_rand_index,
    attribute_correlations,
    bh_by_family,
    correlation_columns,
    frobenius_similarity,
    krippendorff_alpha,
    one_way_anova,
    rating_matrix,
    split_half_reliability,
    ward_clusters,
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

    Returns one row per term (``estimate, se, ci_low, ci_high, statistic`` = t, ``p``)
    with the fit's adjusted R², F, N and degrees of freedom repeated on every row.
    """
    import statsmodels.api as sm

    usable = [p for p in predictors if p in data.columns and data[p].drop_nulls().n_unique() > 1]
    keys = [c for c in ("model_id", "attribute") if c in data.columns]
    clean = data.drop_nulls(["similarity", *usable])
    clean = clean.sort(keys) if keys else clean  # a fixed row order: the same sums, the same bits
    if not usable or clean.height <= len(usable) + 1:
        return pl.DataFrame()
    x = np.column_stack([normalise_by_max(clean[p].to_numpy()) for p in usable])
    fit = sm.OLS(clean["similarity"].to_numpy(), sm.add_constant(x)).fit()
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
        }
    )


def attribute_structure(
    scores: pl.DataFrame, means: pl.DataFrame, n_clusters: int, *, off_diagonal: bool = False
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame]:
    r"""Seed 004 Eq. 6 and Fig. 5: the attribute correlation structure of the humans and of each
    model, and how close each model's is to the humans'.

    Per source (``(humans)`` from ``means``, each model from ``scores``): the Spearman matrix
    of the attributes both cover (:func:`cueshift.stats.attribute_correlations`) and its Ward
    clusters (:func:`cueshift.stats.ward_clusters`). Per model: the normalised Frobenius product
    with the human matrix and the adjusted Rand index of the two partitions. Fewer attributes
    than ``max(3, n_clusters)``: three empty frames.

    Returns
    -------
    correlations, clusters, structure
        ``source, attribute_a, attribute_b, estimate``; ``source, attribute, cluster,
        leaf_order``; ``model_id, estimate, adjusted_rand, n_attributes, n_clusters, off_diagonal``.
    """
    attributes = sorted(set(means["attribute"].unique()) & set(scores["attribute"].unique()))
    if len(attributes) < max(3, n_clusters):
        return pl.DataFrame(), pl.DataFrame(), pl.DataFrame()
    sources = {"(humans)": attribute_correlations(means.rename({"mean": "value"}), "value", attributes)}
    for (model_id,), part in scores.group_by("model_id", maintain_order=True):
        sources[str(model_id)] = attribute_correlations(part.rename({"score": "value"}), "value", attributes)
    correlation_rows, cluster_rows, structure_rows = [], [], []
    labels = {}
    for source, matrix in sources.items():
        _, flat, order = ward_clusters(matrix, n_clusters)
        labels[source] = flat
        position = {leaf: rank for rank, leaf in enumerate(order)}
        cluster_rows += [
            {"source": source, "attribute": a, "cluster": int(flat[i]), "leaf_order": position[i]}
            for i, a in enumerate(attributes)
        ]
        correlation_rows += [
            {"source": source, "attribute_a": a, "attribute_b": b, "estimate": float(matrix[i, j])}
            for i, a in enumerate(attributes)
            for j, b in enumerate(attributes)
        ]
    humans = sources["(humans)"]
    for source, matrix in sources.items():
        if source == "(humans)":
            continue
        structure_rows.append(
            {
                "model_id": source,
                "estimate": frobenius_similarity(matrix, humans, off_diagonal=off_diagonal),
                "adjusted_rand": adjusted_rand_index(labels[source], labels["(humans)"]),
                "n_attributes": len(attributes),
                "n_clusters": n_clusters,
                "off_diagonal": off_diagonal,
            }
        )
    return pl.DataFrame(correlation_rows), pl.DataFrame(cluster_rows), pl.DataFrame(structure_rows)


def structure_anova(structure: pl.DataFrame, registry: pl.DataFrame) -> pl.DataFrame:
    """One-way ANOVA of the Frobenius similarity across dataset sizes (seed 004: F(2) = 15.71),
    by :func:`cueshift.stats.one_way_anova` over the sizes with at least two models; empty when
    fewer than two such sizes."""
    if structure.height == 0 or registry.height == 0:
        return pl.DataFrame()
    joined = structure.join(registry.select("model_id", "dataset_size"), on="model_id").drop_nulls(
        "dataset_size"
    )
    sizes = joined.group_by("dataset_size").len().filter(pl.col("len") >= 2)["dataset_size"]
    kept = joined.filter(pl.col("dataset_size").is_in(sizes.implode())).sort(["dataset_size", "model_id"])
    if sizes.len() < 2:
        return pl.DataFrame()
    result = one_way_anova(kept["estimate"].to_numpy(), kept["dataset_size"].to_numpy())
    return pl.DataFrame(
        {
            "test": ["anova-F"],
            "statistic": [result.statistic],
            "df": [result.df_between],
            "df_resid": [result.df_within],
            "p": [result.p_value],
            "n": [result.n],
        }
    )
