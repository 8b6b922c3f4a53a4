"""The building blocks of the face-level group tables (Tables 3, 4 and 11): the valid Δ rows, the
per-face mean Δ cells of attribute keys × (dimension, group) and :class:`FaceLevelTest`, the
bootstrap interval and one-sample test every cell of such a table gets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import polars as pl

from cueshift.stats import (
    FaceSums,
    Resampling,
    ZeroMethod,
    cluster_bootstrap,
    coarsen,
    face_labels,
    face_sums,
    one_sample_test,
)

#: Columns of a face-level group cell after its attribute keys (Tables 3, 4 and 11), before ``n_obs``.
GROUP_CELL_COLUMNS = (
    "dimension",
    "group",
    "estimate",
    "ci_low",
    "ci_high",
    "statistic",
    "p",
    "p_adj",
    "effect_size",
    "test",
    "n",
)


def valid_delta(delta: pl.DataFrame) -> pl.DataFrame:
    return delta.filter(pl.col("delta").is_not_null() & pl.col("delta").is_not_nan())


def group_cells(
    data: pl.DataFrame, keys: Sequence[str], dimensions: Sequence[str], faces: list[str]
) -> tuple[pl.DataFrame, np.ndarray]:
    """Per-face mean Δ cells of ``keys`` × (dimension, group), stacked over dimensions and groups
    (one pass over the rows; groups are face subsets of the same fine cells)."""
    return summed_group_cells(face_sums(data, keys, faces=faces), keys, face_labels(data, faces, dimensions))


def summed_group_cells(
    fine: FaceSums, keys: Sequence[str], labels: Mapping[str, np.ndarray]
) -> tuple[pl.DataFrame, np.ndarray]:
    """:func:`group_cells` from per-face sums in cells at least as fine as ``keys`` and each face's
    label per dimension (``labels``, in the order of ``fine.faces``)."""
    cells, values = [], []
    for dim, group_of in labels.items():
        for group in sorted({g for g in group_of if g is not None}):
            fm = coarsen(fine, keys, face_mask=group_of == group)
            keep = fm.cells["n_obs"].to_numpy() > 0  # e.g. facial hair has no female cell
            cells.append(
                fm.cells.filter(pl.Series(keep)).with_columns(
                    pl.lit(dim).alias("dimension"), pl.lit(group).alias("group")
                )
            )
            values.append(fm.values[:, keep])
    return pl.concat(cells), np.hstack(values)


@dataclass(frozen=True)
class FaceLevelTest:
    """One face-level test setting for every cell of a table: called on ``(cells, values)``
    (a face × cell matrix of per-face mean Δ), it adds the bootstrap estimate and CI and the
    one-sample test (WSRT or sign flips) of each column to ``cells``."""

    resampling: Resampling
    zero_method: ZeroMethod = "wilcox"

    def __call__(self, cells: pl.DataFrame, values: np.ndarray) -> pl.DataFrame:
        r = self.resampling
        boot, _ = cluster_bootstrap(
            values,
            n_resamples=r.resamples,
            seed=r.seed,
            confidence_level=r.confidence_level,
            method=r.ci_method,
        )
        statistic, p, effect, name = one_sample_test(
            values, test=r.test, n_resamples=r.resamples, seed=r.seed, zero_method=self.zero_method
        )
        return cells.with_columns(
            estimate=pl.Series(boot.estimate),
            ci_low=pl.Series(boot.ci_low),
            ci_high=pl.Series(boot.ci_high),
            statistic=pl.Series(statistic),
            p=pl.Series(p),
            effect_size=pl.Series(effect),
            test=pl.lit(name),
            n=pl.Series(boot.n.astype(np.int64)),
        )
