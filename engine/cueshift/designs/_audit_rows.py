r"""Rows of the edit audit: each measure of each edit, its robust z and its verdict.

Every function takes the pairs frame of :func:`cueshift.designs.audit.edit_pairs_of` (one row
per variation: ``image_id, base_image_id, face_id, feature_key, variation_value, framing,
base_framing``) and returns ``edit_audit`` rows. An unintended change fails when

.. math:: |d| > B \quad\text{or}\quad (|z| > z_{\max} \text{ and } |d| > s\,B),

with :math:`d` the variation's difference from its base, :math:`B` the measure's absolute bound,
:math:`z` the robust z of :math:`d` among the variations of the same attribute
(:func:`cueshift.stats.robust_z`, Iglewicz & Hoaglin 1993), :math:`z_{\max}` the ``[audit]
robust_z`` and :math:`s` its ``outlier_share`` (an outlier smaller than :math:`s B` is reported
in ``robust_z`` but does not fail: docs/decisions.md, the edit audit entry).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import polars as pl

from cueshift.stats import robust_z
from cueshift.study.audit import AuditConfig


@dataclass(frozen=True)
class EditPairs:
    """The base/variation pairs of a study: ``pairs`` (:func:`edit_pairs_of`), paths under ``root``."""

    root: Path
    pairs: pl.DataFrame


KEYS = ("image_id", "base_image_id", "face_id", "feature_key", "variation_value")
AUDIT_SCHEMA: dict[str, pl.DataType | type[pl.DataType]] = {
    "image_id": pl.String,
    "base_image_id": pl.String,
    "face_id": pl.String,
    "feature_key": pl.String,
    "variation_value": pl.String,
    "check_kind": pl.String,
    "measure": pl.String,
    "source": pl.String,
    "measured_base": pl.Float64,
    "measured_variation": pl.Float64,
    "difference": pl.Float64,
    "robust_z": pl.Float64,
    "bound": pl.Float64,
    "failed": pl.Boolean,
    "reason": pl.String,
}


def empty_audit() -> pl.DataFrame:
    """An ``edit_audit`` frame without rows."""
    return pl.DataFrame(schema=AUDIT_SCHEMA)


def with_robust_z(rows: pl.DataFrame) -> pl.DataFrame:
    """``rows`` with ``robust_z`` of ``difference`` within each ``(measure, feature_key)``."""
    parts = []
    for _, part in rows.sort("measure", "feature_key", "image_id").group_by(
        "measure", "feature_key", maintain_order=True
    ):
        parts.append(part.with_columns(robust_z=pl.Series(robust_z(part["difference"].to_numpy()))))
    return pl.concat(parts) if parts else rows.with_columns(robust_z=pl.lit(None, pl.Float64))


def unintended_verdicts(rows: pl.DataFrame, config: AuditConfig) -> pl.DataFrame:
    """``failed`` and ``reason`` of unintended-change rows (module docstring; no bound: never failed)."""
    d, z, bound = pl.col("difference").abs(), pl.col("robust_z").abs(), pl.col("bound")
    beyond = bound.is_not_null() & (d > bound)
    outlier = bound.is_not_null() & (z > config.robust_z) & (d > config.outlier_share * bound)
    text = pl.format(
        "{} changed by {} (bound {}, robust z {})",
        pl.col("measure"),
        pl.col("difference").round_sig_figs(3),
        bound.round_sig_figs(3),
        pl.col("robust_z").round(1),
    )
    return rows.with_columns(
        failed=(beyond | outlier).fill_null(False),
        reason=pl.when(beyond | outlier).then(text).otherwise(None),
    )


def measure_rows(
    pairs: pl.DataFrame,
    measure: str,
    check_kind: str,
    source: str,
    base: np.ndarray | None,
    variation: np.ndarray | None,
    difference: np.ndarray,
    bound: Sequence[float | None],
) -> pl.DataFrame:
    """One ``edit_audit`` row per pair for ``measure`` (robust z and verdicts still to come)."""
    n = pairs.height

    def column(values: np.ndarray | None) -> pl.Series:
        return pl.Series(values if values is not None else [None] * n, dtype=pl.Float64)

    return pairs.select(*KEYS).with_columns(
        check_kind=pl.lit(check_kind),
        measure=pl.lit(measure),
        source=pl.lit(source),
        measured_base=column(base),
        measured_variation=column(variation),
        difference=pl.Series(difference, dtype=pl.Float64),
        robust_z=pl.lit(None, pl.Float64),
        bound=pl.Series(list(bound), dtype=pl.Float64),
        failed=pl.lit(False),
        reason=pl.lit(None, pl.String),
    )


def changed_pixel_rows(pairs: pl.DataFrame, changed: np.ndarray, config: AuditConfig) -> pl.DataFrame:
    """The cue check ``changed_pixels``: an edit that changed (almost) nothing fails."""
    rows = measure_rows(
        pairs,
        "changed_pixels",
        "cue",
        "pixels",
        None,
        None,
        changed,
        [config.min_changed_pixels] * pairs.height,
    )
    identical = pl.col("difference") == 0.0
    too_few = pl.col("difference") < config.min_changed_pixels
    return rows.with_columns(
        failed=identical | too_few,
        reason=pl.when(identical)
        .then(pl.lit("the variation is pixel-identical to its base"))
        .when(too_few)
        .then(pl.format("only {} of the pixels changed", pl.col("difference").round_sig_figs(2)))
        .otherwise(None),
    )


def cue_rows(
    pairs: pl.DataFrame, source: str, p_base: np.ndarray, p_variation: np.ndarray, config: AuditConfig
) -> pl.DataFrame:
    """The cue check ``cue_probability``: the value must be more detectable on the variation (lift)."""
    thresholds = [config.cue_threshold_of(key) for key in pairs["feature_key"]]
    rows = measure_rows(
        pairs, "cue_probability", "cue", source, p_base, p_variation, p_variation - p_base, thresholds
    )
    weak = pl.col("difference") <= pl.col("bound")
    return rows.with_columns(
        failed=weak,
        reason=pl.when(weak)
        .then(
            pl.format(
                "the cue is not more detectable on the variation (lift {} <= {})",
                pl.col("difference").round_sig_figs(3),
                pl.col("bound"),
            )
        )
        .otherwise(None),
    )


def identity_rows(pairs: pl.DataFrame, source: str, cosine: np.ndarray, config: AuditConfig) -> pl.DataFrame:
    """Identity preservation: the cosine fails as a low outlier of its attribute (robust z < -robust_z)."""
    rows = with_robust_z(
        measure_rows(pairs, "identity_cosine", "identity", source, None, None, cosine, [None] * pairs.height)
    )
    low = pl.col("robust_z") < -config.robust_z
    return rows.with_columns(
        failed=low.fill_null(False),
        reason=pl.when(low)
        .then(
            pl.format(
                "identity cosine {} is a low outlier of its attribute (robust z {})",
                pl.col("difference").round(3),
                pl.col("robust_z").round(1),
            )
        )
        .otherwise(None),
    )


__all__ = [
    "AUDIT_SCHEMA",
    "EditPairs",
    "KEYS",
    "changed_pixel_rows",
    "cue_rows",
    "empty_audit",
    "identity_rows",
    "measure_rows",
    "unintended_verdicts",
    "with_robust_z",
]
