r"""The variance of a face-level mean over a crossed faces × scenarios design, its Satterthwaite
degrees of freedom and the crossed BCa acceleration, from the delete-one-face, delete-one-scenario
and delete-both jackknives; and the t calibration of the crossed bootstrap interval that uses them
(:func:`~cueshift.stats._crossed_resample.crossed_bootstrap`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import special
from scipy import stats as sps

from cueshift._types import F64


@dataclass(frozen=True)
class CrossedJackknife:
    """Per row: the crossed variance :math:`\\hat V` of the estimate, its Satterthwaite degrees
    of freedom and the BCa acceleration over faces and scenarios (NaN where undefined)."""

    variance: F64
    df: F64
    accel: F64


def _deviation_sums(theta: F64, present: np.ndarray, axis: int) -> tuple[F64, F64, F64]:
    """Count, sum of squares and sum of cubes of the jackknife deviations
    :math:`\\bar\\theta_{(\\cdot)} - \\theta_{(i)}` along ``axis`` (only where ``present``)."""
    n = present.sum(axis=axis).astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(present, theta, 0.0).sum(axis=axis) / n
    dev = np.where(present, np.expand_dims(mean, axis) - theta, 0.0)
    return n, (dev**2).sum(axis=axis), (dev**3).sum(axis=axis)


def crossed_jackknife(sums: F64, counts: F64, scale: float) -> CrossedJackknife:
    r"""Jackknife variance of :math:`\hat\theta = |F|^{-1}\sum_f \bar x_f` over faces *and* scenarios.

    With :math:`\theta_{(f)}`, :math:`\theta_{(s)}`, :math:`\theta_{(fs)}` the estimate without
    face :math:`f`, without scenario :math:`s`, without both (:math:`F` faces and :math:`S`
    scenarios with data in the row):

    .. math::

        A = \tfrac{F-1}{F}\sum_f (\theta_{(f)} - \bar\theta_{(\cdot)})^2,\quad
        B = \tfrac{S-1}{S}\sum_s (\theta_{(s)} - \bar\theta_{(\cdot)})^2,\quad
        C = \tfrac{(F-1)(S-1)}{FS}\sum_{f,s} (\theta_{(fs)} - \theta_{(f)} - \theta_{(s)} + \hat\theta)^2 .

    In a balanced design :math:`y_{fs} = \mu + a_f + b_s + e_{fs}` these are exactly
    :math:`MS_{\text{face}}/(FS)`, :math:`MS_{\text{scenario}}/(FS)` and
    :math:`MS_{\text{resid}}/(FS)`, with expectations :math:`\sigma^2_a/F + \sigma^2_e/(FS)`,
    :math:`\sigma^2_b/S + \sigma^2_e/(FS)` and :math:`\sigma^2_e/(FS)`, so
    :math:`A + B - C` is unbiased for :math:`\operatorname{Var}\hat\theta = \sigma^2_a/F +
    \sigma^2_b/S + \sigma^2_e/(FS)` (the ANOVA estimator of the crossed random-effects model;
    McCullagh 2000, §3). A negative component is set to zero (:math:`\hat V = A` when
    :math:`B < C`, :math:`B` when :math:`A < C`, :math:`C` when both). Degrees of freedom by
    Satterthwaite (1946) over the terms kept: :math:`\nu = \hat V^2 / (A^2/(F-1) + B^2/(S-1) +
    C^2/((F-1)(S-1)))`. The acceleration adds the third moments of the independent face and
    scenario draws, :math:`a = (\sum_f U_f^3 + \sum_s U_s^3) / (6(\sum_f U_f^2 + \sum_s U_s^2)^{3/2})`,
    :math:`U = \bar\theta_{(\cdot)} - \theta_{(i)}` (Efron 1987's :math:`a` for a statistic of two
    independent samples).

    Parameters
    ----------
    sums, counts : ndarray, shape (n_faces, n_rows, n_scenarios)
        As :func:`~cueshift.stats._crossed_resample.crossed_bootstrap`.
    scale : float
        The common denominator of ``sums``.

    References
    ----------
    .. [1] McCullagh, P. (2000). Resampling and exchangeable arrays. *Bernoulli* 6(2), 285–301.
    .. [2] Satterthwaite, F. E. (1946). An approximate distribution of estimates of variance
       components. *Biometrics Bull.* 2(6), 110–114.
    .. [3] Efron, B. (1987). Better bootstrap confidence intervals. *JASA* 82, 171–185.
    """
    face_sum, face_n = sums.sum(axis=2), counts.sum(axis=2)
    with np.errstate(invalid="ignore", divide="ignore"):
        x = face_sum / (face_n * scale)  # (faces, rows); NaN: face without data
        x_s = (face_sum[..., None] - sums) / ((face_n[..., None] - counts) * scale)  # without s
    observed, kept = face_n > 0, (face_n[..., None] - counts) > 0
    n_f = observed.sum(axis=0).astype(np.float64)
    total = np.where(observed, x, 0.0).sum(axis=0)
    n_s, total_s = kept.sum(axis=0).astype(np.float64), np.where(kept, x_s, 0.0).sum(axis=0)  # (rows, S)
    with np.errstate(invalid="ignore", divide="ignore"):
        theta = total / n_f
        theta_f = np.where(observed, (total - x) / (n_f - 1.0), theta)
        theta_s = total_s / n_s
        theta_fs = np.where(kept, (total_s - x_s) / (n_s - 1.0), theta_s)
    in_row = counts.sum(axis=0) > 0  # (rows, S): the scenarios with data in the row
    both = observed[..., None] & in_row[None]
    n_faces, face_sq, face_cube = _deviation_sums(theta_f, observed, 0)
    n_scen, scen_sq, scen_cube = _deviation_sums(theta_s, in_row, 1)
    inter = theta_fs - theta_f[..., None] - theta_s[None] + theta[None, :, None]
    inter_sq = np.where(both & np.isfinite(inter), inter, 0.0) ** 2
    with np.errstate(invalid="ignore", divide="ignore"):
        a = (n_faces - 1.0) / n_faces * face_sq
        b = np.where(n_scen > 1, (n_scen - 1.0) / n_scen * scen_sq, 0.0)
        cells = (n_faces - 1.0) * (n_scen - 1.0)
        c = np.where(n_scen > 1, cells / (n_faces * n_scen) * inter_sq.sum(axis=(0, 2)), 0.0)
        keep_a, keep_b = (a >= c) & (n_faces > 1), (b >= c) & (n_scen > 1)
        variance = np.where(keep_a, a, 0.0) + np.where(keep_b, b, 0.0) - np.where(keep_a & keep_b, c, 0.0)
        variance = np.where(~keep_a & ~keep_b, c, variance)
        spread = (
            np.where(keep_a, a**2 / (n_faces - 1.0), 0.0)
            + np.where(keep_b, b**2 / (n_scen - 1.0), 0.0)
            + np.where(keep_a == keep_b, c**2 / cells, 0.0)
        )
        df = variance**2 / spread
        accel = (face_cube + scen_cube) / (6.0 * (face_sq + scen_sq) ** 1.5)
    return CrossedJackknife(variance, df, accel)


def t_calibrated(
    estimate: F64, low: F64, high: F64, rep: F64, jack: CrossedJackknife, confidence_level: float
) -> tuple[F64, F64]:
    r"""Rescale a bootstrap interval about the estimate to the half-width
    :math:`t_{\nu,1-\alpha/2}\sqrt{\hat V}`: both sides are multiplied by
    :math:`k = t_{\nu,1-\alpha/2}\sqrt{\hat V} / (z_{1-\alpha/2}\,\mathrm{sd}(\theta^*))`, so the
    bootstrap keeps the interval's asymmetry and the crossed variance sets its scale. Rows
    without a finite positive :math:`k` keep their interval."""
    alpha = (1.0 - confidence_level) / 2.0
    with np.errstate(invalid="ignore", divide="ignore"):
        sd = np.std(rep, axis=1, ddof=1)
        z = float(special.ndtri(1.0 - alpha))
        quantile = np.where(np.isfinite(jack.df), sps.t.ppf(1.0 - alpha, jack.df), z)
        k = quantile * np.sqrt(jack.variance) / (z * sd)
    k = np.where(np.isfinite(k) & (k > 0), k, 1.0)
    return estimate - k * (estimate - low), estimate + k * (high - estimate)
