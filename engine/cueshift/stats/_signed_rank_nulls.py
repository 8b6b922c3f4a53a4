"""The p-values of the Wilcoxon signed-rank statistic :math:`R^+` outside the numba kernels: the
exact null without ties (the sign assignments of ranks 1..n counted per value of :math:`R^+`) and
the normal approximation, one- or two-sided."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import special

from cueshift._types import F64
from cueshift.stats._ranks import Alternative


def _signed_rank_null_counts(n: int) -> NDArray[np.float64]:
    """Number of sign assignments of ranks 1..n giving each value of R+ (0..n(n+1)/2)."""
    counts = np.zeros(n * (n + 1) // 2 + 1)
    counts[0] = 1.0
    top = 0
    for r in range(1, n + 1):
        counts[r : top + r + 1] += counts[: top + 1].copy()
        top += r
    return counts


def _signed_rank_exact_p(n: int, r_plus: float, alternative: Alternative) -> float:
    counts = _signed_rank_null_counts(n)
    pmf = counts / counts.sum()
    cdf = np.cumsum(pmf)
    sf = 1.0 - np.concatenate(([0.0], cdf[:-1]))  # P(R+ >= k)
    hi, lo = int(np.floor(r_plus)), int(np.ceil(r_plus))
    p_greater = sf[hi] if hi < sf.size else 0.0
    p_less = cdf[lo] if lo < cdf.size else 1.0
    if alternative == "greater":
        return float(p_greater)
    if alternative == "less":
        return float(p_less)
    return float(min(1.0, 2.0 * min(p_greater, p_less)))


def _normal_p(z: F64, alternative: Alternative) -> F64:
    if alternative == "greater":
        p = special.ndtr(-z)
    elif alternative == "less":
        p = special.ndtr(z)
    else:
        p = 2.0 * special.ndtr(-np.abs(z))
    return np.asarray(p, dtype=np.float64)
