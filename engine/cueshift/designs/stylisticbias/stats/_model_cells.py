"""Every model's Δ per face × fine cell (variation × scenario) in one dense array, read from the
rows once: the input of the paired model comparisons, which pair two models' Δ on the same face,
variation and scenario without joining rows."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import polars as pl
from numpy.typing import NDArray
from scipy import sparse

from cueshift._types import F64
from cueshift.designs.stylisticbias.constants import LME_CATEGORY_MAP
from cueshift.stats import (
    FaceMatrix,
    cell_codes,
    count_denominator,
    encode_categories,
    exact_bincount,
    ratio_means,
    scaled_integers,
)

#: The fine cell of a Δ row besides its face: what two models' rows are paired on.
FINE_KEYS = ("variation_category", "variation_value", "scenario_category", "scenario_id")


@dataclass(frozen=True)
class Grouping:
    """A level: its cells (key columns) and which fine cells each one gathers."""

    cells: pl.DataFrame
    member: sparse.csr_matrix  # (n_fine, n_cells) 0/1

    def sum(self, per_fine: F64) -> F64:
        """Per face, the sums of ``per_fine`` (faces × fine cells) over each cell's fine cells
        (exact for integer-valued sums below 2^53)."""
        return np.ascontiguousarray((self.member.T @ per_fine.T).T, dtype=np.float64)


@dataclass(frozen=True)
class ModelCells:
    """``sums[m, f, c]`` / ``counts[m, f, c]``: integer-valued sum (``Δ · scale``) and number of
    model ``models[m]``'s Δ rows of face ``faces[f]`` in fine cell ``cells[c]`` (one row in the
    ``delta`` view: a model judges a face's variation under a scenario once)."""

    models: list[str]
    faces: list[str]
    cells: pl.DataFrame
    sums: F64
    counts: F64
    scale: float
    _groupings: dict[tuple[str, ...], Grouping] = field(default_factory=dict, compare=False, repr=False)

    def grouping(self, keys: Sequence[str]) -> Grouping:
        """The level of ``keys`` (empty: one cell), computed once."""
        key = tuple(keys)
        if key not in self._groupings:
            idx, cells = cell_codes(self.cells, list(key))
            n_fine = self.cells.height
            member = sparse.csr_matrix(
                (np.ones(n_fine), (np.arange(n_fine), idx)), shape=(n_fine, cells.height)
            )
            self._groupings[key] = Grouping(cells.drop("__all") if not key else cells, member)
        return self._groupings[key]

    def model_means(self, m: int, keys: Sequence[str]) -> FaceMatrix:
        """Model ``m``'s per-face mean Δ in each cell of ``keys`` (as :func:`face_matrix`)."""
        level = self.grouping(keys)
        counts = level.sum(self.counts[m])
        values = ratio_means(level.sum(self.sums[m]), counts, self.scale)
        return FaceMatrix(self.faces, level.cells.with_columns(n_obs=pl.Series(counts.sum(axis=0))), values)

    def paired(self, a: int, b: int, keys: Sequence[str]) -> tuple[FaceMatrix, F64, F64]:
        r"""Per face and cell of ``keys``, over the face × fine-cell slots both models have: the
        mean difference :math:`\bar\Delta^a - \bar\Delta^b` (cells with ``n_obs`` slots and the
        slot differences' ``row_mean`` and ``row_mean_sq``, for the naive SE), and each model's
        mean. A slot with several rows of a model (not in the ``delta`` view) holds their mean
        and counts as one row.
        """
        level = self.grouping(keys)
        both = (self.counts[a] > 0) & (self.counts[b] > 0)
        with np.errstate(invalid="ignore", divide="ignore"):
            slot_a = np.where(both, self.sums[a] / np.where(both, self.counts[a], 1.0), 0.0)
            slot_b = np.where(both, self.sums[b] / np.where(both, self.counts[b], 1.0), 0.0)
        counts = level.sum(both.astype(np.float64))
        difference = level.sum(slot_a - slot_b)  # integer-valued with one row per slot: exact
        n_obs = counts.sum(axis=0)
        squares = level.sum(((slot_a - slot_b) / self.scale) ** 2).sum(axis=0)
        cells = level.cells.with_columns(
            n_obs=pl.Series(n_obs.astype(np.int64)),
            row_mean=pl.Series(ratio_means(difference.sum(axis=0), n_obs, self.scale)),
            row_mean_sq=pl.Series(ratio_means(squares, n_obs, 1.0)),
        )
        return (
            FaceMatrix(self.faces, cells, ratio_means(difference, counts, self.scale)),
            ratio_means(level.sum(slot_a), counts, self.scale),
            ratio_means(level.sum(slot_b), counts, self.scale),
        )


