r"""Statistics of human impressions vs model probes (seed 004): compositions of the kernels in
:mod:`cueshift.stats` (reliability, correlations); the OLS of similarity on scale is
:mod:`.scale_regression`'s (re-exported here), the correlation structure of the attributes
:mod:`.structure`'s.

Inputs: human ratings in long form (``rater_id, image_id, attribute, rating``), human means
per stimulus (``image_id, attribute, mean``) and model scores (``model_id, image_id,
attribute, score``: CLIP's :math:`m` or P(favorable), or a VLM's :math:`\phi`).
"""

from __future__ import annotations

from typing import Literal

import polars as pl

from cueshift.designs.probe.scale_regression import normalise_by_max, scale_regression
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


__all__ = [
    "model_human_similarity",
    "normalise_by_max",
    "reliability_similarity",
    "reliability_table",
    "scale_regression",
]
