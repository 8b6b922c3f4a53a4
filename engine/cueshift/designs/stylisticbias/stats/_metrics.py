"""φ aggregation, Variation Strength (Table 2), per-model response style (Table 5), and the
cumulative |SBS| curve (Fig. 2) of seed 000."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS, LARGE_SHIFT
from cueshift.designs.stylisticbias.stats._summed import SummedDelta
from cueshift.stats import (
    MEAN_OF_MODELS,
    POOLED,
    Resampling,
    cluster_bootstrap,
    face_matrix,
    group_means,
    returns,
    study_faces,
    variation_strength_kernel,
)


def phi_from_judgments(judgments: pl.DataFrame) -> pl.DataFrame:
    r"""Preference score φ per model × image × scenario (seed 000 Eq. 1), from judgment rows.

    .. math::

        \phi_i(x) = \frac{1}{n_i(x)} \sum_{j=1}^{M}\sum_{k=1}^{K} r_{i,j,k}(x),

    :math:`r = 1` when the answer names the favorable descriptor, whatever ordering
    :math:`j` (letter and position) it was asked in; invalid answers leave :math:`n_i(x)`.
    φ is null when no answer is valid. Same definition as the ``phi`` view (``sql/views``).

    Parameters
    ----------
    judgments : polars.DataFrame
        Columns ``model_id, image_id, scenario_id, outcome`` (``'favorable'``,
        ``'unfavorable'``, ``'invalid'``).
    """
    return (
        judgments.group_by("model_id", "image_id", "scenario_id")
        .agg(
            pl.len().alias("n_total"),
            (pl.col("outcome") != "invalid").sum().alias("n_valid"),
            (pl.col("outcome") == "favorable").sum().alias("n_favorable"),
        )
        .with_columns(phi=pl.when(pl.col("n_valid") > 0).then(pl.col("n_favorable") / pl.col("n_valid")))
        .sort("model_id", "image_id", "scenario_id")
    )


@returns("table2_vs")
def variation_strength(
    base_phi: pl.DataFrame,
    *,
    dimensions: Sequence[str] = DIMENSIONS,
    ddof: int = 0,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Variation Strength per model × demographic dimension (seed 000 Eq. 3, Table 2), bias-corrected.

    .. math::

        \mathrm{VS}_{m,d} = \frac{1}{|\mathcal S|}\sum_{i \in \mathcal S}
        \operatorname{std}_g\big(\bar\phi_{i,g,m}\big),

    :math:`\bar\phi_{i,g,m}` the mean base-face φ of group :math:`g` in scenario :math:`i`. The
    std is the **population** std (``ddof=0``) over the groups present, so VS ∈ [0, 0.5] as the
    paper states (with two groups, VS is half the gap); ``ddof=1`` takes the sample std (VS up
    to :math:`\tfrac12\sqrt{G/(G-1)}`). ``plugin_estimate`` is that plug-in value (the paper's);
    ``estimate`` removes the sampling variance of the group means first; ``ci_low/ci_high``
    average the scenarios' intervals of the std of the true group means (the image of a
    confidence ball for the means: valid at VS = 0, conservative, always holding the estimate,
    within VS's range; :mod:`cueshift.stats._vs` has the formulas, why, and the references). A
    ``"(mean of models)"`` row averages the models (Table 2's "Average"; no interval).

    Parameters
    ----------
    base_phi : polars.DataFrame
        Rows of the ``base_phi`` view.
    ddof : {0, 1}
        0 = population std (default, the paper's 0–0.5 range); 1 = sample std.
    resampling : Resampling
        The run's settings: only its ``confidence_level`` (coverage of the interval) is used; the
        interval is analytic (no resampling).
    """
    if ddof not in (0, 1):
        raise ValueError(f"variation_strength: ddof must be 0 or 1, not {ddof!r}")
    data = base_phi.filter(pl.col("phi").is_not_null())
    faces = study_faces(data)
    rows = []
    for dim in dimensions:
        sub = data.filter(pl.col(dim).is_not_null())
        fm = face_matrix(sub, ["model_id", "scenario_id"], faces=faces, value="phi")
        face_group = dict(sub.select("face_id", dim).unique().iter_rows())
        groups = sorted(set(face_group.values()))
        if not groups:  # no face carries a label of this dimension: nothing to compare
            continue
        codes = np.array([groups.index(face_group[f]) if f in face_group else -1 for f in faces])
        models = fm.cells["model_id"].unique(maintain_order=True).to_list()
        unit = np.array([models.index(m) for m in fm.cells["model_id"]], dtype=np.int64)
        res = variation_strength_kernel(
            fm.values, codes, len(groups), unit, ddof=ddof, level=resampling.confidence_level
        )
        for u, model in enumerate(models):
            rows.append(
                {
                    "model_id": model,
                    "dimension": dim,
                    "estimate": res.estimate[u],
                    "ci_low": res.ci_low[u],
                    "ci_high": res.ci_high[u],
                    "plugin_estimate": res.plugin[u],
                    "n_groups": len(groups),
                    "n": int((unit == u).sum()),
                }
            )
    out = pl.DataFrame(
        rows,
        schema={
            "model_id": pl.String,
            "dimension": pl.String,
            "estimate": pl.Float64,
            "ci_low": pl.Float64,
            "ci_high": pl.Float64,
            "plugin_estimate": pl.Float64,
            "n_groups": pl.Int64,
            "n": pl.Int64,
        },
    )
    avg = (
        out.group_by("dimension", maintain_order=True)
        .agg(pl.col("estimate", "plugin_estimate").mean(), pl.col("n_groups").first(), pl.col("n").first())
        .with_columns(
            model_id=pl.lit(MEAN_OF_MODELS),
            ci_low=pl.lit(None, dtype=pl.Float64),
            ci_high=pl.lit(None, dtype=pl.Float64),
        )
    )
    out = pl.concat([out, avg.select(out.columns)])
    return out.with_columns(
        ddof=pl.lit(ddof, dtype=pl.Int32),
        n=pl.col("n").cast(pl.Int64),
        n_groups=pl.col("n_groups").cast(pl.Int64),
    ).select(
        "model_id",
        "dimension",
        "estimate",
        "ci_low",
        "ci_high",
        "plugin_estimate",
        "n_groups",
        "n",
        "ddof",
    )


