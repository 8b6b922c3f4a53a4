"""Face-level cluster bootstrap in numba (percentile and BCa intervals).

Design for paper scale (6 models × ~31 variations × 25 scenarios × 500 faces): the caller
builds one dense ``(n_faces, n_cells)`` array of per-face cell means (NaN where a face has no
data). A bootstrap replicate is a vector of face multiplicities ``w`` (faces drawn with
replacement, the unit being the face, never an image or a judgment); every cell's replicate
mean is then :math:`\\sum_f w_f x_{fc} / \\sum_f w_f [x_{fc}\\text{ observed}]`, so all cells of
all levels share one draw of faces per replicate and the whole study is a few matrix
products plus a parallel selection of each cell's quantiles
(:mod:`~cueshift.stats._replicate_kernels`). The face draws are in
:mod:`~cueshift.stats._face_draws`, the intervals from the replicates in
:mod:`~cueshift.stats._bootstrap_intervals`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np

from cueshift._types import F64
from cueshift.stats._bootstrap_intervals import _cell_interval, _jackknife_acceleration
from cueshift.stats._equal_values import equal_columns
from cueshift.stats._face_draws import CHUNK_BYTES, _Divisors, _transposed, face_multiplicities
from cueshift.stats._replicate_kernels import replicate_means
from cueshift.stats._settings import DEFAULT_RESAMPLES, CIMethod

Alternative = Literal["two-sided", "less", "greater"]


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

    Quantiles interpolate linearly, like :func:`numpy.percentile`. A cell whose face values are
    all equal gets the point as its interval (where every replicate has data): its replicates
    equal it but for the rounding of their sums, which can make BCa's :math:`z_0` infinite.

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
    # every face value of the cell equal (exactly): each replicate mean is that value, up to the
    # rounding of its sum, which can put them all on one side of the estimate (BCa's z0 = ±inf)
    constant = equal_columns(x)
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
        point = constant[cols] & filled  # every replicate has data: the interval is the point
        low[cols] = np.where(point, estimate[cols], low[cols])
        high[cols] = np.where(point, estimate[cols], high[cols])
    return BootstrapResult(estimate, low, high, n_obs, method, n_rep, confidence_level), None
