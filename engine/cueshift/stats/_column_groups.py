"""Sums of the columns of a face × fine-cell array per group of cells, exact for integer-valued sums.

The per-face sums of :mod:`cueshift.stats._face_sums` are integer-valued doubles
(:mod:`cueshift.stats._exact_means`): while every partial sum stays below :math:`2^{52}` they add
exactly in any order, so one pass of additions gives the same doubles as any other order. Beyond
that bound (never at the study sizes, but possible on the fixed grid of non-ratio values) the
groups are summed by the sparse product of the cells' membership, as they always were.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import sparse

from cueshift._types import F64
from cueshift.stats._exact_means import exact_bincount

#: Integer-valued doubles whose sums stay below this add exactly in any order.
FLOAT_EXACT = 2.0**52


def group_columns(x: F64, idx: NDArray[np.int64], n_groups: int, keep: NDArray[np.bool_]) -> F64:
    r"""``(n_faces, n_groups)`` sums :math:`\sum_{c:\,\text{idx}_c = g} x_{fc}` on the faces in
    ``keep`` (0 on the others), for integer-valued ``x``."""
    out, magnitude = _group_columns(x, idx, n_groups, keep)
    if magnitude < FLOAT_EXACT:
        return out
    out = np.asarray((_membership(idx, n_groups).T @ x.T).T)
    out[~keep] = 0.0
    return out


def group_totals(x: F64, idx: NDArray[np.int64], n_groups: int, keep: NDArray[np.bool_]) -> F64:
    r"""``(n_groups,)`` sums :math:`\sum_{f \in \text{keep}} \sum_{c:\,\text{idx}_c = g} x_{fc}`
    (:func:`group_columns` summed over the faces), for integer-valued ``x``."""
    column_totals, magnitude = _column_totals(x, keep)
    if magnitude < FLOAT_EXACT:
        return np.bincount(idx, weights=column_totals, minlength=n_groups).astype(np.float64)
    totals: F64 = group_columns(x, idx, n_groups, keep).sum(axis=0)
    return totals


def exact_group_totals(x: F64, idx: NDArray[np.int64], n_groups: int, keep: NDArray[np.bool_]) -> F64:
    """:func:`group_totals` exact in every range: beyond :math:`2^{52}` the kept values are added
    as int64 (:func:`~cueshift.stats._exact_means.exact_bincount`)."""
    column_totals, magnitude = _column_totals(x, keep)
    if magnitude < FLOAT_EXACT:
        return np.bincount(idx, weights=column_totals, minlength=n_groups).astype(np.float64)
    return exact_bincount(np.tile(idx, int(np.count_nonzero(keep))), x[keep].ravel(), n_groups)


def _membership(idx: NDArray[np.int64], n_groups: int) -> sparse.csr_matrix:
    """``(n_cells, n_groups)`` 0/1 matrix: cell ``c`` belongs to group ``idx[c]``."""
    n_cells = idx.shape[0]
    return sparse.csr_matrix((np.ones(n_cells), (np.arange(n_cells), idx)), shape=(n_cells, n_groups))


@numba.njit(cache=True)
def _group_columns(
    x: F64, idx: NDArray[np.int64], n_groups: int, keep: NDArray[np.bool_]
) -> tuple[F64, float]:  # pragma: no cover - numba
    """Column sums of ``x`` per group on the kept rows, and the sum of |x| there; a run of adjacent
    cells of one group (sorted fine cells) is added up before it is stored."""
    out = np.zeros((x.shape[0], n_groups))
    magnitude = 0.0
    n_cells = x.shape[1]
    for f in range(x.shape[0]):
        if keep[f]:
            run = 0.0
            for c in range(n_cells):
                run += x[f, c]
                magnitude += abs(x[f, c])
                if c + 1 == n_cells or idx[c + 1] != idx[c]:
                    out[f, idx[c]] += run
                    run = 0.0
    return out, magnitude


@numba.njit(cache=True)
def _column_totals(x: F64, keep: NDArray[np.bool_]) -> tuple[F64, float]:  # pragma: no cover - numba
    """Sum of each column of ``x`` over the kept rows, and the sum of |x| there."""
    totals = np.zeros(x.shape[1])
    magnitude = 0.0
    for f in range(x.shape[0]):
        if keep[f]:
            for c in range(x.shape[1]):
                totals[c] += x[f, c]
                magnitude += abs(x[f, c])
    return totals, magnitude
