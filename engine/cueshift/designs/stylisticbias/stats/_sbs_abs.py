r"""|SBS| of every SBS row: the mean over the row's model × variation value × scenario cells of
:math:`|\mathrm{SBS}_c|`, and its interval built from the cells' SBS intervals
(:func:`~cueshift.stats._folded.mean_abs_interval`); demographic-group rows get a point value only.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.designs.stylisticbias.stats._sbs_levels import LEVELS
from cueshift.stats import (
    POOLED,
    BootstrapResult,
    FaceMatrix,
    FaceSums,
    cell_codes,
    group_means,
    mean_abs_interval,
    row_means,
)


def abs_intervals(
    blocks: list[tuple[str, FaceMatrix]], values: F64, boot: BootstrapResult, confidence_level: float
) -> tuple[F64, F64, F64]:
    """|SBS| and its interval for every column of the stacked face matrix.

    Parameters
    ----------
    blocks
        The rows' face matrices (:func:`~cueshift.designs.stylisticbias.stats._sbs_levels.level_blocks`).
    values
        Their face values stacked side by side (faces × rows).
    boot
        The face-level bootstrap of ``values`` (the cells' SBS and its interval).
    confidence_level
        Of the SBS intervals and of the |SBS| interval.

    Returns
    -------
    tuple of ndarray
        ``(abs_sbs, abs_ci_low, abs_ci_high)`` per row, NaN for demographic-group rows.
    """
    offsets = list(np.cumsum([0] + [fm.n_cells for _, fm in blocks[:-1]]))
    member_cell, member_target = _abs_memberships(blocks, offsets)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        se = np.nanstd(values, axis=0, ddof=1) / np.sqrt(boot.n)
    abs_est, abs_low, abs_high = mean_abs_interval(
        boot.estimate, boot.ci_low, boot.ci_high, se, member_cell, member_target, confidence_level
    )
    pad = values.shape[1] - abs_est.size

    def padded(a: F64) -> F64:
        return np.concatenate([a, np.full(pad, np.nan)])

    return padded(abs_est), padded(abs_low), padded(abs_high)


def _abs_memberships(
    blocks: list[tuple[str, FaceMatrix]], offsets: list[int]
) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """Memberships ``(cell column, row)`` of per-model cells (the |SBS| unit) in every
    non-demographic row, as column indices of the stacked face matrix."""
    base_i = next(
        i for i, (lvl, fm) in enumerate(blocks) if lvl == "cell" and fm.cells["model_id"][0] != POOLED
    )
    base = blocks[base_i][1].cells.with_row_index("__base")
    member_cell: list[NDArray[np.int64]] = []
    member_target: list[NDArray[np.int64]] = []
    for i, (level, fm) in enumerate(blocks):
        if level == "demographic_group":
            continue
        keys = list(LEVELS[level])
        pooled = fm.cells["model_id"][0] == POOLED
        on = keys if pooled else ["model_id", *keys]
        target = fm.cells.with_row_index("__target").select(*on, "__target") if on else None
        if target is None:
            joined = base.select("__base").with_columns(pl.lit(0, dtype=pl.UInt32).alias("__target"))
        else:
            joined = base.join(target, on=on, nulls_equal=True)
        member_cell.append(joined["__base"].to_numpy().astype(np.int64) + offsets[base_i])
        member_target.append(joined["__target"].to_numpy().astype(np.int64) + offsets[i])
    return np.concatenate(member_cell), np.concatenate(member_target)


def demographic_abs(fine: FaceSums, labels: Mapping[str, NDArray[np.object_]]) -> pl.DataFrame:
    """|SBS| of demographic groups: mean over model × value × scenario cells of |mean Δ in the group|
    (the mean over the group's rows of the cell, from the fine sums).

    Parameters
    ----------
    fine
        Per-face sums of the model × cell grid.
    labels
        Each demographic dimension's group per face (``None`` where unknown).

    Returns
    -------
    polars.DataFrame
        ``model_id`` (or pooled), ``dimension``, ``group`` and ``abs_point``; empty without labels.
    """
    parts = []
    keys = ["model_id", "variation_value", "scenario_id"]
    codes = cell_codes(fine.cells, keys)  # the same cells for every group
    for dim, group_of in labels.items():
        cell = pl.concat(
            [
                row_means(fine, keys, face_mask=group_of == g, codes=codes).select(
                    "model_id", pl.lit(g).alias(dim), "variation_value", "scenario_id", a=pl.col("mean").abs()
                )
                for g in sorted({g for g in group_of if g is not None})
            ]
        )
        per_model = group_means(cell, ["model_id", dim], "a", alias="abs_point").drop("n")
        pooled = (
            group_means(cell, [dim], "a", alias="abs_point")
            .drop("n")
            .with_columns(pl.lit(POOLED).alias("model_id"))
        )
        both = pl.concat([per_model, pooled.select(per_model.columns)])
        parts.append(both.rename({dim: "group"}).with_columns(pl.lit(dim).alias("dimension")))
    return pl.concat(parts) if parts else pl.DataFrame()
