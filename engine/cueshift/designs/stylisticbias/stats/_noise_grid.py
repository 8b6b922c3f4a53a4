"""The dense model × value × scenario × face grid the noise-floor statistics reduce (:mod:`._noise`).

Each bin holds the Δ rows of one face in one cell, so every mean over axes is a fixed-order
reduction: the numbers do not depend on the order of the rows.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cueshift._types import F64

_SEP = "\x1f"  # joins a value's category and label into one grid key


@dataclass(frozen=True)
class Grid:
    """Sums and counts of |Δ| and Δ over the full model × value × scenario × face cross.

    Each bin holds the rows of one face in one cell (one Δ in a complete study), so a mean over
    any axes is a fixed-order reduction: the numbers do not depend on the order of the rows.
    """

    models: list[str]
    values: list[str]  # "<category>\x1f<value>"
    faces: list[str]
    delta: F64  # (models, values, scenarios, faces) sums of Δ
    abs_delta: F64  # sums of |Δ|
    count: F64  # rows per bin


def grid_of(data: pl.DataFrame, models: list[str], faces: list[str]) -> Grid:
    """The :class:`Grid` of ``data`` (Δ rows with a Δ) on the given model and face axes."""
    frame = data.with_columns(
        pl.concat_str(
            pl.col("variation_category").fill_null(""), pl.lit(_SEP), pl.col("variation_value")
        ).alias("__value")
    )
    axes = {"model_id": models, "__value": None, "scenario_id": None, "face_id": faces}
    labels, codes = [], []
    for key, given in axes.items():
        level = given if given is not None else frame[key].unique().sort().to_list()
        labels.append(level)
        codes.append(frame[key].cast(pl.Enum(level)).to_physical().to_numpy().astype(np.int64))
    shape = tuple(len(level) for level in labels)
    flat = np.ravel_multi_index(tuple(codes), shape)
    size = int(np.prod(shape))

    def binned(weights: F64 | None) -> F64:
        return np.bincount(flat, weights=weights, minlength=size).astype(np.float64).reshape(shape)

    delta = frame["delta"].to_numpy()
    return Grid(labels[0], labels[1], labels[3], binned(delta), binned(np.abs(delta)), binned(None))


def axes_of(*frames: pl.DataFrame) -> tuple[list[str], list[str]]:
    """Sorted model and face ids of ``frames``: the shared axes of their grids."""
    models = sorted({m for f in frames for m in f["model_id"].unique().to_list()})
    faces = sorted({x for f in frames for x in f["face_id"].unique().to_list()})
    return models, faces


def ratio(sums: F64, counts: F64) -> F64:
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, sums / np.where(counts > 0, counts, 1.0), np.nan)


def cell_abs(grid: Grid) -> F64:
    """|SBS| per model × value × scenario: |mean over faces of the face's mean Δ| (NaN: no face)."""
    face_mean = ratio(grid.delta, grid.count)
    with np.errstate(invalid="ignore"):
        n = (~np.isnan(face_mean)).sum(axis=-1)
        return np.abs(ratio(np.nansum(face_mean, axis=-1), n.astype(np.float64)))


def valid(delta: pl.DataFrame) -> pl.DataFrame:
    return delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())


def split_key(key: str) -> tuple[str | None, str]:
    category, value = key.split(_SEP, 1)
    return category or None, value


def cell_abs_sbs(delta: pl.DataFrame) -> pl.DataFrame:
    r"""|SBS| of every model × value × scenario cell: :math:`|\,\mathrm{mean}_f \bar\Delta_{fc}|`
    (the face-level mean of seed 000 Eq. 4, its sign removed: the |SBS| unit of ``sbs_levels``).

    Returns ``model_id, variation_category, variation_value, scenario_id, abs_sbs``."""
    data = valid(delta)
    grid = grid_of(data, *axes_of(data))
    cells = cell_abs(grid)
    scenarios = data["scenario_id"].unique().sort().to_list()
    m, v, s = np.nonzero(~np.isnan(cells))
    keys = [split_key(grid.values[i]) for i in v]
    return pl.DataFrame(
        {
            "model_id": [grid.models[i] for i in m],
            "variation_category": [k[0] for k in keys],
            "variation_value": [k[1] for k in keys],
            "scenario_id": [scenarios[i] for i in s],
            "abs_sbs": cells[m, v, s],
        },
        schema_overrides={"variation_category": pl.String},
    )
