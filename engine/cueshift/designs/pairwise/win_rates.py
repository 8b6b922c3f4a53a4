"""Win proportions of the two-image pairwise design (seed 002): cohort preference, per-stimulus
win rates and position bias, compositions of the proportion kernels in :mod:`cueshift.stats`
(Wilson intervals, exact binomial tests, odds ratios, BH).

Trials input (one row per stored trial): ``model_id, scenario_id, seed, left_image_id,
right_image_id, winner_image_id`` (NULL when invalid), ``cohort, left_group, right_group``.
"""

from __future__ import annotations

from collections.abc import Sequence

import polars as pl

from cueshift.stats import PseudoCount, bh_by_family, proportion_rows


def crossed_trials(trials: pl.DataFrame, target: str, other: str) -> pl.DataFrame:
    """Valid trials of a target-group stimulus against an other-group stimulus, with ``target_won``."""
    groups = {target, other}
    return trials.filter(
        pl.col("winner_image_id").is_not_null()
        & (pl.col("left_group") != pl.col("right_group"))
        & pl.col("left_group").is_in(list(groups))
        & pl.col("right_group").is_in(list(groups))
    ).with_columns(
        pl.when(pl.col("winner_image_id") == pl.col("left_image_id"))
        .then(pl.col("left_group"))
        .otherwise(pl.col("right_group"))
        .eq(target)
        .alias("target_won")
    )


def cohort_preference(
    trials: pl.DataFrame,
    *,
    target: str,
    other: str,
    confidence: float = 0.95,
    bh_family: Sequence[str] = (),
    pseudo_count: PseudoCount = "always",
) -> pl.DataFrame:
    r"""Cohort-level proportion of trials won by the target group (seed 002 Tables 3–4).

    Per model × cohort: :math:`k` target wins of :math:`n` valid crossed trials (both left/right
    orders pooled, so a position bias cancels in a balanced design), :math:`\hat p = k/n`,
    Wilson interval, exact two-sided binomial test against 0.5, BH over ``bh_family``
    (``()``: all model × cohort tests, the paper's 30) and the odds ratio.
    """
    crossed = crossed_trials(trials, target, other)
    counts = crossed.group_by(["model_id", "cohort"], maintain_order=True).agg(
        pl.col("target_won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n")
    )
    n_invalid = (
        trials.filter(pl.col("winner_image_id").is_null())
        .group_by(["model_id", "cohort"])
        .agg(pl.len().cast(pl.Int64).alias("n_invalid"))
    )
    rows = proportion_rows(
        counts.sort(["model_id", "cohort"]), confidence=confidence, pseudo_count=pseudo_count
    )
    rows = bh_by_family(rows, list(bh_family))
    return rows.join(n_invalid, on=["model_id", "cohort"], how="left").with_columns(
        pl.col("n_invalid").fill_null(0),
        pl.lit(target).alias("target_group"),
        pl.lit("binomial-exact").alias("test"),
        pl.lit(pseudo_count).alias("pseudo_count"),
    )


def stimulus_win_rates(
    trials: pl.DataFrame,
    *,
    confidence: float = 0.95,
    bh_family: Sequence[str] = (),
    pseudo_count: PseudoCount = "always",
) -> pl.DataFrame:
    """Per-stimulus win rate (seed 002 Tables 1–2): wins of each image over its valid trials,
    Wilson interval, binomial test against 0.5, BH over ``bh_family`` (+ stimulus group)."""
    valid = trials.filter(pl.col("winner_image_id").is_not_null())
    sides = [
        valid.select(
            "model_id",
            "cohort",
            pl.col(f"{side}_image_id").alias("image_id"),
            pl.col(f"{side}_group").alias("stimulus_group"),
            (pl.col("winner_image_id") == pl.col(f"{side}_image_id")).alias("won"),
        )
        for side in ("left", "right")
    ]
    counts = (
        pl.concat(sides)
        .group_by(["model_id", "cohort", "stimulus_group", "image_id"])
        .agg(pl.col("won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n"))
    )
    rows = proportion_rows(
        counts.sort(["model_id", "cohort", "stimulus_group", "image_id"]),
        confidence=confidence,
        pseudo_count=pseudo_count,
    )
    return bh_by_family(rows, [*bh_family, "stimulus_group"]).with_columns(
        pl.lit("binomial-exact").alias("test")
    )


def position_bias(trials: pl.DataFrame, *, confidence: float = 0.95) -> pl.DataFrame:
    r"""Position bias per model: :math:`P(\text{left wins})` with a Wilson interval and the exact
    binomial test against 0.5, and, for pairs asked in both orders (same seed), the share
    ``consistency`` whose winner is the same image in both orders (1 − the share decided by
    position alone)."""
    valid = trials.filter(pl.col("winner_image_id").is_not_null()).with_columns(
        (pl.col("winner_image_id") == pl.col("left_image_id")).alias("left_won")
    )
    counts = valid.group_by("model_id", maintain_order=True).agg(
        pl.col("left_won").sum().cast(pl.Int64).alias("k"), pl.len().cast(pl.Int64).alias("n")
    )
    rows = proportion_rows(counts.sort("model_id"), confidence=confidence)
    keyed = valid.with_columns(
        pl.min_horizontal("left_image_id", "right_image_id").alias("__a"),
        pl.max_horizontal("left_image_id", "right_image_id").alias("__b"),
    )
    pairs = (
        keyed.group_by(["model_id", "scenario_id", "seed", "__a", "__b"])
        .agg(pl.len().alias("__n"), pl.col("winner_image_id").n_unique().alias("__winners"))
        .filter(pl.col("__n") == 2)
    )
    consistency = pairs.group_by("model_id").agg(
        (pl.col("__winners") == 1).mean().alias("consistency"),
        pl.len().cast(pl.Int64).alias("n_swapped_pairs"),
    )
    return rows.join(consistency, on="model_id", how="left").with_columns(
        (pl.col("estimate") - 0.5).alias("left_excess"), pl.lit("binomial-exact").alias("test")
    )
