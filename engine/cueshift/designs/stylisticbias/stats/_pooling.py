"""Partially pooled Table 11 cells: each demographic group's raw mean Δ of a variation
value shrunk towards the value's estimate over all groups of the dimension, by empirical Bayes
(:func:`cueshift.stats.eb_shrink`), beside the raw estimate."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import polars as pl

from cueshift.stats import eb_shrink, pooled_standard_errors

#: The columns :func:`pooled_cells` adds, in order.
POOLED_COLUMNS = ("pooled_estimate", "pooled_ci_low", "pooled_ci_high", "shrinkage")


def pooled_cells(
    cells: pl.DataFrame, values: np.ndarray, keys: Sequence[str], *, confidence_level: float = 0.95
) -> pl.DataFrame:
    r"""Add :data:`POOLED_COLUMNS` to ``cells`` (rows = columns of the face × cell matrix
    ``values``, with ``estimate``, ``dimension`` and the attribute ``keys``).

    Parent of a cell: its ``keys`` × ``dimension`` (the value's groups of one dimension, disjoint
    faces); between-cell variance :math:`\tau^2` per dimension (Paule–Mandel over every value's
    groups: age groups differ more than genders); standard error
    :math:`\hat\sigma_p/\sqrt{n_c}` with the face variance pooled over the parent's groups and
    Student's t on its degrees of freedom (:func:`~cueshift.stats.pooled_standard_errors`).
    ``pooled_estimate`` :math:`= \hat\mu_p + (1 - B_c)(\hat y_c - \hat\mu_p)`, Morris's interval
    clipped to Δ's range [−1, 1], ``shrinkage`` :math:`B_c` (0: the raw estimate kept, 1: the
    parent). Null in a dimension with fewer than 3 more cells than parents, or for a parent whose
    groups have one face each.
    """
    parent = cells.select(pl.struct([*keys, "dimension"]).rank("dense")).to_series().to_numpy()
    se, se_df = pooled_standard_errors(values, parent)
    raw = cells["estimate"].cast(pl.Float64).fill_null(np.nan).to_numpy()
    dimension = cells["dimension"].to_numpy()
    out = {name: np.full(cells.height, np.nan) for name in POOLED_COLUMNS}
    for dim in np.unique(dimension):
        part = dimension == dim
        fit = eb_shrink(
            raw[part], se[part], parent[part], se_df=se_df[part], confidence_level=confidence_level
        )
        out["pooled_estimate"][part], out["shrinkage"][part] = fit.estimate, fit.shrinkage
        out["pooled_ci_low"][part] = np.clip(fit.ci_low, -1.0, 1.0)
        out["pooled_ci_high"][part] = np.clip(fit.ci_high, -1.0, 1.0)
    return cells.with_columns(pl.Series(name, out[name]).fill_nan(None) for name in POOLED_COLUMNS)
