"""The Δ rows of a run summed once per face × fine cell, shared by SBS and Tables 3 and 11 (pooled,
per model and per crossed subgroup).

Each of those tables groups the same valid Δ rows by face and some attribute key. Summing the
rows once per face × model × attribute value × scenario and regrouping the sums gives every
table's per-face means without reading the 2.4 M rows again at paper scale: the sums are
integer-valued (:mod:`cueshift.stats._exact_means`), so a regrouped mean is the same double the
rows give (:func:`~cueshift.stats.coarsen`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl
from numpy.typing import NDArray

from cueshift.designs.stylisticbias.constants import DIMENSIONS
from cueshift.designs.stylisticbias.stats._sbs_levels import LEVELS
from cueshift.stats import FaceSums, face_labels, face_sums, ratio_means, regroup, study_faces

#: The fine cells: SBS's cells per model (its display means of φ included).
FINE_KEYS = ("model_id", *LEVELS["cell"])
#: The cells Tables 3 and 11 regroup (every scenario of a model × attribute value together).
ATTRIBUTE_KEYS = ("model_id", "variation_category", "variation_value")
#: Maps the key columns of a frame of cells (or rows) to a table's own keys.
Relabel = Callable[[pl.DataFrame], pl.DataFrame]


@dataclass(frozen=True)
class SummedDelta:
    """Valid Δ rows (non-null, non-NaN) summed per face: ``fine`` over :data:`FINE_KEYS`,
    ``attributes`` over :data:`ATTRIBUTE_KEYS` (no display columns), and each face's
    demographic ``labels`` (in the order of ``faces``)."""

    faces: list[str]
    fine: FaceSums
    attributes: FaceSums
    labels: dict[str, NDArray[np.object_]]

    def relabelled(self, relabel: Relabel) -> SummedDelta:
        """The same sums with ``relabel`` applied to the attribute cells (e.g. merged categories, or
        the model folded into a key): it maps the key columns of the cells as it would the rows'."""
        cells = relabel(self.attributes.cells)
        return dataclasses.replace(self, attributes=dataclasses.replace(self.attributes, cells=cells))

    def with_labels(self, extra: dict[str, NDArray[np.object_]]) -> SummedDelta:
        """The same sums with more face labels (e.g. crossed subgroups)."""
        return dataclasses.replace(self, labels={**self.labels, **extra})

    def face_means(self, keys: Sequence[str]) -> pl.DataFrame:
        """Each face's mean Δ per group of ``keys`` (some of :data:`ATTRIBUTE_KEYS`): columns
        ``face_id, *keys, delta``, one row per face and group it has rows in, sorted — what
        ``group_means(rows, ["face_id", *keys], "delta")`` gives (without ``n``), from the sums."""
        fs = self.attributes if tuple(keys) == ATTRIBUTE_KEYS else regroup(self.attributes, keys)
        face, cell = np.nonzero(fs.counts > 0)
        means = ratio_means(fs.sums[face, cell], fs.counts[face, cell], fs.scale)
        faces = pl.Series("face_id", self.faces, dtype=pl.String).gather(face)
        return (
            fs.cells[cell]
            .with_columns(faces, pl.Series("delta", means))
            .select("face_id", *keys, "delta")
            .sort(["face_id", *keys], nulls_last=True)
        )

    def labels_of(self, dimensions: Sequence[str]) -> dict[str, NDArray[np.object_]]:
        """Face labels of ``dimensions``, in that order."""
        return {dim: self.labels[dim] for dim in dimensions}


def summed_delta(delta: pl.DataFrame, dimensions: Sequence[str] = DIMENSIONS) -> SummedDelta:
    """Sum the valid Δ rows of ``delta`` once (columns of the ``delta`` view: the keys of
    :data:`FINE_KEYS`, ``phi_variation``, ``phi_base`` and the ``dimensions``)."""
    data = delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())
    faces = study_faces(data)
    fine = face_sums(data, FINE_KEYS, faces=faces, row_means=("phi_variation", "phi_base"))
    return SummedDelta(faces, fine, regroup(fine, ATTRIBUTE_KEYS), face_labels(data, faces, dimensions))
