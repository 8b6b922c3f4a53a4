r"""Binomial φ draws by inversion in a numba kernel: the inner loop of every simulated study.

A φ needs two binomial draws, the valid answers :math:`n_v \sim \operatorname{Bin}(n, 1-q)` and
the favorable ones :math:`k \sim \operatorname{Bin}(n_v, p)`. With :math:`n \le 12` answers per
φ, inversion of the CDF from one uniform is exact and cheap: walk
:math:`P(k) = \binom{n}{k}p^k(1-p)^{n-k}` up from :math:`(1-p)^n` with
:math:`P(k+1) = P(k)\,\frac{n-k}{k+1}\,\frac{p}{1-p}` until the CDF passes :math:`u`
(Devroye 1986, §X.4). The uniforms come from a numpy ``Generator`` in one call, so a draw is
a pure function of the seed however numba splits the loop over threads; numpy's own
``Generator.binomial`` is about eight times slower here (``benchmarks/bench_plan.py``).

References
----------
.. [1] Devroye, L. (1986). *Non-Uniform Random Variate Generation*. Springer, §X.4.
"""

from __future__ import annotations

import numba
import numpy as np
from numpy.typing import NDArray

F64 = NDArray[np.float64]


@numba.njit(cache=True, inline="always")
def _binomial_inverse(n: int, p: float, u: float) -> int:  # pragma: no cover - numba
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    pmf = (1.0 - p) ** n
    cdf = pmf
    ratio = p / (1.0 - p)
    k = 0
    while u > cdf and k < n:
        pmf *= (n - k) / (k + 1.0) * ratio
        k += 1
        cdf += pmf
    return k


@numba.njit(parallel=True, cache=True)
def _phi_kernel(p: F64, n: int, invalid: float, u_valid: F64, u_fav: F64) -> F64:  # pragma: no cover - numba
    out = np.empty(p.size)
    for i in numba.prange(p.size):
        # invalid answers are rare: walk their count up from 0 (one or two steps), not the valid ones
        n_valid = n - _binomial_inverse(n, invalid, u_valid[i]) if invalid > 0.0 else n
        if n_valid == 0:
            out[i] = np.nan
        else:
            out[i] = _binomial_inverse(n_valid, p[i], u_fav[i]) / n_valid
    return out


def binomial_phi(p: F64, n: int, invalid_rate: float, rng: np.random.Generator) -> F64:
    r"""φ of ``n`` prompts per cell at favorable probabilities ``p``: :math:`k/n_v` with
    :math:`n_v \sim \operatorname{Bin}(n, 1-q)`, :math:`k \sim \operatorname{Bin}(n_v, p)`; NaN
    where no answer is valid."""
    flat = np.ascontiguousarray(np.clip(p, 0.0, 1.0), dtype=np.float64).ravel()
    u = rng.random((2, flat.size))
    phi = _phi_kernel(flat, int(n), float(invalid_rate), u[0], u[1])
    return np.asarray(phi.reshape(np.shape(p)), dtype=np.float64)


def binomial_counts(p: F64, n: int, invalid_rate: float, rng: np.random.Generator) -> tuple[F64, F64]:
    """Valid and favorable answers of each cell (the same draws as :func:`binomial_phi`, as counts)."""
    flat = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0).ravel()
    n_valid = (
        rng.binomial(n, 1.0 - invalid_rate, size=flat.size) if invalid_rate > 0 else np.full(flat.size, n)
    )
    k = rng.binomial(n_valid, flat)
    return n_valid.reshape(np.shape(p)).astype(np.float64), k.reshape(np.shape(p)).astype(np.float64)


__all__ = ["binomial_counts", "binomial_phi"]
