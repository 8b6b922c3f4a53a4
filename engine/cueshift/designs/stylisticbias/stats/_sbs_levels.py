"""The levels SBS is reported at (:data:`LEVELS`, plus demographic groups) and the face matrix
of each level's rows, per model and pooled.

Every level is a regrouping of the fine cells (:func:`~cueshift.stats._face_sums.face_sums`, one
pass over the rows), so no level reads the rows again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift.stats import POOLED, FaceMatrix, FaceSums, cell_codes, coarsen, regroup

#: Grouping columns of each SBS level (``model_id`` is added for the per-model rows).
LEVELS: Mapping[str, tuple[str, ...]] = {
    "model": (),
    "variation_category": ("variation_category",),
    "variation_value": ("variation_category", "variation_value"),
    "scenario_category": ("scenario_category",),
    "scenario": ("scenario_category", "scenario_id"),
    "cell": ("variation_category", "variation_value", "scenario_category", "scenario_id"),
}
#: Key columns of every SBS row (null where the level does not group by them).
KEY_COLUMNS = (
    "model_id",
    "dimension",
    "group",
    "variation_category",
    "variation_value",
    "scenario_category",
    "scenario_id",
)


@dataclass(frozen=True)
class BlockSpec:
    """How one block of SBS rows is grouped: its level, grouping ``keys`` of the fine cells,
    whether it pools the models, and for a demographic block its dimension, group and faces."""

    level: str
    keys: tuple[str, ...]
    pooled: bool
    dimension: str | None = None
    group: object = None
    face_mask: NDArray[np.bool_] | None = None


def block_specs(levels: Sequence[str], labels: Mapping[str, NDArray[np.object_]]) -> list[BlockSpec]:
    """Every block of SBS rows in row order: per model and then pooled, demographic groups last."""
    specs: list[BlockSpec] = []
    for level in levels:
        for pooled in (False, True):
            specs.append(BlockSpec(level, _model_key(pooled) + tuple(LEVELS[level]), pooled))
    for dim, group_of in labels.items():
        for group in sorted({g for g in group_of if g is not None}):
            for pooled in (False, True):
                specs.append(
                    BlockSpec("demographic_group", _model_key(pooled), pooled, dim, group, group_of == group)
                )
    return specs


def _model_key(pooled: bool) -> tuple[str, ...]:
    """``model_id`` for the per-model rows, nothing for the pooled ones."""
    return () if pooled else ("model_id",)


def level_blocks(
    fine: FaceSums, levels: Sequence[str], labels: Mapping[str, NDArray[np.object_]]
) -> list[tuple[str, FaceMatrix]]:
    """The face matrix of every level's rows, per model and then pooled, demographic groups last.

    Parameters
    ----------
    fine
        Per-face sums of the model × cell grid.
    levels
        Keys of :data:`LEVELS`.
    labels
        Each demographic dimension's group per face (``None`` where unknown).

    Returns
    -------
    list of (str, FaceMatrix)
        ``(level, matrix)`` in row order (:func:`block_specs`); demographic rows have level
        ``'demographic_group'``.
    """
    blocks: list[tuple[str, FaceMatrix]] = []
    per_model: FaceSums | None = None  # the fine sums per face × model, for the demographic blocks
    codes: dict[tuple[bool, tuple[str, ...]], tuple[NDArray[np.int64], pl.DataFrame]] = {}
    for spec in block_specs(levels, labels):
        source = fine
        if spec.dimension is not None:  # faces of one group: their model (or pooled) sums, regrouped
            per_model = per_model or regroup(fine, ("model_id",), display=True)
            source = per_model
        key = (source is fine, spec.keys)
        if key not in codes:
            codes[key] = cell_codes(source.cells, list(spec.keys))
        fm = coarsen(source, spec.keys, face_mask=spec.face_mask, codes=codes[key])
        cells = fm.cells
        if spec.dimension is not None:
            cells = cells.with_columns(
                pl.lit(spec.dimension).alias("dimension"), pl.lit(spec.group).alias("group")
            )
        if spec.pooled:
            cells = cells.with_columns(pl.lit(POOLED).alias("model_id"))
        blocks.append((spec.level, FaceMatrix(fm.faces, cells, fm.values)))
    return blocks
