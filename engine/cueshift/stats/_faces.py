"""Per-face cell means in a dense face × cell array: the unit of every test and bootstrap.

Seed 000 tests and bootstraps at the face level ("per-face mean Δ", "bootstrap 95% CI
(face-level)"): the Δ rows of a face inside a cell are averaged first, so each face counts once
per cell and repeated measures of a face never look independent. Every mean here is summed
exactly (:mod:`cueshift.stats._exact_means`: Δ and φ as integers over a common denominator),
so it is the same double in every row order, and equal rationals are equal doubles. The
per-face sums from which coarser cells are derived without the rows are in
:mod:`cueshift.stats._face_sums`, the row and cell codes in :mod:`cueshift.stats._cell_codes`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.stats._cell_codes import cell_codes, encode_categories
from cueshift.stats._exact_means import count_denominator, exact_bincount, ratio_means, scaled_integers


@dataclass(frozen=True)
class FaceMatrix:
    """``values[f, c]``: mean of ``value`` over the rows of face ``faces[f]`` in cell ``cells[c]``
    (NaN when the face has no row there); ``cells`` holds the key columns plus ``n_obs``
    (rows averaged in the cell, all faces together)."""

    faces: list[str]
    cells: pl.DataFrame
    values: F64

    @property
    def n_cells(self) -> int:
        return self.cells.height


def face_matrix(
    data: pl.DataFrame,
    keys: Sequence[str],
    *,
    faces: Sequence[str],
    value: str = "delta",
    subject: str = "face_id",
    row_means: Sequence[str] = (),
) -> FaceMatrix:
    r"""Average ``value`` per face within each cell of ``keys`` and lay the means out densely.

    .. math::

        \bar\Delta_{fc} = \frac{1}{|R_{fc}|}\sum_{r \in R_{fc}} \Delta_r,

    :math:`R_{fc}` the rows of face :math:`f` in cell :math:`c`. Rows whose ``value`` is null
    are dropped first (Δ is NULL when a φ had no valid answer). ``keys`` may be empty (one
    cell: everything). Cells are sorted by their keys.
    """
    keys = list(keys)
    frame, flat, cell_of_row, cells = _face_cell_index(data, keys, faces, value, subject)
    n_faces, n_cells = len(faces), cells.height
    size = n_faces * n_cells
    denominator = count_denominator(frame)
    rows = np.bincount(flat, minlength=size).astype(np.float64)
    numerators, scale = scaled_integers(frame[value].to_numpy(), denominator)
    values = ratio_means(exact_bincount(flat, numerators, size), rows, scale).reshape(n_faces, n_cells)
    cell_rows = rows.reshape(n_faces, n_cells).sum(axis=0)
    extra = {}
    for col in row_means:
        col_numerators, col_scale = scaled_integers(frame[col].to_numpy(), denominator)
        extra[col] = ratio_means(exact_bincount(cell_of_row, col_numerators, n_cells), cell_rows, col_scale)
    cells = cells.with_columns(
        pl.Series("n_obs", cell_rows.astype(np.int64)), *[pl.Series(c, v) for c, v in extra.items()]
    )
    if not keys:
        cells = cells.drop("__all")
    return FaceMatrix(list(faces), cells, values)


def study_faces(*frames: pl.DataFrame, subject: str = "face_id") -> list[str]:
    """Sorted face ids present in any of ``frames``."""
    ids: set[str] = set()
    for frame in frames:
        if subject in frame.columns:
            ids.update(frame[subject].unique().to_list())
    return sorted(ids)


def group_means(
    data: pl.DataFrame, keys: Sequence[str], value: str, *, alias: str | None = None
) -> pl.DataFrame:
    """Mean of ``value`` per group of ``keys`` (and ``n``), summed exactly (the same double in
    every row order; see :mod:`cueshift.stats._exact_means`); null ``value`` rows are dropped first."""
    frame = _with_value(data, value)
    idx, groups = cell_codes(frame, list(keys))
    n = np.bincount(idx, minlength=groups.height)
    numerators, scale = scaled_integers(frame[value].to_numpy(), count_denominator(frame))
    means = ratio_means(exact_bincount(idx, numerators, groups.height), n.astype(np.float64), scale)
    out = groups.with_columns(pl.Series(alias or value, means), pl.Series("n", n.astype(np.int64)))
    return out.drop("__all") if not keys else out


def _with_value(data: pl.DataFrame, value: str) -> pl.DataFrame:
    """The rows whose ``value`` is neither null nor NaN."""
    return data.filter(pl.col(value).is_not_null() & pl.col(value).is_not_nan())


def _face_cell_index(
    data: pl.DataFrame, keys: list[str], faces: Sequence[str], value: str, subject: str
) -> tuple[pl.DataFrame, NDArray[np.int64], NDArray[np.int64], pl.DataFrame]:
    """Index the rows with a ``value`` into the face × cell grid of ``keys``.

    Returns
    -------
    tuple
        ``(frame, flat, cell_of_row, cells)``: the rows kept, each row's flat index
        ``face * n_cells + cell`` (for the exact sums of :func:`exact_bincount`), each row's
        cell index, and the cells.
    """
    frame = _with_value(data, value)
    face_codes = encode_categories(frame[subject], list(faces))
    if (face_codes < 0).any():
        raise ValueError(f"{subject} values missing from `faces`")
    cell_of_row, cells = cell_codes(frame, keys)
    return frame, face_codes * cells.height + cell_of_row, cell_of_row, cells


def face_labels(
    data: pl.DataFrame, faces: Sequence[str], dims: Sequence[str]
) -> dict[str, NDArray[np.object_]]:
    """Each face's label of every dimension in ``dims`` (None where it has none), in the order of
    ``faces``, from one pass over the distinct (face, labels) rows."""
    distinct = data.select("face_id", *dims).unique()
    out: dict[str, NDArray[np.object_]] = {}
    for dim in dims:
        face_group = dict(distinct.filter(pl.col(dim).is_not_null()).select("face_id", dim).iter_rows())
        out[dim] = np.array([face_group.get(f) for f in faces], dtype=object)
    return out
