"""Shared pieces of the rank tests: mid-ranks with the tie term (numba) and the column result.

The rank tests take a dense ``(n_obs, n_cells)`` array (NaN = missing) so that thousands of
cells (e.g. every model × variation × scenario) are tested in one call; ranks are computed
per column by a parallel numba kernel. Conventions follow :mod:`scipy.stats` so results agree
to rounding error (see ``tests/stats/test_rank.py``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np

from cueshift._types import F64

Alternative = Literal["two-sided", "less", "greater"]


@numba.njit(cache=True)
def average_ranks(values: F64) -> tuple[F64, float, bool]:  # pragma: no cover - numba
    """Average ranks (1-based) of ``values``, the tie term Σ(t³ − t), and whether ties exist."""
    n = values.shape[0]
    order = np.argsort(values, kind="mergesort")
    ranks = np.empty(n)
    tie_term = 0.0
    i = 0
    while i < n:
        j = i
        while j + 1 < n and values[order[j + 1]] == values[order[i]]:
            j += 1
        avg = 0.5 * (i + j) + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = avg
        t = j - i + 1
        tie_term += t * t * t - t
        i = j + 1
    return ranks, tie_term, tie_term > 0


@dataclass(frozen=True)
class RankTestResult:
    """Column-wise result of a rank test (arrays of length ``n_cells``).

    ``z`` holds the standard normal deviate of the signed-rank and Mann–Whitney tests and the
    degrees of freedom :math:`k - 1` of the Kruskal–Wallis test.
    """

    statistic: F64
    p_value: F64
    n: F64
    effect_size: F64
    z: F64


def as_columns(x: F64) -> F64:
    """``x`` as a C-contiguous float64 ``(n_obs, n_cells)`` array (a vector is one cell)."""
    out = np.ascontiguousarray(np.asarray(x, dtype=np.float64))
    return out[:, None] if out.ndim == 1 else out
