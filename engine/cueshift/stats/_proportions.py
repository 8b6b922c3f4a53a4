"""Binomial proportions: Wilson interval, exact binomial test, odds with a pseudo-count, and a
proportion table over ``k``/``n`` columns (seed 002 Tables 1–4, seed 001 shares)."""

from __future__ import annotations

import math
from typing import Literal

import numpy as np
import polars as pl
from scipy import stats as sps

#: When the odds ratio adds 0.5 to both counts: every row, only at k = 0 or k = n, or never.
PseudoCount = Literal["always", "extreme", "none"]


def wilson_interval(k: int, n: int, confidence: float = 0.95) -> tuple[float, float]:
    r"""Wilson score interval for a binomial proportion :math:`\hat p = k/n`.

    .. math::

        \frac{\hat p + \frac{z^2}{2n}}{1 + \frac{z^2}{n}} \pm
        \frac{z}{1 + \frac{z^2}{n}} \sqrt{\frac{\hat p (1 - \hat p)}{n} + \frac{z^2}{4n^2}},
        \qquad z = \Phi^{-1}\!\left(\tfrac{1 + \text{confidence}}{2}\right),

    clipped to [0, 1] (exactly 0 at k = 0 and 1 at k = n); ``(nan, nan)`` when ``n`` is 0.

    Notes
    -----
    ``statsmodels.stats.proportion.proportion_confint(k, n, alpha, method="wilson")`` is the same
    interval but rounds differently (its :math:`z` is ``norm.isf(alpha / 2)``, and it divides
    the half-width last): the bounds differ in the last 1–2 digits for about one (k, n) in ten.
    This function is kept so the stored tables stay the same to the last digit; the tests
    compare the two to 1e-12 (``tests/stats/test_proportions.py``).

    References
    ----------
    .. [1] Wilson, E. B. (1927). Probable inference, the law of succession, and statistical
       inference. *JASA* 22, 209–212.
    .. [2] Seed 002 Tables 3–4 ("95% Wilson").

    Examples
    --------
    >>> [round(b, 3) for b in wilson_interval(32, 40)]
    [0.652, 0.895]
    """
    if n <= 0:
        return math.nan, math.nan
    z = float(sps.norm.ppf(0.5 + confidence / 2))
    p = k / n
    denom = 1.0 + z * z / n
    center = (p + z * z / (2 * n)) / denom
    half = z / denom * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    # the bounds are exactly 0 at k = 0 and 1 at k = n; rounding left 1e-17 outside k/n
    low = 0.0 if k == 0 else max(0.0, center - half)
    return low, 1.0 if k == n else min(1.0, center + half)


def binomial_test(k: int, n: int, p0: float = 0.5) -> float:
    r"""Exact two-sided binomial test of :math:`H_0: p = p_0`.

    .. math::

        p = \sum_{i:\ P(X = i) \le P(X = k)} \binom{n}{i} p_0^i (1 - p_0)^{n - i},

    the sum over outcomes no more likely than the observed one (relative tolerance
    :math:`10^{-7}`, the convention of ``scipy.stats.binomtest``); NaN when ``n`` is 0.

    Notes
    -----
    ``scipy.stats.binomtest(k, n, p0).pvalue`` defines the same p-value but adds a cdf and an sf
    instead of the probabilities, which changes the last digits; kept for reproducible tables,
    compared to scipy in the tests.

    References
    ----------
    .. [1] Seed 002 Table 4 (exact two-sided binomial test of the cohort preference vs 0.5).

    Examples
    --------
    >>> round(binomial_test(32, 40), 6)
    0.000182
    """
    if n <= 0:
        return math.nan
    pmf = sps.binom.pmf(np.arange(n + 1), n, p0)
    return float(min(1.0, pmf[pmf <= pmf[k] * (1 + 1e-7)].sum()))


def odds_ratio(k: int, n: int, rule: PseudoCount = "always") -> float:
    r"""Odds of a win, :math:`\hat p / (1 - \hat p)` (seed 002 Table 4's "OR").

    With the 0.5 pseudo-count, :math:`\hat p = (k + 0.5)/(n + 1)` and the odds are
    :math:`(k + 0.5)/(n - k + 0.5)`. ``rule``: ``'always'`` applies it to every row (it
    reproduces the published ORs of all rows with k ≥ 27 and 9/40, 18/40, 20/40),
    ``'extreme'`` only at k = 0 or k = n (the caption's wording), ``'none'`` never
    (infinite at k = n). NaN when ``n`` is 0.

    Examples
    --------
    >>> round(odds_ratio(32, 40), 3), odds_ratio(32, 40, "extreme")  # 32.5 / 8.5; 32 / 8
    (3.824, 4.0)
    """
    if n <= 0:
        return math.nan
    if rule == "always" or (rule == "extreme" and k in (0, n)):
        return (k + 0.5) / (n - k + 0.5)
    return math.inf if k == n else k / (n - k)


def proportion_rows(
    frame: pl.DataFrame, *, confidence: float = 0.95, pseudo_count: PseudoCount = "always", p0: float = 0.5
) -> pl.DataFrame:
    """Add ``estimate`` (k/n), Wilson ``ci_low``/``ci_high``, the exact two-sided binomial
    ``p`` against ``p0`` and ``odds_ratio`` to a frame with integer columns ``k`` and ``n``
    (:func:`wilson_interval`, :func:`binomial_test`, :func:`odds_ratio`); null where n is 0."""
    ks, ns = frame["k"].to_list(), frame["n"].to_list()
    pairs = list(zip(ks, ns, strict=True))
    bounds = [wilson_interval(k, n, confidence) for k, n in pairs]
    return frame.with_columns(
        pl.Series("estimate", [k / n if n else None for k, n in pairs], dtype=pl.Float64),
        pl.Series("ci_low", [b[0] for b in bounds], dtype=pl.Float64),
        pl.Series("ci_high", [b[1] for b in bounds], dtype=pl.Float64),
        pl.Series("p", [binomial_test(k, n, p0) for k, n in pairs], dtype=pl.Float64),
        pl.Series("odds_ratio", [odds_ratio(k, n, pseudo_count) for k, n in pairs], dtype=pl.Float64),
    )
