"""Face-level cluster bootstrap in numba (percentile and BCa intervals).

Design for paper scale (6 models × ~31 variations × 25 scenarios × 500 faces): the caller
builds one dense ``(n_faces, n_cells)`` array of per-face cell means (NaN where a face has no
data). A bootstrap replicate is a vector of face multiplicities ``w`` (faces drawn with
replacement, the unit being the face, never an image or a judgment); every cell's replicate
mean is then :math:`\\sum_f w_f x_{fc} / \\sum_f w_f [x_{fc}\\text{ observed}]`, so all cells of
all levels share one draw of faces per replicate and the whole study is a few matrix
products plus a parallel selection of each cell's quantiles
(:mod:`~cueshift.stats._replicate_kernels`).
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass
from typing import Literal

import numba
import numpy as np
from numpy.typing import NDArray
from scipy import special

from cueshift._types import F64
from cueshift.stats._replicate_kernels import replicate_means, row_moments, row_quantiles
from cueshift.stats._settings import DEFAULT_RESAMPLES, CIMethod

Alternative = Literal["two-sided", "less", "greater"]
#: Memory budget of one block of resampled statistics (bytes); larger jobs run in chunks.
CHUNK_BYTES = 64 * 2**20


@numba.njit(parallel=True, cache=True)
def _face_counts(draws: NDArray[np.int32], n_faces: int) -> F64:  # pragma: no cover - numba
    """Multiplicity of each face in each replicate, from the drawn face indices."""
    n_rep = draws.shape[0]
    counts = np.zeros((n_rep, n_faces))
    for b in numba.prange(n_rep):
        for i in range(draws.shape[1]):
            counts[b, draws[b, i]] += 1.0
    return counts


def face_multiplicities(n_faces: int, n_resamples: int, seed: int | np.random.Generator) -> F64:
    """``(n_resamples, n_faces)`` counts of faces drawn with replacement (one row per replicate).

    An integer ``seed`` always gives the same draws, so those are drawn once and shared, read-only,
    by every later call with the same arguments (the analyses of a run share one seed).
    """
    if not isinstance(seed, (int, np.integer)) or n_resamples * n_faces * 8 > CHUNK_BYTES:
        return _draw_multiplicities(n_faces, n_resamples, seed)
    key = (n_faces, n_resamples, int(seed))
    if key not in _SHARED:
        counts = _draw_multiplicities(n_faces, n_resamples, int(seed))
        counts.flags.writeable = False
        _SHARED[key] = (counts, None)
        while len(_SHARED) > 2:
            _SHARED.popitem(last=False)
    _SHARED.move_to_end(key)
    return _SHARED[key][0]


#: The shared face draws (at most two settings), each with its transpose once one was asked for.
_SHARED: OrderedDict[tuple[int, int, int], tuple[F64, F64 | None]] = OrderedDict()


def _draw_multiplicities(n_faces: int, n_resamples: int, seed: int | np.random.Generator) -> F64:
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_faces, size=(n_resamples, n_faces), dtype=np.int32)
    return _face_counts(draws, n_faces)


def _transposed(w: F64) -> F64:
    """``w.T`` in C order; made once for shared draws (:func:`face_multiplicities`)."""
    for key, (counts, transposed) in _SHARED.items():
        if counts is w:
            if transposed is None:
                transposed = np.ascontiguousarray(w.T)
                transposed.flags.writeable = False
                _SHARED[key] = (counts, transposed)
            return transposed
    return np.ascontiguousarray(w.T)


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


@dataclass(frozen=True)
class BootstrapResult:
    """Per-cell face-level bootstrap: point estimate, CI, faces with data, settings."""

    estimate: F64
    ci_low: F64
    ci_high: F64
    n: F64
    method: str
    n_resamples: int
    confidence_level: float


def _bca_quantiles(share: F64, accel: F64, confidence_level: float) -> tuple[F64, F64]:
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        z0 = special.ndtri(share)
        z_a = special.ndtri(alpha)
        n1 = z0 + z_a
        n2 = z0 - z_a
        return special.ndtr(z0 + n1 / (1.0 - accel * n1)), special.ndtr(z0 + n2 / (1.0 - accel * n2))


def cluster_bootstrap(
    values: F64,
    *,
    n_resamples: int = DEFAULT_RESAMPLES,
    seed: int = 0,
    confidence_level: float = 0.95,
    method: CIMethod = "bca",
    multiplicities: F64 | None = None,
) -> tuple[BootstrapResult, None]:
    r"""Face-level (cluster) bootstrap of the mean of per-face values, for many cells at once.

    For cell :math:`c` with per-face values :math:`x_{fc}` (faces with data :math:`F_c`) the
    estimate is :math:`\hat\theta_c = |F_c|^{-1}\sum_{f \in F_c} x_{fc}`. Replicate :math:`b`
    draws :math:`n_{\text{faces}}` faces with replacement from all faces (multiplicities
    :math:`w_{bf}`, shared by all cells) and computes
    :math:`\theta^*_{bc} = \sum_f w_{bf} x_{fc} / \sum_{f \in F_c} w_{bf}`. A cell that not every
    face has (e.g. facial hair: male faces only) is thus estimated over the drawn faces that
    have it (domain estimation); for cells every face has, this is the ordinary bootstrap of
    the mean of the face values.

    ``method='percentile'`` takes the :math:`\alpha/2` and :math:`1-\alpha/2` quantiles of
    :math:`\theta^*`; ``'bca'`` (default) adjusts them with the bias correction
    :math:`z_0 = \Phi^{-1}(\#\{\theta^* < \hat\theta\}/B)` (ties counted half, as scipy) and the
    jackknife acceleration :math:`a = \sum (\bar\theta_{(\cdot)} - \theta_{(i)})^3 /
    (6[\sum (\bar\theta_{(\cdot)} - \theta_{(i)})^2]^{3/2})` over leave-one-face-out means:

    .. math::

        \alpha_{1,2} = \Phi\!\left(z_0 + \frac{z_0 \pm z_{\alpha/2}}{1 - a(z_0 \pm z_{\alpha/2})}\right).

    Quantiles interpolate linearly, like :func:`numpy.percentile`.

    Parameters
    ----------
    values : ndarray, shape (n_faces, n_cells)
        Per-face cell means (NaN = face has no data in the cell).
    n_resamples : int
        Bootstrap replicates :math:`B` (default 10,000).
    seed : int
        Seed of the face draws; the same seed gives the same intervals.
    multiplicities : ndarray, shape (n_resamples, n_faces), optional
        Precomputed face multiplicities (to share one draw between calls).

    Returns
    -------
    (BootstrapResult, None)
        The cells (and ``None``, where |SBS| targets were once returned: a bootstrap of a mean
        of absolute values is inconsistent near 0; see :mod:`cueshift.stats._folded`).

    References
    ----------
    .. [1] Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82, 171–185.
    .. [2] Field, C. A. & Welsh, A. H. (2007). Bootstrapping clustered data. *JRSS B* 69, 369–390.
    .. [3] seed 000 Figs. 3–4: "bootstrap 95% CI (face-level)".
    """
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64))
    n_faces, n_cells = x.shape
    observed = ~np.isnan(x)
    x0 = np.where(observed, x, 0.0)
    n_obs = observed.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = x0.sum(axis=0) / n_obs
    w = multiplicities if multiplicities is not None else face_multiplicities(n_faces, n_resamples, seed)
    n_rep = w.shape[0]
    accel, _ = _jackknife_acceleration(x)
    complete = n_obs == n_faces
    low = np.full(n_cells, np.nan)
    high = np.full(n_cells, np.nan)
    chunk = max(1, CHUNK_BYTES // (8 * n_rep))
    wt = _transposed(w)
    divisors = _Divisors(observed, complete, wt)
    for start in range(0, n_cells, chunk):
        cols = np.arange(start, min(start + chunk, n_cells))
        rep = x0[:, cols].T @ wt  # (cells, replicates)
        denom, pattern_of = divisors.of(cols)
        share, mean, sd, filled = replicate_means(rep, float(n_faces), denom, pattern_of, estimate[cols])
        low[cols], high[cols] = _cell_interval(
            rep, share, accel[cols], confidence_level, method, (mean, sd, filled)
        )
    return BootstrapResult(estimate, low, high, n_obs, method, n_rep, confidence_level), None


class _Divisors:
    r"""Replicate divisors of the cells: :math:`n_{\text{faces}}` for a cell every face has; for the
    others :math:`\sum_{f \in F_c} w_{bf}`, one row per distinct pattern :math:`F_c` of faces with
    data (cells of one demographic group, or one gender's values, share it). The divisors are
    integer sums, so exact however they are grouped."""

    def __init__(self, observed: NDArray[np.bool_], complete: NDArray[np.bool_], wt: F64) -> None:
        self.wt = wt
        self.pattern_of = np.full(observed.shape[1], -1, dtype=np.int64)
        partial = np.flatnonzero(~complete)
        self.patterns = np.zeros((0, observed.shape[0]))
        if partial.size:
            packed = np.ascontiguousarray(np.packbits(observed[:, partial], axis=0).T)
            keys = packed.view(np.dtype((np.void, packed.shape[1]))).ravel()
            _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            self.patterns = observed[:, partial[first]].T.astype(np.float64)
            self.pattern_of[partial] = inverse.ravel()
        fits = self.patterns.shape[0] * wt.shape[1] * 8 <= CHUNK_BYTES
        self.every = self.patterns @ wt if fits else None  # (patterns, replicates)

    def of(self, cols: NDArray[np.int64]) -> tuple[F64, NDArray[np.int64]]:
        """The divisor rows the cells ``cols`` need and each cell's row among them (−1: all faces)."""
        pattern_of = self.pattern_of[cols]
        if self.every is not None:
            return self.every, pattern_of
        used, local = np.unique(pattern_of[pattern_of >= 0], return_inverse=True)
        pattern_of[pattern_of >= 0] = local.ravel()
        return self.patterns[used] @ self.wt, pattern_of


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
