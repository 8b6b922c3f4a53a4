"""The levels SBS is reported at (:data:`LEVELS`, plus demographic groups) and the face matrix
of each level's rows, per model and pooled.

Every level is a regrouping of the fine cells (:func:`~cueshift.stats._faces.face_sums`, one
pass over the rows), so no level reads the rows again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift.stats.kernels import POOLED, FaceMatrix, FaceSums, coarsen

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
        ``(level, matrix)`` in row order; demographic rows have level ``'demographic_group'``.
    """
    blocks: list[tuple[str, FaceMatrix]] = []
    for level in levels:
        for pooled in (False, True):
            keys = ([] if pooled else ["model_id"]) + list(LEVELS[level])
            fm = coarsen(fine, keys)
            if pooled:
                fm = FaceMatrix(fm.faces, fm.cells.with_columns(pl.lit(POOLED).alias("model_id")), fm.values)
            blocks.append((level, fm))
    for dim, group_of in labels.items():
        for group in sorted({g for g in group_of if g is not None}):
            for pooled in (False, True):
                fm = coarsen(fine, [] if pooled else ["model_id"], face_mask=group_of == group)
                cells = fm.cells.with_columns(pl.lit(dim).alias("dimension"), pl.lit(group).alias("group"))
                if pooled:
                    cells = cells.with_columns(pl.lit(POOLED).alias("model_id"))
                blocks.append(("demographic_group", FaceMatrix(fm.faces, cells, fm.values)))
    return blocks
