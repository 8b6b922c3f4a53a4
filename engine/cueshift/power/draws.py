r"""Binomial φ draws by inversion in a numba kernel: the inner loop of every simulated study.

A φ needs two binomial draws, the valid answers :math:`n_v \sim \operatorname{Bin}(n, 1-q)` and
the favorable ones :math:`k \sim \operatorname{Bin}(n_v, p)`. With :math:`n \le 12` answers per
φ, inversion of the CDF from one uniform is exact and cheap: walk
:math:`P(k) = \binom{n}{k}p^k(1-p)^{n-k}` up from :math:`(1-p)^n` with
:math:`P(k+1) = P(k)\,\frac{n-k}{k+1}\,\frac{p}{1-p}` until the CDF passes :math:`u`
(Devroye 1986, §X.4). The uniforms come from a numpy ``Generator`` in one call, so a draw is
a pure function of the seed however numba splits the loop over threads. :func:`shift_face_means`
goes further: it draws a value's φ and averages each face's shifts in the same pass, so a
simulated study never holds its values × faces × scenarios arrays (``benchmarks/bench_plan.py``
measures it against numpy's ``Generator.binomial`` and ``nanmean``).

References
----------
.. [1] Devroye, L. (1986). *Non-Uniform Random Variate Generation*. Springer, §X.4.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64

#: 1/(k+1) for the inversion walk (a multiplication instead of a division per step).
_RECIPROCALS = 1.0 / np.arange(1.0, 65.0)
#: Largest common denominator of exact per-face means (as the analyses' exact means); beyond it,
#: and for values that are not ratios of counts, the fixed grid :data:`GRID`.
MAX_DENOMINATOR = 2**24
#: Grid of the per-face means of values that are not ratios of counts (scored φ, serving noise).
GRID = 2.0**40


def mean_scale(n: int, *, ratios: bool) -> float:
    r"""Scale :math:`L` of exact per-face means :math:`\sum_s \operatorname{rint}(L\Delta_s) / (|S| L)`.

    A sampled φ is :math:`k/n_v` with :math:`n_v \le n`, so with :math:`L = \operatorname{lcm}(1..n)`
    every Δ is an integer over :math:`L`: the sum is exact and one division gives the correctly
    rounded double of the rational mean, the number ``cueshift.stats``' face means give on the
    stored rows (equal rationals, equal doubles: the rank tests see the same ties). Scored φ and
    serving noise (``ratios`` false), or :math:`L >` :data:`MAX_DENOMINATOR`, take :data:`GRID`.
    """
    scale = 1
    for k in range(1, n + 1):
        scale = math.lcm(scale, k)
        if scale > MAX_DENOMINATOR:
            return GRID
    return float(scale) if ratios else GRID


@numba.njit(cache=True, inline="always")
def _binomial_inverse(n: int, p: float, u: float) -> int:  # pragma: no cover - numba
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
        n_valid = n - _binomial_inverse(n, invalid, u_valid[i]) if invalid > 0.0 else n
        if n_valid == 0:
            out[i] = np.nan
        else:
            out[i] = _binomial_inverse(n_valid, p[i], u_fav[i]) / n_valid
    return out


@numba.njit(parallel=True, cache=True, fastmath=True)
def _face_mean_kernel(  # pragma: no cover - numba
    phi_base: F64,
    p_base: F64,
    offset: F64,
    dev: F64,
    fs_sd: float,
    z: F64,
    u: F64,
    serving: F64,
    n: int,
    invalid: float,
    scored: bool,
    applies: NDArray[np.bool_],
    scale: float,
) -> F64:
    n_r, n_v, n_f = offset.shape
    n_s = p_base.shape[2]
    size = n_v * n_f * n_s
    noisy = serving.shape[1] > 0
    all_valid = (1.0 - invalid) ** n  # P(no invalid answer): most φ skip the invalid walk
    out = np.full((n_r, n_v, n_f), np.nan)
    for k in numba.prange(n_r * n_v * n_f):
        r, vf = k // (n_v * n_f), k % (n_v * n_f)
        v, f = vf // n_f, vf % n_f
        if not applies[f, v]:
            continue
        total, count = 0.0, 0
        for s in range(n_s):
            i = (v * n_f + f) * n_s + s
            p = p_base[r, f, s] + (offset[r, v, f] + dev[v, s] + fs_sd * z[r, i])
            p = min(max(p, 0.0), 1.0)
            if scored:
                phi = p
            else:
                u_valid = u[r, i]
                n_valid = n if u_valid <= all_valid else n - _binomial_inverse(n, invalid, u_valid)
                if n_valid == 0:
                    continue
                phi = _binomial_inverse(n_valid, p, u[r, size + i]) / n_valid
            d = phi + (serving[r, i] if noisy else 0.0) - phi_base[r, f, s]
            if np.isnan(d):
                continue
            total += np.rint(d * scale)  # integers: exact in any order (mean_scale)
            count += 1
        if count:
            out[r, v, f] = total / (count * scale)
    return out


def fill_shift_draws(
    rng: np.random.Generator, z: F64, u: F64, serving: F64, *, scored: bool, serving_sd: float
) -> None:
    """Fill one replicate's random numbers of :func:`shift_face_means` in place, in its order:
    normals ``z``, the two uniforms per φ (``u``; none drawn scored), the serving noise (none
    drawn without)."""
    rng.standard_normal(out=z)
    if not scored:
        rng.random(out=u)
    if serving_sd > 0:
        serving[:] = rng.normal(0.0, serving_sd, z.size)


def shift_draws(
    rng: np.random.Generator, size: int, *, scored: bool, serving_sd: float
) -> tuple[F64, F64, F64]:
    """The random numbers of one replicate's :func:`shift_face_means` (:func:`fill_shift_draws`)."""
    z, u = np.empty(size), np.empty(0 if scored else 2 * size)
    serving = np.empty(size if serving_sd > 0 else 0)
    fill_shift_draws(rng, z, u, serving, scored=scored, serving_sd=serving_sd)
    return z, u, serving


