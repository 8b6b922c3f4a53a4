r"""Per-face mean shifts drawn and averaged in one numba pass: the fused inner loop of a simulated study.

:func:`shift_face_means` draws a value's φ by the inversion of :mod:`cueshift.power.draws` and
averages each face's shifts in the same pass, summed exactly on the scale :func:`mean_scale`
gives, so a simulated study never holds its values × faces × scenarios arrays
(``benchmarks/bench_plan.py`` measures it against numpy's ``Generator.binomial`` and ``nanmean``);
:func:`batch_face_means` does the same for a batch of replicates in one kernel call, from the
random numbers :func:`shift_draws` / :func:`fill_shift_draws` draw.
"""

from __future__ import annotations

import math

import numba
import numpy as np
from numpy.typing import NDArray

from cueshift._types import F64
from cueshift.power.draws import binomial_inverse

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
                n_valid = n if u_valid <= all_valid else n - binomial_inverse(n, invalid, u_valid)
                if n_valid == 0:
                    continue
                phi = binomial_inverse(n_valid, p, u[r, size + i]) / n_valid
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
    :func:`~cueshift.power.draws.binomial_phi` (or :math:`p` scored) plus serving noise, and the
    face's mean of :math:`\phi - \phi^b_{fs}` over the scenarios with a φ, summed exactly
    (:func:`mean_scale`). The random numbers are drawn in the order
    :func:`cueshift.power.study_draws.draw_cells` draws them
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


__all__ = [
    "GRID",
    "MAX_DENOMINATOR",
    "batch_face_means",
    "fill_shift_draws",
    "mean_scale",
    "shift_draws",
    "shift_face_means",
]
