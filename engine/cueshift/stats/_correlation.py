"""Correlations: Pearson r with the OLS slope, Spearman ρ with a Fisher-z interval."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final, Literal

import numpy as np
import polars as pl
from numpy.typing import ArrayLike
from scipy import special
from scipy import stats as sps

from cueshift.stats._equal_values import all_equal


@dataclass(frozen=True)
class CorrelationResult:
    """Pearson r (with Fisher-z CI and t-test p), OLS slope of y on x, and n."""

    r: float
    ci_low: float
    ci_high: float
    statistic: float
    df: float
    p_value: float
    slope: float
    intercept: float
    n: int


def pearson_slope(x: ArrayLike, y: ArrayLike, *, confidence_level: float = 0.95) -> CorrelationResult:
    r"""Pearson correlation of paired values and the OLS slope of ``y`` on ``x``.

    .. math::

        r = \frac{\sum (x_i-\bar x)(y_i-\bar y)}{\sqrt{\sum (x_i-\bar x)^2 \sum (y_i-\bar y)^2}},\quad
        t = r\sqrt{\frac{n-2}{1-r^2}},\quad b = r\,\frac{s_y}{s_x}.

    The CI is Fisher's :math:`\tanh(\operatorname{artanh} r \pm z_{1-\alpha/2}/\sqrt{n-3})`;
    p is two-sided from :math:`t_{n-2}` (as :func:`scipy.stats.pearsonr`). Pairs with a NaN
    are dropped. With a constant ``x`` or ``y`` (exact comparison) r, its interval, t and p are
    NaN, as :func:`scipy.stats.pearsonr`; the slope is then 0 (constant ``y``) or NaN (constant ``x``).

    References
    ----------
    .. [1] seed 000 Fig. 5 (Gemma-3 vs Gemma-4 mean Δ per scenario: r = 0.75, slope = 0.39).
    """
    xa = np.asarray(x, dtype=np.float64)
    ya = np.asarray(y, dtype=np.float64)
    ok = ~(np.isnan(xa) | np.isnan(ya))
    xa, ya = xa[ok], ya[ok]
    n = xa.size
    if n < 3:
        nan = float("nan")
        return CorrelationResult(nan, nan, nan, nan, nan, nan, nan, nan, n)
    dx, dy = xa - xa.mean(), ya - ya.mean()
    sxx, syy, sxy = float(dx @ dx), float(dy @ dy), float(dx @ dy)
    # constant by exact comparison: centred equal values are rounding noise, not 0 (as scipy)
    x_constant, y_constant = all_equal(xa), all_equal(ya)
    if x_constant or y_constant:
        slope_0 = np.nan if x_constant else 0.0
        return CorrelationResult(np.nan, np.nan, np.nan, np.nan, n - 2.0, np.nan, slope_0, np.nan, n)
    r = float(np.clip(sxy / np.sqrt(sxx * syy), -1.0, 1.0))
    df = n - 2.0
    with np.errstate(divide="ignore"):
        t = r * np.sqrt(df / (1.0 - r * r)) if abs(r) < 1 else np.sign(r) * np.inf
    # exact p of r under H0: r² ~ Beta(1/2, (n-2)/2), as scipy.stats.pearsonr
    p = float(special.betainc(df / 2.0, 0.5, df / (df + t * t))) if np.isfinite(t) else 0.0
    z_crit = special.ndtri(0.5 + confidence_level / 2.0)
    if n > 3 and abs(r) < 1:
        half = z_crit / np.sqrt(n - 3.0)
        lo, hi = np.tanh(np.arctanh(r) - half), np.tanh(np.arctanh(r) + half)
    else:
        lo = hi = np.nan
    slope = sxy / sxx
    return CorrelationResult(
        r, float(lo), float(hi), float(t), df, p, slope, ya.mean() - slope * xa.mean(), n
    )


def spearman_with_ci(
    x: ArrayLike, y: ArrayLike, confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    r"""Spearman :math:`\rho` with its p-value (``scipy.stats.spearmanr``) and a Fisher-z interval
    with the Bonett–Wright standard error:

    .. math::

        \tanh\!\left(\operatorname{artanh}\rho \pm z_{1-\alpha/2}\sqrt{\frac{1 + \rho^2/2}{n - 3}}\right).

    Returns ``(rho, ci_low, ci_high, p, n)`` over the pairs where both values exist;
    everything NaN with fewer than 3 pairs or a constant variable, and the interval NaN when
    :math:`|\rho| = 1`.

    References
    ----------
    .. [1] Bonett, D. G. & Wright, T. A. (2000). Sample size requirements for estimating
       Pearson, Kendall and Spearman correlations. *Psychometrika* 65, 23–28.
    .. [2] Seed 004 Eq. 4 (model–human similarity of impressions).
    """
    a, b = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
    keep = ~(np.isnan(a) | np.isnan(b))
    a, b = a[keep], b[keep]
    n = int(a.size)
    if n < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
        return math.nan, math.nan, math.nan, math.nan, n
    result = sps.spearmanr(a, b)
    rho, p = float(result[0]), float(result[1])
    if n <= 3 or abs(rho) >= 1:
        return rho, math.nan, math.nan, p, n
    z = math.atanh(rho)
    half = float(sps.norm.ppf(0.5 + confidence / 2)) * math.sqrt((1 + rho * rho / 2) / (n - 3))
    return rho, math.tanh(z - half), math.tanh(z + half), p, n


def correlate(
    x: ArrayLike, y: ArrayLike, method: Literal["pearson", "spearman"], confidence: float = 0.95
) -> tuple[float, float, float, float, int]:
    """Pearson (:func:`pearson_slope`: Fisher-z interval, exact p) or Spearman
    (:func:`spearman_with_ci`) correlation: ``(estimate, ci_low, ci_high, p, n)``."""
    if method == "spearman":
        return spearman_with_ci(x, y, confidence)
    result = pearson_slope(x, y, confidence_level=confidence)
    return result.r, result.ci_low, result.ci_high, result.p_value, result.n


#: Columns of :func:`correlation_columns`, for a frame's schema.
CORRELATION_SCHEMA: Final[dict[str, type[pl.DataType]]] = {
    "estimate": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "p": pl.Float64,
    "n": pl.Int64,
}


def correlation_columns(
    x: ArrayLike, y: ArrayLike, method: Literal["pearson", "spearman"] = "spearman", confidence: float = 0.95
) -> dict[str, float | int]:
    """:func:`correlate` as the result columns ``estimate, ci_low, ci_high, p, n`` of one row."""
    est, lo, hi, p, n = correlate(x, y, method, confidence)
    return {"estimate": est, "ci_low": lo, "ci_high": hi, "p": p, "n": n}
