"""Student-t intervals of means: one sample (or paired differences) and Welch's two-sample one."""

from __future__ import annotations

import math

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as sps

from cueshift.stats._equal_values import all_equal


def t_half_width(sd: float, n: int, confidence: float = 0.95) -> float:
    r"""Half-width :math:`t_{1-\alpha/2,\,n-1}\, s / \sqrt n` of the t interval of a mean.

    Parameters
    ----------
    sd : float
        Sample standard deviation :math:`s` (``ddof = 1``).
    n : int
        Sample size, at least 2.
    confidence : float
        Coverage :math:`1 - \alpha`.

    Examples
    --------
    >>> round(t_half_width(1.0, 4), 4)  # t(0.975, 3) / 2
    1.5912
    """
    return float(sps.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)


def mean_interval(values: ArrayLike, confidence: float = 0.95) -> tuple[float, float, float]:
    r"""Mean and t interval :math:`\bar x \pm t_{1-\alpha/2, n-1} s / \sqrt n` (missing values dropped).

    For paired differences this is the paired t interval. Returns ``(mean, low, high)``; the
    bounds are NaN with fewer than two values (and the mean too with none). Equal values
    (decided exactly) give the value as the mean and the interval.

    Examples
    --------
    >>> [round(v, 4) for v in mean_interval([1.0, 2.0, 3.0, 4.0])]
    [2.5, 0.4457, 4.5543]
    """
    d = np.asarray(values, dtype=np.float64)
    d = d[~np.isnan(d)]
    if d.size < 2:
        return (float(d.mean()) if d.size else math.nan), math.nan, math.nan
    est, var = _moments(d)
    half = t_half_width(math.sqrt(var), int(d.size), confidence) if var > 0 else 0.0
    return est, est - half, est + half


def welch_interval(x: ArrayLike, y: ArrayLike, confidence: float = 0.95) -> tuple[float, float, float]:
    r"""Difference :math:`\bar x - \bar y` of independent samples with Welch's interval.

    .. math::

        \bar x - \bar y \pm t_{1-\alpha/2,\nu} \sqrt{s_x^2/n_x + s_y^2/n_y}, \qquad
        \nu = \frac{(s_x^2/n_x + s_y^2/n_y)^2}{\frac{(s_x^2/n_x)^2}{n_x - 1} + \frac{(s_y^2/n_y)^2}{n_y - 1}}

    (the interval of ``scipy.stats.ttest_ind(x, y, equal_var=False)``). Missing values are
    dropped; with fewer than two values in a sample the bounds are NaN, and where each sample's
    values are all equal (decided exactly: their variance from sums is rounding noise, which
    gave an interval of width 1e-17 about a difference off by ulps) the interval is the point
    :math:`x_1 - y_1`, as is the estimate.

    References
    ----------
    .. [1] Welch, B. L. (1947). The generalization of "Student's" problem when several
       different population variances are involved. *Biometrika* 34, 28–35.
    """
    a = np.asarray(x, dtype=np.float64)
    b = np.asarray(y, dtype=np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size < 2 or b.size < 2:
        est = float(a.mean() - b.mean()) if a.size and b.size else math.nan
        return est, math.nan, math.nan
    (mean_a, var_a), (mean_b, var_b) = _moments(a), _moments(b)
    va, vb = var_a / a.size, var_b / b.size
    est = mean_a - mean_b
    se = math.sqrt(va + vb)
    if se == 0:
        return est, est, est
    nu = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
    half = float(sps.t.ppf(0.5 + confidence / 2, nu)) * se
    return est, est - half, est + half


def _moments(values: np.ndarray) -> tuple[float, float]:
    """Mean and variance (``ddof = 1``) of at least two values; equal values (compared exactly)
    have that value as their mean and a variance of 0, not rounding noise."""
    if all_equal(values):
        return float(values[0]), 0.0
    return float(values.mean()), float(values.var(ddof=1))
