"""The intervals of the face-level bootstrap from its replicates: the jackknife acceleration of
each cell (numba, leave-one-face-out means), the BCa quantile levels, and each cell's percentile
or BCa interval from its replicates (:mod:`~cueshift.stats._replicate_kernels`)."""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import special

from cueshift._types import F64
from cueshift.stats._replicate_kernels import row_moments, row_quantiles
from cueshift.stats._settings import CIMethod


@numba.njit(parallel=True, cache=True)
def _jackknife_acceleration(x: F64) -> tuple[F64, F64]:  # pragma: no cover - numba
    """Per column: BCa acceleration from leave-one-face-out means, and leave-one-out matrix."""
    n_faces, n_cells = x.shape
    accel = np.full(n_cells, np.nan)
    loo = np.empty((n_faces, n_cells))
    for c in numba.prange(n_cells):
        total = 0.0
        n = 0
        for i in range(n_faces):
            if not np.isnan(x[i, c]):
                total += x[i, c]
                n += 1
        mean = total / n if n > 0 else np.nan
        for i in range(n_faces):
            if np.isnan(x[i, c]) or n < 2:
                loo[i, c] = mean
            else:
                loo[i, c] = (total - x[i, c]) / (n - 1)
        if n < 3:
            continue
        dot = 0.0
        for i in range(n_faces):
            if not np.isnan(x[i, c]):
                dot += loo[i, c]
        dot /= n
        num = 0.0
        den = 0.0
        for i in range(n_faces):
            if not np.isnan(x[i, c]):
                dev = dot - loo[i, c]
                num += dev * dev * dev
                den += dev * dev
        accel[c] = num / (6.0 * den**1.5) if den > 0 else 0.0
    return accel, loo


def _bca_quantiles(share: F64, accel: F64, confidence_level: float) -> tuple[F64, F64]:
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z0 = special.ndtri(share)
        z_a = special.ndtri(alpha)
        n1 = z0 + z_a
        n2 = z0 - z_a
        return special.ndtr(z0 + n1 / (1.0 - accel * n1)), special.ndtr(z0 + n2 / (1.0 - accel * n2))


def _cell_interval(
    rep: F64,
    share: F64,
    accel: F64,
    level: float,
    method: CIMethod,
    moments: tuple[F64, F64, NDArray[np.bool_]] | None = None,
) -> tuple[F64, F64]:
    """Each row's interval from its replicates: the percentile or BCa quantiles (``moments``: the rows'
    mean, sd and completeness, when already taken; they place the quantile search only)."""
    alpha = (1.0 - level) / 2.0
    if method == "percentile":
        q_low = np.full(share.shape, alpha)
        q_high = np.full(share.shape, 1.0 - alpha)
    else:
        q_low, q_high = _bca_quantiles(share, np.nan_to_num(accel), level)
    q = np.ascontiguousarray(np.column_stack([q_low, q_high]))
    mean, sd, complete = moments if moments is not None else row_moments(rep)
    with np.errstate(invalid="ignore"):
        bounds = row_quantiles(rep, q, special.ndtri(q), mean, sd, complete)
    invalid = np.isnan(share)
    return np.where(invalid, np.nan, bounds[:, 0]), np.where(invalid, np.nan, bounds[:, 1])