def batch_face_means(
    phi_base: F64,
    p_base: F64,
    offset: F64,
    dev: F64,
    fs_sd: float,
    draws: tuple[F64, F64, F64],
    *,
    n: int,
    invalid_rate: float,
    scored: bool,
    serving_sd: float,
    applies: NDArray[np.bool_],
) -> F64:
    r"""Per-face mean shifts of ``R`` replicates of one model (``R × values × faces``) in one
    parallel pass: replicate ``r``'s :func:`shift_face_means` from its base φ and probabilities
    (``R × faces × scenarios``), offsets (``R × values × faces``) and the stacked
    :func:`shift_draws` (``R × ...``) — the same numbers, one kernel call for all of them."""
    z, u, serving = draws
    n_r = offset.shape[0]
    return np.asarray(
        _face_mean_kernel(
            np.ascontiguousarray(phi_base, dtype=np.float64),
            np.ascontiguousarray(p_base, dtype=np.float64),
            np.ascontiguousarray(offset, dtype=np.float64),
            np.ascontiguousarray(dev, dtype=np.float64),
            float(fs_sd),
            np.ascontiguousarray(z, dtype=np.float64).reshape(n_r, -1),
            np.ascontiguousarray(u, dtype=np.float64).reshape(n_r, -1),
            np.ascontiguousarray(serving, dtype=np.float64).reshape(n_r, -1),
            int(n),
            float(invalid_rate),
            bool(scored),
            np.ascontiguousarray(applies),
            mean_scale(int(n), ratios=not scored and serving_sd <= 0),
        ),
        dtype=np.float64,
    )


def shift_face_means(
    phi_base: F64,
    p_base: F64,
    offset: F64,
    dev: F64,
    fs_sd: float,
    *,
    n: int,
    invalid_rate: float,
    scored: bool,
    serving_sd: float,
    applies: NDArray[np.bool_],
    rng: np.random.Generator,
) -> F64:
    r"""Per-face mean shifts (values × faces) of one model, drawn and averaged in one pass.

    For value :math:`v`, face :math:`f`, scenario :math:`s`:
    :math:`p = p^b_{fs} + (o_{vf} + d_{vs} + \sigma_{FS} z_{vfs})`, its φ as in
    :func:`binomial_phi` (or :math:`p` scored) plus serving noise, and the face's mean of
    :math:`\phi - \phi^b_{fs}` over the scenarios with a φ, summed exactly (:func:`mean_scale`).
    The random numbers are drawn in the order :func:`cueshift.power.simulate.draw_cells` draws them
    (``z``, the uniforms, the serving noise), so the two give the same means from the same
    generator without holding the values × faces × scenarios arrays.
    """
    size = offset.size * p_base.shape[1]
    draws = shift_draws(rng, size, scored=scored, serving_sd=serving_sd)
    means = batch_face_means(
        phi_base[None],
        p_base[None],
        offset[None],
        dev,
        fs_sd,
        draws,
        n=n,
        invalid_rate=invalid_rate,
        scored=scored,
        serving_sd=serving_sd,
        applies=applies,
    )
    return np.asarray(means[0], dtype=np.float64)


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
    "GRID",
    "MAX_DENOMINATOR",
    "batch_face_means",
    "batch_phi",
    "binomial_counts",
    "binomial_phi",
    "fill_shift_draws",
    "mean_scale",
    "shift_draws",
    "shift_face_means",
]
