r"""Skin tone summaries of the edit audit: the ITA° change per edit (``skin_ita`` rows) by
attribute and by the base's ethnicity × gender, with face-level bootstrap intervals.

Every edit's change :math:`d = \mathrm{ITA}_{\text{variation}} - \mathrm{ITA}_{\text{base}}` is
first averaged within its base face (the face is the cluster: its edits share one photograph),
then over faces; intervals resample faces (:func:`cueshift.stats.cluster_bootstrap` and, for a
difference between groups of faces, :func:`cueshift.stats.group_difference_interval`, both
percentile intervals on the same face draws) at ``confidence_level``, which every row records
(default :data:`~cueshift.schemas.audit_skin.SKIN_TONE_LEVEL`). ``difference`` rows answer "does the editor
lighten one group's faces more?": one ethnicity's faces minus all other faces. A key column that
does not split a cell holds ``(all)``.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cueshift._types import F64
from cueshift.schemas.audit_skin import ALL, SKIN_TONE_LEVEL
from cueshift.stats import cluster_bootstrap, group_difference_interval


def skin_tone_summary(
    rows: pl.DataFrame,
    faces: pl.DataFrame,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    confidence_level: float = SKIN_TONE_LEVEL,
) -> pl.DataFrame:
    """``audit_skin_tone`` rows (:class:`cueshift.schemas.audit_skin.SkinToneSchema`).

    Parameters
    ----------
    rows : pl.DataFrame
        ``edit_audit`` rows; only ``measure == 'skin_ita'`` is used (``difference`` = ITA° change).
    faces : pl.DataFrame
        ``face_id, ethnicity, gender`` of the base faces (faces missing here count as unknown).
    n_resamples, seed : int
        Face draws of the bootstrap and their seed.
    confidence_level : float
        Coverage of the intervals, stored in every row (the labels of the report read it).
    """
    skin = rows.filter(pl.col("measure") == "skin_ita", pl.col("difference").is_finite())
    skin = skin.join(faces.select("face_id", "ethnicity", "gender"), on="face_id", how="left")
    skin = skin.with_columns(
        pl.col("ethnicity", "gender").fill_null("unknown"), pl.col("variation_value").fill_null("(none)")
    )
    if not skin.height:
        return _frame([], confidence_level)
    face_ids = skin["face_id"].unique().sort().to_list()
    values = skin.select("feature_key", "variation_value").unique().sort("feature_key", "variation_value")
    groups = skin.select("ethnicity", "gender").unique().sort("ethnicity", "gender")
    attrs = [(ALL, ALL), *values.iter_rows()]
    cells = [("attribute", k, v, ALL, ALL) for k, v in values.iter_rows()]
    cells += [("group", k, v, e, g) for k, v in attrs for e, g in groups.iter_rows()]
    matrix = np.column_stack([_per_face(skin, face_ids, *cell[1:]) for cell in cells])
    edits = [_edits(skin, *cell[1:]) for cell in cells]
    boot, _ = cluster_bootstrap(
        matrix, n_resamples=n_resamples, seed=seed, confidence_level=confidence_level, method="percentile"
    )
    out: list[tuple[object, ...]] = [
        (*cell, boot.estimate[j], boot.ci_low[j], boot.ci_high[j], edits[j], int(boot.n[j]))
        for j, cell in enumerate(cells)
    ]
    ethnicity_of = dict(skin.select("face_id", "ethnicity").unique("face_id").iter_rows())
    ethnic = np.array([ethnicity_of[f] for f in face_ids])
    overall = np.column_stack([_per_face(skin, face_ids, k, v, ALL, ALL) for k, v in attrs])
    for name in sorted(set(ethnic.tolist())):
        codes = np.where(ethnic == name, 0, 1).astype(np.int64)
        est, low, high = group_difference_interval(
            overall,
            codes,
            n_resamples=n_resamples,
            seed=seed,
            confidence_level=confidence_level,
            method="percentile",
        )
        for j, (k, v) in enumerate(attrs):
            n_faces = int(np.isfinite(overall[:, j]).sum())
            out.append(
                (
                    "difference",
                    k,
                    v,
                    name,
                    ALL,
                    est[j],
                    low[j],
                    high[j],
                    _edits(skin, k, v, ALL, ALL),
                    n_faces,
                )
            )
    return _frame(out, confidence_level)


def _subset(skin: pl.DataFrame, key: str, value: str, eth: str, gender: str) -> pl.DataFrame:
    for column, wanted in (
        ("feature_key", key),
        ("variation_value", value),
        ("ethnicity", eth),
        ("gender", gender),
    ):
        if wanted != ALL:
            skin = skin.filter(pl.col(column) == wanted)
    return skin


def _per_face(skin: pl.DataFrame, face_ids: list[str], *cell: str) -> F64:
    means = _subset(skin, *cell).group_by("face_id").agg(pl.col("difference").mean())
    by_face = dict(means.iter_rows())
    return np.array([by_face.get(f, np.nan) for f in face_ids], dtype=np.float64)


def _edits(skin: pl.DataFrame, *cell: str) -> int:
    return _subset(skin, *cell).height


def _frame(out: list[tuple[object, ...]], confidence_level: float) -> pl.DataFrame:
    schema = {
        "summary": pl.String,
        "feature_key": pl.String,
        "variation_value": pl.String,
        "ethnicity": pl.String,
        "gender": pl.String,
        "estimate": pl.Float64,
        "ci_low": pl.Float64,
        "ci_high": pl.Float64,
        "n_edits": pl.Int64,
        "n_faces": pl.Int64,
    }
    frame = pl.DataFrame(out, schema=schema, orient="row")
    frame = frame.with_columns(pl.col("estimate", "ci_low", "ci_high").fill_nan(None))  # NaN: too few faces
    one_face = pl.col("n_faces") < 2  # no interval from a single cluster (its bootstrap draws one value)
    frame = frame.with_columns(pl.when(~one_face).then(pl.col(c)).alias(c) for c in ("ci_low", "ci_high"))
    return frame.with_columns(pl.lit(confidence_level, dtype=pl.Float64).alias("confidence_level"))


__all__ = ["skin_tone_summary"]
