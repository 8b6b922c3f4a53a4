r"""Counterfactual quality: identity preservation of each variation and its outliers per attribute.

A variation should change one cue of its base image and keep the person. Its identity
preservation is the cosine of the image embeddings of variation and base,

.. math:: c_v = \frac{\vec e_v \cdot \vec e_b}{\lVert \vec e_v\rVert\,\lVert \vec e_b\rVert},

(SocialCounterfactuals over-generates and filters its images with CLIP; Howard et al., CVPR 2024). Within
one attribute (``feature_key``) a variation whose cosine lies far below the others changed more
than its cue; the robust z of Iglewicz & Hoaglin (1993),

.. math:: z_v = \frac{0.6745\,(c_v - \operatorname{med} c)}{\operatorname{MAD}(c)},

flags it when :math:`z_v < -3.5` (their cut-off). Median and MAD keep the outliers from hiding
themselves, as a mean and standard deviation would.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt
import polars as pl

from cueshift._types import F64

#: The Iglewicz-Hoaglin constant: 0.6745 MAD estimates the standard deviation of a normal sample.
MAD_TO_SD = 0.6745
#: Robust z below which a variation is an outlier of its attribute (Iglewicz & Hoaglin 1993).
OUTLIER_Z = -3.5
IDENTITY_COLUMNS = ("image_id", "feature_key", "cosine")


def row_cosines(a: npt.ArrayLike, b: npt.ArrayLike) -> F64:
    r"""Cosine similarity of each row of ``a`` with the same row of ``b``.

    :math:`c_i = a_i \cdot b_i / (\lVert a_i\rVert \lVert b_i\rVert)`; ``nan`` where a row is zero.

    Parameters
    ----------
    a, b : array_like, shape (n, d)
        Embeddings (e.g. of variations and of their bases).

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    left, right = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    norms = np.linalg.norm(left, axis=1) * np.linalg.norm(right, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out: F64 = np.einsum("ij,ij->i", left, right) / norms
    return np.where(norms > 0, np.clip(out, -1.0, 1.0), np.nan)


def robust_z(values: npt.ArrayLike) -> F64:
    r"""Robust z of Iglewicz & Hoaglin (1993): :math:`0.6745\,(x - \operatorname{med} x) / \mathrm{MAD}`.

    ``MAD`` is the median absolute deviation from the median (unscaled). Where the MAD is 0
    (half the values equal), ``z`` is 0 at the median and :math:`\pm\infty` elsewhere.

    Parameters
    ----------
    values : array_like, shape (n,)

    Returns
    -------
    numpy.ndarray, shape (n,)
    """
    x = np.asarray(values, dtype=np.float64)
    if x.size == 0:
        return np.zeros(0)
    center = float(np.median(x))
    mad = float(np.median(np.abs(x - center)))
    deviation = x - center
    if mad == 0.0:
        return np.where(deviation > 0, np.inf, np.where(deviation < 0, -np.inf, 0.0))
    z: F64 = MAD_TO_SD * deviation / mad
    return z


def identity_outliers(identity: pl.DataFrame, *, cutoff: float = OUTLIER_Z) -> pl.DataFrame:
    """``identity`` with ``robust_z`` (within its ``feature_key``) and ``outlier`` (``robust_z < cutoff``).

    Parameters
    ----------
    identity : polars.DataFrame
        One row per variation: ``image_id``, ``feature_key``, ``cosine`` (other columns kept).
    cutoff : float
        Robust z below which a variation is flagged (default -3.5).
    """
    parts = []
    for _, part in identity.sort("feature_key", "image_id").group_by("feature_key", maintain_order=True):
        z = robust_z(part["cosine"].to_numpy())
        parts.append(part.with_columns(robust_z=pl.Series(z, dtype=pl.Float64)))
    if not parts:
        return identity.with_columns(robust_z=pl.lit(None, pl.Float64), outlier=pl.lit(None, pl.Boolean))
    out = pl.concat(parts)
    return out.with_columns(outlier=pl.col("robust_z") < cutoff)


def face_level_sbs(delta: pl.DataFrame) -> float | None:
    r"""SBS of Δ rows as seed 000 Eq. 4 pools them: the mean over faces of each face's mean Δ,
    :math:`\frac{1}{F}\sum_f \bar\Delta_f` (``None`` without rows)."""
    if delta.height == 0:
        return None
    per_face = delta.group_by("face_id").agg(pl.col("delta").mean())["delta"]
    return float(per_face.mean())  # type: ignore[arg-type]


#: ``face_drops`` reasons: one face each, descriptor distance past the recogniser's threshold; no
#: single face on base and variation.
FACE_DROP_REASONS = ("distance", "face_count")

#: Columns of :func:`identity_drops`' result.
IDENTITY_DROPS_SCHEMA: dict[str, type[pl.DataType]] = {
    "threshold": pl.Float64,
    "feature_key": pl.String,
    "n_variations": pl.Int64,
    "n_dropped": pl.Int64,
    "share_dropped": pl.Float64,
    "n_outliers": pl.Int64,
    "median_cosine": pl.Float64,
    "min_cosine": pl.Float64,
    "sbs_all": pl.Float64,
    "sbs_kept": pl.Float64,
    "sign_kept": pl.Boolean,
    "applied": pl.Boolean,
    "n_dropped_cosine": pl.Int64,
    "n_dropped_distance": pl.Int64,
    "n_dropped_face_count": pl.Int64,
    "n_dropped_both": pl.Int64,
}


def identity_drops(
    identity: pl.DataFrame,
    thresholds: Sequence[float],
    applied: float | None,
    delta: pl.DataFrame | None = None,
    *,
    face_drops: Mapping[str, str] | None = None,
) -> pl.DataFrame:
    """How many variations each ``--min-identity`` threshold drops, per attribute and pooled, and
    whether the attribute's SBS survives the drop.

    A variation is dropped at threshold ``t`` when its cosine is below ``t`` or (``face_drops``)
    the face models drop it, whatever ``t``. With ``delta``
    (every Δ row, none dropped: ``face_id, feature_key, variation_value, delta``), ``sbs_all`` is
    the attribute's face-level SBS (:func:`face_level_sbs`, pooled over models, scenarios and
    values) over every variation, ``sbs_kept`` over those kept at ``t``, and ``sign_kept`` whether
    the two share their sign (``None`` where either is missing or 0).

    Parameters
    ----------
    identity : polars.DataFrame
        :func:`identity_outliers` output (``image_id``, ``feature_key``, ``cosine``, ``outlier``;
        with ``delta`` also ``face_id`` and ``variation_value``).
    thresholds : sequence of float
        Thresholds to count (the applied one is added when missing).
    applied : float, optional
        The threshold of this run (``applied`` is true on its rows).
    delta : polars.DataFrame, optional
        Every Δ row; ``None``: the SBS columns are null.
    face_drops : mapping of str to str, optional
        Image id → why the face models drop it (:data:`FACE_DROP_REASONS`); ``None``: the cosine
        alone drops, and the ``n_dropped_*`` columns are null.

    Returns
    -------
    polars.DataFrame
        ``threshold, feature_key ('all' pooled), n_variations, n_dropped, share_dropped, n_outliers,
        median_cosine, min_cosine, sbs_all, sbs_kept, sign_kept, applied``, and who dropped what:
        ``n_dropped_cosine`` (cosine below ``t``), ``n_dropped_distance``,
        ``n_dropped_face_count`` (the face models' reasons) and ``n_dropped_both`` (the cosine and
        a face model), so ``n_dropped = cosine + distance + face_count - both``.

    Examples
    --------
    >>> identity = pl.DataFrame({"image_id": ["a", "b", "c"], "feature_key": "hat",
    ...                          "cosine": [0.9, 0.5, 0.4], "outlier": False})
    >>> drops = identity_drops(identity, [0.6], 0.6, face_drops={"a": "distance", "c": "face_count"})
    >>> drops.filter(feature_key="hat").select("n_dropped", "n_dropped_cosine", "n_dropped_both").row(0)
    (3, 2, 1)
    """
    grid = sorted({*thresholds, *([applied] if applied is not None else [])})
    if face_drops is None:
        flagged = identity.with_columns(face_reason=pl.lit(None, pl.String))
    else:
        unknown = sorted(set(face_drops.values()) - set(FACE_DROP_REASONS))
        if unknown:
            raise ValueError(f"face_drops: unknown reason {unknown[0]!r} (one of {FACE_DROP_REASONS})")
        reasons = pl.DataFrame(
            {"image_id": list(face_drops), "face_reason": list(face_drops.values())},
            schema={"image_id": pl.String, "face_reason": pl.String},
        )
        flagged = identity.join(reasons, on="image_id", how="left")
    pooled = flagged.with_columns(feature_key=pl.lit("all"))
    cells = ["face_id", "feature_key", "variation_value"]
    scored = None
    if delta is not None:  # each Δ row with its variation's cosine (none measured: always kept)
        scored = delta.select(*cells, "delta").join(
            flagged.select(*cells, "cosine", "face_reason"), on=cells, how="left", nulls_equal=True
        )
    rows = []
    for t in grid:
        for (key,), part in pl.concat([flagged, pooled]).group_by("feature_key", maintain_order=True):
            by_cosine = part["cosine"] < t
            by_face = part["face_reason"].is_not_null()
            n_dropped = int((by_cosine | by_face).sum())
            sbs_all = sbs_kept = None
            if scored is not None:
                mine = scored if key == "all" else scored.filter(pl.col("feature_key") == key)
                sbs_all = face_level_sbs(mine)
                kept = pl.col("cosine").is_null() | (pl.col("cosine") >= t)
                sbs_kept = face_level_sbs(mine.filter(kept & pl.col("face_reason").is_null()))
            same = None if not sbs_all or not sbs_kept else (sbs_all > 0) == (sbs_kept > 0)
            by_model = None
            if face_drops is not None:
                by_model = {
                    "n_dropped_cosine": int(by_cosine.sum()),
                    "n_dropped_distance": int((part["face_reason"] == "distance").sum()),
                    "n_dropped_face_count": int((part["face_reason"] == "face_count").sum()),
                    "n_dropped_both": int((by_cosine & by_face).sum()),
                }
            rows.append(
                {
                    "threshold": float(t),
                    "feature_key": str(key),
                    "n_variations": part.height,
                    "n_dropped": n_dropped,
                    "share_dropped": n_dropped / part.height,
                    "n_outliers": int(part["outlier"].sum()),
                    "median_cosine": float(np.median(part["cosine"].to_numpy())),
                    "min_cosine": float(part["cosine"].min()),  # type: ignore[arg-type]
                    "sbs_all": sbs_all,
                    "sbs_kept": sbs_kept,
                    "sign_kept": same,
                    "applied": applied is not None and t == applied,
                    **(by_model or {}),
                }
            )
    return pl.DataFrame(rows, schema=IDENTITY_DROPS_SCHEMA)
