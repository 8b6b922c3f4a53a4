"""Answer counts per face and cell of the missing-answer analyses (:mod:`._missing`), as arrays.

A cell is model (and :data:`~cueshift.stats.POOLED`) × dimension × group × variation
value; ``(all)`` is the dimension of every face. The counts are summed once per model × value ×
face (integer sums: exact in any order) and a cell's faces are picked by the face's label, so
the five dimensions and the pooled model are views of one array instead of ten copies of the
rows regrouped. The labels are attributes of the face (as the ``invalid_answers`` view joins
them from the identity), read once per face with :func:`~cueshift.stats.face_labels`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift._types import F64, I64
from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.stats import POOLED, cell_codes, encode_categories, face_labels

#: ``dimension`` and ``group`` of the cells of all faces.
ALL = "(all)"
VALUE = ["variation_category", "variation_value"]


@dataclass(frozen=True)
class FaceCounts:
    """Integer counts per model × variation value × face, and the cells they fall in.

    ``counts[c][m, v, f]``: the sum of column ``c`` over the rows of model ``m`` (the last index:
    all models, pooled), value ``v`` and face ``f`` (0 where none; ``observed`` says where rows
    are). Cell ``i`` (a row of ``cells``: ``model_id, dimension, group, variation_category,
    variation_value``, unsorted) reads model ``model[i]``, value ``value[i]`` and the faces
    where ``in_cell[i]`` holds (observed, and of the cell's group).
    """

    faces: list[str]
    counts: dict[str, I64]
    observed: NDArray[np.bool_]
    cells: pl.DataFrame
    model: I64
    value: I64
    in_cell: NDArray[np.bool_]

    def per_face(self, numbers: F64) -> F64:
        """``(n_cells, n_faces)``: ``numbers[m, v, f]`` of each cell's faces, NaN elsewhere."""
        return np.where(self.in_cell, numbers[self.model, self.value], np.nan)

    def total(self, column: str) -> I64:
        """Per cell: the sum of ``column`` over its faces (integers)."""
        summed: I64 = np.where(self.in_cell, self.counts[column][self.model, self.value], 0).sum(axis=1)
        return summed

    def model_total(self, column: str) -> I64:
        """Per model index (pooled last): the sum of ``column`` over all its rows."""
        summed: I64 = self.counts[column].sum(axis=(1, 2))
        return summed


def face_counts(rows: pl.DataFrame, columns: Sequence[str]) -> FaceCounts:
    """Sum ``columns`` of ``rows`` (``model_id, face_id, variation_category, variation_value``,
    the :data:`~cueshift.designs.stylisticbias.constants.DIMENSIONS` labels) per model × value × face, and lay
    out the cells: every model and the pooled one × ``(all)`` and each label of each dimension ×
    value, where at least one face of the group has rows (faces without a label leave that
    dimension)."""
    faces = sorted(rows["face_id"].unique().to_list())
    models = rows["model_id"].unique().sort().to_list()
    value_of_row, values = cell_codes(rows, VALUE)
    n_models, n_values, n_faces = len(models) + 1, values.height, len(faces)
    flat = (
        encode_categories(rows["model_id"], models) * n_values + value_of_row
    ) * n_faces + encode_categories(rows["face_id"], faces)
    shape = (n_models, n_values, n_faces)
    size = (n_models - 1) * n_values * n_faces
    counts: dict[str, I64] = {}
    for column in columns:
        summed = np.zeros(size, dtype=np.int64)
        np.add.at(summed, flat, rows[column].cast(pl.Int64).to_numpy())
        per_model = summed.reshape(n_models - 1, n_values, n_faces)
        counts[column] = np.concatenate([per_model, per_model.sum(axis=0, keepdims=True)]).reshape(shape)
    seen = np.zeros(size, dtype=bool)
    seen[flat] = True
    per_model_seen = seen.reshape(n_models - 1, n_values, n_faces)
    observed = np.concatenate([per_model_seen, per_model_seen.any(axis=0, keepdims=True)])
    groups = _groups(rows, faces)
    model_ids, dimension, group, model, value, in_cell = [], [], [], [], [], []
    for m, model_id in enumerate([*models, POOLED]):
        for dim, label, members in groups:
            faces_in = observed[m] & members  # (values, faces)
            present = np.flatnonzero(faces_in.any(axis=1))
            model_ids += [model_id] * present.size
            dimension += [dim] * present.size
            group += [label] * present.size
            model.append(np.full(present.size, m, dtype=np.int64))
            value.append(present)
            in_cell.append(faces_in[present])
    value_index = np.concatenate(value)
    cells = pl.DataFrame(
        {"model_id": model_ids, "dimension": dimension, "group": group},
        schema={"model_id": pl.String, "dimension": pl.String, "group": pl.String},
    ).hstack(values.select(pl.all().gather(value_index)))
    return FaceCounts(
        faces, counts, observed, cells, np.concatenate(model), value_index, np.concatenate(in_cell)
    )


def _groups(rows: pl.DataFrame, faces: list[str]) -> list[tuple[str, str, NDArray[np.bool_]]]:
    """``(dimension, group, faces in it)``: ``(all)`` first, then each label of each dimension."""
    labels = face_labels(rows, faces, DIMENSIONS)
    groups = [(ALL, ALL, np.ones(len(faces), dtype=bool))]
    for dim in DIMENSIONS:
        for label in sorted({g for g in labels[dim] if g is not None}):
            groups.append((dim, str(label), labels[dim] == label))
    return groups


def sorted_cells(keys: pl.DataFrame, *per_face: F64) -> tuple[pl.DataFrame, I64, list[F64]]:
    """The cells sorted by their keys (nulls last), the order taken, and each ``(n_cells,
    n_faces)`` array as a C-ordered ``(n_faces, n_cells)`` face matrix in that order."""
    order = keys.with_row_index("__row").sort(keys.columns, nulls_last=True)
    take = order["__row"].cast(pl.Int64).to_numpy()
    return order.drop("__row"), take, [np.ascontiguousarray(m[take].T) for m in per_face]
