"""Numba kernels over a block of bootstrap replicates (one row per cell, one column per replicate).

:func:`replicate_means` turns the replicate sums of :func:`~cueshift.stats._resample.cluster_bootstrap`
into means in place and, in the same pass, takes what the intervals need of each row (the share
below the estimate, mean and standard deviation); :func:`row_quantiles` then selects each row's
interval quantiles. The selection is exact (numpy's linear interpolation between two order
statistics); the row's moments only place the window that is searched, so they decide its speed,
never its result.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64

#: Half-width, in replicate standard deviations, of the window searched for an order statistic.
WINDOW_SD = 0.25


@numba.njit(parallel=True, cache=True)
def share_below(rep: F64, estimate: F64) -> F64:  # pragma: no cover - numba
    """Per row: scipy's percentile-of-score of ``estimate`` among the replicates (ties count half)."""
    n_rows, n_rep = rep.shape
    share = np.full(n_rows, np.nan)
    for j in numba.prange(n_rows):
        if np.isnan(estimate[j]):
            continue
        below = 0
        at_or_below = 0
        for b in range(n_rep):
            v = rep[j, b]
            below += v < estimate[j]
            at_or_below += v <= estimate[j]
        share[j] = (below + at_or_below) / (2.0 * n_rep)
    return share


@numba.njit(parallel=True, cache=True, error_model="numpy")
def replicate_means(
    rep: F64, n_faces: float, denom: F64, pattern_of: NDArray[np.int64], estimate: F64
) -> tuple[F64, F64, F64, NDArray[np.bool_]]:  # pragma: no cover - numba
    """Divide each row of replicate sums in place — by ``n_faces`` where ``pattern_of[j] < 0`` (a
    cell every face has), else by the drawn faces with data, ``denom[pattern_of[j]]`` (0/0 = NaN) —
    and return per row the share below ``estimate`` (as :func:`share_below`), the replicates' mean
    and standard deviation, and whether every replicate has a value."""
    n_rows, n_rep = rep.shape
    share = np.full(n_rows, np.nan)
    mean = np.zeros(n_rows)
    sd = np.zeros(n_rows)
    complete = np.zeros(n_rows, dtype=np.bool_)
    for j in numba.prange(n_rows):
        p = pattern_of[j]
        est = estimate[j]
        below = 0
        at_or_below = 0
        total = 0.0
        total_sq = 0.0
        n_ok = 0
        for b in range(n_rep):
            v = rep[j, b] / (n_faces if p < 0 else denom[p, b])
            rep[j, b] = v
            below += v < est
            at_or_below += v <= est
            if not np.isnan(v):
                total += v
                total_sq += v * v
                n_ok += 1
        if not np.isnan(est):
            share[j] = (below + at_or_below) / (2.0 * n_rep)
        mean[j], sd[j] = _moments(total, total_sq, n_rep)
        complete[j] = n_ok == n_rep
    return share, mean, sd, complete


@numba.njit(parallel=True, cache=True)
def row_moments(rep: F64) -> tuple[F64, F64, NDArray[np.bool_]]:  # pragma: no cover - numba
    """Per row: mean and standard deviation of the replicates, and whether none is NaN."""
    n_rows, n_rep = rep.shape
    mean = np.zeros(n_rows)
    sd = np.zeros(n_rows)
    complete = np.zeros(n_rows, dtype=np.bool_)
    for j in numba.prange(n_rows):
        total = 0.0
        total_sq = 0.0
        n_ok = 0
        for b in range(n_rep):
            v = rep[j, b]
            if not np.isnan(v):
                total += v
                total_sq += v * v
                n_ok += 1
        mean[j], sd[j] = _moments(total, total_sq, n_rep)
        complete[j] = n_ok == n_rep
    return mean, sd, complete


@numba.njit(cache=True)
def _moments(total: float, total_sq: float, n: int) -> tuple[float, float]:  # pragma: no cover
    """Mean and (positive) sample standard deviation from the sum and sum of squares."""
    mean = total / n
    return mean, np.sqrt(max(total_sq / n - mean * mean, 0.0) * n / (n - 1.0)) + 1e-300


@numba.njit(cache=True)
def _select_pair(values: F64, r: int) -> tuple[float, float]:  # pragma: no cover - numba
    """The r-th and (r+1)-th smallest of ``values`` (0-based; the largest twice past the end), by
    partition rather than sort."""
    part = np.partition(values, r)
    if r + 1 >= part.shape[0]:
        return part[r], part[r]
    following = part[r + 1]
    for i in range(r + 2, part.shape[0]):
        if part[i] < following:
            following = part[i]
    return part[r], following


@numba.njit(cache=True)
def _order_stat_pair(
    row: F64, k: int, lo_edge: float, hi_edge: float
) -> tuple[float, float]:  # pragma: no cover
    """The k-th and (k+1)-th smallest of ``row`` (0-based), selected among the values inside a
    window expected to hold them; from the whole row when the window misses."""
    n = row.shape[0]
    below = 0
    inside = 0
    for b in range(n):
        v = row[b]
        below += v < lo_edge
        inside += (v >= lo_edge) & (v <= hi_edge)
    if below <= k and below + inside >= k + 2:
        window = np.empty(inside)
        i = 0
        for b in range(n):
            v = row[b]
            if lo_edge <= v <= hi_edge:
                window[i] = v
                i += 1
        return _select_pair(window, k - below)
    return _select_pair(row, k)


@numba.njit(parallel=True, cache=True)
def row_quantiles(
    rep: F64, q: F64, z: F64, mean: F64, sd: F64, complete: NDArray[np.bool_]
) -> F64:  # pragma: no cover - numba
    """Quantiles ``q[j, t]`` of each row with numpy's linear interpolation (NaN for a row not
    ``complete``: a replicate without data). ``z[j, t]`` is the normal score of ``q``; the
    selection window is mean + (z ± :data:`WINDOW_SD`)·sd of the row."""
    n_rows, n_rep = rep.shape
    out = np.full(q.shape, np.nan)
    for j in numba.prange(n_rows):
        if not complete[j]:
            continue
        row = rep[j]
        for t in range(q.shape[1]):
            if np.isnan(q[j, t]):
                continue
            pos = min(max(q[j, t], 0.0), 1.0) * (n_rep - 1)
            k = int(np.floor(pos))
            frac = pos - k
            zz = min(max(z[j, t], -8.0), 8.0)
            lo_val, hi_val = _order_stat_pair(
                row, k, mean[j] + (zz - WINDOW_SD) * sd[j], mean[j] + (zz + WINDOW_SD) * sd[j]
            )
            out[j, t] = lo_val + frac * (hi_val - lo_val)
    return out
