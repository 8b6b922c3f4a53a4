r"""Benchmark bounds on an unobserved confounder: how far one ``k`` times as strong as an observed
covariate :math:`X_j` could move an estimate (Cinelli & Hazlett 2020, Sec. 6.1; sensemakr's
``ovb_bounds``).

The bound compares the confounder :math:`Z` with :math:`X_j` in their partial :math:`R^2` with
the treatment and with the outcome, in the fit that already holds :math:`X_j`; :math:`Z` is taken
orthogonal to the covariates. The adjusted estimate, standard error and interval are those of the
long regression (with :math:`Z`) when :math:`Z` has the bounding strength, the bias taken in the
direction that shrinks :math:`|\hat\tau|` (sensemakr's ``reduce = TRUE``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import stats

from cueshift._types import F64
from cueshift.stats._constants import ALPHA


class OvbBound(NamedTuple):
    """The bounding confounder's partial :math:`R^2` with the treatment (``r2dz_x``) and with the
    outcome (``r2yz_dx``), and the estimate adjusted for it: ``estimate``, ``se``, ``t`` and the
    :math:`1-\\alpha` interval ``ci_low``, ``ci_high``."""

    r2dz_x: F64
    r2yz_dx: F64
    estimate: F64
    se: F64
    t: F64
    ci_low: F64
    ci_high: F64


def ovb_bounds(
    estimate: npt.ArrayLike,
    se: npt.ArrayLike,
    dof: npt.ArrayLike,
    r2dxj_x: npt.ArrayLike,
    r2yxj_dx: npt.ArrayLike,
    *,
    kd: npt.ArrayLike = 1.0,
    ky: npt.ArrayLike | None = None,
    alpha: float = ALPHA,
) -> OvbBound:
    r"""The estimate adjusted for a confounder ``kd`` (``ky``) times as strong as :math:`X_j` with
    the treatment (the outcome).

    With :math:`R^2_{D\sim X_j|X_{-j}}` (``r2dxj_x``) and :math:`R^2_{Y\sim X_j|D,X_{-j}}`
    (``r2yxj_dx``) the benchmark's partial :math:`R^2` and :math:`f^2 = R^2/(1-R^2)`,

    .. math::

        R^2_{D\sim Z|X} = k_D\, f^2_{D\sim X_j|X_{-j}}, \qquad
        R^2_{Y\sim Z|D,X} = \eta^2\, f^2_{Y\sim X_j|D,X_{-j}}, \quad
        \eta = \frac{\sqrt{k_Y} + \sqrt{r}}{\sqrt{1 - r}}, \quad
        r = \frac{k_D\, R^4_{D\sim X_j|X_{-j}}}
                 {(1 - k_D R^2_{D\sim X_j|X_{-j}})(1 - R^2_{D\sim X_j|X_{-j}})}

    (:math:`r` the partial :math:`R^2` of :math:`Z` with :math:`X_j` those imply; Cinelli &
    Hazlett 2020, Sec. 6.1 and its footnote), :math:`R^2_{Y\sim Z|D,X}` capped at 1. The
    adjusted estimate, standard error and t (their eqs. 4-5, :math:`\nu` = ``dof``) are

    .. math::

        \tilde\tau = \mathrm{sign}(\hat\tau)\Bigl(|\hat\tau| - \mathrm{se}\sqrt{\nu}
            \sqrt{\tfrac{R^2_{Y\sim Z|D,X} R^2_{D\sim Z|X}}{1 - R^2_{D\sim Z|X}}}\Bigr), \quad
        \widetilde{\mathrm{se}} = \mathrm{se}\sqrt{\tfrac{1 - R^2_{Y\sim Z|D,X}}{1 - R^2_{D\sim Z|X}}}
            \sqrt{\tfrac{\nu}{\nu - 1}}, \quad \tilde t = \tilde\tau/\widetilde{\mathrm{se}},

    and the interval :math:`\tilde\tau \pm t_{1-\alpha/2,\,\nu-1}\,\widetilde{\mathrm{se}}`: the
    long regression's, which has one parameter more (as sensemakr's ``adjusted_ci`` and
    :func:`robustness_value`; sensemakr's ``ovb_bounds`` table takes the quantile at :math:`\nu`).

    Parameters
    ----------
    estimate, se : array_like
        The treatment's OLS coefficient and classical standard error, in the fit holding
        :math:`X_j`.
    dof : array_like
        That fit's residual degrees of freedom (> 1).
    r2dxj_x, r2yxj_dx : array_like
        The benchmark's partial :math:`R^2` with the treatment (given the other covariates) and
        with the outcome (given the treatment and the other covariates), in [0, 1).
    kd, ky : array_like
        How many times as strong as :math:`X_j` the confounder is with the treatment and with the
        outcome (``ky`` defaults to ``kd``); > 0.
    alpha : float
        Of the adjusted interval.

    Returns
    -------
    OvbBound
        Broadcast over the inputs; NaN where ``kd`` is impossible
        (:math:`R^2_{D\sim Z|X} \ge 1` or :math:`r \ge 1`; sensemakr returns NA).

    References
    ----------
    .. [1] Cinelli, C. & Hazlett, C. (2020). Making sense of sensitivity: extending omitted
       variable bias. *Journal of the Royal Statistical Society B* 82, 39–67.

    Examples
    --------
    The paper's Darfur example, a confounder as strong as ``female`` (sensemakr: 0.9 %, 12.5 %,
    adjusted estimate 0.0752, t 3.44):

    >>> b = ovb_bounds(0.09731582, 0.02325654, 783, 0.0090810652, 0.1090339154)
    >>> [round(float(v), 4) for v in (b.r2dz_x, b.r2yz_dx, b.estimate, b.se, b.t)]
    [0.0092, 0.1246, 0.0752, 0.0219, 3.4389]
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    kd_ = np.asarray(kd, dtype=np.float64)
    ky_ = kd_ if ky is None else np.asarray(ky, dtype=np.float64)
    if np.any(kd_ <= 0) or np.any(ky_ <= 0):
        raise ValueError("kd and ky must be > 0")
    nu = np.asarray(dof, dtype=np.float64)
    if np.any(nu <= 1):
        raise ValueError("dof must be > 1")
    r2d = np.asarray(r2dxj_x, dtype=np.float64)
    r2y = np.asarray(r2yxj_dx, dtype=np.float64)
    if np.any((r2d < 0) | (r2d >= 1)) or np.any((r2y < 0) | (r2y >= 1)):
        raise ValueError("r2dxj_x and r2yxj_dx must be in [0, 1)")
    with np.errstate(divide="ignore", invalid="ignore"):
        r2dz = kd_ * r2d / (1.0 - r2d)
        r2zxj = kd_ * r2d * r2d / ((1.0 - kd_ * r2d) * (1.0 - r2d))
        possible = (r2dz < 1.0) & (r2zxj >= 0.0) & (r2zxj < 1.0)
        eta2 = (np.sqrt(ky_) + np.sqrt(r2zxj)) ** 2 / (1.0 - r2zxj)
        r2yz = np.where(possible, np.minimum(eta2 * r2y / (1.0 - r2y), 1.0), np.nan)
        r2dz = np.where(possible, r2dz, np.nan)
        tau = np.asarray(estimate, dtype=np.float64)
        s = np.asarray(se, dtype=np.float64)
        bias = s * np.sqrt(nu) * np.sqrt(r2yz * r2dz / (1.0 - r2dz))
        adjusted = np.sign(tau) * (np.abs(tau) - bias)
        adjusted_se = s * np.sqrt((1.0 - r2yz) / (1.0 - r2dz)) * np.sqrt(nu / (nu - 1.0))
        t = adjusted / adjusted_se
    half = stats.t.ppf(1.0 - alpha / 2.0, nu - 1.0) * adjusted_se
    columns = (r2dz, r2yz, adjusted, adjusted_se, t, adjusted - half, adjusted + half)
    return OvbBound(*(np.asarray(v, dtype=np.float64) for v in columns))
