"""Variation Strength of seed 000 (Eq. 3, Table 2): per model × demographic dimension, the mean over
scenarios of the std of the groups' mean base-face φ, bias-corrected, with an analytic interval and
a ``"(mean of models)"`` row."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.stats import (
    MEAN_OF_MODELS,
    Resampling,
    face_matrix,
    returns,
    study_faces,
    variation_strength_kernel,
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
