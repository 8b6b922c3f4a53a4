r"""How strong an unobserved confounder would have to be to erase an estimate: the partial
:math:`R^2` of the treatment with the outcome and the robustness value (Cinelli & Hazlett 2020).

For a coefficient :math:`\hat\tau` of a treatment :math:`D` in an OLS fit of :math:`Y` on
:math:`D` and covariates :math:`X`, with t statistic :math:`t` and residual degrees of freedom
:math:`\nu`, an omitted confounder :math:`Z` with partial :math:`R^2_{D\sim Z|X}` and
:math:`R^2_{Y\sim Z|D,X}` moves the estimate by exactly

.. math::

    |\widehat{\mathrm{bias}}| = \mathrm{se}(\hat\tau)\,\sqrt{\nu}\,
    \sqrt{\frac{R^2_{Y\sim Z|D,X}\,R^2_{D\sim Z|X}}{1 - R^2_{D\sim Z|X}}}

(the omitted-variable bias in partial :math:`R^2`, an identity of the two fits), and the
robustness value is the strength, equal on both sides, at which this bias reaches
:math:`q|\hat\tau|`.
"""

from __future__ import annotations

import warnings
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from scipy import stats

from cueshift._types import F64
from cueshift.stats._constants import ALPHA
from cueshift.stats._equal_values import equal_columns


class Robustness(NamedTuple):
    """Per column of per-face values: the mean (``estimate``), its one-sample t
    (``statistic``) and residual degrees of freedom (``df``, faces − 1), the partial
    :math:`R^2_{Y\\sim D|X}` (``partial_r2``), :math:`RV_q` (``rv``) and
    :math:`RV_{q,\\alpha}` (``rv_alpha``)."""

    estimate: F64
    statistic: F64
    df: F64
    partial_r2: F64
    rv: F64
    rv_alpha: F64


def partial_r2(t_statistic: npt.ArrayLike, df: npt.ArrayLike) -> F64:
    r"""Partial :math:`R^2` of the treatment with the outcome,
    :math:`R^2_{Y\sim D|X} = t^2 / (t^2 + \nu)`: the share of the outcome's residual variance
    a confounder explaining *all* of it would have to explain of the treatment to erase the
    estimate (Cinelli & Hazlett 2020).

    Examples
    --------
    >>> round(float(partial_r2(4.18445, 783)), 4)  # the paper's Darfur example: 2.2 %
    0.0219
    """
    t = np.asarray(t_statistic, dtype=np.float64)
    return np.asarray(t * t / (t * t + np.asarray(df, dtype=np.float64)), dtype=np.float64)


