r"""Binomial φ draws by inversion in a numba kernel: the inner loop of every simulated study.

A φ needs two binomial draws, the valid answers :math:`n_v \sim \operatorname{Bin}(n, 1-q)` and
the favorable ones :math:`k \sim \operatorname{Bin}(n_v, p)`. With :math:`n \le 12` answers per
φ, inversion of the CDF from one uniform is exact and cheap: walk
:math:`P(k) = \binom{n}{k}p^k(1-p)^{n-k}` up from :math:`(1-p)^n` with
:math:`P(k+1) = P(k)\,\frac{n-k}{k+1}\,\frac{p}{1-p}` until the CDF passes :math:`u`
(Devroye 1986, §X.4). The uniforms come from a numpy ``Generator`` in one call, so a draw is
a pure function of the seed however numba splits the loop over threads. The fused draw and
per-face average of a value's shifts is :mod:`cueshift.power.face_mean_draws`.

References
----------
.. [1] Devroye, L. (1986). *Non-Uniform Random Variate Generation*. Springer, §X.4.
"""

from __future__ import annotations

import numba
import numpy as np

from cueshift._types import F64

#: 1/(k+1) for the inversion walk (a multiplication instead of a division per step).
_RECIPROCALS = 1.0 / np.arange(1.0, 65.0)


@numba.njit(cache=True, inline="always")
def binomial_inverse(n: int, p: float, u: float) -> int:  # pragma: no cover - numba
    r"""Smallest :math:`k` whose :math:`\operatorname{Bin}(n, p)` CDF reaches ``u`` (the module's walk)."""
    if n <= 0 or p <= 0.0:
        return 0
    if p >= 1.0:
        return n
    q = 1.0 - p
    pmf = 1.0
    for _ in range(n):  # (1 - p)^n by multiplication: n <= a few dozen answers per φ
        pmf *= q
    if u <= pmf:
        return 0
    cdf = pmf
    ratio = p / q
    k = 0
    while u > cdf and k < n:
        step = (n - k) * ratio
        pmf *= step * _RECIPROCALS[k] if k < _RECIPROCALS.size else step / (k + 1.0)
        k += 1
        cdf += pmf
    return k


@numba.njit(parallel=True, cache=True)
def _phi_kernel(p: F64, n: int, invalid: float, u_valid: F64, u_fav: F64) -> F64:  # pragma: no cover - numba
    out = np.empty(p.size)
    for i in numba.prange(p.size):
        # invalid answers are rare: walk their count up from 0 (one or two steps), not the valid ones
        n_valid = n - binomial_inverse(n, invalid, u_valid[i]) if invalid > 0.0 else n
        if n_valid == 0:
            out[i] = np.nan
        else:
            out[i] = binomial_inverse(n_valid, p[i], u_fav[i]) / n_valid
    return out


def binomial_phi(p: F64, n: int, invalid_rate: float, rng: np.random.Generator) -> F64:
    r"""φ of ``n`` prompts per cell at favorable probabilities ``p``: :math:`k/n_v` with
    :math:`n_v \sim \operatorname{Bin}(n, 1-q)`, :math:`k \sim \operatorname{Bin}(n_v, p)`; NaN
    where no answer is valid."""
    u = rng.random((2, np.size(p)))
    phi = batch_phi(np.asarray(p, dtype=np.float64)[None], n, invalid_rate, u[None])
    return np.asarray(phi[0], dtype=np.float64)


def batch_phi(p: F64, n: int, invalid_rate: float, uniforms: F64) -> F64:
    """:func:`binomial_phi` of ``R`` replicates in one kernel call: ``p`` is ``R × ...``,
    ``uniforms`` ``R × 2 × p[0].size`` (each replicate's ``rng.random((2, size))``)."""
    flat = np.ascontiguousarray(np.clip(p, 0.0, 1.0), dtype=np.float64).ravel()
    u = np.asarray(uniforms, dtype=np.float64)
    phi = _phi_kernel(flat, int(n), float(invalid_rate), u[:, 0].ravel(), u[:, 1].ravel())
    return np.asarray(phi.reshape(np.shape(p)), dtype=np.float64)


def binomial_counts(p: F64, n: int, invalid_rate: float, rng: np.random.Generator) -> tuple[F64, F64]:
    """Valid and favorable answers of each cell (the same draws as :func:`binomial_phi`, as counts)."""
    flat = np.clip(np.asarray(p, dtype=np.float64), 0.0, 1.0).ravel()
    n_valid = (
        rng.binomial(n, 1.0 - invalid_rate, size=flat.size) if invalid_rate > 0 else np.full(flat.size, n)
    )
    k = rng.binomial(n_valid, flat)
    return n_valid.reshape(np.shape(p)).astype(np.float64), k.reshape(np.shape(p)).astype(np.float64)


__all__ = [
    "batch_phi",
    "binomial_counts",
    "binomial_inverse",
    "binomial_phi",
]
