"""The cumulative |SBS| curve of seed 000 (Fig. 2): the absolute face-level SBS of every attribute
(variation value), per model and pooled, sorted by magnitude, with its cumulative share of the
total and the number of attributes that reach a threshold share."""

from __future__ import annotations

import polars as pl

from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.stats import POOLED, group_means, returns

#: The keys of a variation value.
VALUE_KEYS = ["variation_category", "variation_value"]


@returns("cumulative_abs_sbs")
def cumulative_abs_sbs(
    delta: pl.DataFrame, *, threshold: float = 0.8, per_model: bool = True, summed: SummedDelta | None = None
) -> pl.DataFrame:
    r"""Cumulative |SBS| by attribute (variation value), sorted by magnitude (seed 000 Fig. 2).

    :math:`|\mathrm{SBS}_v|` is the absolute face-level SBS of value :math:`v` (all its
    scenarios; per model, and pooled as ``"(pooled)"``); values are sorted descending and
    ``cumulative_share`` :math:`= \sum_{u \le v} |\mathrm{SBS}_u| / \sum_u |\mathrm{SBS}_u|`.
    ``n_to_threshold`` is the smallest number of attributes whose share reaches
    ``threshold`` (paper: 15 attributes reach 80 %); ``within_threshold`` marks them.
    ``summed``: the rows of ``delta`` already summed per face (:func:`summed_delta`); the
    per-face means then come from the sums (the same doubles) instead of the rows.
    """
    if summed is None:
        data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
        per_face = group_means(data, ["model_id", "face_id", *VALUE_KEYS], "delta").drop("n")
        pooled_face = group_means(data, ["face_id", *VALUE_KEYS], "delta").drop("n")
    else:
        per_face = summed.face_means(["model_id", *VALUE_KEYS])
        pooled_face = summed.face_means(VALUE_KEYS)
    per_face = per_face.select("model_id", "face_id", *VALUE_KEYS, "delta")
    frames = [pooled_face.with_columns(pl.lit(POOLED).alias("model_id")).select(per_face.columns)]
    if per_model:
        frames.insert(0, per_face)
    value = group_means(
        pl.concat(frames), ["model_id", "variation_category", "variation_value"], "delta", alias="abs_sbs"
    ).with_columns(pl.col("abs_sbs").abs())
    value = value.sort(["model_id", "abs_sbs", "variation_value"], descending=[False, True, False])
    value = value.with_columns(
        rank=pl.int_range(1, pl.len() + 1).over("model_id"),
        share=pl.col("abs_sbs") / pl.col("abs_sbs").sum().over("model_id"),
    ).with_columns(cumulative_share=pl.col("share").cum_sum().over("model_id"))
    reach = (
        value.filter(pl.col("cumulative_share") >= threshold - 1e-12)
        .group_by("model_id")
        .agg(pl.col("rank").min().alias("n_to_threshold"))
    )
    value = value.join(reach, on="model_id", how="left").with_columns(
        within_threshold=pl.col("rank") <= pl.col("n_to_threshold"), threshold=pl.lit(threshold)
    )
    return (
        value.select(
            "model_id",
            "rank",
            "variation_category",
            "variation_value",
            "abs_sbs",
            "share",
            "cumulative_share",
            "within_threshold",
            "n_to_threshold",
            "threshold",
            pl.col("n").cast(pl.Int64),
            pl.col("rank").cast(pl.Int64).alias("__r"),
        )
        .drop("__r")
        .with_columns(pl.col("rank").cast(pl.Int64), pl.col("n_to_threshold").cast(pl.Int64))
    )
