r"""Statistics of the two-image pairwise design and its 0-10 ratings (seed 002): compositions of
the kernels in :mod:`cueshift.stats` (proportions, BH, logistic / Bradley–Terry, t intervals).

Trials input (one row per stored trial): ``model_id, scenario_id, seed, left_image_id,
right_image_id, winner_image_id`` (NULL when invalid), ``cohort, left_group, right_group``.
Ratings input: ``rater_kind, rater_id, image_id, attribute, rating`` (NULL when invalid),
``cohort, stimulus_group``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.stats import (
    CORRELATION_SCHEMA,
    PseudoCount,
    WaldResult,
    bh_by_family,
    bradley_terry_fit,
    correlation_columns,
    logistic_fit,
    proportion_rows,
    t_half_width,
    wald_test,
)


def _crossed(trials: pl.DataFrame, target: str, other: str) -> pl.DataFrame:
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
    crossed = _crossed(trials, target, other)
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


def _wald_columns(wald: WaldResult, separated: bool) -> dict[str, float | None]:
    """``se, ci_low, ci_high, statistic, p_value`` of a Wald test; all null for a separated fit."""
    columns = ("se", "ci_low", "ci_high", "statistic", "p_value")
    if separated:
        return dict.fromkeys(columns)
    return {c: getattr(wald, c) for c in columns}


def bradley_terry(
    trials: pl.DataFrame, *, confidence: float = 0.95, prior_games: float = 1.0
) -> pl.DataFrame:
    r"""Bradley–Terry strengths with a position (home) term, per model × cohort.

    .. math::

        \operatorname{logit} P(\text{left wins}) = h + \theta_{\text{left}} - \theta_{\text{right}},

    fitted per cell by :func:`cueshift.stats.bradley_terry_fit` (``prior_games`` virtual games
    per stimulus against an opponent of strength 0, half won, half lost); strengths centred
    (:math:`\sum_j \theta_j = 0`) with Wald intervals (:func:`cueshift.stats.wald_test`). Row
    ``term = 'position'`` is :math:`h` (log-odds of choosing the left image). Cells still
    (quasi-)separated get NULL estimates and ``separated = true``.

    References
    ----------
    .. [1] Bradley, R. A. & Terry, M. E. (1952). *Biometrika* 39, 324–345.
    .. [2] Agresti, A. (2013). *Categorical Data Analysis*, 3rd ed., §11.6.
    """
    rows: list[dict[str, object]] = []
    valid = trials.filter(pl.col("winner_image_id").is_not_null())
    for (model_id, cohort), part in valid.group_by(["model_id", "cohort"], maintain_order=True):
        groups = dict(zip(part["left_image_id"], part["left_group"], strict=True)) | dict(
            zip(part["right_image_id"], part["right_group"], strict=True)
        )
        stimuli = sorted(groups)
        index = {s: i for i, s in enumerate(stimuli)}
        fit = bradley_terry_fit(
            np.array([index[s] for s in part["left_image_id"]], dtype=np.int64),
            np.array([index[s] for s in part["right_image_id"]], dtype=np.int64),
            (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float),
            len(stimuli),
            prior_games=prior_games,
        )
        terms = [("position", None, fit.position, fit.position_var)] + [
            (s, groups[s], float(fit.strengths[index[s]]), float(fit.strength_vars[index[s]]))
            for s in stimuli
        ]
        for term, group, est, var in terms:
            wald = wald_test(est, var, confidence)
            rows.append(
                {
                    "model_id": model_id,
                    "cohort": cohort,
                    "term": term,
                    "stimulus_group": group,
                    "estimate": None if fit.separated else est,
                    **_wald_columns(wald, fit.separated),
                    "n": part.height,
                    "separated": fit.separated,
                }
            )
    schema = {
        "model_id": pl.String,
        "cohort": pl.String,
        "term": pl.String,
        "stimulus_group": pl.String,
        "estimate": pl.Float64,
        "se": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "p_value": pl.Float64,
        "n": pl.Int64,
        "separated": pl.Boolean,
    }
    return pl.DataFrame(rows, schema=schema, orient="row").with_columns(
        pl.lit("bradley-terry-wald").alias("test"), pl.lit(prior_games).alias("prior_games")
    )


def group_effect(
    trials: pl.DataFrame, *, target: str, other: str, confidence: float = 0.95, bh_family: Sequence[str] = ()
) -> pl.DataFrame:
    r"""Position-adjusted preference for the target group, per model × cohort:

    .. math:: \operatorname{logit} P(\text{left wins}) = h + \beta\,(g_{\text{left}} - g_{\text{right}}),

    :math:`g = 1` for a target-group stimulus. ``estimate`` is :math:`\beta` (log odds that the
    target-group image wins at equal position) with a Wald interval; ``odds_ratio`` is
    :math:`e^\beta`; ``position`` is :math:`h`.
    """
    rows = []
    for (model_id, cohort), part in _crossed(trials, target, other).group_by(
        ["model_id", "cohort"], maintain_order=True
    ):
        g = (part["left_group"] == target).cast(pl.Float64).to_numpy() - (part["right_group"] == target).cast(
            pl.Float64
        ).to_numpy()
        y = (part["winner_image_id"] == part["left_image_id"]).to_numpy().astype(float)
        fit = logistic_fit(y, np.column_stack([np.ones(part.height), g]))
        beta = float(fit.params[1])
        wald = _wald_columns(wald_test(beta, float(fit.cov[1, 1]), confidence), fit.separated)
        rows.append(
            {
                "model_id": model_id,
                "cohort": cohort,
                "estimate": None if fit.separated else beta,
                "ci_low": wald["ci_low"],
                "ci_high": wald["ci_high"],
                "statistic": wald["statistic"],
                "p_value": wald["p_value"],
                "odds_ratio": None if fit.separated else math.exp(beta),
                "position": None if fit.separated else float(fit.params[0]),
                "n": part.height,
                "separated": fit.separated,
            }
        )
    schema = {
        "model_id": pl.String,
        "cohort": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "statistic": pl.Float64,
        "p_value": pl.Float64,
        "odds_ratio": pl.Float64,
        "position": pl.Float64,
        "n": pl.Int64,
        "separated": pl.Boolean,
    }
    frame = pl.DataFrame(rows, schema=schema, orient="row")
    return bh_by_family(frame, list(bh_family)).with_columns(
        pl.lit(target).alias("target_group"), pl.lit("logit-wald").alias("test")
    )


# --------------------------------------------------------------------------- ratings


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
    interval :math:`\bar x \pm t_{1-\alpha/2,n-1} s/\sqrt n` and the count of invalid answers."""
    labelled = _rater_label(ratings)
    agg = labelled.group_by(["rater_kind", "rater", "attribute", "cohort", "stimulus_group"]).agg(
        pl.col("rating").mean().alias("estimate"),
        pl.col("rating").std().alias("sd"),
        pl.col("rating").is_not_null().sum().cast(pl.Int64).alias("n"),
        pl.col("rating").is_null().sum().cast(pl.Int64).alias("n_invalid"),
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
    return rows.drop("p_value", "odds_ratio")


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
