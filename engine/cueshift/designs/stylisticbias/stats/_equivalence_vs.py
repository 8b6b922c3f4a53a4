"""The Variation Strength rows of ``result_equivalence``: each model's VS (Table 2) per demographic
dimension, over all scenarios and per scenario category, tested against the study's smallest VS
of interest by :func:`cueshift.stats.vs_tost` (one-sided: VS below the margin)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.stats import cell_codes, face_matrix, study_faces, vs_tost


def vs_equivalence_rows(
    base_phi: pl.DataFrame, margin: float, *, alpha: float, dimensions: Sequence[str] = DIMENSIONS
) -> pl.DataFrame:
    """One row per model × dimension × scenario category (null: all scenarios), unadjusted.

    The face values, groups and population std (``ddof=0``) are those of Table 2
    (:func:`~cueshift.designs.stylisticbias.stats.variation_strength`): ``estimate`` is the same
    bias-corrected VS; ``ci_low``/``ci_high`` its interval at level ``1 - 2 alpha`` (each bound
    one-sided ``1 - alpha``); ``p`` tests VS < ``margin``, ``p_shift`` VS = 0; ``n`` the faces
    with a group and a φ in the row; ``statistic`` null (no single statistic over scenarios).

    Parameters
    ----------
    base_phi : polars.DataFrame
        Rows of the ``base_phi`` view (``scenario_category`` may be absent).
    margin : float
        The study's ``[equivalence] vs``.
    alpha : float
        Level of each one-sided test.
    dimensions : sequence of str
        The demographic columns to test (those absent or without labels are skipped).
    """
    data = base_phi.filter(pl.col("phi").is_not_null())
    if "scenario_category" not in data.columns:
        data = data.with_columns(pl.lit(None, dtype=pl.String).alias("scenario_category"))
    faces = study_faces(data)
    splits = [["model_id"], ["model_id", "scenario_category"]]
    if data["scenario_category"].is_null().all():  # no categories: the split repeats "all"
        splits = splits[:1]
    frames = []
    for dim in (d for d in dimensions if d in data.columns):
        sub = data.filter(pl.col(dim).is_not_null())
        groups = sorted(sub[dim].unique().to_list())
        if not groups:
            continue
        fm = face_matrix(sub, ["model_id", "scenario_category", "scenario_id"], faces=faces, value="phi")
        face_group = dict(sub.select("face_id", dim).unique().iter_rows())
        codes = np.array([groups.index(face_group[f]) if f in face_group else -1 for f in faces])
        labelled = (codes >= 0)[:, None] & ~np.isnan(fm.values)
        for split in splits:
            unit, units = cell_codes(fm.cells, split)
            res = vs_tost(fm.values, codes, len(groups), unit, margin, alpha=alpha)
            n = [int(labelled[:, unit == u].any(axis=1).sum()) for u in range(units.height)]
            frames.append(
                units.with_columns(
                    dimension=pl.lit(dim),
                    estimate=pl.Series(res.estimate),
                    ci_low=pl.Series(res.ci_low),
                    ci_high=pl.Series(res.ci_high),
                    p=pl.Series(res.p),
                    p_shift=pl.Series(res.p_shift),
                    n=pl.Series(n, dtype=pl.Int64),
                )
            )
    if not frames:
        return pl.DataFrame()
    out = pl.concat(frames, how="diagonal_relaxed")
    if "scenario_category" not in out.columns:
        out = out.with_columns(pl.lit(None, dtype=pl.String).alias("scenario_category"))
    return out.with_columns(
        quantity=pl.lit("vs"),
        level=pl.lit("dimension"),
        margin=pl.lit(margin),
        ci_level=pl.lit(1.0 - 2.0 * alpha),
        statistic=pl.lit(None, dtype=pl.Float64),
    )