def _codes(series: pl.Series) -> tuple[NDArray[np.int64], list[object]]:
    """Index of each value among the sorted distinct values (nulls last), by an Enum cast (a hash
    lookup, ~3x faster than a join at paper scale)."""
    values = series.drop_nulls().unique().sort().to_list()
    if series.dtype != pl.String:
        return encode_categories(series, values), values
    codes = series.cast(pl.Enum(values)).to_physical().fill_null(len(values)).cast(pl.Int64).to_numpy()
    return codes, values


def _dense_unique(codes: NDArray[np.int64], bound: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """``np.unique(codes, return_inverse=True)`` for codes in ``[0, bound)``, without a sort
    (a presence table, then ranks by cumulative sum) when ``bound`` is moderate."""
    if bound > 50_000_000:
        unique, inverse = np.unique(codes, return_inverse=True)
        return unique, inverse.astype(np.int64)
    present = np.zeros(bound, dtype=bool)
    present[codes] = True
    rank = np.cumsum(present, dtype=np.int64) - 1
    return np.flatnonzero(present).astype(np.int64), rank[codes]


def _cells(data: pl.DataFrame) -> tuple[NDArray[np.int64], pl.DataFrame]:
    """Fine cell index of every row and the cells (key columns, sorted, nulls last)."""
    combined = np.zeros(data.height, dtype=np.int64)
    levels = []
    for key in FINE_KEYS:
        codes, values = _codes(data[key])
        levels.append([*values, None])
        combined = combined * (len(values) + 1) + codes
    unique, inverse = _dense_unique(combined, int(np.prod([len(level) for level in levels])))
    columns = {}
    for key, level in zip(reversed(FINE_KEYS), reversed(levels), strict=True):
        unique, code = np.divmod(unique, len(level))
        columns[key] = pl.Series(key, [level[i] for i in code], dtype=data[key].dtype)
    return inverse.astype(np.int64), pl.DataFrame([columns[k] for k in FINE_KEYS])


def model_cells(delta: pl.DataFrame) -> ModelCells:
    """Lay out every model's Δ rows (null Δ dropped) per face × fine cell of :data:`FINE_KEYS`,
    summed exactly (:mod:`cueshift.stats._exact_means`)."""
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    model_code, models = _codes(data["model_id"])
    face_code, faces = _codes(data["face_id"])
    cell_of_row, cells = _cells(data)
    shape = (len(models), len(faces), cells.height)
    size = shape[0] * shape[1] * shape[2]
    slot = (model_code * len(faces) + face_code) * cells.height + cell_of_row
    numerators, scale = scaled_integers(data["delta"].to_numpy(), count_denominator(data))
    sums = exact_bincount(slot, numerators, size).reshape(shape)
    counts = np.bincount(slot, minlength=size).astype(np.float64).reshape(shape)
    return ModelCells([str(m) for m in models], [str(f) for f in faces], cells, sums, counts, scale)


#: Sums of integer-valued doubles whose absolute values add up to less than this are exact.
_EXACT_SUM = 2.0**52


def face_cell_means(
    cells: ModelCells, keys: Sequence[str], relabel: Mapping[str, str] | None = None
) -> pl.DataFrame | None:
    """Mean Δ per face × cell of ``keys`` over every model's rows, ``variation_category``
    relabelled by ``relabel`` first: the frame ``group_means(rows, ["face_id", *keys], "delta")``
    without ``n``, sorted by ``face_id`` then ``keys`` — the same doubles, from the exact slot sums
    instead of the rows (the same rows, so the same scale). ``None`` without rows or where a sum
    over models might not be exact."""
    if not cells.models or float(np.abs(cells.sums).sum()) >= _EXACT_SUM:
        return None
    fine = cells.cells
    if relabel:
        fine = fine.with_columns(pl.col("variation_category").replace(dict(relabel)))
    idx, groups = cell_codes(fine, list(keys))
    n_fine = fine.height
    level = Grouping(
        groups,
        sparse.csr_matrix((np.ones(n_fine), (np.arange(n_fine), idx)), shape=(n_fine, groups.height)),
    )
    counts = level.sum(cells.counts.sum(axis=0))
    means = ratio_means(level.sum(cells.sums.sum(axis=0)), counts, cells.scale)
    face, cell = np.nonzero(counts > 0)
    out = pl.DataFrame({"face_id": pl.Series(cells.faces, dtype=pl.String).gather(face)})
    out = out.hstack(groups[cell]).with_columns(delta=pl.Series(means[face, cell]))
    return out.sort("face_id", *keys)


def model_level_cells(cells: ModelCells, *, crossed: bool) -> pl.DataFrame | None:
    """The cells of Table 10's models from the laid-out rows (:func:`face_cell_means`):
    :func:`cueshift.stats.mixed_model_cells` (``crossed=False``) or
    :func:`cueshift.stats.crossed_model_cells` (``True``), both with their default arguments."""
    keys = ("variation_category", "scenario_category", *(("scenario_id",) if crossed else ()))
    return face_cell_means(cells, keys, LME_CATEGORY_MAP)
