"""Statistics of the 0-10 ratings of the pairwise design (seed 002): mean ratings with t
intervals, binned shares with Wilson intervals and model–human agreement (Spearman), from the
kernels in :mod:`cueshift.stats`.

Ratings input: ``rater_kind, rater_id, image_id, attribute, rating`` (NULL when invalid),
``cohort, stimulus_group``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.stats import CORRELATION_SCHEMA, correlation_columns, proportion_rows, t_half_width


def assign_bins(
    values: Sequence[float | None], bins: Sequence[tuple[str, float, float, str]]
) -> list[str | None]:
    """Label of the bin holding each value; bins are ``(label, low, high, closed)`` with
    ``closed`` in left/right/both/neither. ``None`` for a missing value or one in no bin."""
    out: list[str | None] = []
    for v in values:
        label = None
        if v is not None and not math.isnan(v):
            for name, low, high, closed in bins:
                lo_ok = v >= low if closed in ("left", "both") else v > low
                hi_ok = v <= high if closed in ("right", "both") else v < high
                if lo_ok and hi_ok:
                    label = name
                    break
        out.append(label)
    return out


def _rater_label(ratings: pl.DataFrame) -> pl.DataFrame:
    """Humans pooled as one rater ``(humans)``; each model its own rater."""
    return ratings.with_columns(
        pl.when(pl.col("rater_kind") == "human")
        .then(pl.lit("(humans)"))
        .otherwise(pl.col("rater_id"))
        .alias("rater")
    )


def rating_summary(ratings: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    r"""Mean rating per rater (models; humans pooled) × cohort × stimulus group, with the t
    interval :math:`\bar x \pm t_{1-\alpha/2,n-1} s/\sqrt n` and the count of invalid answers.

    A NaN rating counts as invalid, as NULL does (the store holds neither NaN nor ±∞: the rating
    parser and the human-ratings reader refuse them). Equal ratings (compared exactly) have their
    value as the mean, a standard deviation of 0 and the point as the interval, whatever
    algorithm polars sums with (its group-by moments are exact there, its ``select`` ones are
    not: ten ratings 0.3 gave a standard deviation of 6e-17; D49, D60). A single rating has no
    interval; an infinite one gives an infinite mean and a NaN interval, as
    ``scipy.stats.t.interval``."""
    rating = pl.col("rating")
    labelled = _rater_label(ratings).with_columns(rating.fill_nan(None))
    equal = rating.min() == rating.max()
    agg = labelled.group_by(["rater_kind", "rater", "attribute", "cohort", "stimulus_group"]).agg(
        pl.when(equal).then(rating.min()).otherwise(rating.mean()).alias("estimate"),
        pl.when(equal & rating.std().is_not_nan()).then(0.0).otherwise(rating.std()).alias("sd"),
        rating.is_not_null().sum().cast(pl.Int64).alias("n"),
        rating.is_null().sum().cast(pl.Int64).alias("n_invalid"),
    )
    half = [
        t_half_width(sd, n, confidence) if n > 1 and sd is not None else None
        for n, sd in agg.select("n", "sd").iter_rows()
    ]
    return (
        agg.with_columns(pl.Series("__half", half, dtype=pl.Float64))
        .with_columns(
            (pl.col("estimate") - pl.col("__half")).alias("ci_low"),
            (pl.col("estimate") + pl.col("__half")).alias("ci_high"),
        )
        .drop("__half")
        .sort(["rater_kind", "rater", "attribute", "cohort", "stimulus_group"])
    )


def rating_bins(
    ratings: pl.DataFrame, bins: Sequence[tuple[str, float, float, str]], *, confidence: float = 0.95
) -> pl.DataFrame:
    """Share of valid ratings in each bin (seed 002 Fig. 6) per rater × attribute × cohort,
    with Wilson intervals; every bin appears (zero counts included)."""
    labelled = _rater_label(ratings).filter(pl.col("rating").is_not_null())
    labelled = labelled.with_columns(
        pl.Series("bin", assign_bins(labelled["rating"].to_list(), bins), dtype=pl.String)
    )
    keys = ["rater_kind", "rater", "attribute", "cohort"]
    totals = labelled.group_by(keys).agg(pl.len().cast(pl.Int64).alias("n"))
    grid = totals.join(
        pl.DataFrame({"bin": [b[0] for b in bins], "bin_order": list(range(len(bins)))}), how="cross"
    )
    counts = labelled.group_by([*keys, "bin"]).agg(pl.len().cast(pl.Int64).alias("k"))
    rows = grid.join(counts, on=[*keys, "bin"], how="left").with_columns(pl.col("k").fill_null(0))
    rows = proportion_rows(rows.sort([*keys, "bin_order"]), confidence=confidence)
    return rows.drop("p", "odds_ratio")


def model_human_rating_agreement(ratings: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    """Seed 002 Fig. 6 companion: per model × attribute, Spearman ρ between the model's mean
    rating of each stimulus and the human mean (:func:`cueshift.stats.spearman_with_ci`), and
    the mean difference (model − human)."""
    valid = ratings.filter(pl.col("rating").is_not_null())
    humans = (
        valid.filter(pl.col("rater_kind") == "human")
        .group_by(["image_id", "attribute"])
        .agg(pl.col("rating").mean().alias("human"))
    )
    models = (
        valid.filter(pl.col("rater_kind") == "model")
        .group_by(["rater_id", "image_id", "attribute"])
        .agg(pl.col("rating").mean().alias("model"))
    )
    joined = models.join(humans, on=["image_id", "attribute"]).sort(["rater_id", "attribute", "image_id"])
    rows = []
    for (rater, attribute), part in joined.group_by(["rater_id", "attribute"], maintain_order=True):
        model, human = part["model"].to_numpy(), part["human"].to_numpy()
        rows.append(
            {
                "model_id": rater,
                "attribute": attribute,
                **correlation_columns(model, human, "spearman", confidence),
                "mean_difference": float(np.mean(model - human)),
            }
        )
    schema: dict[str, type[pl.DataType]] = {
        "model_id": pl.String,
        "attribute": pl.String,
        **CORRELATION_SCHEMA,
        "mean_difference": pl.Float64,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(pl.lit("spearman").alias("test"))
