"""φ aggregation (Eq. 1) and per-model response style (Table 5) of seed 000; Variation Strength
(Table 2) is in ``_variation_strength.py``, the cumulative |SBS| curve (Fig. 2) in
``_cumulative.py``."""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import LARGE_SHIFT
from cueshift.stats import (
    MEAN_OF_MODELS,
    Resampling,
    cluster_bootstrap,
    cohens_dz,
    face_matrix,
    returns,
    study_faces,
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
      (sample std, ddof = 1; ±inf where every face mean is the same, NaN where they are all 0).
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
    d = cohens_dz(fm.values)
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