@returns("table5")
def model_summary(
    delta: pl.DataFrame,
    *,
    large_shift: float = LARGE_SHIFT,
    resampling: Resampling = Resampling(),
) -> pl.DataFrame:
    r"""Per-model response style (seed 000 Table 5).

    - ``estimate`` — face-level SBS: :math:`\frac{1}{|F|}\sum_f \bar\Delta_f` with
      :math:`\bar\Delta_f` the face's mean Δ over all its variations and scenarios;
      face-level bootstrap CI (``resampling``: resamples, seed, level, interval kind).
    - ``cohens_d`` — face-level one-sample :math:`d_z = \overline{\bar\Delta_f} / s(\bar\Delta_f)`
      (sample std, ddof = 1).
    - ``zero_share`` — share of Δ rows exactly 0 (model × image × scenario).
    - ``large_share`` — share of Δ rows with :math:`|\Delta| \ge 0.25`.

    A ``"(mean of models)"`` row averages the model rows (Table 5's "Average").
    """
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    faces = study_faces(data)
    fm = face_matrix(data, ["model_id"], faces=faces)
    boot, _ = cluster_bootstrap(
        fm.values,
        n_resamples=resampling.resamples,
        seed=resampling.seed,
        confidence_level=resampling.confidence_level,
        method=resampling.ci_method,
    )
    with np.errstate(invalid="ignore", divide="ignore"):
        d = np.nanmean(fm.values, axis=0) / np.nanstd(fm.values, axis=0, ddof=1)
    shares = data.group_by("model_id").agg(
        (pl.col("delta") == 0).mean().alias("zero_share"),
        (pl.col("delta").abs() >= large_shift - 1e-12).mean().alias("large_share"),
    )
    out = fm.cells.with_columns(
        estimate=pl.Series(boot.estimate),
        ci_low=pl.Series(boot.ci_low),
        ci_high=pl.Series(boot.ci_high),
        cohens_d=pl.Series(d),
        n=pl.Series(boot.n.astype(np.int64)),
    ).join(shares, on="model_id", maintain_order="left")  # model order: the mean below sums in it
    cols = [
        "model_id",
        "estimate",
        "ci_low",
        "ci_high",
        "cohens_d",
        "zero_share",
        "large_share",
        "n",
        "n_obs",
    ]
    out = out.select(cols)
    avg = out.select(
        pl.lit(MEAN_OF_MODELS).alias("model_id"),
        pl.col("estimate").mean(),
        pl.lit(None, dtype=pl.Float64).alias("ci_low"),
        pl.lit(None, dtype=pl.Float64).alias("ci_high"),
        pl.col("cohens_d").mean(),
        pl.col("zero_share").mean(),
        pl.col("large_share").mean(),
        pl.col("n").max(),
        pl.col("n_obs").sum(),
    )
    return pl.concat([out, avg]).with_columns(
        pl.col("n").cast(pl.Int64), pl.col("n_obs").cast(pl.Int64), large_threshold=pl.lit(large_shift)
    )


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
