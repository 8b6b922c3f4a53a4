"""Per-face cell means in a dense face × cell array: the unit of every test and bootstrap.

Seed 000 tests and bootstraps at the face level ("per-face mean Δ", "bootstrap 95% CI
(face-level)"): the Δ rows of a face inside a cell are averaged first, so each face counts once
per cell and repeated measures of a face never look independent. Every mean here is summed
exactly (:mod:`cueshift.stats._exact_means`: Δ and φ as integers over a common denominator),
so it is the same double in every row order, and equal rationals are equal doubles.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.stats._column_groups import exact_group_totals, group_columns, group_totals
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


def encode_categories(series: pl.Series, categories: list[str]) -> NDArray[np.int64]:
    """Index of each value in ``categories`` (−1 for null or a value not among them), by a hash
    lookup (no sort): a cast to an enum of ``categories`` for strings, else a join."""
    if series.dtype == pl.String and _distinct_strings(categories):
        coded = series.cast(pl.Enum(categories), strict=False).to_physical()
    else:
        lookup = pl.DataFrame({"__v": categories}, schema={"__v": series.dtype}).with_row_index("__i")
        coded = series.to_frame("__v").join(lookup, on="__v", how="left", maintain_order="left")["__i"]
    return coded.fill_null(-1).cast(pl.Int64).to_numpy()


def _distinct_strings(values: list[str]) -> bool:
    """Whether ``values`` are strings, none repeated (what an enum's categories must be)."""
    return all(isinstance(v, str) for v in values) and len(set(values)) == len(values)


def cell_codes(frame: pl.DataFrame, keys: list[str]) -> tuple[NDArray[np.int64], pl.DataFrame]:
    """Cell index of every row and the cells (key columns, sorted; nulls last) — integer arithmetic
    on per-column codes instead of sorting or joining on strings."""
    if not keys:  # one cell; the placeholder column is dropped by the callers
        return np.zeros(frame.height, dtype=np.int64), pl.DataFrame({"__all": [0]})
    combined = np.zeros(frame.height, dtype=np.int64)
    levels: list[list[object]] = []
    for key in keys:
        values = frame[key].unique().drop_nulls().sort().to_list()
        codes = encode_categories(frame[key], values)
        codes = np.where(codes < 0, len(values), codes)  # null sorts last
        levels.append([*values, None])
        combined = combined * (len(values) + 1) + codes
    unique, inverse = _unique_codes(combined, math.prod(len(lv) for lv in levels))
    columns = {}
    rest = unique
    for key, lv in zip(reversed(keys), reversed(levels), strict=True):
        rest, code = np.divmod(rest, len(lv))
        columns[key] = pl.Series(key, [lv[i] for i in code], dtype=frame[key].dtype)
    cells = pl.DataFrame([columns[k] for k in keys])
    return inverse.astype(np.int64), cells


def _unique_codes(codes: NDArray[np.int64], space: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``[0, space)``: by a presence table
    (no sort) when the space is small, else by sorting."""
    if space > max(4 * codes.size, 1 << 20):
        unique, inverse = np.unique(codes, return_inverse=True)
        return unique, inverse.astype(np.int64)
    present = np.zeros(space, dtype=bool)
    present[codes] = True
    rank = np.cumsum(present) - 1
    return np.flatnonzero(present), rank[codes].astype(np.int64)


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