def robustness_value(
    t_statistic: npt.ArrayLike, df: npt.ArrayLike, *, q: float = 1.0, alpha: float | None = None
) -> F64:
    r"""The robustness value :math:`RV_q` (``alpha=None``) or :math:`RV_{q,\alpha}`.

    With :math:`f_q = q|t|/\sqrt{\nu}` (:math:`q` times the partial Cohen's f),

    .. math::

        RV_q = \tfrac12\left(\sqrt{f_q^4 + 4 f_q^2} - f_q^2\right)
             = \frac{2}{1 + \sqrt{1 + 4/f_q^2}}

    (the second form without cancellation): a confounder explaining :math:`RV_q` of the
    residual variance of both treatment and outcome moves the estimate by :math:`q|\hat\tau|`,
    and one explaining less of both cannot. For the interval, with
    :math:`f^*_{\alpha} = |t^*_{\alpha/2,\,\nu-1}|/\sqrt{\nu-1}` (the long regression has one
    parameter more) and :math:`f_{q,\alpha} = f_q - f^*_{\alpha}`,

    .. math::

        RV_{q,\alpha} = \begin{cases}
            0 & f_q \le f^*_{\alpha} \\
            \tfrac12\left(\sqrt{f_{q,\alpha}^4 + 4 f_{q,\alpha}^2} - f_{q,\alpha}^2\right)
              & f^*_{\alpha} < f_q \le 1/f^*_{\alpha} \\
            (f_q^2 - f^{*2}_{\alpha})/(1 + f_q^2) & f_q > \max(f^*_{\alpha}, 1/f^*_{\alpha})
        \end{cases}

    (Cinelli & Hazlett 2020; the third case, where a confounder weaker with the outcome than
    with the treatment reaches the bound first, as sensemakr's ``robustness_value``): the
    strength at which the :math:`1-\alpha` interval of the adjusted estimate reaches
    :math:`(1-q)\hat\tau`.

    Parameters
    ----------
    t_statistic : array_like
        t statistic(s) of the treatment coefficient (classical OLS standard error).
    df : array_like
        Residual degrees of freedom of the fit (> 1 with ``alpha``).
    q : float
        The share of the estimate to remove (1: erase it).
    alpha : float, optional
        Significance level; ``None`` for the point estimate alone.

    Returns
    -------
    numpy.ndarray
        Robustness values in [0, 1] (NaN where ``t`` or ``df`` is NaN).

    References
    ----------
    .. [1] Cinelli, C. & Hazlett, C. (2020). Making sense of sensitivity: extending omitted
       variable bias. *Journal of the Royal Statistical Society B* 82, 39–67.

    Examples
    --------
    The paper's Darfur example (t = 4.18, 783 degrees of freedom): 13.9 % and 7.6 %.

    >>> round(float(robustness_value(4.18445, 783)), 3)
    0.139
    >>> round(float(robustness_value(4.18445, 783, alpha=0.05)), 3)
    0.076
    """
    if not q > 0:
        raise ValueError(f"q must be > 0, got {q}")
    if alpha is not None and not 0 < alpha < 1:
        raise ValueError(f"alpha must be in (0, 1), got {alpha}")
    nu = np.asarray(df, dtype=np.float64)
    if np.any(nu <= (1 if alpha is not None else 0)):
        raise ValueError("df must be > 0 (> 1 with alpha)")
    fq = q * np.abs(np.asarray(t_statistic, dtype=np.float64)) / np.sqrt(nu)
    if alpha is None:
        return _equal_strength(fq)
    f_crit = np.abs(stats.t.ppf(alpha / 2.0, nu - 1.0)) / np.sqrt(nu - 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        unbound = (1.0 - f_crit**2 / fq**2) / (1.0 / fq**2 + 1.0)
    binding = _equal_strength(np.maximum(fq - f_crit, 0.0))  # 0 where f_q <= f*
    rv = np.where((fq > f_crit) & (fq > 1.0 / f_crit), unbound, binding)
    return np.asarray(np.where(np.isnan(fq), np.nan, rv), dtype=np.float64)


def face_robustness(values: F64, *, q: float = 1.0, alpha: float = ALPHA) -> Robustness:
    r"""The robustness of each column's mean of per-face values (a shift such as the SBS).

    The face-level model of a shift is the OLS fit of the per-face values :math:`x_f` on an
    intercept: :math:`t = \bar x\sqrt n / s`, :math:`\nu = n - 1` (:math:`n` faces with a value).
    It is also the fit of the judgments on the cue with face fixed effects (base and edited
    image per face), so :func:`robustness_value` reads as the strength an unmeasured side effect
    of the edit would need with both cue and judgment, within faces.

    Parameters
    ----------
    values : numpy.ndarray
        ``(faces, columns)`` per-face values (NaN: the face has none in the column).
    q, alpha : float
        As :func:`robustness_value`.

    Returns
    -------
    Robustness
        One entry per column; NaN where fewer than 3 faces have a value, or all are equal.

    Examples
    --------
    >>> res = face_robustness(np.array([[0.1], [0.2], [0.15], [0.05], [0.12], [0.18]]))
    >>> round(float(res.statistic[0]), 2), int(res.df[0]), round(float(res.rv[0]), 2)
    (5.94, 5, 0.89)
    """
    x = np.asarray(values, dtype=np.float64)
    n = np.sum(~np.isnan(x), axis=0).astype(np.float64)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        mean = np.nanmean(x, axis=0)
        sd = np.nanstd(x, axis=0, ddof=1)
    # all equal by exact comparison: their sd is rounding noise (1e-17), not always 0
    usable = (n >= 3) & (sd > 0) & ~equal_columns(x)
    t = np.where(usable, mean * np.sqrt(n) / np.where(usable, sd, 1.0), np.nan)
    df = np.where(usable, n - 1.0, np.nan)
    safe = np.where(usable, df, 2.0)
    rv = np.where(usable, robustness_value(t, safe, q=q), np.nan)
    rv_alpha = np.where(usable, robustness_value(t, safe, q=q, alpha=alpha), np.nan)
    return Robustness(mean, t, df, partial_r2(t, df), rv, rv_alpha)


def _equal_strength(f: F64) -> F64:
    """:math:`\\tfrac12(\\sqrt{f^4 + 4f^2} - f^2)` as :math:`2/(1 + \\sqrt{1 + 4/f^2})`."""
    with np.errstate(divide="ignore"):
        return np.asarray(2.0 / (1.0 + np.sqrt(1.0 + 4.0 / (f * f))), dtype=np.float64)
