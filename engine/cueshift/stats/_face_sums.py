"""Per-face exact sums and row counts in fine cells (:class:`FaceSums`), and every coarser face ×
cell mean derived from them without touching the rows again: :func:`regroup`, :func:`coarsen`
(per-face means over groups of cells, a face subset) and :func:`row_means` (means over the rows of
some faces). The sums are integer-valued, so regrouping them is exact."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.stats._cell_codes import cell_codes
from cueshift.stats._column_groups import exact_group_totals, group_columns, group_totals
from cueshift.stats._exact_means import count_denominator, exact_bincount, ratio_means, scaled_integers
from cueshift.stats._faces import FaceMatrix, _face_cell_index


@dataclass(frozen=True)
class FaceSums:
    """Per-face exact sums and row counts in fine cells, from which any coarser grouping (and any
    face subset) is derived without touching the rows again: :func:`coarsen`. Sums are
    integer-valued (``value * scale``), so regrouping them is exact too."""

    faces: list[str]
    cells: pl.DataFrame  # fine key columns
    sums: F64  # (n_faces, n_cells), integer-valued: Σ value · scale
    counts: F64  # (n_faces, n_cells)
    scale: float
    row_sums: dict[str, tuple[F64, float]]  # column -> (integer-valued sums, scale) of display columns


def face_sums(
    data: pl.DataFrame,
    keys: Sequence[str],
    *,
    faces: Sequence[str],
    value: str = "delta",
    subject: str = "face_id",
    row_means: Sequence[str] = (),
) -> FaceSums:
    """Exact sums and counts of ``value`` per face × fine cell of ``keys`` (see :func:`face_matrix`)."""
    frame, flat, _, cells = _face_cell_index(data, list(keys), faces, value, subject)
    n_faces, n_cells = len(faces), cells.height
    size = n_faces * n_cells
    denominator = count_denominator(frame)
    counts = np.bincount(flat, minlength=size).astype(np.float64).reshape(n_faces, n_cells)

    def summed(column: str) -> tuple[F64, float]:
        numerators, scale = scaled_integers(frame[column].to_numpy(), denominator)
        return exact_bincount(flat, numerators, size).reshape(n_faces, n_cells), scale

    sums, scale = summed(value)
    return FaceSums(list(faces), cells, sums, counts, scale, {c: summed(c) for c in row_means})


def regroup(fs: FaceSums, keys: Sequence[str], *, display: bool = False) -> FaceSums:
    r"""The sums and row counts of the fine cells added up per group of ``keys`` (not empty),
    :math:`S_{fg} = \sum_{c \in g} S_{fc}`: a coarser :class:`FaceSums` of the same rows, exact
    (integer-valued sums), with the display columns' sums only if ``display``."""
    if not keys:
        raise ValueError("regroup: no keys")
    idx, cells = cell_codes(fs.cells, list(keys))
    every = np.ones(len(fs.faces), dtype=bool)

    def grouped(per_face_cell: F64) -> F64:
        return group_columns(per_face_cell, idx, cells.height, every)

    row_sums = {col: (grouped(sums), scale) for col, (sums, scale) in fs.row_sums.items()} if display else {}
    return FaceSums(fs.faces, cells, grouped(fs.sums), grouped(fs.counts), fs.scale, row_sums)


def coarsen(
    fs: FaceSums,
    keys: Sequence[str],
    *,
    face_mask: NDArray[np.bool_] | None = None,
    codes: tuple[NDArray[np.int64], pl.DataFrame] | None = None,
) -> FaceMatrix:
    r"""Per-face means over groups of fine cells,
    :math:`\bar x_{fg} = \sum_{c \in g} S_{fc} / \sum_{c \in g} N_{fc}` — the same numbers
    :func:`face_matrix` computes from the rows (a face's mean over all of its rows in the group;
    the integer-valued sums regroup exactly). ``face_mask`` keeps only some faces (the others
    become NaN), e.g. one demographic group; ``codes`` is ``cell_codes(fs.cells, keys)`` when the
    caller has it already (several groupings of the same cells)."""
    idx, cells = codes if codes is not None else cell_codes(fs.cells, list(keys))
    keep = np.ones(len(fs.faces), dtype=bool) if face_mask is None else face_mask

    def grouped(per_face_cell: F64) -> F64:
        return group_columns(per_face_cell, idx, cells.height, keep)

    counts = grouped(fs.counts)
    values = ratio_means(grouped(fs.sums), counts, fs.scale)
    n_obs = counts.sum(axis=0)
    extra = {
        col: ratio_means(group_totals(row_sum, idx, cells.height, keep), n_obs, scale)
        for col, (row_sum, scale) in fs.row_sums.items()
    }
    cells = cells.with_columns(
        pl.Series("n_obs", n_obs.astype(np.int64)), *[pl.Series(c, v) for c, v in extra.items()]
    )
    if not keys:
        cells = cells.drop("__all")
    return FaceMatrix(fs.faces, cells, values)


def row_means(
    fs: FaceSums,
    keys: Sequence[str],
    *,
    face_mask: NDArray[np.bool_],
    codes: tuple[NDArray[np.int64], pl.DataFrame] | None = None,
) -> pl.DataFrame:
    r"""Mean of the value over the *rows* (not the faces) of the faces in ``face_mask``, per group of
    fine cells of ``keys``: :math:`\sum_{f,c \in g} S_{fc} / \sum_{f,c \in g} N_{fc}` — what
    :func:`group_means` gives on those faces' rows, without touching the rows again (the sums are
    integer-valued, so regrouping is exact). Groups without a row of those faces are left out;
    ``codes`` as in :func:`coarsen`.

    Returns ``keys`` columns, ``mean`` and ``n`` (rows)."""
    idx, cells = codes if codes is not None else cell_codes(fs.cells, list(keys))
    sums = exact_group_totals(fs.sums, idx, cells.height, face_mask)
    counts = np.bincount(idx, weights=fs.counts[face_mask].sum(axis=0), minlength=cells.height).astype(
        np.float64
    )
    out = cells.with_columns(
        pl.Series("mean", ratio_means(sums, counts, fs.scale)), pl.Series("n", counts.astype(np.int64))
    )
    return out.filter(pl.col("n") > 0)
