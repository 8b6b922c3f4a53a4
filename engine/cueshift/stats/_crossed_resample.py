"""Two-way (crossed) bootstrap of faces and scenarios: intervals that generalise over both.

The face-level bootstrap (:func:`~cueshift.stats._resample.cluster_bootstrap`) treats the
study's scenarios as fixed: its interval answers "what is the shift for *these* scenarios?".
When the claim is about social judgments in general, the scenarios are a sample too, and the
face and scenario draws are crossed (every face is judged in every scenario). This module
resamples both at once: the product ("pigeonhole") bootstrap of Owen (2007); the scenario draws
and the per-scenario sums it recombines are in :mod:`._scenario_draws`.
"""

from __future__ import annotations

import numpy as np

from cueshift._types import F64
from cueshift.stats._bootstrap_intervals import _cell_interval, _jackknife_acceleration
from cueshift.stats._crossed_variance import crossed_jackknife, t_calibrated
from cueshift.stats._equal_values import equal_cell_means, equal_columns
from cueshift.stats._face_draws import CHUNK_BYTES
from cueshift.stats._replicate_kernels import share_below
from cueshift.stats._resample import BootstrapResult
from cueshift.stats._settings import CIMethod


def crossed_bootstrap(
    sums: F64,
    counts: F64,
    scale: float,
    face_weights: F64,
    scenario_weights: F64,
    *,
    confidence_level: float = 0.95,
    method: CIMethod = "bca",
    bounds: tuple[float, float] = (-np.inf, np.inf),
) -> BootstrapResult:
    r"""Product (pigeonhole) bootstrap of the face-level mean over faces *and* scenarios.

    A row's estimate is the face-level mean of each face's mean over its rows,
    :math:`\hat\theta = |F|^{-1}\sum_f \bar x_f`, :math:`\bar x_f = \sum_s S_{fs} / \sum_s N_{fs}`
    (:math:`S, N`: the face's sum and count of Δ in scenario :math:`s`). Replicate :math:`b`
    draws faces with replacement (multiplicities :math:`w_{bf}`) **and, independently,**
    scenarios with replacement (:math:`v_{bs}`), and recomputes the statistic on the product:

    .. math::

        \bar x^*_{bf} = \frac{\sum_s v_{bs} S_{fs}}{\sum_s v_{bs} N_{fs}}, \qquad
        \theta^*_b = \frac{\sum_f w_{bf} \bar x^*_{bf}}{\sum_f w_{bf} [\bar x^*_{bf}\text{ defined}]}.

    *Why.* In a crossed random design :math:`y_{fs} = \mu + a_f + b_s + e_{fs}` the mean over
    :math:`F` faces and :math:`S` scenarios has variance

    .. math::

        \operatorname{Var}(\bar y) = \frac{\sigma^2_{\text{face}}}{F} + \frac{\sigma^2_{\text{scenario}}}{S}
        + \frac{\sigma^2_{\text{resid}}}{FS}.

    Resampling faces only reproduces the first and last terms and misses
    :math:`\sigma^2_{\text{scenario}}/S`, so it is too narrow for a claim about scenarios in
    general; no bootstrap over one factor alone is consistent here (McCullagh 2000).

    *The interval's scale.* The product bootstrap's variance is
    :math:`\sum_f a_f^2/F^2 + \sum_s b_s^2/S^2 + \sum e_{fs}^2/(FS)^2` (the sample's
    double-centred effects; Owen 2007, Thm. 1): about :math:`\sigma^2_{\text{face}}/F +
    \tfrac{S-1}{S}\sigma^2_{\text{scenario}}/S + 3\sigma^2_{\text{resid}}/(FS)`, too narrow by
    :math:`(S-1)/S` where the scenarios dominate and too wide where the residual does, and its
    normal quantiles ignore that 25 scenarios estimate their variance on 24 degrees of freedom
    (on planted data it covered 92 % at a nominal 95 % with 25 dominant scenarios). So the
    interval from the replicates is rescaled about :math:`\hat\theta` to the half-width
    :math:`t_{\nu,1-\alpha/2}\sqrt{\hat V}`, :math:`\hat V` the unbiased crossed variance and
    :math:`\nu` its Satterthwaite degrees of freedom
    (:func:`~cueshift.stats._crossed_variance.crossed_jackknife`,
    :func:`~cueshift.stats._crossed_variance.t_calibrated`): :math:`\nu` is near :math:`S-1`
    when the scenarios dominate and near :math:`F-1` when the faces do, where the interval is
    the faces-only one up to :math:`t_{F-1}/z`. The replicates give the interval its shape:
    percentile, or BCa with :math:`z_0` from the crossed replicates and the acceleration of the
    face *and* scenario jackknives.

    With ``scenario_weights`` the same in every replicate (scenarios held fixed) this is the
    face-level bootstrap, equal to :func:`~cueshift.stats._resample.cluster_bootstrap` on the
    per-face means (face-jackknife acceleration, no rescaling).

    The rescaled interval is cut at ``bounds``, the range of the statistic (a mean of Δ in
    :math:`[-1, 1]` lies in it): with few faces :math:`\nu` is small, :math:`t_\nu` large, and the
    rescaled interval can leave the range, where it says nothing the range does not (as a Wald
    interval for a bounded parameter is truncated).

    A row whose replicates all equal the estimate gets the point as its interval (where every
    replicate has data): every face × scenario mean equal (every face mean, with the scenarios
    held fixed), by exact comparison. Its replicates equal the point but for the rounding of
    their sums, which can make BCa's :math:`z_0` infinite (D49).

    Parameters
    ----------
    sums, counts : ndarray, shape (n_faces, n_rows, n_scenarios)
        Integer-valued sums (``Δ · scale``) and counts of Δ per face × row × scenario
        (:func:`~cueshift.stats.scenario_sums`).
    scale : float
        The common denominator of ``sums``.
    face_weights : ndarray, shape (n_resamples, n_faces)
        Face multiplicities (:func:`~cueshift.stats._resample.face_multiplicities`).
    scenario_weights : ndarray, shape (n_resamples, n_scenarios)
        Scenario multiplicities (:func:`~cueshift.stats.scenario_multiplicities`).
    confidence_level, method
        The interval's level and kind (``"bca"`` or ``"percentile"``).
    bounds : (float, float)
        The range of the statistic; the rescaled interval is cut at it (default: none).

    Returns
    -------
    BootstrapResult
        Per row: estimate, interval, faces with data.

    References
    ----------
    .. [1] Owen, A. B. (2007). The pigeonhole bootstrap. *Ann. Appl. Stat.* 1(2), 386–411.
    .. [2] McCullagh, P. (2000). Resampling and exchangeable arrays. *Bernoulli* 6(2), 285–301.
    .. [3] Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
       components. *Biometrics Bull.* 2(6), 110–114.
    """
    n_faces, n_rows, _ = sums.shape
    face_total = counts.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = np.where(face_total > 0, sums.sum(axis=2) / (face_total * scale), np.nan)  # (faces, rows)
    observed = ~np.isnan(x)
    n_obs = observed.sum(axis=0).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        estimate = np.where(observed, x, 0.0).sum(axis=0) / n_obs
    redrawn = bool(np.ptp(scenario_weights, axis=0).any()) if scenario_weights.size else False
    accel, _ = _jackknife_acceleration(np.ascontiguousarray(x))
    constant = equal_cell_means(sums, counts) if redrawn else equal_columns(x)
    n_rep = face_weights.shape[0]
    vt = np.ascontiguousarray(scenario_weights.T)
    low = np.full(n_rows, np.nan)
    high = np.full(n_rows, np.nan)
    chunk = max(1, CHUNK_BYTES // (8 * n_rep * max(n_faces, 1)))
    for start in range(0, n_rows, chunk):
        cols = slice(start, min(start + chunk, n_rows))
        num = sums[:, cols, :] @ vt  # (faces, rows, replicates)
        den = counts[:, cols, :] @ vt
        with np.errstate(invalid="ignore", divide="ignore"):
            face_mean = num / (den * scale)
        drawn = den > 0
        face_mean[~drawn] = 0.0
        total = np.einsum("frb,bf->rb", face_mean, face_weights)
        weight = np.einsum("frb,bf->rb", drawn.astype(np.float64), face_weights)
        with np.errstate(invalid="ignore", divide="ignore"):
            rep = np.ascontiguousarray(total / weight)
        share = share_below(rep, estimate[cols])
        if not redrawn:  # scenarios held fixed: the face-level bootstrap, as cluster_bootstrap
            low[cols], high[cols] = _cell_interval(rep, share, accel[cols], confidence_level, method)
        else:
            jack = crossed_jackknife(sums[:, cols, :], counts[:, cols, :], scale)
            rescaled = t_calibrated(
                estimate[cols],
                *_cell_interval(rep, share, jack.accel, confidence_level, method),
                rep,
                jack,
                confidence_level,
            )
            low[cols], high[cols] = (np.clip(bound, *bounds) for bound in rescaled)
        point = constant[cols] & ~np.isnan(rep).any(axis=1)  # every replicate is the estimate
        low[cols] = np.where(point, estimate[cols], low[cols])
        high[cols] = np.where(point, estimate[cols], high[cols])
    return BootstrapResult(estimate, low, high, n_obs, method, n_rep, confidence_level)
